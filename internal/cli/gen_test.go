package cli

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
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
	"time"

	"github.com/stretchr/testify/require"

	"github.com/worldprobe/worldprobe/internal/gen"
	"github.com/worldprobe/worldprobe/internal/llm"
	"github.com/worldprobe/worldprobe/internal/report"
	"github.com/worldprobe/worldprobe/internal/task"
)

// genSecret is the API key of the gen tests; it must never be written.
const genSecret = "sk-gen-test-SECRET-7f3a9c"

// genScript is how the fake providers answer a task's first call; every
// other task gets the provider's usual prose + fenced page.
var genScript = map[string]string{
	"application/color-cycle-cube": "two-files", // index.html + style.css + main.js
	"simulation/pendulum":          "truncated", // cut off by the output limit, then continued
	"application/counter-panel":    "refusal",   // declined
	"simulation/heat-diffusion":    "no-html",   // prose only
	"application/bar-chart":        "500",       // an HTTP 500, then the page
	"rendering/fog-depth":          "unfenced",  // a document without a code fence
}

// turn is one message of a conversation a fake provider received.
type turn struct{ Role, Text string }

// genCall is one request a fake provider received.
type genCall struct {
	Task   string
	System string
	Turns  []turn
	Raw    string
}

// fakeProvider answers chat calls in one wire format (openai or
// anthropic), the way the real provider does, by the task the prompt is
// of: the fake knows each task's exact prompt.
type fakeProvider struct {
	t       *testing.T
	wire    string
	srv     *httptest.Server
	prompts map[string]string // task prompt → task id
	script  map[string]string
	mu      sync.Mutex
	calls   []genCall
	failed  map[string]bool // tasks whose 500 was served
}

func newFakeProvider(t *testing.T, wire string, tasks []*task.Task) *fakeProvider {
	t.Helper()
	p := &fakeProvider{t: t, wire: wire, prompts: map[string]string{}, script: genScript, failed: map[string]bool{}}
	p.learn(tasks...)
	p.srv = httptest.NewServer(http.HandlerFunc(p.serve))
	t.Cleanup(p.srv.Close)
	return p
}

// learn tells the fake the prompts of tasks.
func (p *fakeProvider) learn(tasks ...*task.Task) {
	p.t.Helper()
	p.mu.Lock()
	defer p.mu.Unlock()
	for _, tk := range tasks {
		pr, err := tk.Prompt()
		require.NoError(p.t, err)
		p.prompts[pr] = tk.ID
	}
}

func (p *fakeProvider) requests() []genCall {
	p.mu.Lock()
	defer p.mu.Unlock()
	return append([]genCall(nil), p.calls...)
}

// text reads message content: a string or a list of text parts.
func text(v any) string {
	switch c := v.(type) {
	case string:
		return c
	case []any:
		var b strings.Builder
		for _, part := range c {
			if m, ok := part.(map[string]any); ok {
				s, _ := m["text"].(string)
				b.WriteString(s)
			}
		}
		return b.String()
	}
	return ""
}

func (p *fakeProvider) serve(w http.ResponseWriter, r *http.Request) {
	raw, _ := io.ReadAll(r.Body)
	var body map[string]any
	if err := json.Unmarshal(raw, &body); err != nil {
		p.t.Errorf("%s: body is no JSON: %v", p.wire, err)
	}
	call := genCall{Raw: string(raw)}
	path := "/v1/chat/completions"
	if p.wire == "anthropic" {
		path = "/v1/messages"
		call.System = text(body["system"])
	}
	if key := r.Header.Get("Authorization"); r.URL.Path != path || key != "Bearer "+genSecret {
		p.t.Errorf("%s: a request to %s, key sent: %t", p.wire, r.URL.Path, key == "Bearer "+genSecret)
	}
	msgs, _ := body["messages"].([]any)
	for _, m := range msgs {
		mm := m.(map[string]any)
		role, _ := mm["role"].(string)
		if role == "system" {
			call.System = text(mm["content"])
			continue
		}
		call.Turns = append(call.Turns, turn{Role: role, Text: text(mm["content"])})
	}
	id, ok := p.prompts[call.Turns[0].Text]
	if !ok {
		p.t.Errorf("%s: a prompt that is no task's: %.200q", p.wire, call.Turns[0].Text)
		http.Error(w, `{"error":{"message":"unknown prompt"}}`, http.StatusBadRequest)
		return
	}
	call.Task = id
	p.mu.Lock()
	p.calls = append(p.calls, call)
	fail := p.script[id] == "500" && !p.failed[id]
	p.failed[id] = p.failed[id] || fail
	p.mu.Unlock()

	w.Header().Set("Content-Type", "application/json")
	if fail {
		w.WriteHeader(http.StatusInternalServerError)
		if p.wire == "openai" {
			_, _ = w.Write(readLLMTestdata(p.t, "openai_error_500.json"))
		} else {
			_, _ = w.Write([]byte(`{"type":"error","error":{"type":"api_error","message":"Internal server error"}}`))
		}
		return
	}
	reply, stop, refusal := p.answer(id, len(call.Turns) > 1)
	_, _ = w.Write(p.body(reply, stop, refusal))
}

