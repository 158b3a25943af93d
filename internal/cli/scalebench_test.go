package cli

import (
	"context"
	"fmt"
	"io/fs"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/stretchr/testify/require"

	"github.com/worldprobe/worldprobe/internal/pgtest"
	"github.com/worldprobe/worldprobe/internal/task"
)

// EnvBenchWorkers turns on TestScaleOutThroughput, the scale-out
// benchmark of docs/PERFORMANCE.md (minutes of real trials: never part of
// make test or make test-slow); "workers" leaves out the in-process pool's
// runs.
const EnvBenchWorkers = "WORLDPROBE_BENCH_WORKERS"

// EnvBenchTasks is the --task glob of the benchmark's trials (default
// application/*: 11 references).
const EnvBenchTasks = "WORLDPROBE_BENCH_TASKS"

// loadAvg is the machine's 1-minute load average (/proc/loadavg).
func loadAvg() string {
	b, err := os.ReadFile("/proc/loadavg")
	if err != nil {
		return "?"
	}
	return strings.Fields(string(b))[0]
}

// dbStats are a database's committed transactions and written rows
// (pg_stat_database), to count the writes a run costs.
type dbStats struct{ commits, inserted, updated, deleted int64 }

func statsOf(ctx context.Context, t *testing.T, conn *pgx.Conn) dbStats {
	t.Helper()
	// The statistics collector publishes at most every 500 ms; a fresh
	// snapshot is forced for this session.
	_, err := conn.Exec(ctx, `SELECT pg_stat_clear_snapshot()`)
	require.NoError(t, err)
	var s dbStats
	require.NoError(t, conn.QueryRow(ctx, `SELECT xact_commit, tup_inserted, tup_updated, tup_deleted FROM pg_stat_database
		WHERE datname = current_database()`).Scan(&s.commits, &s.inserted, &s.updated, &s.deleted))
	return s
}

// folderBytes is the size of every file under dir.
func folderBytes(t *testing.T, dir string) int64 {
	t.Helper()
	var n int64
	require.NoError(t, filepath.WalkDir(dir, func(_ string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() {
			return err
		}
		fi, err := d.Info()
		if err == nil {
			n += fi.Size()
		}
		return err
	}))
	return n
}

// TestScaleOutThroughput measures trials per minute on the starter
// suite's application tasks (their references: 11 trials) with 1, 2 and
// 4 'worldprobe worker' processes (--jobs 1 each) against one PostgreSQL
// on loopback, beside the in-process pool (run --jobs 1 and 2), with the
// load average at the start and end of each, the database writes per
// trial (pg_stat_database) and the bytes of a trial folder. Run it with
//
//	WORLDPROBE_BENCH_WORKERS=1 go test ./internal/cli -run TestScaleOutThroughput -v -timeout 2h
//
// (WORLDPROBE_BENCH_TASKS='application/[a-d]*' for fewer trials,
// WORLDPROBE_BENCH_WORKERS=workers for the workers alone).
//
// It asserts only that every trial was judged once; the numbers are
// logged for docs/PERFORMANCE.md.
func TestScaleOutThroughput(t *testing.T) {
	if os.Getenv(EnvBenchWorkers) == "" {
		t.Skip("the scale-out benchmark: set " + EnvBenchWorkers + "=1")
	}
	ctx := context.Background()
	srv := pgtest.Start(t)
	bin := filepath.Join(t.TempDir(), "worldprobe")
	build := exec.Command("go", "build", "-o", bin, "../../cmd/worldprobe")
	build.Stderr = os.Stderr
	require.NoError(t, build.Run())
	suite := filepath.Join("..", "..", "suites", "starter")
	glob := os.Getenv(EnvBenchTasks)
	if glob == "" {
		glob = "application/*"
	}
	tasks, err := task.Select([]string{suite}, []string{glob})
	require.NoError(t, err)
	trials := len(tasks) // one reference each
	base := []string{"run", suite, "--oracle", "--task", glob, "--web", webDir(t)}
	pools := []int{1, 2}
	if os.Getenv(EnvBenchWorkers) == "workers" {
		pools = nil
	}

	var rows []string
	report := func(what string, n int, d time.Duration, l0, l1 string, extra string) {
		row := fmt.Sprintf("| %s | %d | %.1f s | %.2f | %s → %s | %s |", what, n, d.Seconds(), float64(n)/d.Minutes(), l0, l1, extra)
		rows = append(rows, row)
		t.Log(row)
	}

	for _, jobs := range pools {
		out := filepath.Join(t.TempDir(), "run")
		l0, start := loadAvg(), time.Now()
		cmd := exec.Command(bin, append(base, "--jobs", fmt.Sprint(jobs), "--out", out)...)
		b, err := cmd.CombinedOutput()
		require.NoError(t, err, "%s", b)
		d := time.Since(start)
		require.Len(t, readTrials(t, out), trials)
		report(fmt.Sprintf("pool, run --jobs %d", jobs), trials, d, l0, loadAvg(), fmt.Sprintf("%d B/trial folder", folderBytes(t, filepath.Join(out, "trials"))/int64(trials)))
	}

	for _, workers := range []int{1, 2, 4} {
		url := srv.NewDB(t)
		conn, err := pgx.Connect(ctx, url)
		require.NoError(t, err)
		out := filepath.Join(t.TempDir(), "run")
		run := exec.Command(bin, append(base, "--db", url, "--jobs", "0", "--out", out)...)
		var runOut strings.Builder
		run.Stdout, run.Stderr = &runOut, &runOut
		require.NoError(t, run.Start())
		require.Eventually(t, func() bool {
			var n int
			return conn.QueryRow(ctx, `SELECT count(*) FROM river_job WHERE kind = 'trial'`).Scan(&n) == nil && n == trials
		}, 5*time.Minute, 100*time.Millisecond, "the run enqueues its trials")
		s0 := statsOf(ctx, t, conn)
		l0, start := loadAvg(), time.Now()
		var cmds []*exec.Cmd
		for range workers {
			w := exec.Command(bin, "worker", "--db", url, "--jobs", "1", "--drain", "--web", webDir(t))
			require.NoError(t, w.Start())
			cmds = append(cmds, w)
		}
		for _, w := range cmds {
			require.NoError(t, w.Wait())
		}
		d := time.Since(start)
		s1 := statsOf(ctx, t, conn)
		l1 := loadAvg()
		require.NoError(t, run.Wait(), runOut.String())
		require.Len(t, readTrials(t, out), trials)
		var saved int
		require.NoError(t, conn.QueryRow(ctx, `SELECT count(*) FROM worldprobe_trials`).Scan(&saved))
		require.Equal(t, trials, saved, "every trial once")
		conn.Close(ctx)
		per := func(v int64) float64 { return float64(v) / float64(trials) }
		report(fmt.Sprintf("River on PostgreSQL, %d worker(s) × --jobs 1", workers), trials, d, l0, l1,
			fmt.Sprintf("%.1f commits, %.1f rows inserted, %.1f updated, %.1f deleted per trial", per(s1.commits-s0.commits),
				per(s1.inserted-s0.inserted), per(s1.updated-s0.updated), per(s1.deleted-s0.deleted)))
	}
	t.Log("\n| executor | trials | wall | trials/min | load average (1 min) | notes |\n|---|---:|---:|---:|---|---|\n" + strings.Join(rows, "\n"))
}
