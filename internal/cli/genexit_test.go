package cli

import (
	"context"
	"net/http"
	"net/http/httptest"
	"path/filepath"
	"sync/atomic"
	"testing"

	"github.com/stretchr/testify/require"
)

// refusingProvider answers every chat call as OpenAI answers a revoked
// key: 401 with its error body.
func refusingProvider(t *testing.T) (*fakeProvider, *atomic.Int32) {
	var calls atomic.Int32
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		calls.Add(1)
		w.Header().Set("Content-Type", "application/json")
		w.WriteHeader(http.StatusUnauthorized)
		_, _ = w.Write([]byte(`{"error":{"message":"Incorrect API key provided: sk-test***********cret. You can find your API key at https://platform.openai.com/account/api-keys.","type":"invalid_request_error","param":null,"code":"invalid_api_key"}}`))
	}))
	t.Cleanup(srv.Close)
	return &fakeProvider{srv: srv}, &calls
}

// A queued gen (River, this process's workers) exits as the pool does:
// a provider refusing for good or a spent budget cancels the job and
// stops gen with the model-fatal code, and a bad command line is a usage
// error. Infrastructure (any other job given up on) is 3:
// queue's TestStepErrorClasses.
func TestGenQueuedExitCodes(t *testing.T) {
	for _, executor := range []string{"pool", "river"} {
		t.Run(executor, func(t *testing.T) {
			p, calls := refusingProvider(t)
			models := genModelsFile(t, p, nil, "")
			out := filepath.Join(t.TempDir(), "gen")
			code, _, stderr := executeIn(context.Background(), genEnv, "gen", tinySuite(), "--model", "generator", "--models", models,
				"--out", out, "--jobs", "1", "--executor", executor)
			require.Equal(t, ExitModelFatal, code, "stderr: %s", stderr)
			require.Contains(t, stderr, "invalid_api_key")
			require.EqualValues(t, 1, calls.Load(), "a refusal for good is not retried")
			if executor == "river" {
				require.Contains(t, stderr, "worldprobe: gen stopped: step given up: generate job 1 cancelled after 1 attempts: generating simulation/tiny")
				require.NotContains(t, stderr, "[model-fatal]")
			}

			// A budget: the first sample's call spends $0.0038 of $0.001; the
			// second is refused before it starts.
			tp, tcalls, _ := tinyProvider(t)
			tight := genModelsFile(t, tp, nil, "budgets: {run_usd: 0.001}\n")
			out = filepath.Join(t.TempDir(), "gen")
			code, _, stderr = executeIn(context.Background(), genEnv, "gen", tinySuite(), "--model", "generator", "--models", tight,
				"--out", out, "--jobs", "1", "-n", "2", "--executor", executor)
			require.Equal(t, ExitModelFatal, code, "stderr: %s", stderr)
			require.Contains(t, stderr, "run budget exceeded: $0.0038 of $0.0010 spent")
			require.EqualValues(t, 1, tcalls.Load())
		})
	}

	for _, args := range [][]string{
		{"--executor", "river", "--jobs", "0"},
		{"--db", "mysql://x/y", "--jobs", "0"},
		{"--executor", "celery"},
		{"--judge", "somewhere"},
	} {
		code, _, stderr := executeIn(context.Background(), genEnv, append([]string{"gen", tinySuite(), "--model", "generator", "--out", t.TempDir()}, args...)...)
		require.Equal(t, ExitUsage, code, "%v: stderr: %s", args, stderr)
	}
}
