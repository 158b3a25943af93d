package agent

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/worldprobe/worldprobe/internal/gen"
	"github.com/worldprobe/worldprobe/internal/llm"
	"github.com/worldprobe/worldprobe/internal/task"
)

// tinySolution is the tiny task's reference page: what a model that gets
// it right writes.
func tinySolution(t *testing.T) string {
	t.Helper()
	b, err := os.ReadFile(tinyTask(t).SolutionPath())
	require.NoError(t, err)
	return string(b)
}

// sampleDir is the tiny task's sample folder of m under out.
func sampleDir(out string, m *gen.Model) string {
	return filepath.Join(gen.CandidatesDir(out, m, 1), "simulation", "tiny")
}

// TestAgentWritesRunsFixesAndFinishes: a model, in the OpenAI and the
// Anthropic wire format, reads the task, writes a page with a typo, runs
// it in the real runtime and sees the exception, fixes it with edit_file,
// runs it again and finishes. The page, gen.json and trajectory.jsonl are
// written where run reads them; running again makes no call.
func TestAgentWritesRunsFixesAndFinishes(t *testing.T) {
	fixed := tinySolution(t)
	broken := strings.Replace(fixed, "renderer.render(scene, camera)", "renderer.render(scene, camra)", 1)
	require.NotEqual(t, fixed, broken)
	summary := "A box moves along x at 1 m/s; x is in window.__3D_STATE__."
	steps := []step{
		{text: "I'll read the task first.", calls: []scriptedCall{tc("list_files", nil), tc("read_file", map[string]any{"path": "brief.md"})}},
		{text: "Now the page.", calls: []scriptedCall{tc("write_file", map[string]any{"path": "index.html", "content": broken})}},
		{calls: []scriptedCall{tc("run_page", nil)}},
		{text: "A typo: camra. Fixing it.", calls: []scriptedCall{tc("edit_file", map[string]any{"path": "index.html",
			"old_text": "renderer.render(scene, camra)", "new_text": "renderer.render(scene, camera)"})}},
		{calls: []scriptedCall{tc("run_page", map[string]any{"frames": 60})}},
		{text: "The page runs and x grows at 1 m/s.", calls: []scriptedCall{tc("finish", map[string]any{"summary": summary})}},
	}
	tk := tinyTask(t)
	rt := runtimes(t)
	for _, c := range []struct {
		wire            string
		in, out         int64
		cost            float64
		served          string
		stop            llm.StopReason
		crashResultCall string
	}{
		{"openai", 9000, 1200, 6 * (1500*2.0 + 200*8.0) / 1e6, "test-gpt-2025-01-01", llm.StopToolUse, "call_3_1"},
		{"anthropic", 7200, 1500, 6 * (1200*3.0 + 250*15.0) / 1e6, "test-claude-20250929", llm.StopToolUse, "toolu_03_1"},
	} {
		t.Run(c.wire, func(t *testing.T) {
			p := newProvider(t, c.wire, steps...)
			m := p.model(t, "")
			out := t.TempDir()
			var progress strings.Builder
			sum, err := generate(t, out, m, []*task.Task{tk}, Options{Budget: Budget{MaxTurns: DefaultMaxTurns}, Runtime: rt, Progress: &progress, Secrets: []string{testKey}})
			require.NoError(t, err)
			require.Len(t, sum.Records, 1)
			reqs := p.requests()
			require.Len(t, reqs, 6)

			// Every call offers the seven tools; the first sends the
			// instruction and the task's prompt only.
			prompt, err := tk.Prompt()
			require.NoError(t, err)
			for _, body := range reqs {
				var names []string
				for _, tool := range body["tools"].([]any) {
					tm := tool.(map[string]any)
					if fn, ok := tm["function"].(map[string]any); ok {
						tm = fn
					}
					names = append(names, tm["name"].(string))
				}
				require.Equal(t, []string{"list_files", "read_file", "grep", "write_file", "edit_file", "run_page", "finish"}, names)
			}
			first := messages(reqs[0])
			if c.wire == "openai" {
				require.Equal(t, []any{map[string]any{"role": "system", "content": Instructions}, map[string]any{"role": "user", "content": prompt}}, first)
			} else {
				require.Equal(t, []any{map[string]any{"type": "text", "text": Instructions}}, reqs[0]["system"])
				require.Equal(t, []any{map[string]any{"role": "user", "content": []any{map[string]any{"type": "text", "text": prompt}}}}, first)
			}

			// The fourth call carries run_page's answer about the broken
			// page: the exception, in the provider's tool result format.
			last := messages(reqs[3])[len(messages(reqs[3]))-1].(map[string]any)
			var crash string
			if c.wire == "openai" {
				require.Equal(t, "tool", last["role"])
				require.Equal(t, c.crashResultCall, last["tool_call_id"])
				crash = last["content"].(string)
			} else {
				require.Equal(t, "user", last["role"])
				block := last["content"].([]any)[0].(map[string]any)
				require.Equal(t, "tool_result", block["type"])
				require.Equal(t, c.crashResultCall, block["tool_use_id"])
				crash = block["content"].([]any)[0].(map[string]any)["text"].(string)
			}
			require.Contains(t, crash, "outcome: crash, js_exception: Uncaught ReferenceError: camra is not defined (line 11, column 90)\nuncaught errors (1):\n  frame 0, line 11:90: Uncaught ReferenceError: camra is not defined\n")
			require.NotContains(t, crash, "probe", "run_page gives no contract verdict")

			dir := sampleDir(out, m)
			page, err := os.ReadFile(filepath.Join(dir, gen.PageFile))
			require.NoError(t, err)
			require.Equal(t, fixed, string(page), "the workspace's final index.html is the candidate")

			r := readRecord(t, dir)
			require.InDelta(t, c.cost, r.CostUSD, 1e-12)
			require.Less(t, r.Agent.ToolMS, int64(600000))
			r.CostUSD, r.LatencyMS, r.Agent.ToolMS = 0, 0, 0
			p1, err := PromptOf(tk)
			require.NoError(t, err)
			td, err := tk.Digest()
			require.NoError(t, err)
			one := 1.0
			require.Equal(t, &gen.Record{Version: 1, Task: "simulation/tiny", Sample: 1, Attempt: 1, Status: gen.StatusDone,
				Model: m.Name, ServedModel: c.served, Requested: "generator", Role: llm.Generator, Source: llm.SourceLive,
				TokensIn: c.in, TokensOut: c.out, FinishReason: gen.FinishStop, Turns: 6,
				StopReasons:  []llm.StopReason{c.stop, c.stop, c.stop, c.stop, c.stop, c.stop},
				PromptDigest: p1.Digest(), TaskDigest: td, PageDigest: sha([]byte(fixed)),
				Agent: &gen.AgentStats{EndedBy: gen.EndedByFinish, MaxTurns: 30,
					ToolCalls: map[string]int{"list_files": 1, "read_file": 1, "write_file": 1, "run_page": 2, "edit_file": 1, "finish": 1},
					Runs:      2, Edits: 2, TestToEdit: &one, Summary: summary, Trajectory: TrajectoryFile}}, r)
			require.Equal(t, "[1/1] simulation/tiny "+m.Slug+" sample 1: stop (finish), 6 turns, 2 runs / 2 edits, "+
				map[string]string{"openai": "9000→1200 tokens, $0.0276", "anthropic": "7200→1500 tokens, $0.0441"}[c.wire]+"\n", progress.String())

			entries, text := trajectory(t, dir)
			require.Len(t, entries, 1+6+7+1, "the prompt, 6 turns, 7 tool results, the end")
			golden(t, "trajectory_"+c.wire+".json", text)
			require.NoFileExists(t, filepath.Join(dir, TrajectoryFile+PartialSuffix))

			// Resumed: the finished sample is kept, no call is made.
			sum, err = generate(t, out, m, []*task.Task{tk}, Options{Budget: Budget{MaxTurns: DefaultMaxTurns}, Runtime: rt})
			require.NoError(t, err)
			require.Equal(t, 1, sum.KeptDone)
			require.Empty(t, sum.Records)
			require.Len(t, p.requests(), 6)
		})
	}
}