// answer is the reply to a task's call (continuation: a later call).
func (p *fakeProvider) answer(id string, continuation bool) (reply, stop, refusal string) {
	end, cut := "stop", "length"
	if p.wire == "anthropic" {
		end, cut = "end_turn", "max_tokens"
	}
	switch p.script[id] {
	case "two-files":
		return genReply(p.t, "gpt_three_files.md"), end, ""
	case "truncated":
		if !continuation {
			return strings.TrimSuffix(genReply(p.t, "truncated_1.md"), "\n"), cut, ""
		}
		if p.wire == "openai" {
			return genReply(p.t, "continuation_1.md"), end, ""
		}
		return genReply(p.t, "continuation_reopened.md"), end, ""
	case "refusal":
		if p.wire == "openai" {
			return "", end, "I'm sorry, but I can't help with that request."
		}
		return genReply(p.t, "refusal.md"), end, ""
	case "no-html":
		return genReply(p.t, "no_html.md"), end, ""
	case "unfenced":
		return genReply(p.t, "unfenced.md"), end, ""
	}
	if p.wire == "openai" {
		return genReply(p.t, "gpt_prose_fence.md"), end, ""
	}
	return genReply(p.t, "claude_prose_fence.md"), end, ""
}

// body is a successful response as the provider sends it: OpenAI uses
// 1500 prompt and 2000 completion tokens a call, Anthropic 1200 and 2500.
func (p *fakeProvider) body(reply, stop, refusal string) []byte {
	var v any
	if p.wire == "openai" {
		msg := map[string]any{"role": "assistant", "content": reply, "refusal": nil}
		if refusal != "" {
			msg["content"], msg["refusal"] = nil, refusal
		}
		v = map[string]any{
			"id": "chatcmpl-gen-test", "object": "chat.completion", "created": 1760000000, "model": "test-gpt-2025-01-01",
			"choices": []any{map[string]any{"index": 0, "message": msg, "logprobs": nil, "finish_reason": stop}},
			"usage": map[string]any{"prompt_tokens": 1500, "completion_tokens": 2000, "total_tokens": 3500,
				"prompt_tokens_details":     map[string]any{"cached_tokens": 0, "audio_tokens": 0},
				"completion_tokens_details": map[string]any{"reasoning_tokens": 0, "audio_tokens": 0}},
		}
	} else {
		v = map[string]any{
			"id": "msg_gen_test", "type": "message", "role": "assistant", "model": "test-claude-20250929",
			"content": []any{map[string]any{"type": "text", "text": reply}}, "stop_reason": stop, "stop_sequence": nil,
			"usage": map[string]any{"input_tokens": 1200, "cache_creation_input_tokens": 0, "cache_read_input_tokens": 0, "output_tokens": 2500},
		}
	}
	b, _ := json.Marshal(v)
	return b
}

func genReply(t *testing.T, name string) string {
	t.Helper()
	b, err := os.ReadFile(filepath.Join("..", "gen", "testdata", "replies", name))
	require.NoError(t, err)
	return string(b)
}

func genPage(t *testing.T, name string) string {
	t.Helper()
	b, err := os.ReadFile(filepath.Join("..", "gen", "testdata", "pages", name))
	require.NoError(t, err)
	return string(b)
}

func readLLMTestdata(t *testing.T, name string) []byte {
	t.Helper()
	b, err := os.ReadFile(filepath.Join("..", "llm", "testdata", name))
	require.NoError(t, err)
	return b
}

// genModelsFile writes a models file: the generator on the OpenAI-style
// fake, the repairer on the Anthropic-style one (whose base_url and key
// --model anthropic/test-claude takes), prices per 1M tokens and budgets.
func genModelsFile(t *testing.T, openai, anthropic *fakeProvider, budgets string) string {
	t.Helper()
	text := `pricing:
  test-gpt: {input: 2.00, output: 8.00}
  test-claude: {input: 3.00, output: 15.00}
` + budgets + `roles:
  generator:
    provider: openai
    model: test-gpt
    max_tokens: 8000
`
	if openai != nil {
		text += "    base_url: " + openai.srv.URL + "/v1\n    key_env: TEST_OPENAI_KEY\n"
	}
	if anthropic != nil {
		text += "  repairer:\n    provider: anthropic\n    model: test-claude\n    base_url: " + anthropic.srv.URL + "/\n    key_env: TEST_ANTHROPIC_KEY\n"
	}
	path := filepath.Join(t.TempDir(), "models.yaml")
	require.NoError(t, os.WriteFile(path, []byte(text), 0o644))
	return path
}

var genEnv = map[string]string{"TEST_OPENAI_KEY": genSecret, "TEST_ANTHROPIC_KEY": genSecret}

