package sharedlimit

import (
	"context"
	"encoding/json"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"sync"
	"testing"
	"time"

	"github.com/jackc/pgx/v5/pgxpool"
	"github.com/stretchr/testify/require"

	"github.com/worldprobe/worldprobe/internal/llm"
	"github.com/worldprobe/worldprobe/internal/pgtest"
)

// stepClock is a fake clock that moves only when the test advances it; a
// Sleep blocks until then, so the test knows how many callers wait.
type stepClock struct {
	mu       sync.Mutex
	now      time.Time
	sleepers int
	wake     chan struct{}
}

func newStepClock(t0 time.Time) *stepClock { return &stepClock{now: t0, wake: make(chan struct{})} }

func (c *stepClock) Now() time.Time {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.now
}

func (c *stepClock) Sleep(ctx context.Context, d time.Duration) error {
	c.mu.Lock()
	until := c.now.Add(d)
	c.sleepers++
	defer func() { c.sleepers--; c.mu.Unlock() }()
	for c.now.Before(until) {
		ch := c.wake
		c.mu.Unlock()
		select {
		case <-ctx.Done():
			c.mu.Lock()
			return ctx.Err()
		case <-ch:
		}
		c.mu.Lock()
	}
	return nil
}

func (c *stepClock) advance(d time.Duration) {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.now = c.now.Add(d)
	close(c.wake)
	c.wake = make(chan struct{})
}

func (c *stepClock) waiting() int {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.sleepers
}

// provider answers as OpenAI's chat completions API does and counts the
// requests in each second of the fake clock.
type provider struct {
	srv    *httptest.Server
	mu     sync.Mutex
	window map[int]int
}

func newProvider(t *testing.T, clock *stepClock, t0 time.Time) *provider {
	p := &provider{window: map[int]int{}}
	p.srv = httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		p.mu.Lock()
		p.window[int(clock.Now().Sub(t0)/time.Second)]++
		p.mu.Unlock()
		b, _ := json.Marshal(map[string]any{
			"id": "chatcmpl-rate", "object": "chat.completion", "created": 1760000000, "model": "gpt-4.1-2025-04-14",
			"choices": []any{map[string]any{"index": 0, "message": map[string]any{"role": "assistant", "content": "ok", "refusal": nil},
				"logprobs": nil, "finish_reason": "stop"}},
			"usage": map[string]any{"prompt_tokens": 12, "completion_tokens": 1, "total_tokens": 13},
		})
		w.Header().Set("Content-Type", "application/json")
		w.Write(b)
	}))
	t.Cleanup(p.srv.Close)
	return p
}

func (p *provider) served() (int, map[int]int) {
	p.mu.Lock()
	defer p.mu.Unlock()
	n := 0
	for _, c := range p.window {
		n += c
	}
	out := map[int]int{}
	for k, v := range p.window {
		out[k] = v
	}
	return n, out
}

const (
	perClient   = 40
	rpm         = 60 // a full bucket of 60, then 1 a second
	concurrency = 4  // calls in flight per client
)

