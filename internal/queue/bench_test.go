package queue

import (
	"context"
	"path/filepath"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/worldprobe/worldprobe/internal/pgtest"
	"github.com/worldprobe/worldprobe/internal/run"
	"github.com/worldprobe/worldprobe/internal/task"
)

// overheadTrials is how many trials each benchmark operation judges.
const overheadTrials = 40

// BenchmarkOverhead measures what an executor adds per trial: the trials
// have no page (a model that wrote none), so judging one is loading its
// task and writing its result — everything else is the executor's
// (enqueue, fetch, save, complete, collect). Compare pool with River on
// SQLite and on PostgreSQL:
//
//	go test ./internal/queue -run '^$' -bench Overhead -benchtime 3x
func BenchmarkOverhead(b *testing.B) {
	tk, err := task.Load(filepath.Join("testdata", "suite", "simulation", "tiny"))
	require.NoError(b, err)
	p, err := run.Plan([]*task.Task{tk}, []run.Source{{Model: "absent", Dir: b.TempDir()}}, overheadTrials)
	require.NoError(b, err)
	require.Len(b, p, overheadTrials)
	ctx := context.Background()
	measure := func(b *testing.B, exec func(b *testing.B) run.Executor) {
		var total time.Duration
		for i := 0; i < b.N; i++ {
			b.StopTimer()
			e := exec(b)
			out := filepath.Join(b.TempDir(), "run")
			b.StartTimer()
			start := time.Now()
			sum, err := run.Execute(ctx, run.Options{Out: out, Config: run.Config{Repeat: overheadTrials}, Plan: p, Runner: runner(), Jobs: 2, Executor: e})
			total += time.Since(start)
			require.NoError(b, err)
			require.Len(b, sum.Trials, overheadTrials)
		}
		b.ReportMetric(float64(total.Milliseconds())/float64(b.N*overheadTrials), "ms/trial")
	}
	b.Run("pool", func(b *testing.B) { measure(b, func(*testing.B) run.Executor { return nil }) })
	b.Run("river-sqlite", func(b *testing.B) {
		measure(b, func(b *testing.B) run.Executor {
			q, err := OpenSQLite(ctx, filepath.Join(b.TempDir(), "queue.db"), Config{Workers: 2, Runner: runner()})
			require.NoError(b, err)
			b.Cleanup(func() { q.Close() })
			require.NoError(b, q.Start(ctx))
			return &Executor{Queue: q}
		})
	})
	b.Run("river-postgres", func(b *testing.B) {
		srv := pgtest.Start(b)
		measure(b, func(b *testing.B) run.Executor {
			q, err := OpenPostgres(ctx, srv.NewDB(b), Config{Workers: 2, Runner: runner()})
			require.NoError(b, err)
			b.Cleanup(func() { q.Close() })
			require.NoError(b, q.Start(ctx))
			return &Executor{Queue: q}
		})
	})
}
