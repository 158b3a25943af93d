package cli

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"sort"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/worldprobe/worldprobe/internal/llm"
	"github.com/worldprobe/worldprobe/internal/task"
	"github.com/worldprobe/worldprobe/internal/testenv"
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

// demoReply is one task's recorded answer: the reply, and when the model
// was cut off by its output limit, the rest it wrote when asked to go on.
type demoReply struct{ first, rest string }

// demoProvider answers each task's prompt with examples/demo-gen's reply
// of model (by its folder, model-a or model-b), in the provider's own wire
// format; tokens are text lengths / 4. A task with a <task>.continued.md
// beside its <task>.md is answered in two turns: <task>.md cut off by the
// output limit, then, asked to continue, <task>.continued.md.
func demoProvider(t *testing.T, wire, model string, tasks []*task.Task) *httptest.Server {
	t.Helper()
	replies := map[string]demoReply{}
	for _, tk := range tasks {
		pr, err := tk.Prompt()
		require.NoError(t, err)
		base := filepath.Join(demoGenDir, "replies", model, filepath.Base(tk.ID))
		b, err := os.ReadFile(base + ".md")
		require.NoError(t, err)
		r := demoReply{first: string(b)}
		if b, err := os.ReadFile(base + ".continued.md"); err == nil {
			r.rest = string(b)
		}
		replies[pr] = r
	}
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		raw, _ := io.ReadAll(r.Body)
		var body map[string]any
		require.NoError(t, json.Unmarshal(raw, &body))
		var prompt string
		turns := 0 // the model's earlier turns sent back: 1 when asked to continue
		for _, m := range body["messages"].([]any) {
			switch mm := m.(map[string]any); mm["role"] {
			case "user":
				if prompt == "" {
					prompt = text(mm["content"])
				}
			case "assistant":
				turns++
			}
		}
		rec, ok := replies[prompt]
		if !ok || turns > 1 || (turns == 1 && rec.rest == "") {
			t.Errorf("%s: a prompt of no task, or a continuation of a reply that was not cut off: %.200q", wire, prompt)
			http.Error(w, `{"error":{"message":"unknown prompt"}}`, http.StatusBadRequest)
			return
		}
		reply, cut := rec.first, rec.rest != ""
		if turns == 1 {
			reply, cut = rec.rest, false
		}
		in, out := len(raw)/4, len(reply)/4
		var v any
		if wire == "openai" {
			finish := "stop"
			if cut {
				finish = "length"
			}
			v = map[string]any{
				"id": "chatcmpl-demo", "object": "chat.completion", "created": 1764633600, "model": "demo-model-a",
				"choices": []any{map[string]any{"index": 0, "finish_reason": finish, "logprobs": nil,
					"message": map[string]any{"role": "assistant", "content": reply, "refusal": nil}}},
				"usage": map[string]any{"prompt_tokens": in, "completion_tokens": out, "total_tokens": in + out},
			}
		} else {
			stop := "end_turn"
			if cut {
				stop = "max_tokens"
			}
			v = map[string]any{
				"id": "msg_demo", "type": "message", "role": "assistant", "model": "demo-model-b",
				"content": []any{map[string]any{"type": "text", "text": reply}}, "stop_reason": stop, "stop_sequence": nil,
				"usage": map[string]any{"input_tokens": in, "output_tokens": out},
			}
		}
		w.Header().Set("Content-Type", "application/json")
		require.NoError(t, json.NewEncoder(w).Encode(v))
	}))
	t.Cleanup(srv.Close)
	return srv
}

