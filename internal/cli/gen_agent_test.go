package cli

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"io/fs"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/worldprobe/worldprobe/internal/agent"
	"github.com/worldprobe/worldprobe/internal/gen"
	"github.com/worldprobe/worldprobe/internal/llm"
	"github.com/worldprobe/worldprobe/internal/report"
	"github.com/worldprobe/worldprobe/internal/task"
)

// agentProvider is an OpenAI-style server that plays one agent run: each
// call is answered with the next turn, tool calls in OpenAI's format.
type agentProvider struct {
	t     *testing.T
	srv   *httptest.Server
	mu    sync.Mutex
	turns []map[string]any // name → arguments, one call a turn ("" : text)
	texts []string         // the last message of each request, as sent
}

func newAgentProvider(t *testing.T, turns ...map[string]any) *agentProvider {
	p := &agentProvider{t: t, turns: turns}
	p.srv = httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		raw, _ := io.ReadAll(r.Body)
		var body struct {
			Messages []map[string]any `json:"messages"`
			Tools    []any            `json:"tools"`
		}
		require.NoError(t, json.Unmarshal(raw, &body))
		if r.Header.Get("Authorization") != "Bearer "+genSecret || len(body.Tools) != 7 {
			t.Errorf("a call without the key or the 7 tools")
		}
		p.mu.Lock()
		n := len(p.texts)
		last := body.Messages[len(body.Messages)-1]
		s, _ := last["content"].(string)
		p.texts = append(p.texts, s)
		p.mu.Unlock()
		if n == len(p.turns) {
			t.Errorf("call %d past the script", n+1)
			http.Error(w, `{"error":{"message":"past the script"}}`, http.StatusTeapot)
			return
		}
		msg := map[string]any{"role": "assistant", "content": nil, "refusal": nil}
		finish := "tool_calls"
		for name, args := range p.turns[n] {
			b, _ := json.Marshal(args)
			msg["tool_calls"] = []any{map[string]any{"id": fmt.Sprintf("call_%d", n+1), "type": "function",
				"function": map[string]any{"name": name, "arguments": string(b)}}}
		}
		b, _ := json.Marshal(map[string]any{"id": fmt.Sprintf("chatcmpl-%d", n+1), "object": "chat.completion", "created": 1760000000, "model": "test-gpt",
			"choices": []any{map[string]any{"index": 0, "message": msg, "logprobs": nil, "finish_reason": finish}},
			"usage":   map[string]any{"prompt_tokens": 300, "completion_tokens": 100, "total_tokens": 400}})
		w.Header().Set("Content-Type", "application/json")
		_, _ = w.Write(b)
	}))
	t.Cleanup(p.srv.Close)
	return p
}

func (p *agentProvider) lastMessages() []string {
	p.mu.Lock()
	defer p.mu.Unlock()
	return append([]string(nil), p.texts...)
}

