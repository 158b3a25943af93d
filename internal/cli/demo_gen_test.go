package cli

import (
	"context"
	"encoding/json"
	"io"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"regexp"
	"sort"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/worldprobe/worldprobe/internal/llm"
	"github.com/worldprobe/worldprobe/internal/task"
)

// The recorded generation leg of make demo (examples/demo-gen/README.md).
const (
	demoGenDir = "../../examples/demo-gen"
	demoModelA = "openai/demo-model-a"
	demoModelB = "anthropic/demo-model-b"
)

// demoTasks reads DEMO_TASKS from the Makefile, so the recordings follow it.
func demoTasks(t *testing.T) []string {
	t.Helper()
	mk, err := os.ReadFile(filepath.Join("..", "..", "Makefile"))
	require.NoError(t, err)
	m := regexp.MustCompile(`(?m)^DEMO_TASKS = (.+)$`).FindSubmatch(mk)
	require.NotNil(t, m, "the Makefile sets DEMO_TASKS")
	return strings.Split(strings.TrimSpace(string(m[1])), ",")
}

// demoProvider answers each demo task's prompt with examples/demo-gen's
// reply of model (by its folder, model-a or model-b), in the provider's
// own wire format; tokens are text lengths / 4.
func demoProvider(t *testing.T, wire, model string, tasks []*task.Task) *httptest.Server {
	t.Helper()
	replies := map[string]string{}
	for _, tk := range tasks {
		pr, err := tk.Prompt()
		require.NoError(t, err)
		b, err := os.ReadFile(filepath.Join(demoGenDir, "replies", model, filepath.Base(tk.ID)+".md"))
		require.NoError(t, err)
		replies[pr] = string(b)
	}
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		raw, _ := io.ReadAll(r.Body)
		var body map[string]any
		require.NoError(t, json.Unmarshal(raw, &body))
		var prompt string
		for _, m := range body["messages"].([]any) {
			if mm := m.(map[string]any); mm["role"] == "user" {
				prompt = text(mm["content"])
			}
		}
		reply, ok := replies[prompt]
		if !ok {
			t.Errorf("%s: a prompt of no demo task: %.200q", wire, prompt)
			http.Error(w, `{"error":{"message":"unknown prompt"}}`, http.StatusBadRequest)
			return
		}
		in, out := len(raw)/4, len(reply)/4
		var v any
		if wire == "openai" {
			v = map[string]any{
				"id": "chatcmpl-demo", "object": "chat.completion", "created": 1764633600, "model": "demo-model-a",
				"choices": []any{map[string]any{"index": 0, "finish_reason": "stop", "logprobs": nil,
					"message": map[string]any{"role": "assistant", "content": reply, "refusal": nil}}},
				"usage": map[string]any{"prompt_tokens": in, "completion_tokens": out, "total_tokens": in + out},
			}
		} else {
			v = map[string]any{
				"id": "msg_demo", "type": "message", "role": "assistant", "model": "demo-model-b",
				"content": []any{map[string]any{"type": "text", "text": reply}}, "stop_reason": "end_turn", "stop_sequence": nil,
				"usage": map[string]any{"input_tokens": in, "output_tokens": out},
			}
		}
		w.Header().Set("Content-Type", "application/json")
		require.NoError(t, json.NewEncoder(w).Encode(v))
	}))
	t.Cleanup(srv.Close)
	return srv
}