// TestAgentTurnBudget: a model that never finishes is stopped by the turn
// budget; the stop is recorded with the page written so far, and a key
// the model echoes is redacted from every file.
func TestAgentTurnBudget(t *testing.T) {
	page := tinySolution(t)
	p := newProvider(t, "openai",
		step{calls: []scriptedCall{tc("write_file", map[string]any{"path": "index.html", "content": page})}},
		step{text: "Checking a file.", calls: []scriptedCall{tc("read_file", map[string]any{"path": "notes/" + testKey + ".txt"})}},
		step{calls: []scriptedCall{tc("list_files", nil)}},
	)
	m := p.model(t, "")
	out := t.TempDir()
	_, err := generate(t, out, m, []*task.Task{tinyTask(t)}, Options{Budget: Budget{MaxTurns: 3}, Secrets: []string{testKey}})
	require.NoError(t, err)
	require.Len(t, p.requests(), 3, "no call past the turn budget")

	dir := sampleDir(out, m)
	r := readRecord(t, dir)
	require.Equal(t, gen.StatusDone, r.Status, "the page written before the budget ran out is kept")
	require.Equal(t, gen.FinishBudget, r.FinishReason)
	require.Equal(t, "the turn budget is spent: 3 of 3 turns", r.Error)
	require.Equal(t, 3, r.Turns)
	zero := 0.0
	r.Agent.ToolMS = 0
	require.Equal(t, &gen.AgentStats{EndedBy: gen.EndedByBudget, Budget: "turns", MaxTurns: 3,
		ToolCalls: map[string]int{"write_file": 1, "read_file": 1, "list_files": 1}, ToolErrors: map[string]int{"read_file": 1},
		Edits: 1, TestToEdit: &zero, Trajectory: TrajectoryFile}, r.Agent)
	entries, _ := trajectory(t, dir)
	require.Equal(t, Entry{Turn: 3, Kind: KindEnd, EndedBy: gen.EndedByBudget, Budget: "turns", FinishReason: "budget",
		Reason: "the turn budget is spent: 3 of 3 turns"}, entries[len(entries)-1])
	require.Equal(t, "error: notes/[REDACTED].txt: no such file or folder (list_files shows what there is)", entries[4].Result)

	// The key reached the provider's request (the model wrote it), never a file.
	require.Contains(t, fmt.Sprint(p.requests()[2]["messages"]), testKey)
	for _, name := range []string{gen.RecordFile, TrajectoryFile, gen.PageFile} {
		b, err := os.ReadFile(filepath.Join(dir, name))
		require.NoError(t, err)
		require.NotContains(t, string(b), testKey, name)
	}
}