// TestGenAgentPageRunsAsCandidate: 'gen --agent' plays a run that writes
// a page with a typo, runs it in the real runtime, sees the exception,
// fixes it and finishes; 'run' then judges the agent's page with real
// Chromium, and the leaderboard prices it from gen.json.
func TestGenAgentPageRunsAsCandidate(t *testing.T) {
	tasks, err := task.LoadSuite(tinySuite())
	require.NoError(t, err)
	solution, err := os.ReadFile(tasks[0].SolutionPath())
	require.NoError(t, err)
	broken := strings.Replace(string(solution), "requestAnimationFrame(loop)", "requestAnimationFrame(lop)", 1)
	require.NotEqual(t, string(solution), broken)
	p := newAgentProvider(t,
		map[string]any{"write_file": map[string]any{"path": "index.html", "content": broken}},
		map[string]any{"run_page": map[string]any{}},
		map[string]any{"edit_file": map[string]any{"path": "index.html", "old_text": "requestAnimationFrame(lop)", "new_text": "requestAnimationFrame(loop)"}},
		map[string]any{"run_page": map[string]any{"frames": 30}},
		map[string]any{"finish": map[string]any{"summary": "A box moving along x."}},
	)
	models := genModelsFile(t, &fakeProvider{srv: p.srv}, nil, "")
	out := filepath.Join(t.TempDir(), "gen")
	env := map[string]string{"TEST_OPENAI_KEY": genSecret, EnvWeb: webDir(t)}
	rec := filepath.Join(t.TempDir(), "rec")
	args := []string{"gen", tinySuite(), "--model", "generator", "--agent", "--models", models, "--out", out, "--record", rec}
	code, stdout, stderr := executeIn(context.Background(), env, args...)
	require.Equal(t, ExitOK, code, "stderr: %s", stderr)
	cands := filepath.Join(out, "openai-test-gpt+agent", "sample-1")
	require.Contains(t, stderr, "gen: 1 task × 1 model × 1 sample = 1 sample (0 kept, 1 to generate), 4 jobs → "+out+"\n")
	require.Contains(t, stderr, "[1/1] simulation/tiny openai-test-gpt+agent sample 1: stop (finish), 5 turns, 2 runs / 2 edits, 1500→500 tokens, $0.0070\n")
	require.Equal(t, `
1 of 1 samples have a page, 0 failed; 1 generated now in 5 calls, 0 kept
cost $0.0070, tokens in 1500, out 500
pages in `+out+`; judge them with:
  worldprobe run `+tinySuite()+` --candidates openai-test-gpt+agent=`+cands+`
`, stdout)

	// What the model saw of its two runs of the page.
	seen := p.lastMessages()
	require.Len(t, seen, 5)
	require.Contains(t, seen[2], "outcome: crash, js_exception: Uncaught ReferenceError: lop is not defined")
	require.Contains(t, seen[4], "stepped 30 of 30 frames (500 virtual ms at 60 fps)\noutcome: ok\n")
	require.Contains(t, seen[4], "window.__3D_STATE__ after the last frame:\n{\"x\":0.5}\n")

	dir := filepath.Join(cands, "simulation", "tiny")
	page, err := os.ReadFile(filepath.Join(dir, gen.PageFile))
	require.NoError(t, err)
	require.Equal(t, string(solution), string(page))
	r, err := gen.ReadRecord(dir)
	require.NoError(t, err)
	require.Equal(t, gen.FinishStop, r.FinishReason)
	require.Equal(t, map[string]int{"write_file": 1, "run_page": 2, "edit_file": 1, "finish": 1}, r.Agent.ToolCalls)
	require.Equal(t, 1.0, *r.Agent.TestToEdit)
	require.FileExists(t, filepath.Join(dir, agent.TrajectoryFile))
	require.NoError(t, filepath.WalkDir(out, func(path string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() {
			return err
		}
		b, err := os.ReadFile(path)
		require.NoError(t, err)
		require.NotContains(t, string(b), genSecret, path)
		return nil
	}))

	runOut := filepath.Join(t.TempDir(), "run")
	code, stdout, stderr = executeIn(context.Background(), env, "run", tinySuite(), "--candidates", "openai-test-gpt+agent="+cands, "--out", runOut)
	require.Equal(t, ExitOK, code, "stderr: %s", stderr)
	require.Contains(t, stdout, "1 trials (1 run, 0 kept)")
	trials := readTrials(t, runOut)
	tr := trials["simulation_tiny__openai-test-gpt+agent__tiny__s0"]
	require.NotNil(t, tr, "trials: %v", trials)
	require.Equal(t, "ok", tr.Outcome)
	require.True(t, tr.Pass, "the agent's page is judged and passes")
	var l report.Leaderboard
	b, err := os.ReadFile(filepath.Join(runOut, report.LeaderboardJSON))
	require.NoError(t, err)
	require.NoError(t, json.Unmarshal(b, &l))
	require.Len(t, l.Rows, 1)
	// 1500 tokens in at $2/M and 500 out at $8/M: $0.007 for 0.2 h at $60/h.
	require.InDelta(t, 0.2*60/0.007, *l.Rows[0].Economics.RoA.Value, 1e-6)

	// The same command again keeps the finished sample: no call, no browser.
	code, stdout, stderr = executeIn(context.Background(), env, args...)
	require.Equal(t, ExitOK, code, "stderr: %s", stderr)
	require.Contains(t, stdout, "1 of 1 samples have a page, 0 failed; 0 generated now in 0 calls, 1 kept\n")
	require.Len(t, p.lastMessages(), 5)

	// Replayed offline, without a key: the tools give the same results
	// (run_page steps a virtual clock), so every call is found and the
	// same page comes out.
	p.srv.Close()
	again := filepath.Join(t.TempDir(), "replayed")
	code, stdout, stderr = executeIn(context.Background(), map[string]string{EnvWeb: webDir(t)},
		"gen", tinySuite(), "--model", "generator", "--agent", "--models", models, "--out", again, "--replay", rec)
	require.Equal(t, ExitOK, code, "stderr: %s", stderr)
	require.Contains(t, stdout, "1 of 1 samples have a page, 0 failed; 1 generated now in 5 calls, 0 kept\ncost $0.0070, tokens in 1500, out 500\n")
	replayed := filepath.Join(again, "openai-test-gpt+agent", "sample-1", "simulation", "tiny")
	require.Equal(t, digestOf(t, filepath.Join(dir, gen.PageFile)), digestOf(t, filepath.Join(replayed, gen.PageFile)))
	rr, err := gen.ReadRecord(replayed)
	require.NoError(t, err)
	require.Equal(t, llm.SourceReplay, rr.Source)
	require.Equal(t, r.Agent.ToolCalls, rr.Agent.ToolCalls)
}