// copyStarter copies the starter suite to a folder the test may change.
func copyStarter(t *testing.T) (string, []*task.Task) {
	t.Helper()
	dir := filepath.Join(t.TempDir(), "starter")
	require.NoError(t, os.CopyFS(dir, os.DirFS(filepath.Join("..", "..", "suites", "starter"))))
	tasks, err := task.LoadSuite(dir)
	require.NoError(t, err)
	require.Len(t, tasks, 40)
	return dir, tasks
}

func digestOf(t *testing.T, path string) string {
	t.Helper()
	b, err := os.ReadFile(path)
	require.NoError(t, err)
	sum := sha256.Sum256(b)
	return hex.EncodeToString(sum[:])
}

// TestGenStarterSuiteTwoProviders generates the whole starter suite with
// an OpenAI-style and an Anthropic-style model, replies written the way
// they answer (prose and a fence, three files, a cut-off reply continued,
// a refusal, prose only, a 500 then the page, an unfenced document), then
// resumes (no call), retries the failed samples, and refuses, then
// regenerates, a sample whose prompt changed.
func TestGenStarterSuiteTwoProviders(t *testing.T) {
	suite, tasks := copyStarter(t)
	oa, an := newFakeProvider(t, "openai", tasks), newFakeProvider(t, "anthropic", tasks)
	models := genModelsFile(t, oa, an, "")
	out := filepath.Join(t.TempDir(), "gen")
	args := []string{"gen", suite, "--model", "generator", "--model", "anthropic/test-claude", "--models", models, "--out", out, "--jobs", "8"}
	ctx := context.Background()

	code, stdout, stderr := executeIn(ctx, genEnv, args...)
	require.Equal(t, ExitOK, code, "stderr: %s", stderr)
	require.Contains(t, stderr, "gen: 40 tasks × 2 models × 1 sample = 80 samples (0 kept, 80 to generate), 8 jobs → "+out+"\n")
	require.Contains(t, stderr, "retrying openai/test-gpt in ")
	require.Contains(t, stderr, "retrying anthropic/test-claude in ")
	require.Contains(t, stderr, "] application/counter-panel openai-test-gpt sample 1: FAILED refusal (1 turn): the model declined: \"I'm sorry, but I can't help with that request.\"\n")
	require.Contains(t, stderr, "] simulation/pendulum anthropic-test-claude sample 1: stop, 2 turns, 2400→5000 tokens, $0.0822\n")
	noHTML := "the reply has no code block and no HTML document (443 characters of prose: \"To build this scene you would need three parts: 1. A Three.js scene with a perspective camera looking at the floor. 2. A sphere mesh named `ball`, moved every f…\")"
	declined := "the model declined: \"I'm sorry, but I can't help with that request.\""
	gpt, claude := filepath.Join(out, "openai-test-gpt", "sample-1"), filepath.Join(out, "anthropic-test-claude", "sample-1")
	require.Equal(t, `
76 of 80 samples have a page, 4 failed (no_html 2, refusal 2); 80 generated now in 82 calls, 0 kept
cost $2.4641, tokens in 110700, out 184500
failed samples (gen.json says why; --retry-failed generates them again):
  application/counter-panel anthropic/test-claude sample 1: refusal: `+declined+`
  application/counter-panel generator sample 1: refusal: `+declined+`
  simulation/heat-diffusion anthropic/test-claude sample 1: no_html: `+noHTML+`
  simulation/heat-diffusion generator sample 1: no_html: `+noHTML+`
pages in `+out+`; judge them with:
  worldprobe run `+suite+` --candidates openai-test-gpt=`+gpt+` --candidates anthropic-test-claude=`+claude+`
`, stdout)

	// What the providers were sent: 40 first calls, one continuation and
	// one call answered 500 each, every one the instruction and the task's
	// prompt exactly.
	for _, p := range []*fakeProvider{oa, an} {
		calls := p.requests()
		require.Len(t, calls, 42, p.wire)
		perTask := map[string]int{}
		for _, c := range calls {
			perTask[c.Task]++
			require.Equal(t, gen.Instructions, c.System, p.wire)
			require.Equal(t, "user", c.Turns[0].Role)
			require.NotContains(t, c.Raw, "sk-gen-test")
			if len(c.Turns) > 1 {
				require.Equal(t, "simulation/pendulum", c.Task)
				require.Equal(t, []turn{c.Turns[0], {"assistant", strings.TrimSuffix(genReply(t, "truncated_1.md"), "\n")}, {"user", gen.Continue}}, c.Turns,
					"%s: the continuation sends the partial answer back and asks for the rest", p.wire)
			}
		}
		require.Len(t, perTask, 40)
		require.Equal(t, 2, perTask["simulation/pendulum"])
		require.Equal(t, 2, perTask["application/bar-chart"])
	}

	// Every sample has its gen.json; the pages are the extracted ones.
	for _, tk := range tasks {
		p, err := gen.PromptOf(tk)
		require.NoError(t, err)
		td, err := tk.Digest()
		require.NoError(t, err)
		for _, dir := range []string{gpt, claude} {
			d := filepath.Join(dir, filepath.FromSlash(tk.ID))
			r, err := gen.ReadRecord(d)
			require.NoError(t, err)
			require.NotNil(t, r, d)
			require.Equal(t, p.Digest(), r.PromptDigest, d)
			require.Equal(t, td, r.TaskDigest, d)
			require.Equal(t, tk.ID, r.Task)
			require.Equal(t, 1, r.Sample)
			require.Equal(t, 1, r.Attempt)
			require.FileExists(t, filepath.Join(d, gen.ReplyFile))
			if r.Status == gen.StatusDone {
				require.Equal(t, digestOf(t, filepath.Join(d, gen.PageFile)), r.PageDigest, d)
			} else {
				require.NoFileExists(t, filepath.Join(d, gen.PageFile), "a failed sample has no page: run judges it as no_candidate")
			}
		}
	}
	rec := func(dir, id string) *gen.Record {
		r, err := gen.ReadRecord(filepath.Join(dir, filepath.FromSlash(id)))
		require.NoError(t, err)
		return r
	}
	pendulum := rec(gpt, "simulation/pendulum")
	require.InDelta(t, 0.038, pendulum.CostUSD, 1e-12)
	pendulum.CostUSD, pendulum.LatencyMS = 0, 0
	pd := pendulum.PromptDigest
	require.Equal(t, &gen.Record{Version: 1, Task: "simulation/pendulum", Sample: 1, Attempt: 1, Status: gen.StatusDone,
		Model: "openai/test-gpt", ServedModel: "test-gpt-2025-01-01", Requested: "generator", Role: llm.Generator, Source: llm.SourceLive,
		TokensIn: 3000, TokensOut: 4000, FinishReason: gen.FinishStop, Turns: 2, StopReasons: []llm.StopReason{llm.StopLength, llm.StopEnd},
		PromptDigest: pd, TaskDigest: pendulum.TaskDigest, PageDigest: pendulum.PageDigest,
		Extraction: &gen.Extraction{From: "fenced block"}}, pendulum)
	for _, dir := range []string{gpt, claude} {
		b, err := os.ReadFile(filepath.Join(dir, "simulation", "pendulum", gen.PageFile))
		require.NoError(t, err)
		require.Equal(t, genPage(t, "pendulum_joined.html"), string(b), "the cut-off page and its continuation, joined")
		b, err = os.ReadFile(filepath.Join(dir, "application", "color-cycle-cube", gen.PageFile))
		require.NoError(t, err)
		require.Equal(t, genPage(t, "gpt_three_files.html"), string(b), "three files, inlined into one")
	}
	refused := rec(claude, "application/counter-panel")
	require.InDelta(t, 0.0411, refused.CostUSD, 1e-12)
	refused.CostUSD, refused.LatencyMS = 0, 0
	require.Equal(t, &gen.Record{Version: 1, Task: "application/counter-panel", Sample: 1, Attempt: 1, Status: gen.StatusFailed,
		Model: "anthropic/test-claude", ServedModel: "test-claude-20250929", Requested: "anthropic/test-claude", Role: llm.Generator, Source: llm.SourceLive,
		TokensIn: 1200, TokensOut: 2500, FinishReason: gen.FinishRefusal, Turns: 1, StopReasons: []llm.StopReason{llm.StopEnd},
		PromptDigest: refused.PromptDigest, TaskDigest: refused.TaskDigest,
		Extraction: &gen.Extraction{Failure: gen.Refusal, Reason: declined}, Error: declined}, refused)
	require.Equal(t, []llm.StopReason{llm.StopRefusal}, rec(gpt, "application/counter-panel").StopReasons, "OpenAI's refusal field")
	require.Equal(t, gen.FinishNoHTML, rec(gpt, "simulation/heat-diffusion").FinishReason)
	require.Equal(t, "unfenced document", rec(claude, "rendering/fog-depth").Extraction.From)
	require.Equal(t, []string{"style.css", "main.js"}, rec(claude, "application/color-cycle-cube").Extraction.Inlined)
	require.Equal(t, gen.FinishStop, rec(gpt, "application/bar-chart").FinishReason, "a 500 is retried")
	require.Equal(t, 1, rec(gpt, "application/bar-chart").Turns)
	require.NoError(t, filepath.WalkDir(out, func(path string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() {
			return err
		}
		b, err := os.ReadFile(path)
		require.NoError(t, err)
		require.NotContains(t, string(b), genSecret, path)
		require.False(t, strings.HasSuffix(path, ".tmp"), "a temporary file is left: %s", path)
		return nil
	}))

	// The same command again: every sample is kept, nothing is sent.
	code, stdout, stderr = executeIn(ctx, genEnv, args...)
	require.Equal(t, ExitOK, code, "stderr: %s", stderr)
	require.Contains(t, stderr, "80 samples (80 kept, 0 to generate)")
	require.Contains(t, stdout, "\n76 of 80 samples have a page, 4 failed (no_html 2, refusal 2); 0 generated now in 0 calls, 80 kept\ncost $0.0000, tokens in 0, out 0\n")
	require.Len(t, oa.requests(), 42, "a resumed gen makes no call")
	require.Len(t, an.requests(), 42)

	// --retry-failed: only the four failed samples, as their second attempt.
	code, stdout, stderr = executeIn(ctx, genEnv, append(args, "--retry-failed")...)
	require.Equal(t, ExitOK, code, "stderr: %s", stderr)
	require.Contains(t, stdout, "\n76 of 80 samples have a page, 4 failed (no_html 2, refusal 2); 4 generated now in 4 calls, 76 kept\n")
	require.Len(t, oa.requests(), 44)
	require.Len(t, an.requests(), 44)
	require.Equal(t, 2, rec(gpt, "simulation/heat-diffusion").Attempt)
	require.Equal(t, 1, rec(gpt, "simulation/projectile").Attempt)

	// A brief edited since: refused, naming the task, until --regenerate-changed.
	before := rec(gpt, "simulation/projectile").PromptDigest
	brief := filepath.Join(suite, "simulation", "projectile", "brief.md")
	b, err := os.ReadFile(brief)
	require.NoError(t, err)
	require.NoError(t, os.WriteFile(brief, append(b, []byte("\nThe ground is grey.\n")...), 0o644))
	code, _, stderr = executeIn(ctx, genEnv, args...)
	require.Equal(t, ExitInfrastructure, code, "stderr: %s", stderr)
	require.Contains(t, stderr, "worldprobe: the prompt changed since samples were generated ("+out+"): 2 samples of 1 task:\n  simulation/projectile: openai-test-gpt sample 1 (gen.json prompt_digest ")
	require.Contains(t, stderr, "\n  simulation/projectile: anthropic-test-claude sample 1 (gen.json prompt_digest ")
	require.Contains(t, stderr, "\nrun the same command with --regenerate-changed to generate them again (every other sample is kept), or use another --out folder\n")
	require.Len(t, oa.requests(), 44, "a refused gen makes no call")
	edited, err := task.Load(filepath.Dir(brief))
	require.NoError(t, err)
	oa.learn(edited)
	an.learn(edited)
	code, stdout, stderr = executeIn(ctx, genEnv, append(args, "--regenerate-changed")...)
	require.Equal(t, ExitOK, code, "stderr: %s", stderr)
	require.Contains(t, stderr, "--regenerate-changed: the prompt of 2 samples changed; generating them again:\n  simulation/projectile: openai-test-gpt sample 1\n  simulation/projectile: anthropic-test-claude sample 1\n")
	require.Contains(t, stdout, "; 2 generated now in 2 calls, 78 kept\n")
	require.Len(t, oa.requests(), 45)
	projectile := rec(gpt, "simulation/projectile")
	after, err := gen.PromptOf(edited)
	require.NoError(t, err)
	require.Equal(t, after.Digest(), projectile.PromptDigest, "the prompt of the edited brief")
	require.NotEqual(t, before, projectile.PromptDigest)
	require.Equal(t, 2, projectile.Attempt)

	// A dry run over the finished folder has nothing to do.
	code, stdout, stderr = executeIn(ctx, nil, append(args, "--dry-run")...)
	require.Equal(t, ExitOK, code, "stderr: %s", stderr)
	require.Equal(t, "dry run: 0 calls would be made (80 of 80 samples kept); nothing is sent\n"+
		"estimated cost: $0.0000 for the prompts (about 0 input tokens) + at most $0.0000 for the output (max_tokens per call) = at most $0.0000; continuations of cut-off replies (up to 2 more calls a sample) are not counted\n", stdout)
}