// TestDemoRecordings: make demo's generation leg replays, with no models
// file, no key and no network, exactly the calls gen makes today for
// DEMO_TASKS, and each answer is the reply in examples/demo-gen/replies.
// With -update it records them again through a local stand-in provider.
func TestDemoRecordings(t *testing.T) {
	ids := demoTasks(t)
	all, err := task.LoadSuite(filepath.Join("..", "..", "suites", "starter"))
	require.NoError(t, err)
	var tasks []*task.Task
	for _, tk := range all {
		for _, id := range ids {
			if tk.ID == id {
				tasks = append(tasks, tk)
			}
		}
	}
	require.Len(t, tasks, len(ids))
	ctx := context.Background()
	// The Robust variants make demo judges, written as make demo writes them.
	variants := filepath.Join(t.TempDir(), "variants")
	code, _, stderr := executeIn(ctx, nil, "suite", "perturb", filepath.Join("..", "..", "suites", "starter"),
		"--task", strings.Join(ids, ","), "--variants", "1", "--seed", "1", "--out", variants)
	require.Equal(t, ExitOK, code, "stderr: %s", stderr)
	vtasks, err := task.LoadSuite(variants)
	require.NoError(t, err)
	require.Len(t, vtasks, len(ids))
	tasks = append(tasks, vtasks...)
	for _, v := range vtasks {
		ids = append(ids, v.ID)
	}
	recordings := filepath.Join(demoGenDir, "recordings")
	// As the Makefile does: the task folders and the variants folder.
	var sources []string
	for _, id := range ids[:len(ids)-len(vtasks)] {
		sources = append(sources, filepath.Join("..", "..", "suites", "starter", filepath.FromSlash(id)))
	}
	sources = append(sources, variants)
	var taskArgs []string

	if *update {
		a := demoProvider(t, "openai", "model-a", tasks)
		b := demoProvider(t, "anthropic", "model-b", tasks)
		prices, err := os.ReadFile(filepath.Join(demoGenDir, "models.yaml"))
		require.NoError(t, err)
		models := filepath.Join(t.TempDir(), "models.yaml")
		require.NoError(t, os.WriteFile(models, []byte(string(prices)+`roles:
  generator: {provider: openai, model: demo-model-a, base_url: "`+a.URL+`/v1"}
  repairer: {provider: anthropic, model: demo-model-b, base_url: "`+b.URL+`/"}
`), 0o644))
		fresh := filepath.Join(t.TempDir(), "recordings")
		out := t.TempDir()
		{
			args := append(append([]string{"gen"}, sources...), append([]string{"--model", demoModelA, "--model", demoModelB,
				"--models", models, "--record", fresh, "--out", out}, taskArgs...)...)
			code, _, stderr := executeIn(ctx, map[string]string{"OPENAI_API_KEY": genSecret, "ANTHROPIC_API_KEY": genSecret}, args...)
			require.Equal(t, ExitOK, code, "stderr: %s", stderr)
		}
		// A stand-in answers in a millisecond: give each call the time a
		// model writing 40 tokens a second would take, so TEM reads true.
		files, err := filepath.Glob(filepath.Join(fresh, "*", "*.json"))
		require.NoError(t, err)
		require.Len(t, files, 2*len(ids))
		for _, f := range files {
			var rec llm.Recording
			b, err := os.ReadFile(f)
			require.NoError(t, err)
			require.NoError(t, json.Unmarshal(b, &rec))
			rec.Response.Latency = time.Duration(rec.Response.Usage.OutputTokens) * time.Second / 40
			out, err := json.MarshalIndent(rec, "", "  ")
			require.NoError(t, err)
			require.NoError(t, os.WriteFile(f, append(out, '\n'), 0o644))
		}
		require.NoError(t, os.RemoveAll(recordings))
		require.NoError(t, os.CopyFS(recordings, os.DirFS(fresh)))
	}

	// Replay as make demo does: no models file, no key.
	out := t.TempDir()
	{
		args := append(append([]string{"gen"}, sources...), append([]string{"--model", demoModelA, "--model", demoModelB,
			"--replay", recordings, "--out", out}, taskArgs...)...)
		code, _, stderr := executeIn(ctx, map[string]string{}, args...)
		require.Equal(t, ExitOK, code, "the demo's recordings are stale (a brief, an interface or the generation prompt changed): "+
			"run go test ./internal/cli -run TestDemoRecordings -update\nstderr: %s", stderr)
	}
	var pages []string
	for _, slug := range []string{"openai-demo-model-a", "anthropic-demo-model-b"} {
		for _, id := range ids {
			p := filepath.Join(out, slug, "sample-1", id, "index.html")
			_, err := os.Stat(p)
			require.NoError(t, err, "gen wrote %s", p)
			pages = append(pages, filepath.Join(slug, id))
			var rec struct {
				Status    string  `json:"status"`
				CostUSD   float64 `json:"cost_usd"`
				LatencyMs float64 `json:"latency_ms"`
			}
			b, err := os.ReadFile(filepath.Join(filepath.Dir(p), "gen.json"))
			require.NoError(t, err)
			require.NoError(t, json.Unmarshal(b, &rec))
			require.Greater(t, rec.CostUSD, 0.0, "%s is priced", p)
			require.Greater(t, rec.LatencyMs, 10_000.0, "%s took a model's time", p)
		}
	}
	sort.Strings(pages)
	require.Len(t, pages, 2*len(ids))
}

