package queue

import (
	"context"
	"path/filepath"
	"testing"

	"github.com/jackc/pgx/v5"
	"github.com/riverqueue/river"
	"github.com/stretchr/testify/require"

	"github.com/worldprobe/worldprobe/internal/pgtest"
	"github.com/worldprobe/worldprobe/internal/report"
)

// The viewer's count of the generation and repair jobs feeding a run:
// only that run's, by kind and state, in real PostgreSQL; none before
// River's tables exist.
func TestStepCounterInPostgres(t *testing.T) {
	ctx := context.Background()
	url := pgtest.Start(t).NewDB(t)
	run := filepath.Join(t.TempDir(), "run")

	c, err := NewStepCounter(ctx, url, run)
	require.NoError(t, err)
	defer c.Close()
	got, err := c.Count(ctx)
	require.NoError(t, err)
	require.Empty(t, got, "no River tables yet")

	q, err := OpenPostgres(ctx, url, Config{}) // no workers: the jobs wait
	require.NoError(t, err)
	defer q.Close()
	step := func(key, judged string) Step {
		s := Step{Out: "/gen", Key: key, Model: "openai/gpt", Slug: "openai-gpt"}
		if judged != "" {
			s.Judge = &Judge{Run: judged, Model: "gpt"}
		}
		return s
	}
	ids, err := q.Enqueue(ctx, []river.JobArgs{
		GenerateArgs{Step: step("g1", run), Attempt: 1},
		GenerateArgs{Step: step("g2", run), Attempt: 1},
		GenerateArgs{Step: step("g3", run), Attempt: 1},
		GenerateArgs{Step: step("g4", run), Attempt: 1},
		RepairArgs{Step: step("r1", run), Repair: RepairStep{Rounds: 1}},
		GenerateArgs{Step: step("other", "/elsewhere/run"), Attempt: 1},
		GenerateArgs{Step: step("unjudged", ""), Attempt: 1},
	})
	require.NoError(t, err)
	require.Len(t, ids, 7)
	got, err = c.Count(ctx)
	require.NoError(t, err)
	require.Equal(t, []report.StepCount{{Kind: "generate", Queued: 4}, {Kind: "repair", Queued: 1}}, got)

	// One running, one done, one given up, as River records them.
	conn, err := pgx.Connect(ctx, url)
	require.NoError(t, err)
	defer conn.Close(ctx)
	_, err = conn.Exec(ctx, `UPDATE river_job SET state = 'running', attempt = 1, attempted_at = now() WHERE id = $1`, ids[0])
	require.NoError(t, err)
	_, err = conn.Exec(ctx, `UPDATE river_job SET state = 'completed', attempt = 1, attempted_at = now(), finalized_at = now() WHERE id = ANY($1)`, []int64{ids[1], ids[4]})
	require.NoError(t, err)
	_, err = conn.Exec(ctx, `UPDATE river_job SET state = 'cancelled', attempt = 1, attempted_at = now(), finalized_at = now() WHERE id = $1`, ids[2])
	require.NoError(t, err)
	got, err = c.Count(ctx)
	require.NoError(t, err)
	require.Equal(t, []report.StepCount{{Kind: "generate", Queued: 1, Running: 1, Done: 1, GivenUp: 1}, {Kind: "repair", Done: 1}}, got)
}