// TestGenAgentFlags: agent flags need --agent and sane values; a dry run
// of agent runs estimates the first call, tools included, and says what
// it leaves out.
func TestGenAgentFlags(t *testing.T) {
	p := newAgentProvider(t)
	models := genModelsFile(t, &fakeProvider{srv: p.srv}, nil, "")
	out := filepath.Join(t.TempDir(), "gen")
	base := []string{"gen", tinySuite(), "--model", "generator", "--models", models, "--out", out}
	for _, c := range []struct {
		args []string
		msg  string
	}{
		{[]string{"--max-turns", "5"}, "worldprobe: --max-turns needs --agent\n"},
		{[]string{"--chromium", "/usr/bin/chromium"}, "worldprobe: --chromium needs --agent or --repair\n"},
		{[]string{"--agent", "--repair", "1"}, "worldprobe: --repair repairs first-shot pages; --agent pages were already run and edited by the agent: give one of them\n"},
		{[]string{"--agent", "--max-turns", "0"}, "worldprobe: --max-turns must be at least 1\n"},
		{[]string{"--agent", "--max-agent-usd", "-1"}, "worldprobe: --max-agent-usd must be 0 (no cap) or a number of US dollars\n"},
	} {
		code, _, stderr := executeIn(context.Background(), genEnv, append(base, c.args...)...)
		require.Equal(t, ExitUsage, code, "%v: %s", c.args, stderr)
		require.True(t, strings.HasPrefix(stderr, c.msg), "%v: %s", c.args, stderr)
	}

	code, stdout, stderr := executeIn(context.Background(), nil, append(base, "--agent", "--max-turns", "12", "--dry-run")...)
	require.Equal(t, ExitOK, code, "stderr: %s", stderr)
	tasks, err := task.LoadSuite(tinySuite())
	require.NoError(t, err)
	prompt, err := agent.PromptOf(tasks[0])
	require.NoError(t, err)
	lines := strings.Split(stdout, "\n")
	require.Equal(t, "dry run: 1 call would be made (0 of 1 samples kept); nothing is sent", lines[0])
	require.Equal(t, []string{"simulation/tiny", "1", "openai/test-gpt", fmt.Sprint(llm.EstimateInputTokens(prompt.Request("sample-1"))), "8000"}, strings.Fields(lines[2])[:5])
	require.Contains(t, stdout, "\nagent runs: only the first call of each sample is estimated (its prompt with the tools' definitions); a run makes up to 12 calls, each sending the conversation so far\n")
	require.Empty(t, p.lastMessages())
	require.NoDirExists(t, out)
}