// TestBenchModelsReplaysAndJudges: one command from two (recorded) models to
// a leaderboard — gen into OUT/gen, run over each model's folder into
// OUT/run — and the same command again pays and judges nothing twice.
func TestBenchModelsReplaysAndJudges(t *testing.T) {
	out := t.TempDir()
	args := []string{"bench-models", filepath.Join("..", "..", "suites", "starter", "application", "bar-chart"),
		"--model", demoModelA, "--model", demoModelB, "--replay", filepath.Join(demoGenDir, "recordings"), "--oracle", "--out", out, "--web", webDir(t)}
	ctx := context.Background()
	code, stdout, stderr := executeIn(ctx, nil, args...)
	require.Equal(t, ExitOK, code, "stderr: %s", stderr)
	require.Contains(t, stderr, "bench-models: judging 2 model folders → "+filepath.Join(out, "run"))
	require.Contains(t, stdout, "3 trials (3 run, 0 kept)")

	type value struct {
		Value *float64 `json:"value"`
	}
	var board struct {
		Rows []struct {
			Model     string  `json:"model"`
			Trials    int     `json:"trials"`
			VCov      float64 `json:"v_cov"`
			Economics struct {
				RoA value `json:"roa"`
				TEM value `json:"tem"`
			} `json:"economics"`
		} `json:"rows"`
	}
	b, err := os.ReadFile(filepath.Join(out, "run", "leaderboard.json"))
	require.NoError(t, err)
	require.NoError(t, json.Unmarshal(b, &board))
	got := map[string]bool{}
	for _, r := range board.Rows {
		got[r.Model] = true
		require.Equal(t, 1, r.Trials, r.Model)
		require.Equal(t, 1.0, r.VCov, "%s: the blind page passes", r.Model)
		if r.Model != "oracle" {
			require.NotNil(t, r.Economics.RoA.Value, "%s is priced from gen.json", r.Model)
			require.NotNil(t, r.Economics.TEM.Value, r.Model)
		}
	}
	require.Equal(t, map[string]bool{"openai-demo-model-a": true, "anthropic-demo-model-b": true, "oracle": true}, got)

	code, stdout, stderr = executeIn(ctx, nil, args...)
	require.Equal(t, ExitOK, code, "stderr: %s", stderr)
	require.Contains(t, stderr, "(2 kept, 0 to generate)")
	require.Contains(t, stdout, "3 trials (0 run, 3 kept)")
}

func TestBenchModelsOneSuite(t *testing.T) {
	starter := filepath.Join("..", "..", "suites", "starter")
	suite, ids, err := oneSuite([]string{filepath.Join(starter, "application", "bar-chart"), filepath.Join(starter, "simulation", "pendulum")})
	require.NoError(t, err)
	require.Equal(t, filepath.Clean(starter), suite)
	require.Equal(t, []string{"application/bar-chart", "simulation/pendulum"}, ids)

	suite, ids, err = oneSuite([]string{starter})
	require.NoError(t, err)
	require.Equal(t, starter, suite)
	require.Nil(t, ids, "one folder is run's SUITE as it is")
}