// drive makes two clients — two registries, each with its own limiter
// (shared[i], nil for the in-memory default) — send perClient calls each
// at once to one provider, and steps the clock a second at a time until
// every call is answered; it returns the requests the provider saw in
// each second.
func drive(t *testing.T, shared [2]llm.SharedBuckets) map[int]int {
	t0 := time.Date(2026, 12, 4, 9, 0, 0, 0, time.UTC)
	clock := newStepClock(t0)
	p := newProvider(t, clock, t0)
	models := filepath.Join(t.TempDir(), "models.yaml")
	require.NoError(t, os.WriteFile(models, []byte(`version: 1
providers:
  openai:
    concurrency: 4
defaults:
  provider: openai
  model: gpt-4.1
  base_url: `+p.srv.URL+`/v1
  key_env: RATE_TEST_KEY
  requests_per_minute: 60
`), 0o644))
	env := func(k string) string {
		if k == "RATE_TEST_KEY" {
			return "sk-test"
		}
		return ""
	}
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	var wg sync.WaitGroup
	errs := make(chan error, 2*perClient)
	var doneMu sync.Mutex
	var done [2]int // calls answered per client
	for i := range 2 {
		opts := []llm.Option{llm.WithClock(clock)}
		if shared[i] != nil {
			opts = append(opts, llm.WithSharedBuckets(shared[i]))
		}
		reg, err := llm.Load(models, env, opts...)
		require.NoError(t, err)
		m, err := reg.Role(ctx, llm.VisualJudge)
		require.NoError(t, err)
		for range perClient {
			wg.Add(1)
			go func() {
				defer wg.Done()
				if _, err := m.Chat(ctx, llm.Request{Messages: []llm.Message{llm.UserText("hello")}}); err != nil {
					errs <- err
				}
				doneMu.Lock()
				done[i]++
				doneMu.Unlock()
			}()
		}
	}
	// settled: n calls answered and the others' callers in flight (at
	// most concurrency per client) asleep on the bucket.
	settled := func(n int) {
		t.Helper()
		var got, waiting, want int
		for deadline := time.Now().Add(20 * time.Second); time.Now().Before(deadline); time.Sleep(time.Millisecond) {
			got, _ = p.served()
			doneMu.Lock()
			answered := done[0] + done[1]
			want = min(concurrency, perClient-done[0]) + min(concurrency, perClient-done[1])
			doneMu.Unlock()
			if waiting = clock.waiting(); got == n && answered == n && waiting == want {
				return
			}
		}
		t.Fatalf("want %d answered and %d callers waiting, got %d and %d", n, want, got, waiting)
	}
	served, _ := p.served()
	if shared[0] == nil {
		require.Eventually(t, func() bool { served, _ = p.served(); return served == 2*perClient }, time.Minute, time.Millisecond)
	} else {
		settled(rpm)
		for n := rpm + 1; n <= 2*perClient; n++ {
			clock.advance(time.Second)
			settled(n)
		}
	}
	wg.Wait()
	close(errs)
	for err := range errs {
		require.NoError(t, err)
	}
	_, windows := p.served()
	return windows
}

// oneBudget is what one shared budget of 60 a minute lets through: 60 in
// the first second (the full bucket), then one a second.
func oneBudget() map[int]int {
	want := map[int]int{0: rpm}
	for s := 1; s <= 2*perClient-rpm; s++ {
		want[s] = 1
	}
	return want
}

// Two clients with separate limiters against one PostgreSQL draw from one
// budget: the provider sees exactly 60 requests in the first second and
// one in each second after, as from a single client. With the in-memory
// limiters (the default) each client has its own 60, and all 80 go at once.
func TestTwoClientsShareOneBudgetInPostgres(t *testing.T) {
	ctx := context.Background()
	url := pgtest.Start(t).NewDB(t)
	var shared [2]llm.SharedBuckets
	for i := range shared {
		pool, err := pgxpool.New(ctx, url)
		require.NoError(t, err)
		t.Cleanup(pool.Close)
		if shared[i], err = OpenPostgres(ctx, pool); err != nil {
			require.NoError(t, err)
		}
	}
	require.Equal(t, oneBudget(), drive(t, shared))
	require.Equal(t, map[int]int{0: 2 * perClient}, drive(t, [2]llm.SharedBuckets{}), "separate in-memory budgets")
}

// The same over one SQLite file opened twice.
func TestTwoClientsShareOneBudgetInSQLite(t *testing.T) {
	path := filepath.Join(t.TempDir(), "limits.db")
	var shared [2]llm.SharedBuckets
	for i := range shared {
		s, err := OpenSQLite(context.Background(), path)
		require.NoError(t, err)
		t.Cleanup(func() { s.Close() })
		shared[i] = s
	}
	require.Equal(t, oneBudget(), drive(t, shared))
}
