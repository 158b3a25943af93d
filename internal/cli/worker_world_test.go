package cli

import (
	"context"
	"encoding/json"
	"path/filepath"
	"testing"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/stretchr/testify/require"

	"github.com/worldprobe/worldprobe/internal/pgtest"
	"github.com/worldprobe/worldprobe/internal/result"
)

// TestWorkerJudgesWorlds: the small world-judged suite (testdata/worldsuite)
// run offline here, and the same suite enqueued with 'run --offline --db
// --jobs 0' in a PostgreSQL started by the test and judged by a
// 'worldprobe worker' without --models, give the same trial: the same key
// (which holds the judge's configuration, "offline", as the job's spec
// does), the same world score, assertions, state hash and verdict, and the
// judge's files in the trial folder. Before this worker had a world judge,
// such a trial was an infrastructure error naming it.
func TestWorkerJudgesWorlds(t *testing.T) {
	start := time.Now()
	ctx := context.Background()
	local := filepath.Join(t.TempDir(), "local")
	code, _, stderr := execute(t, "run", worldSuite(), "--oracle", "--offline", "--jobs", "1", "--out", local)
	require.Equal(t, ExitOK, code, "stderr: %s", stderr)
	localTrials := readTrials(t, local)
	require.Len(t, localTrials, 1)
	var want *result.Trial
	for _, tr := range localTrials {
		want = tr
	}
	require.Equal(t, result.OutcomeOK, want.Outcome, "crash: %s", want.CrashMessage)
	require.NotNil(t, want.World)
	t.Logf("local run: %s", time.Since(start).Round(time.Millisecond))

	url := pgtest.Start(t).NewDB(t)
	out := filepath.Join(t.TempDir(), "queued")
	enq := startCommand(t, "run", worldSuite(), "--oracle", "--offline", "--db", url, "--jobs", "0", "--out", out, "--web", webDir(t))

	conn, err := pgx.Connect(ctx, url)
	require.NoError(t, err)
	defer conn.Close(ctx)
	var spec struct {
		Key        string `json:"key"`
		WorldJudge string `json:"world_judge"`
	}
	require.Eventually(t, func() bool {
		var args []byte
		return conn.QueryRow(ctx, `SELECT args->'spec' FROM river_job WHERE kind = 'trial'`).Scan(&args) == nil && json.Unmarshal(args, &spec) == nil
	}, 120*time.Second, 100*time.Millisecond, "the run enqueues the trial: %s", &enq.stderr)
	require.Equal(t, "offline", spec.WorldJudge, "the job says how its world is judged")
	require.Equal(t, want.Key, spec.Key, "the same trial as the local run's, judged the same way")

	worker := worldprobeCommand(t, "worker", "--db", url, "--jobs", "1", "--drain", "--web", webDir(t))
	workerErr := &lines{}
	workerPipe, err := worker.StderrPipe()
	require.NoError(t, err)
	require.NoError(t, worker.Start())
	workerDone := make(chan error, 1)
	go func() { workerErr.read(workerPipe, nil); workerDone <- worker.Wait() }()
	select {
	case err := <-workerDone:
		require.NoError(t, err, "worker:\n%s", workerErr)
	case <-time.After(300 * time.Second):
		worker.Process.Kill()
		t.Fatalf("the worker did not drain the queue:\n%s", workerErr)
	}
	select {
	case err := <-enq.done:
		require.NoError(t, err, "run:\n%s\n%s", &enq.stderr, &enq.stdout)
	case <-time.After(60 * time.Second):
		t.Fatalf("run did not end:\n%s", &enq.stderr)
	}
	require.Regexp(t, `(?m)^judged \S+: ok$`, workerErr.String(), "the worker judged the trial")
	require.Contains(t, enq.stdout.String(), "1 trials (1 run, 0 kept)")

	trials := readTrials(t, out)
	require.Len(t, trials, 1)
	for dir, got := range trials {
		require.Equal(t, result.OutcomeOK, got.Outcome, "crash: %s", got.CrashMessage)
		require.Equal(t, want.Key, got.Key)
		require.Equal(t, want.World, got.World)
		require.Equal(t, want.Assertions, got.Assertions)
		require.Equal(t, want.StateHash, got.StateHash, "the worker's judge saw what the local one saw")
		require.Equal(t, want.Pass, got.Pass)
		require.Equal(t, want.VCov, got.VCov)
		require.Equal(t, want.Unjudged, got.Unjudged)
		for _, f := range []string{"judge.json", "judge.html", "frames/time_00.png", "frames/biome_peak.png"} {
			require.FileExists(t, filepath.Join(out, "trials", dir, filepath.FromSlash(f)))
			require.Contains(t, got.Artifacts, f)
		}
	}
	abs, err := filepath.Abs(out)
	require.NoError(t, err)
	var doc []byte
	require.NoError(t, conn.QueryRow(ctx, `SELECT doc FROM worldprobe_trials WHERE run = $1 AND key = $2`, abs, want.Key).Scan(&doc))
	saved := &result.Trial{}
	require.NoError(t, json.Unmarshal(doc, saved))
	require.Equal(t, want.World, saved.World, "the score in PostgreSQL")
	t.Logf("local run, then the queue and the worker: %s", time.Since(start).Round(time.Millisecond))
}