// TestGenDryRunMakesNoCall: --dry-run lists each call with its estimated
// prompt tokens and prices them from the pricing table, without keys,
// sending nothing and writing nothing.
func TestGenDryRunMakesNoCall(t *testing.T) {
	suite := filepath.Join("..", "..", "suites", "starter")
	tasks, err := task.Select([]string{suite}, []string{"simulation/*"})
	require.NoError(t, err)
	oa, an := newFakeProvider(t, "openai", tasks), newFakeProvider(t, "anthropic", tasks)
	models := genModelsFile(t, oa, an, "")
	out := filepath.Join(t.TempDir(), "gen")
	code, stdout, stderr := executeIn(context.Background(), nil, "gen", suite, "--task", "simulation/*", "--model", "generator",
		"--model", "anthropic/test-claude", "--models", models, "--out", out, "--dry-run")
	require.Equal(t, ExitOK, code, "stderr: %s", stderr)
	require.Empty(t, oa.requests())
	require.Empty(t, an.requests())
	require.NoDirExists(t, out)

	lines := strings.Split(strings.TrimSuffix(stdout, "\n"), "\n")
	require.Len(t, lines, 1+1+20+1)
	require.Equal(t, "dry run: 20 calls would be made (0 of 20 samples kept); nothing is sent", lines[0])
	require.Regexp(t, `^TASK +SAMPLE +MODEL +PROMPT TOKENS \(EST\.\) +MAX OUTPUT +INPUT \$ +OUTPUT \$ \(AT MOST\)$`, lines[1])
	var inUSD, outUSD float64
	tokens := 0
	for i, tk := range tasks {
		p, err := gen.PromptOf(tk)
		require.NoError(t, err)
		est := llm.EstimateInputTokens(p.Request("sample-1"))
		tokens += 2 * est
		for j, m := range []struct {
			name           string
			maxOut         int
			inPrice, outPr float64
		}{{"openai/test-gpt", 8000, 2, 8}, {"anthropic/test-claude", 8000, 3, 15}} {
			in, o := float64(est)*m.inPrice/1e6, float64(m.maxOut)*m.outPr/1e6
			inUSD, outUSD = inUSD+in, outUSD+o
			require.Equal(t, []string{tk.ID, "1", m.name, fmt.Sprint(est), fmt.Sprint(m.maxOut), fmt.Sprintf("%.4f", in), fmt.Sprintf("%.4f", o)},
				strings.Fields(lines[2+2*i+j]))
		}
	}
	require.Equal(t, fmt.Sprintf("estimated cost: $%.4f for the prompts (about %d input tokens) + at most $%.4f for the output (max_tokens per call) = at most $%.4f;"+
		" continuations of cut-off replies (up to 2 more calls a sample) are not counted", inUSD, tokens, outUSD, inUSD+outUSD), lines[len(lines)-1])
	require.InDelta(t, 1.84, outUSD, 1e-9, "10 × 8000 × $8/M + 10 × 8000 × $15/M (--model anthropic/test-claude keeps the generator's max_tokens)")
}

