package probe

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"sync"
	"testing"

	"github.com/worldprobe/worldprobe/internal/llm"
	"github.com/worldprobe/worldprobe/internal/worldjudge/coverage"
	"github.com/worldprobe/worldprobe/internal/worldjudge/quote"
)

// reply is how the fake provider answers one call: text (as a model
// writes it, prose and all), tool calls (name and JSON arguments), or an
// HTTP error.
type reply struct {
	text   string
	calls  [][2]string
	status int
	body   string
}

func text(s string) reply { return reply{text: s} }

func call(name, args string) reply { return reply{calls: [][2]string{{name, args}}} }

// fakeOpenAI answers chat completions as OpenAI does, one scripted reply
// per call, and keeps the request bodies.
type fakeOpenAI struct {
	t       *testing.T
	srv     *httptest.Server
	mu      sync.Mutex
	replies []reply
	bodies  []map[string]any
}

func newFake(t *testing.T, replies ...reply) *fakeOpenAI {
	t.Helper()
	f := &fakeOpenAI{t: t, replies: replies}
	f.srv = httptest.NewServer(http.HandlerFunc(f.serve))
	t.Cleanup(f.srv.Close)
	return f
}

func (f *fakeOpenAI) serve(w http.ResponseWriter, r *http.Request) {
	raw, _ := io.ReadAll(r.Body)
	var body map[string]any
	if err := json.Unmarshal(raw, &body); err != nil {
		f.t.Errorf("request body: %v", err)
	}
	f.mu.Lock()
	f.bodies = append(f.bodies, body)
	n := len(f.bodies)
	if len(f.replies) == 0 {
		f.mu.Unlock()
		f.t.Errorf("unexpected call %d", n)
		http.Error(w, `{"error":{"message":"unexpected","type":"invalid_request_error"}}`, http.StatusBadRequest)
		return
	}
	a := f.replies[0]
	f.replies = f.replies[1:]
	f.mu.Unlock()
	w.Header().Set("Content-Type", "application/json")
	if a.status != 0 {
		w.WriteHeader(a.status)
		_, _ = w.Write([]byte(a.body))
		return
	}
	msg := map[string]any{"role": "assistant", "content": nil, "refusal": nil}
	finish := "stop"
	if a.text != "" {
		msg["content"] = a.text
	}
	if len(a.calls) > 0 {
		var calls []any
		for i, c := range a.calls {
			calls = append(calls, map[string]any{"id": fmt.Sprintf("call_%d_%d", n, i), "type": "function",
				"function": map[string]any{"name": c[0], "arguments": c[1]}})
		}
		msg["tool_calls"] = calls
		finish = "tool_calls"
	}
	b, _ := json.Marshal(map[string]any{
		"id": fmt.Sprintf("chatcmpl-%d", n), "object": "chat.completion", "created": 1760000000, "model": "probe-model-2025-06-01",
		"choices": []any{map[string]any{"index": 0, "message": msg, "logprobs": nil, "finish_reason": finish}},
		"usage": map[string]any{"prompt_tokens": 2100, "completion_tokens": 150, "total_tokens": 2250,
			"prompt_tokens_details": map[string]any{"cached_tokens": 0}, "completion_tokens_details": map[string]any{"reasoning_tokens": 0}},
	})
	_, _ = w.Write(b)
}

// model is role on the fake (no retries).
func (f *fakeOpenAI) model(t *testing.T, role llm.Role) llm.Model {
	t.Helper()
	cfg, err := llm.ParseConfig([]byte("allow_unpriced: true\nroles:\n  " + string(role) + ":\n" +
		"    provider: openai\n    model: probe-model\n    max_retries: 0\n    base_url: " + f.srv.URL + "/v1\n    key_env: TEST_PROBE_KEY\n"))
	if err != nil {
		t.Fatal(err)
	}
	reg, err := llm.New(cfg, func(k string) string { return map[string]string{"TEST_PROBE_KEY": "sk-probe-test"}[k] })
	if err != nil {
		t.Fatal(err)
	}
	m, err := reg.Role(context.Background(), role)
	if err != nil {
		t.Fatal(err)
	}
	return m
}

// messages are the chat messages of the i-th request.
func (f *fakeOpenAI) messages(i int) []map[string]any {
	f.mu.Lock()
	defer f.mu.Unlock()
	var out []map[string]any
	for _, m := range f.bodies[i]["messages"].([]any) {
		out = append(out, m.(map[string]any))
	}
	return out
}

// world is testdata/world.html with a hand-made coverage: everything ran
// but buildCactus (lines 14–18), never called.
func world(t *testing.T, repairer llm.Model) *Checker {
	t.Helper()
	b, err := os.ReadFile(filepath.Join("testdata", "world.html"))
	if err != nil {
		t.Fatal(err)
	}
	cov := &coverage.Report{Lines: make([]coverage.State, 27)}
	for l := 4; l <= 24; l++ {
		cov.Lines[l] = coverage.Ran
		if l >= 14 && l <= 18 {
			cov.Lines[l] = coverage.NotRun
		}
	}
	return NewChecker(string(b), cov, quote.WorldBench, repairer)
}
