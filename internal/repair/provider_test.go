package repair

import (
	"context"
	"encoding/json"
	"flag"
	"io"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"sync"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/worldprobe/worldprobe/internal/llm"
	"github.com/worldprobe/worldprobe/internal/task"
)

var update = flag.Bool("update", false, "rewrite the golden files in testdata")

// golden compares got with testdata/<name> (-update rewrites it).
func golden(t *testing.T, name, got string) {
	t.Helper()
	path := filepath.Join("testdata", name)
	if *update {
		require.NoError(t, os.MkdirAll(filepath.Dir(path), 0o755))
		require.NoError(t, os.WriteFile(path, []byte(got), 0o644))
		return
	}
	want, err := os.ReadFile(path)
	require.NoError(t, err, "run go test ./internal/repair -update to create it")
	require.Equal(t, string(want), got)
}

const testKey = "sk-repair-test-SECRET"

// turn is one message of a request the provider received.
type turn struct{ Role, Text string }

// provider is an OpenAI-style chat completions server that answers each
// call with the next of its replies (files of testdata/replies), 1000
// prompt and 500 completion tokens a call, and keeps the requests.
type provider struct {
	t       *testing.T
	srv     *httptest.Server
	mu      sync.Mutex
	replies []string
	got     [][]turn
	raw     []string
}

func newProvider(t *testing.T, replies ...string) *provider {
	p := &provider{t: t, replies: replies}
	p.srv = httptest.NewServer(http.HandlerFunc(p.serve))
	t.Cleanup(p.srv.Close)
	return p
}

func (p *provider) serve(w http.ResponseWriter, r *http.Request) {
	raw, _ := io.ReadAll(r.Body)
	if r.Header.Get("Authorization") != "Bearer "+testKey || r.URL.Path != "/v1/chat/completions" {
		p.t.Errorf("a request to %s without the key", r.URL.Path)
	}
	var body struct {
		Messages []struct {
			Role    string `json:"role"`
			Content any    `json:"content"`
		} `json:"messages"`
	}
	require.NoError(p.t, json.Unmarshal(raw, &body))
	var turns []turn
	for _, m := range body.Messages {
		text := ""
		switch c := m.Content.(type) {
		case string:
			text = c
		case []any:
			for _, part := range c {
				s, _ := part.(map[string]any)["text"].(string)
				text += s
			}
		}
		turns = append(turns, turn{m.Role, text})
	}
	p.mu.Lock()
	p.got, p.raw = append(p.got, turns), append(p.raw, string(raw))
	if len(p.replies) == 0 {
		p.mu.Unlock()
		p.t.Errorf("a call past the scripted replies")
		http.Error(w, `{"error":{"message":"no more replies"}}`, http.StatusBadRequest)
		return
	}
	name := p.replies[0]
	p.replies = p.replies[1:]
	p.mu.Unlock()
	resp := map[string]any{
		"id": "chatcmpl-repair", "object": "chat.completion", "created": 1760000000, "model": "test-gpt-2025-01-01",
		"choices": []any{map[string]any{"index": 0, "message": map[string]any{"role": "assistant", "content": reply(p.t, name), "refusal": nil},
			"logprobs": nil, "finish_reason": "stop"}},
		"usage": map[string]any{"prompt_tokens": 1000, "completion_tokens": 500, "total_tokens": 1500},
	}
	w.Header().Set("Content-Type", "application/json")
	b, _ := json.Marshal(resp)
	_, _ = w.Write(b)
}

func (p *provider) requests() [][]turn {
	p.mu.Lock()
	defer p.mu.Unlock()
	return append([][]turn(nil), p.got...)
}

// model is the generator role on the provider, through the real model
// access layer (retries, pricing at $2 / $8 per 1M tokens: $0.006 a call).
func (p *provider) model(t *testing.T) llm.Model {
	t.Helper()
	cfg := &llm.Config{Version: 1, Pricing: map[string]llm.Price{"test-gpt": {Input: 2, Output: 8}},
		Roles: map[llm.Role]llm.RoleConfig{llm.Generator: {ModelConfig: llm.ModelConfig{Provider: "openai", Model: "test-gpt",
			BaseURL: p.srv.URL + "/v1", KeyEnv: "TEST_KEY", MaxTokens: 8000}}}}
	reg, err := llm.New(cfg, func(k string) string {
		if k == "TEST_KEY" {
			return testKey
		}
		return ""
	})
	require.NoError(t, err)
	m, err := reg.Role(context.Background(), llm.Generator)
	require.NoError(t, err)
	return m
}

// static is a Diagnoser that parses the page's scripts: the part of the
// error check that needs no browser. It counts its checks.
type static struct {
	mu     sync.Mutex
	checks int
}

func (s *static) Diagnose(_ context.Context, _ *task.Task, page string) (*Findings, error) {
	s.mu.Lock()
	s.checks++
	s.mu.Unlock()
	return &Findings{Checked: "The page's scripts were parsed.", Items: ScriptErrors(page)}, nil
}