// TestGenBudgetStops: a run budget stops gen cleanly with the finished
// samples kept and the command that resumes; resuming with more budget
// generates the rest only.
func TestGenBudgetStops(t *testing.T) {
	suite := filepath.Join("..", "..", "suites", "starter")
	tasks, err := task.Select([]string{suite}, []string{"rendering/*"})
	require.NoError(t, err)
	require.Len(t, tasks, 10)
	oa := newFakeProvider(t, "openai", tasks)
	out := filepath.Join(t.TempDir(), "gen")
	// $0.019 a call: the fourth call would start with $0.057 spent.
	tight := genModelsFile(t, oa, nil, "budgets: {run_usd: 0.05}\n")
	args := []string{"gen", suite, "--task", "rendering/*", "--model", "generator", "--out", out, "--jobs", "1"}
	code, stdout, stderr := executeIn(context.Background(), genEnv, append(args, "--models", tight)...)
	require.Equal(t, ExitModelFatal, code, "stderr: %s", stderr)
	require.Len(t, oa.requests(), 3, "no call starts past the budget")
	require.Contains(t, stderr, "worldprobe: gen stopped: llm: run budget exceeded: $0.0570 of $0.0500 spent\n"+
		"3 of 10 samples finished and kept (3 generated now), 7 not generated; raise the budget under budgets: in the models file and resume with: "+
		"worldprobe gen "+suite+" --jobs 1 --model generator --models "+tight+" --out "+out+" --task 'rendering/*'\n")
	require.Contains(t, stdout, "\n3 of 10 samples have a page, 0 failed; 3 generated now in 3 calls, 0 kept\ncost $0.0570, tokens in 4500, out 6000\n")
	for i, tk := range tasks {
		r, err := gen.ReadRecord(filepath.Join(out, "openai-test-gpt", "sample-1", filepath.FromSlash(tk.ID)))
		require.NoError(t, err)
		require.Equal(t, i < 3, r != nil, "%s: the first three samples (in plan order) are finished, the others not begun", tk.ID)
	}

	roomy := genModelsFile(t, oa, nil, "budgets: {run_usd: 1}\n")
	code, stdout, stderr = executeIn(context.Background(), genEnv, append(args, "--models", roomy)...)
	require.Equal(t, ExitOK, code, "stderr: %s", stderr)
	require.Contains(t, stdout, "\n10 of 10 samples have a page, 0 failed; 7 generated now in 7 calls, 3 kept\n")
	require.Len(t, oa.requests(), 10)
}