// TestAgentTokenAndCostBudgets: the run's own token and cost caps and the
// models file's trial budget end a run, recorded; a run budget of the
// models file records the sample and stops the generation.
func TestAgentTokenAndCostBudgets(t *testing.T) {
	looping := []step{}
	for range 5 {
		looping = append(looping, step{calls: []scriptedCall{tc("list_files", nil)}})
	}
	cases := []struct {
		name, wire, budgets string
		budget              Budget
		calls               int
		which, why          string
		stops               bool
	}{
		{"the run's token cap", "anthropic", "", Budget{MaxTurns: 30, MaxTokens: 4000}, 3, "tokens", "the token budget is spent: 4350 of 4000 tokens", false},
		{"the run's cost cap", "openai", "", Budget{MaxTurns: 30, MaxUSD: 0.01}, 3, "usd", "the cost budget is spent: $0.0138 of $0.0100", false},
		{"the models file's trial budget", "openai", "budgets: {trial_usd: 0.01}\n", Budget{MaxTurns: 30}, 3, "trial_usd",
			"llm: trial openai-test-gpt+agent/sample-1/simulation/tiny budget exceeded: $0.0138 of $0.0100 spent", false},
		{"the models file's run budget", "openai", "budgets: {run_tokens: 3000}\n", Budget{MaxTurns: 30}, 2, "run_tokens",
			"llm: run budget exceeded: 3400 of 3000 tokens used", true},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			p := newProvider(t, c.wire, looping...)
			m := p.model(t, c.budgets)
			out := t.TempDir()
			sum, err := generate(t, out, m, []*task.Task{tinyTask(t)}, Options{Budget: c.budget})
			if c.stops {
				var be *llm.BudgetError
				require.True(t, errors.As(err, &be), "%v", err)
				require.Equal(t, err, sum.Stopped)
			} else {
				require.NoError(t, err)
			}
			require.Len(t, p.requests(), c.calls)
			r := readRecord(t, sampleDir(out, m))
			require.Equal(t, gen.StatusFailed, r.Status, "no page was written")
			require.Equal(t, gen.FinishBudget, r.FinishReason)
			require.Equal(t, c.why, r.Error)
			require.Equal(t, c.calls, r.Turns)
			require.Equal(t, gen.EndedByBudget, r.Agent.EndedBy)
			require.Equal(t, c.which, r.Agent.Budget)
			require.Nil(t, r.Agent.TestToEdit, "no edit: no ratio")
			require.NoFileExists(t, filepath.Join(sampleDir(out, m), gen.PageFile))
		})
	}
}

