package agent

import (
	"bytes"
	"context"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"flag"
	"fmt"
	"io"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"sync"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/worldprobe/worldprobe/internal/browser"
	"github.com/worldprobe/worldprobe/internal/gen"
	"github.com/worldprobe/worldprobe/internal/llm"
	"github.com/worldprobe/worldprobe/internal/resolve"
	"github.com/worldprobe/worldprobe/internal/task"
	"github.com/worldprobe/worldprobe/internal/testenv"
)

var update = flag.Bool("update", false, "rewrite the golden files in testdata/")

// One browser per test binary, started by the first test that runs a
// page; the tool tests need none.
var (
	browserOnce  sync.Once
	testBrowser  *browser.Browser
	testResolver *resolve.Resolver
	browserErr   error
)

func TestMain(m *testing.M) {
	flag.Parse()
	code := m.Run()
	if testBrowser != nil {
		testBrowser.Close()
	}
	os.Exit(code)
}

// runtimes gives every task the real runtime, starting the browser.
func runtimes(t *testing.T) func(*task.Task) Runtime {
	t.Helper()
	browserOnce.Do(func() { testBrowser, testResolver, browserErr = testenv.Start(1) })
	require.NoError(t, browserErr, "browser or vendored packages missing: run 'make setup'")
	return func(tk *task.Task) Runtime {
		return &Inspector{Browser: testBrowser, Resolver: testResolver, Task: tk, Logger: slog.New(slog.NewTextHandler(io.Discard, nil))}
	}
}

// testKey is the API key of the tests; it must never be written.
const testKey = "sk-agent-test-SECRET-51c0ffee"

// step is one scripted model turn: its text, its tool calls, and why it
// stopped ("" is a tool call's or the end of the turn's reason).
type step struct {
	text  string
	calls []scriptedCall
	stop  string
	// refusal is OpenAI's refusal field.
	refusal string
	// rawArgs replaces the first call's arguments with this text (a call
	// cut off by the output limit).
	rawArgs string
}

type scriptedCall struct {
	name string
	args map[string]any
}

func tc(name string, args map[string]any) scriptedCall {
	if args == nil {
		args = map[string]any{}
	}
	return scriptedCall{name: name, args: args}
}

// provider is an httptest server answering each call with the next step,
// in the wire format of a real provider: OpenAI chat completions or
// Anthropic messages, as internal/llm/testdata records them.
type provider struct {
	t     *testing.T
	wire  string
	srv   *httptest.Server
	mu    sync.Mutex
	steps []step
	n     int
	got   []map[string]any
}

func newProvider(t *testing.T, wire string, steps ...step) *provider {
	t.Helper()
	p := &provider{t: t, wire: wire, steps: steps}
	p.srv = httptest.NewServer(http.HandlerFunc(p.serve))
	t.Cleanup(p.srv.Close)
	return p
}

func (p *provider) requests() []map[string]any {
	p.mu.Lock()
	defer p.mu.Unlock()
	return append([]map[string]any(nil), p.got...)
}

func (p *provider) serve(w http.ResponseWriter, r *http.Request) {
	raw, _ := io.ReadAll(r.Body)
	var body map[string]any
	if err := json.Unmarshal(raw, &body); err != nil {
		p.t.Errorf("%s: a body that is no JSON: %v", p.wire, err)
	}
	want := map[string]string{"openai": "/v1/chat/completions", "anthropic": "/v1/messages"}[p.wire]
	if r.URL.Path != want || r.Header.Get("Authorization") != "Bearer "+testKey {
		p.t.Errorf("%s: a request to %s with the key %t", p.wire, r.URL.Path, r.Header.Get("Authorization") == "Bearer "+testKey)
	}
	p.mu.Lock()
	p.got = append(p.got, body)
	if p.n == len(p.steps) {
		p.mu.Unlock()
		p.t.Errorf("%s: call %d, past the script", p.wire, p.n+1)
		http.Error(w, `{"error":{"message":"past the script"}}`, http.StatusTeapot)
		return
	}
	s := p.steps[p.n]
	p.n++
	n := p.n
	p.mu.Unlock()
	w.Header().Set("Content-Type", "application/json")
	b, err := json.Marshal(p.body(n, s))
	require.NoError(p.t, err)
	_, _ = w.Write(b)
}

