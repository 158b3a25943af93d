package llm

import (
	"bytes"
	"context"
	"encoding/json"
	"io"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/stretchr/testify/require"
)

// testKey is the API key of the tests; it must never leak.
const testKey = "sk-test-SECRET-0123456789"

// reply is one scripted HTTP answer of the fake server.
type reply struct {
	status int
	file   string // testdata file with the body
	header map[string]string
	delay  time.Duration
}

func ok(file string) reply { return reply{status: http.StatusOK, file: file} }

// seen is one request received by the fake server.
type seen struct {
	Path   string
	Header http.Header
	Body   map[string]any
	Raw    string
}

// fakeServer speaks whatever wire format its scripted files hold, one
// reply per request, in order.
type fakeServer struct {
	t       *testing.T
	srv     *httptest.Server
	mu      sync.Mutex
	replies []reply
	got     []seen
}

func newFakeServer(t *testing.T, replies ...reply) *fakeServer {
	t.Helper()
	f := &fakeServer{t: t, replies: replies}
	f.srv = httptest.NewServer(http.HandlerFunc(f.serve))
	t.Cleanup(f.srv.Close)
	return f
}

func (f *fakeServer) serve(w http.ResponseWriter, r *http.Request) {
	raw, _ := io.ReadAll(r.Body)
	var body map[string]any
	_ = json.Unmarshal(raw, &body)
	f.mu.Lock()
	f.got = append(f.got, seen{Path: r.URL.Path, Header: r.Header.Clone(), Body: body, Raw: string(raw)})
	if len(f.replies) == 0 {
		f.mu.Unlock()
		f.t.Errorf("unexpected request %d to %s", len(f.got), r.URL.Path)
		http.Error(w, `{"error":{"message":"unexpected request"}}`, http.StatusTeapot)
		return
	}
	rep := f.replies[0]
	f.replies = f.replies[1:]
	f.mu.Unlock()
	if rep.delay > 0 {
		select {
		case <-time.After(rep.delay):
		case <-r.Context().Done():
			return
		}
	}
	for k, v := range rep.header {
		w.Header().Set(k, v)
	}
	w.Header().Set("Content-Type", "application/json")
	w.WriteHeader(rep.status)
	if rep.file != "" {
		_, _ = w.Write(readTestdata(f.t, rep.file))
	}
}

func (f *fakeServer) requests() []seen {
	f.mu.Lock()
	defer f.mu.Unlock()
	return append([]seen(nil), f.got...)
}

func (f *fakeServer) url(suffix string) string { return f.srv.URL + suffix }

func readTestdata(t *testing.T, name string) []byte {
	t.Helper()
	b, err := os.ReadFile(filepath.Join("testdata", name))
	require.NoError(t, err)
	return b
}

// fakeClock advances only when slept on, and remembers every sleep.
type fakeClock struct {
	mu     sync.Mutex
	now    time.Time
	sleeps []time.Duration
}

func newFakeClock() *fakeClock {
	return &fakeClock{now: time.Date(2025, 6, 1, 12, 0, 0, 0, time.UTC)}
}

func (c *fakeClock) Now() time.Time {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.now
}

func (c *fakeClock) Sleep(ctx context.Context, d time.Duration) error {
	c.mu.Lock()
	c.sleeps = append(c.sleeps, d)
	c.now = c.now.Add(d)
	c.mu.Unlock()
	return ctx.Err()
}

func (c *fakeClock) slept() []time.Duration {
	c.mu.Lock()
	defer c.mu.Unlock()
	return append([]time.Duration(nil), c.sleeps...)
}

// harness is a registry wired to fake servers, a fake clock, captured
// logs and captured events.
type harness struct {
	reg    *Registry
	clock  *fakeClock
	logs   *bytes.Buffer
	mu     sync.Mutex
	events []Event
}

func (h *harness) kinds() []EventKind {
	h.mu.Lock()
	defer h.mu.Unlock()
	var out []EventKind
	for _, e := range h.events {
		if e.Kind != EventAttempt {
			out = append(out, e.Kind)
		}
	}
	return out
}

func (h *harness) eventsOf(kind EventKind) []Event {
	h.mu.Lock()
	defer h.mu.Unlock()
	var out []Event
	for _, e := range h.events {
		if e.Kind == kind {
			out = append(out, e)
		}
	}
	return out
}

// testEnv holds the keys the test configs name.
var testEnv = map[string]string{
	"TEST_OPENAI_KEY":    testKey,
	"TEST_ANTHROPIC_KEY": testKey,
}

// testPricing prices the test models, USD per 1M tokens.
const testPricing = `
pricing:
  test-gpt:    {input: 2.00, cached_input: 0.50, output: 8.00}
  test-claude: {input: 3.00, cached_input: 0.30, cache_write: 3.75, output: 15.00}
`

// openaiRole is a role entry pointing at an OpenAI-format fake server.
func openaiRole(srv *fakeServer) string {
	return "provider: openai\n    model: test-gpt\n    base_url: " + srv.url("/v1") + "\n    key_env: TEST_OPENAI_KEY"
}

// anthropicRole is a role entry pointing at an Anthropic-format fake server.
func anthropicRole(srv *fakeServer) string {
	return "provider: anthropic\n    model: test-claude\n    base_url: " + srv.url("/") + "\n    key_env: TEST_ANTHROPIC_KEY"
}

// newHarness builds a registry from a models.yaml text.
func newHarness(t *testing.T, modelsYAML string, opts ...Option) *harness {
	t.Helper()
	cfg, err := ParseConfig([]byte(modelsYAML))
	require.NoError(t, err)
	h := &harness{clock: newFakeClock(), logs: &bytes.Buffer{}}
	logger := slog.New(slog.NewTextHandler(&lockedWriter{w: h.logs}, &slog.HandlerOptions{Level: slog.LevelDebug}))
	base := []Option{
		WithHTTPClient(&http.Client{}),
		WithClock(h.clock),
		WithRetryPolicy(RetryPolicy{Base: 10 * time.Millisecond, Max: 40 * time.Millisecond}),
		WithLogger(logger),
		WithObserver(func(e Event) {
			h.mu.Lock()
			defer h.mu.Unlock()
			h.events = append(h.events, e)
		}),
	}
	h.reg, err = New(cfg, func(k string) string { return testEnv[k] }, append(base, opts...)...)
	require.NoError(t, err)
	return h
}

type lockedWriter struct {
	mu sync.Mutex
	w  io.Writer
}

func (l *lockedWriter) Write(p []byte) (int, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.w.Write(p)
}

// chat asks role once with a one-line prompt.
func (h *harness) chat(t *testing.T, role Role, req Request) (*Response, error) {
	t.Helper()
	m, err := h.reg.Role(context.Background(), role)
	require.NoError(t, err)
	return m.Chat(context.Background(), req)
}

func prompt(text string) Request { return Request{Messages: []Message{UserText(text)}} }

// yamlRoles builds a models.yaml text with the test prices.
func yamlRoles(lines ...string) string {
	return testPricing + "roles:\n" + strings.Join(lines, "\n") + "\n"
}
