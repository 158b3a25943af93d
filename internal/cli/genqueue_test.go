package cli

import (
	"context"
	"encoding/json"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/stretchr/testify/require"

	"github.com/worldprobe/worldprobe/internal/gen"
	"github.com/worldprobe/worldprobe/internal/pgtest"
	"github.com/worldprobe/worldprobe/internal/task"
)

// tinyProvider answers every chat call, OpenAI-style, with the tiny
// task's reference page in prose and a fence, and counts the calls.
func tinyProvider(t *testing.T) (*fakeProvider, *atomic.Int32, string) {
	tasks, err := task.LoadSuite(tinySuite())
	require.NoError(t, err)
	solution, err := os.ReadFile(tasks[0].SolutionPath())
	require.NoError(t, err)
	reply := "Here is the page you asked for.\n\n```html\n" + string(solution) + "```\n"
	var calls atomic.Int32
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		calls.Add(1)
		if r.Header.Get("Authorization") != "Bearer "+genSecret {
			t.Errorf("a call without the worker's key")
		}
		w.Header().Set("Content-Type", "application/json")
		b, _ := json.Marshal(map[string]any{"id": "chatcmpl-1", "object": "chat.completion", "created": 1760000000, "model": "test-gpt",
			"choices": []any{map[string]any{"index": 0, "message": map[string]any{"role": "assistant", "content": reply}, "finish_reason": "stop"}},
			"usage":   map[string]any{"prompt_tokens": 300, "completion_tokens": 400, "total_tokens": 700}})
		_, _ = w.Write(b)
	}))
	t.Cleanup(srv.Close)
	return &fakeProvider{srv: srv}, &calls, string(solution)
}

// gen --db enqueues the generation and stops (interrupted: the job stays
// queued); a worker with --models generates the page with its own key,
// enqueues the page's trial into the run folder of --judge, judges it and
// drains; gen again keeps the sample, and 'run --db' over the model's
// folder finds the trial judged: one call, one trial, kept.
func TestGenJobsRunOnAWorker(t *testing.T) {
	p, calls, solution := tinyProvider(t)
	models := genModelsFile(t, p, nil, "")
	url := pgtest.Start(t).NewDB(t)
	out := filepath.Join(t.TempDir(), "gen")
	runDir := filepath.Join(t.TempDir(), "run")
	noKey := map[string]string{EnvWeb: webDir(t)}
	withKey := map[string]string{"TEST_OPENAI_KEY": genSecret, EnvWeb: webDir(t)}

	// gen checks the key it would call with; its --jobs 0 calls nothing.
	// Interrupted once its job is in the queue, it leaves it there.
	ctx, cancel := context.WithCancel(context.Background())
	type result struct {
		code   ExitCode
		stderr string
	}
	done := make(chan result, 1)
	go func() {
		code, _, stderr := executeIn(ctx, withKey, "gen", tinySuite(), "--model", "generator", "--models", models, "--out", out,
			"--db", url, "--jobs", "0", "--judge", runDir)
		done <- result{code, stderr}
	}()
	conn, err := pgx.Connect(context.Background(), url)
	require.NoError(t, err)
	defer conn.Close(context.Background())
	require.Eventually(t, func() bool {
		var n int
		err := conn.QueryRow(context.Background(), `SELECT count(*) FROM river_job WHERE kind = 'generate'`).Scan(&n)
		return err == nil && n == 1
	}, 2*time.Minute, 50*time.Millisecond)
	cancel()
	r := <-done
	code, stderr := r.code, r.stderr
	require.Equal(t, ExitInfrastructure, code, "stderr: %s", stderr)
	require.Contains(t, stderr, "1 to generate) as River jobs on ")
	require.Contains(t, stderr, "the other jobs stay queued")
	require.EqualValues(t, 0, calls.Load())

	code, _, stderr = executeIn(context.Background(), withKey, "worker", "--db", url, "--models", models, "--jobs", "1", "--drain")
	require.Equal(t, ExitOK, code, "stderr: %s", stderr)
	require.Contains(t, stderr, "generated simulation/tiny openai-test-gpt sample 1: done")
	require.Contains(t, stderr, "judged trials/simulation_tiny__openai-test-gpt__tiny__s0: ok")
	require.EqualValues(t, 1, calls.Load())
	page, err := os.ReadFile(filepath.Join(out, "openai-test-gpt", "sample-1", "simulation", "tiny", gen.PageFile))
	require.NoError(t, err)
	require.Equal(t, strings.TrimSpace(solution)+"\n", string(page))

	code, stdout, stderr := executeIn(context.Background(), withKey, "gen", tinySuite(), "--model", "generator", "--models", models, "--out", out,
		"--db", url, "--jobs", "0", "--judge", runDir)
	require.Equal(t, ExitOK, code, "stderr: %s", stderr)
	require.Contains(t, stderr, "(1 kept, 0 to generate)")
	require.Contains(t, stdout, "each finished page's trial was enqueued into "+runDir)

	code, stdout, stderr = executeIn(context.Background(), noKey, "run", tinySuite(), "--candidates", "openai-test-gpt="+filepath.Join(out, "openai-test-gpt"),
		"--db", url, "--jobs", "0", "--out", runDir)
	require.Equal(t, ExitOK, code, "stderr: %s", stderr)
	require.Contains(t, stdout, "1 trials (0 run, 1 kept)")
	trials := readTrials(t, runDir)
	require.Len(t, trials, 1)
	tr := trials["simulation_tiny__openai-test-gpt__tiny__s0"]
	require.NotNil(t, tr, "trials: %v", trials)
	require.True(t, tr.Pass)
	require.EqualValues(t, 1, calls.Load(), "one call in all")
}

// gen --executor river generates through River on OUT/queue.db with this
// process's workers: the same pages and records as the pool, and a second
// run calls nothing.
func TestGenExecutorRiverLocal(t *testing.T) {
	p, calls, _ := tinyProvider(t)
	models := genModelsFile(t, p, nil, "")
	env := map[string]string{"TEST_OPENAI_KEY": genSecret, EnvWeb: webDir(t)}
	var recs []*gen.Record
	for _, executor := range []string{"pool", "river"} {
		out := filepath.Join(t.TempDir(), "gen")
		code, _, stderr := executeIn(context.Background(), env, "gen", tinySuite(), "--model", "generator", "--models", models, "--out", out,
			"-n", "2", "--executor", executor)
		require.Equal(t, ExitOK, code, "stderr: %s", stderr)
		for k := 1; k <= 2; k++ {
			r, err := gen.ReadRecord(filepath.Join(out, "openai-test-gpt", gen.SampleDir(k), "simulation", "tiny"))
			require.NoError(t, err)
			require.NotNil(t, r)
			r.LatencyMS = 0
			recs = append(recs, r)
		}
		if executor == "river" {
			require.FileExists(t, filepath.Join(out, "queue.db"))
			code, _, stderr := executeIn(context.Background(), env, "gen", tinySuite(), "--model", "generator", "--models", models, "--out", out,
				"-n", "2", "--executor", executor)
			require.Equal(t, ExitOK, code, "stderr: %s", stderr)
			require.Contains(t, stderr, "(2 kept, 0 to generate)")
		}
	}
	require.Equal(t, recs[:2], recs[2:])
	require.EqualValues(t, 4, calls.Load())
}