// body is the provider's answer to call n. OpenAI counts 1500 prompt and
// 200 completion tokens a call, Anthropic 1200 and 250.
func (p *provider) body(n int, s step) any {
	if p.wire == "openai" {
		msg := map[string]any{"role": "assistant", "content": nil, "refusal": nil}
		if s.text != "" {
			msg["content"] = s.text
		}
		if s.refusal != "" {
			msg["refusal"] = s.refusal
		}
		var calls []any
		for i, c := range s.calls {
			args, _ := json.Marshal(c.args)
			if i == 0 && s.rawArgs != "" {
				args = []byte(s.rawArgs)
			}
			calls = append(calls, map[string]any{"id": fmt.Sprintf("call_%d_%d", n, i+1), "type": "function",
				"function": map[string]any{"name": c.name, "arguments": string(args)}})
		}
		finish := s.stop
		switch {
		case finish != "":
		case len(calls) > 0:
			finish = "tool_calls"
			msg["tool_calls"] = calls
		default:
			finish = "stop"
		}
		if s.stop != "" && len(calls) > 0 {
			msg["tool_calls"] = calls
		}
		return map[string]any{"id": fmt.Sprintf("chatcmpl-agent-%d", n), "object": "chat.completion", "created": 1760000000 + n,
			"model": "test-gpt-2025-01-01", "system_fingerprint": "fp_test",
			"choices": []any{map[string]any{"index": 0, "message": msg, "logprobs": nil, "finish_reason": finish}},
			"usage": map[string]any{"prompt_tokens": 1500, "completion_tokens": 200, "total_tokens": 1700,
				"prompt_tokens_details":     map[string]any{"cached_tokens": 0, "audio_tokens": 0},
				"completion_tokens_details": map[string]any{"reasoning_tokens": 0, "audio_tokens": 0}}}
	}
	var content []any
	if s.text != "" {
		content = append(content, map[string]any{"type": "text", "text": s.text})
	}
	for i, c := range s.calls {
		content = append(content, map[string]any{"type": "tool_use", "id": fmt.Sprintf("toolu_%02d_%d", n, i+1), "name": c.name, "input": c.args})
	}
	stop := s.stop
	switch {
	case stop != "":
	case len(s.calls) > 0:
		stop = "tool_use"
	default:
		stop = "end_turn"
	}
	return map[string]any{"id": fmt.Sprintf("msg_agent_%02d", n), "type": "message", "role": "assistant", "model": "test-claude-20250929",
		"content": content, "stop_reason": stop, "stop_sequence": nil,
		"usage": map[string]any{"input_tokens": 1200, "cache_creation_input_tokens": 0, "cache_read_input_tokens": 0, "output_tokens": 250}}
}

// model is the generator role of a registry pointed at p, as 'gen
// --model generator' builds it, with budgets (a YAML block) and the
// agent's folder.
func (p *provider) model(t *testing.T, budgets string) *gen.Model {
	t.Helper()
	entry := map[string]string{
		"openai":    "provider: openai\n    model: test-gpt\n    base_url: " + p.srv.URL + "/v1\n",
		"anthropic": "provider: anthropic\n    model: test-claude\n    base_url: " + p.srv.URL + "/\n",
	}[p.wire]
	cfg, err := llm.ParseConfig([]byte(`pricing:
  test-gpt: {input: 2.00, output: 8.00}
  test-claude: {input: 3.00, output: 15.00}
` + budgets + `roles:
  generator:
    ` + entry + `    key_env: TEST_KEY
    max_tokens: 8000
`))
	require.NoError(t, err)
	reg, err := llm.New(cfg, func(k string) string { return map[string]string{"TEST_KEY": testKey}[k] },
		llm.WithLogger(slog.New(slog.NewTextHandler(io.Discard, nil))),
		llm.WithRetryPolicy(llm.RetryPolicy{Base: time.Millisecond, Max: 2 * time.Millisecond}))
	require.NoError(t, err)
	chat, err := reg.Role(context.Background(), llm.Generator)
	require.NoError(t, err)
	name := map[string]string{"openai": "openai/test-gpt", "anthropic": "anthropic/test-claude"}[p.wire]
	return &gen.Model{Spec: "generator", Slug: gen.Slug(name) + gen.AgentSuffix, Role: llm.Generator, Name: name, Chat: chat}
}

// generate plans the agent samples of tasks with m and runs them.
func generate(t *testing.T, out string, m *gen.Model, tasks []*task.Task, o Options) (*gen.Summary, error) {
	t.Helper()
	sum, err := gen.Plan(gen.Options{Tasks: tasks, Models: []*gen.Model{m}, Samples: 1, Out: out, Jobs: 1, Prompt: PromptOf})
	require.NoError(t, err)
	return sum, Execute(context.Background(), o, sum)
}

// messages are the messages of a request body, as sent.
func messages(body map[string]any) []any {
	m, _ := body["messages"].([]any)
	return m
}

// golden compares got with testdata/name, rewriting it with -update.
func golden(t *testing.T, name, got string) {
	t.Helper()
	path := filepath.Join("testdata", name)
	if *update {
		require.NoError(t, os.MkdirAll(filepath.Dir(path), 0o755))
		require.NoError(t, os.WriteFile(path, []byte(got), 0o644))
	}
	want, err := os.ReadFile(path)
	require.NoError(t, err, "run with -update to write %s", path)
	require.Equal(t, string(want), got, "%s (run with -update after checking the difference)", path)
}

// readRecord reads the gen.json of the tiny task's sample in out.
func readRecord(t *testing.T, dir string) *gen.Record {
	t.Helper()
	r, err := gen.ReadRecord(dir)
	require.NoError(t, err)
	require.NotNil(t, r, dir)
	return r
}

// trajectory reads dir's trajectory.jsonl with its times zeroed (they are
// wall-clock), one entry per line, as indented JSON for a golden file.
func trajectory(t *testing.T, dir string) ([]Entry, string) {
	t.Helper()
	b, err := os.ReadFile(filepath.Join(dir, TrajectoryFile))
	require.NoError(t, err)
	dec := json.NewDecoder(bytes.NewReader(b))
	var entries []Entry
	var text bytes.Buffer
	enc := json.NewEncoder(&text)
	enc.SetIndent("", "  ")
	enc.SetEscapeHTML(false)
	for dec.More() {
		var e Entry
		require.NoError(t, dec.Decode(&e))
		e.LatencyMS, e.MS = 0, 0
		entries = append(entries, e)
		require.NoError(t, enc.Encode(e))
	}
	return entries, text.String()
}

// sha is the sha256 of b in hex.
func sha(b []byte) string {
	sum := sha256.Sum256(b)
	return hex.EncodeToString(sum[:])
}