// TestGenRefusesBeforeAnyCall: a missing key is fatal (exit 4) and bad
// flags are usage errors (exit 2), before any call.
func TestGenRefusesBeforeAnyCall(t *testing.T) {
	suite := filepath.Join("..", "..", "suites", "starter")
	tasks, err := task.Select([]string{suite}, []string{"simulation/pendulum"})
	require.NoError(t, err)
	oa := newFakeProvider(t, "openai", tasks)
	models := genModelsFile(t, oa, nil, "")
	out := filepath.Join(t.TempDir(), "gen")
	base := []string{"gen", suite, "--task", "simulation/pendulum", "--models", models, "--out", out}

	code, _, stderr := executeIn(context.Background(), nil, append(base, "--model", "generator")...)
	require.Equal(t, ExitModelFatal, code)
	require.Equal(t, "worldprobe: llm: fatal: role generator (openai test-gpt): missing API key: environment variable TEST_OPENAI_KEY is not set\n", stderr)

	for _, c := range []struct {
		args []string
		msg  string
	}{
		{nil, "worldprobe: gen needs --model ROLE or PROVIDER/MODEL (e.g. --model generator, --model openai/gpt-4.1)\n"},
		{[]string{"--model", "generator", "-n", "0"}, "worldprobe: -n must be at least 1\n"},
		{[]string{"--model", "generator", "--jobs", "0"}, "worldprobe: --jobs must be at least 1 (0 only with --db: enqueue and let workers generate)\n"},
		{[]string{"--model", "generator", "--record", "a", "--replay", "b"}, "worldprobe: --record and --replay cannot be used together\n"},
		{[]string{"--model", "judge"}, `worldprobe: --model "judge": not a role and not PROVIDER/MODEL: llm: unknown role "judge"`},
		{[]string{"--model", "generator", "--model", "openai/test-gpt"}, "worldprobe: --model generator and --model openai/test-gpt both write with openai/test-gpt (folder openai-test-gpt): give each model once\n"},
		{[]string{"--model", "generator", "--task", "nothing/*"}, `worldprobe: --task "nothing/*" matches no task`},
		{[]string{"--model", "generator", "--repair", "-1"}, "worldprobe: --repair must be 0 (no repair) or a number of rounds\n"},
		{[]string{"--model", "generator", "--repair-mode", "feedback"}, "worldprobe: --repair-mode feedback needs --repair R (the rounds of repair)\n"},
		{[]string{"--model", "generator", "--repair", "1", "--repair-mode", "contract"}, "worldprobe: --repair-mode: unknown repair mode \"contract\" (known: errors, feedback)\n"},
	} {
		code, _, stderr := executeIn(context.Background(), genEnv, append(base, c.args...)...)
		require.Equal(t, ExitUsage, code, "%v: %s", c.args, stderr)
		require.True(t, strings.HasPrefix(stderr, c.msg), "%v: %s", c.args, stderr)
	}
	require.Empty(t, oa.requests())
	require.NoDirExists(t, out)
}