// TestAgentAnswersInText: a turn without a tool call ends the run, and a
// page in its text is written, as single-shot generation extracts it.
func TestAgentAnswersInText(t *testing.T) {
	page := tinySolution(t)
	fenced := "I'll write the whole page at once.\n\n```html\n" + page + "```\n\nThe box moves at 1 m/s along x.\n"
	cases := []struct {
		name, wire string
		steps      []step
		status     gen.Status
		finish     gen.Finish
		err        string
		stops      []llm.StopReason
	}{
		{"a fenced page in prose", "anthropic", []step{{text: fenced}}, gen.StatusDone, gen.FinishStop, "", []llm.StopReason{llm.StopEnd}},
		{"prose after write_file", "openai", []step{
			{calls: []scriptedCall{tc("write_file", map[string]any{"path": "index.html", "content": page})}},
			{text: "The page is in index.html: a box moving along x at 1 m/s."},
		}, gen.StatusDone, gen.FinishStop, "", []llm.StopReason{llm.StopToolUse, llm.StopEnd}},
		{"OpenAI's refusal", "openai", []step{{refusal: "I'm sorry, but I can't help with that request."}}, gen.StatusFailed, gen.FinishRefusal,
			`the model declined: "I'm sorry, but I can't help with that request."`, []llm.StopReason{llm.StopRefusal}},
		{"a refusal in words", "anthropic", []step{{text: "I'm sorry, but I can't help with building this page."}}, gen.StatusFailed, gen.FinishRefusal,
			`the model declined: "I'm sorry, but I can't help with building this page."`, []llm.StopReason{llm.StopEnd}},
		{"prose only", "anthropic", []step{{text: "You would need a scene, a camera and a box that moves along x every frame."}}, gen.StatusFailed, gen.FinishNoHTML,
			"the model ended its run without writing index.html", []llm.StopReason{llm.StopEnd}},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			p := newProvider(t, c.wire, c.steps...)
			m := p.model(t, "")
			out := t.TempDir()
			_, err := generate(t, out, m, []*task.Task{tinyTask(t)}, Options{Budget: Budget{MaxTurns: DefaultMaxTurns}})
			require.NoError(t, err)
			require.Len(t, p.requests(), len(c.steps))
			dir := sampleDir(out, m)
			r := readRecord(t, dir)
			require.Equal(t, c.status, r.Status)
			require.Equal(t, c.finish, r.FinishReason)
			require.Equal(t, c.err, r.Error)
			require.Equal(t, c.stops, r.StopReasons)
			require.Equal(t, gen.EndedByAnswer, r.Agent.EndedBy)
			if c.status == gen.StatusDone {
				b, err := os.ReadFile(filepath.Join(dir, gen.PageFile))
				require.NoError(t, err)
				require.Equal(t, page, string(b))
			} else {
				require.NoFileExists(t, filepath.Join(dir, gen.PageFile))
			}
		})
	}
}

// TestAgentCutOffReplies: a tool call whose arguments the output limit
// cut is not run and the model is told why; a reply cut off without a
// tool call is followed by a note asking for write_file; a tool that does
// not exist is answered with the list of those that do.
func TestAgentCutOffReplies(t *testing.T) {
	page := tinySolution(t)
	p := newProvider(t, "openai",
		step{stop: "length", calls: []scriptedCall{tc("write_file", nil)}, rawArgs: `{"path": "index.html", "content": "<!DOCTYPE html><html><body><script>const renderer = new THREE.WebGLRen`},
		step{stop: "length", text: "```html\n<!DOCTYPE html>\n<html><body><script>\nconst renderer = new THREE.WebGLRen"},
		step{calls: []scriptedCall{tc("write_file", map[string]any{"path": "index.html", "content": page})}},
		step{text: "Let me check the folder.", calls: []scriptedCall{tc("bash", map[string]any{"cmd": "ls -la"})}},
		step{calls: []scriptedCall{tc("finish", nil)}},
	)
	m := p.model(t, "")
	out := t.TempDir()
	_, err := generate(t, out, m, []*task.Task{tinyTask(t)}, Options{Budget: Budget{MaxTurns: DefaultMaxTurns}})
	require.NoError(t, err)
	reqs := p.requests()
	b, _ := os.ReadFile(filepath.Join(sampleDir(out, m), TrajectoryFile))
	require.Len(t, reqs, 5, "%s", b)
	require.Equal(t, map[string]any{"role": "tool", "tool_call_id": "call_1_1", "content": cutOffCall}, messages(reqs[1])[3])
	require.Equal(t, map[string]any{"role": "user", "content": CutOffNote}, messages(reqs[2])[5])
	r := readRecord(t, sampleDir(out, m))
	require.Equal(t, gen.StatusDone, r.Status)
	require.Equal(t, gen.FinishStop, r.FinishReason)
	require.Equal(t, map[string]any{"role": "tool", "tool_call_id": "call_4_1",
		"content": `error: there is no tool "bash"; the tools are list_files, read_file, grep, write_file, edit_file, run_page, finish`}, messages(reqs[4])[9])
	require.Equal(t, []llm.StopReason{llm.StopLength, llm.StopLength, llm.StopToolUse, llm.StopToolUse, llm.StopToolUse}, r.StopReasons)
	require.Equal(t, map[string]int{"write_file": 2, UnknownTool: 1, "finish": 1}, r.Agent.ToolCalls, "a tool the model made up is counted, not named")
	require.Equal(t, map[string]int{"write_file": 1, UnknownTool: 1}, r.Agent.ToolErrors)
}