// TestDemoRecordings: the recorded models replay, with no models file, no
// key and no network, exactly the calls gen makes today for every starter
// task and for the Robust variants make demo judges, and each answer is the
// reply in examples/demo-gen/replies. With -update it records them again
// through a local stand-in provider.
func TestDemoRecordings(t *testing.T) {
	ids := demoTasks(t)
	starter := filepath.Join("..", "..", "suites", "starter")
	tasks, err := task.LoadSuite(starter)
	require.NoError(t, err)
	require.Len(t, tasks, 40, "every starter task has a recorded answer of each model")
	ctx := context.Background()
	// The Robust variants make demo judges, written as make demo writes them.
	variants := filepath.Join(t.TempDir(), "variants")
	code, _, stderr := executeIn(ctx, nil, "suite", "perturb", starter,
		"--task", strings.Join(ids, ","), "--variants", "1", "--seed", "1", "--out", variants)
	require.Equal(t, ExitOK, code, "stderr: %s", stderr)
	vtasks, err := task.LoadSuite(variants)
	require.NoError(t, err)
	withParams := 0 // a task without parameters has no Robust variant
	for _, tk := range tasks {
		if slices.Contains(ids, tk.ID) && len(tk.Params) > 0 {
			withParams++
		}
	}
	require.Len(t, vtasks, withParams)
	tasks = append(tasks, vtasks...)
	recordings := filepath.Join(demoGenDir, "recordings")
	sources := []string{starter, variants}

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
		args := append(append([]string{"gen"}, sources...), "--model", demoModelA, "--model", demoModelB,
			"--models", models, "--record", fresh, "--out", out)
		code, _, stderr := executeIn(ctx, map[string]string{"OPENAI_API_KEY": genSecret, "ANTHROPIC_API_KEY": genSecret}, args...)
		require.Equal(t, ExitOK, code, "stderr: %s", stderr)
		// A stand-in answers in a millisecond: give each call the time a
		// model writing 40 tokens a second would take, so TEM reads true.
		files, err := filepath.Glob(filepath.Join(fresh, "*", "*.json"))
		require.NoError(t, err)
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
	args := append(append([]string{"gen"}, sources...), "--model", demoModelA, "--model", demoModelB,
		"--replay", recordings, "--out", out)
	code, _, stderr = executeIn(ctx, map[string]string{}, args...)
	require.Equal(t, ExitOK, code, "the recordings are stale (a brief, an interface or the generation prompt changed): "+
		"run go test ./internal/cli -run TestDemoRecordings -update\nstderr: %s", stderr)
	calls := 0
	for _, m := range []struct{ slug, folder string }{{"openai-demo-model-a", "model-a"}, {"anthropic-demo-model-b", "model-b"}} {
		for _, tk := range tasks {
			base := filepath.Join(demoGenDir, "replies", m.folder, filepath.Base(tk.ID))
			reply, err := os.ReadFile(base + ".md")
			require.NoError(t, err)
			turns := 1
			if rest, err := os.ReadFile(base + ".continued.md"); err == nil {
				reply, turns = append(reply, rest...), 2
			}
			calls += turns
			dir := filepath.Join(out, m.slug, "sample-1", tk.ID)
			var rec struct {
				Status    string  `json:"status"`
				Turns     int     `json:"turns"`
				CostUSD   float64 `json:"cost_usd"`
				LatencyMs float64 `json:"latency_ms"`
			}
			b, err := os.ReadFile(filepath.Join(dir, "gen.json"))
			require.NoError(t, err, "gen recorded %s", dir)
			require.NoError(t, json.Unmarshal(b, &rec))
			require.Equal(t, turns, rec.Turns, "%s: turns", dir)
			require.Greater(t, rec.CostUSD, 0.0, "%s is priced", dir)
			require.Greater(t, rec.LatencyMs, 1000.0, "%s took a model's time", dir)
			_, err = os.Stat(filepath.Join(dir, "index.html"))
			if strings.Contains(strings.ToLower(string(reply)), "</html>") {
				require.Equal(t, "done", rec.Status, dir)
				require.NoError(t, err, "gen wrote the page of %s", dir)
			} else {
				require.Equal(t, "failed", rec.Status, "%s: a reply with no page is a failed sample", dir)
				require.ErrorIs(t, err, os.ErrNotExist, dir)
			}
		}
	}
	files, err := filepath.Glob(filepath.Join(recordings, "*", "*.json"))
	require.NoError(t, err)
	require.Len(t, files, calls, "one recording per call, none left over")
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

// TestBenchModelsOverTheStarterSuite: the one command from two recorded
// models to a leaderboard over the whole starter suite (make
// bench-starter), every trial's verdict as testdata/starter-bench.golden
// says (-update writes it); slow: three trials a task (the oracle and the
// two models), 120 for the suite's 40 tasks.
func TestBenchModelsOverTheStarterSuite(t *testing.T) {
	testenv.Slow(t)
	out := t.TempDir()
	ctx := context.Background()
	tasks, err := task.LoadSuite(filepath.Join("..", "..", "suites", "starter"))
	require.NoError(t, err)
	trials := 3 * len(tasks)
	code, stdout, stderr := executeIn(ctx, nil, "bench-models", filepath.Join("..", "..", "suites", "starter"),
		"--model", demoModelA, "--model", demoModelB, "--replay", filepath.Join(demoGenDir, "recordings"),
		"--oracle", "--out", out, "--web", webDir(t))
	require.Equal(t, ExitOK, code, "stderr: %s", stderr)
	require.Contains(t, stdout, fmt.Sprintf("%d trials (%d run, 0 kept)", trials, trials))

	var lines []string
	files, err := filepath.Glob(filepath.Join(out, "run", "trials", "*", "result.json"))
	require.NoError(t, err)
	require.Len(t, files, trials)
	for _, f := range files {
		var r struct {
			Task, Model, Outcome, Attribution string
			CrashKind                         string  `json:"crash_kind"`
			Pass                              bool    `json:"pass"`
			VCov                              float64 `json:"v_cov"`
		}
		b, err := os.ReadFile(f)
		require.NoError(t, err)
		require.NoError(t, json.Unmarshal(b, &r))
		lines = append(lines, fmt.Sprintf("%-24s %-30s %-6s %-16s pass=%-5v v_cov=%.3f %s",
			r.Model, r.Task, r.Outcome, r.CrashKind, r.Pass, r.VCov, r.Attribution))
	}
	sort.Strings(lines)
	var board struct {
		Rows []struct {
			Model     string  `json:"model"`
			Trials    int     `json:"trials"`
			Pass1     float64 `json:"pass_at_1"`
			VCov      float64 `json:"v_cov"`
			Economics struct {
				RoA struct{ Value *float64 } `json:"roa"`
				TEM struct{ Value *float64 } `json:"tem"`
			} `json:"economics"`
		} `json:"rows"`
	}
	b, err := os.ReadFile(filepath.Join(out, "run", "leaderboard.json"))
	require.NoError(t, err)
	require.NoError(t, json.Unmarshal(b, &board))
	for _, r := range board.Rows {
		roa, tem := "-", "-"
		if v := r.Economics.RoA.Value; v != nil {
			roa = fmt.Sprintf("%.4g", *v)
		}
		if v := r.Economics.TEM.Value; v != nil {
			tem = fmt.Sprintf("%.4g", *v)
		}
		lines = append(lines, fmt.Sprintf("leaderboard %-24s trials=%d pass@1=%.3f v_cov=%.3f roa=%s tem=%s", r.Model, r.Trials, r.Pass1, r.VCov, roa, tem))
	}
	got := strings.Join(lines, "\n") + "\n"
	golden := filepath.Join("testdata", "starter-bench.golden")
	if *update {
		require.NoError(t, os.WriteFile(golden, []byte(got), 0o644))
	}
	want, err := os.ReadFile(golden)
	require.NoError(t, err)
	require.Equal(t, string(want), got)
}