// TestGenOutputRunsAsCandidates: 'run' judges gen's output folder as
// --candidates, with the real browser, on one small task.
func TestGenOutputRunsAsCandidates(t *testing.T) {
	tasks, err := task.LoadSuite(tinySuite())
	require.NoError(t, err)
	solution, err := os.ReadFile(tasks[0].SolutionPath())
	require.NoError(t, err)
	reply := "Here is the page you asked for.\n\n```html\n" + string(solution) + "```\n\nThe box moves at 1 m/s along x.\n"
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "application/json")
		b, _ := json.Marshal(map[string]any{"id": "chatcmpl-1", "object": "chat.completion", "created": 1760000000, "model": "test-gpt",
			"choices": []any{map[string]any{"index": 0, "message": map[string]any{"role": "assistant", "content": reply}, "finish_reason": "stop"}},
			"usage":   map[string]any{"prompt_tokens": 300, "completion_tokens": 400, "total_tokens": 700}})
		_, _ = w.Write(b)
	}))
	t.Cleanup(srv.Close)
	models := genModelsFile(t, &fakeProvider{srv: srv}, nil, "")
	out := filepath.Join(t.TempDir(), "gen")
	env := map[string]string{"TEST_OPENAI_KEY": genSecret, EnvWeb: webDir(t)}
	code, stdout, stderr := executeIn(context.Background(), env, "gen", tinySuite(), "--model", "generator", "--models", models, "--out", out)
	require.Equal(t, ExitOK, code, "stderr: %s", stderr)
	cands := filepath.Join(out, "openai-test-gpt", "sample-1")
	require.Contains(t, stdout, "judge them with:\n  worldprobe run "+tinySuite()+" --candidates openai-test-gpt="+cands+"\n")
	page, err := os.ReadFile(filepath.Join(cands, "simulation", "tiny", gen.PageFile))
	require.NoError(t, err)
	require.Equal(t, strings.TrimSpace(string(solution))+"\n", string(page))

	runOut := filepath.Join(t.TempDir(), "run")
	code, stdout, stderr = executeIn(context.Background(), env, "run", tinySuite(), "--candidates", "openai-test-gpt="+cands, "--out", runOut)
	require.Equal(t, ExitOK, code, "stderr: %s", stderr)
	require.Contains(t, stdout, "1 trials (1 run, 0 kept)")
	trials := readTrials(t, runOut)
	require.Len(t, trials, 1)
	tr := trials["simulation_tiny__openai-test-gpt__tiny__s0"]
	require.NotNil(t, tr, "trials: %v", trials)
	require.Equal(t, "ok", tr.Outcome)
	require.True(t, tr.Pass, "the generated page is judged and passes")

	// run reads the cost gen recorded: 300 tokens in at $2/M and 400 out at
	// $8/M is $0.0038; RoA = V-Cov 1 × 0.2 h (the task's human_hours) × $60/h / $0.0038.
	var l report.Leaderboard
	b, err := os.ReadFile(filepath.Join(runOut, report.LeaderboardJSON))
	require.NoError(t, err)
	require.NoError(t, json.Unmarshal(b, &l))
	require.Len(t, l.Rows, 1)
	require.Equal(t, 1, l.Rows[0].Economics.RoA.Trials)
	require.InDelta(t, 0.2*60/0.0038, *l.Rows[0].Economics.RoA.Value, 1e-6)
}

// TestGenInterruptKeepsFinishedSamples: interrupted while a call is under
// way, gen keeps the samples that finished, says how many and how to
// resume, and exits 3; the same command then generates the rest.
func TestGenInterruptKeepsFinishedSamples(t *testing.T) {
	suite := filepath.Join("..", "..", "suites", "starter")
	tasks, err := task.Select([]string{suite}, []string{"rendering/*"})
	require.NoError(t, err)
	oa := newFakeProvider(t, "openai", tasks)
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	serve := oa.srv.Config.Handler
	var n int
	var mu sync.Mutex
	oa.srv.Config.Handler = http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		mu.Lock()
		n++
		third := n == 3
		mu.Unlock()
		if third {
			_, _ = io.Copy(io.Discard, r.Body) // the server notices the client leave once the body is read
			cancel()                           // Ctrl-C while the third call is under way
			select {
			case <-r.Context().Done():
			case <-time.After(time.Minute):
				t.Errorf("the interrupted call was not cancelled")
			}
			return
		}
		serve.ServeHTTP(w, r)
	})
	models := genModelsFile(t, oa, nil, "")
	out := filepath.Join(t.TempDir(), "gen")
	args := []string{"gen", suite, "--task", "rendering/*", "--model", "generator", "--models", models, "--out", out, "--jobs", "1"}
	code, _, stderr := executeIn(ctx, genEnv, args...)
	require.Equal(t, ExitInfrastructure, code, "stderr: %s", stderr)
	require.Contains(t, stderr, "gen interrupted (context canceled): 2 of 10 samples finished and kept, 8 not generated\n"+
		"resume with: worldprobe gen "+suite+" --jobs 1 --model generator --models "+models+" --out "+out+" --task 'rendering/*'\n")
	entries, err := filepath.Glob(filepath.Join(out, "openai-test-gpt", "sample-1", "rendering", "*", gen.RecordFile))
	require.NoError(t, err)
	require.Len(t, entries, 2)

	code, stdout, stderr := executeIn(context.Background(), genEnv, args...)
	require.Equal(t, ExitOK, code, "stderr: %s", stderr)
	require.Contains(t, stdout, "\n10 of 10 samples have a page, 0 failed; 8 generated now in 8 calls, 2 kept\n")
}

// TestGenRecordReplay: --record writes every call, continuations included;
// --replay then generates the same pages offline, with no key.
func TestGenRecordReplay(t *testing.T) {
	suite := filepath.Join("..", "..", "suites", "starter")
	tasks, err := task.Select([]string{suite}, []string{"simulation/pendulum", "rendering/fog-depth"})
	require.NoError(t, err)
	oa := newFakeProvider(t, "openai", tasks)
	models := genModelsFile(t, oa, nil, "")
	rec, out, again := filepath.Join(t.TempDir(), "rec"), filepath.Join(t.TempDir(), "gen"), filepath.Join(t.TempDir(), "replayed")
	base := []string{"gen", suite, "--task", "simulation/pendulum,rendering/fog-depth", "--model", "generator", "--models", models}
	code, _, stderr := executeIn(context.Background(), genEnv, append(base, "--out", out, "--record", rec)...)
	require.Equal(t, ExitOK, code, "stderr: %s", stderr)
	recordings, err := filepath.Glob(filepath.Join(rec, "generator", "*.json"))
	require.NoError(t, err)
	require.Len(t, recordings, 3, "two first calls and the pendulum's continuation")
	oa.srv.Close()

	code, stdout, stderr := executeIn(context.Background(), nil, append(base, "--out", again, "--replay", rec)...)
	require.Equal(t, ExitOK, code, "stderr: %s", stderr)
	require.Contains(t, stdout, "\n2 of 2 samples have a page, 0 failed; 2 generated now in 3 calls, 0 kept\ncost $0.0570, tokens in 4500, out 6000\n",
		"replays count the recorded usage and cost")
	for _, id := range []string{"simulation/pendulum", "rendering/fog-depth"} {
		rel := filepath.Join("openai-test-gpt", "sample-1", filepath.FromSlash(id), gen.PageFile)
		require.Equal(t, digestOf(t, filepath.Join(out, rel)), digestOf(t, filepath.Join(again, rel)), id)
		r, err := gen.ReadRecord(filepath.Dir(filepath.Join(again, rel)))
		require.NoError(t, err)
		require.Equal(t, llm.SourceReplay, r.Source)
	}
}
