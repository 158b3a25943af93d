package llm

import (
	"context"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/stretchr/testify/require"
)

func TestRetriesOn429And5xxWithBackoff(t *testing.T) {
	srv := newFakeServer(t,
		reply{status: 429, file: "openai_error_429.json"},
		reply{status: 503, file: "openai_error_500.json"},
		reply{status: 500, file: "openai_error_500.json"},
		ok("openai_text.json"))
	h := newHarness(t, yamlRoles("  visual_judge:\n    "+openaiRole(srv)))

	resp, err := h.chat(t, VisualJudge, prompt("judge"))
	require.NoError(t, err)
	require.Equal(t, 4, resp.Attempts)
	require.Len(t, srv.requests(), 4)
	// Base 10ms doubling, capped at 40ms, no jitter.
	require.Equal(t, []time.Duration{10 * time.Millisecond, 20 * time.Millisecond, 40 * time.Millisecond}, h.clock.slept())
	require.Equal(t, []EventKind{EventRetrying, EventRetrying, EventRetrying, EventDone}, h.kinds())
	retry := h.eventsOf(EventRetrying)[0]
	require.Equal(t, 1, retry.Attempt)
	require.Equal(t, 10*time.Millisecond, retry.Delay)
	require.Equal(t, "openai test-gpt: HTTP 429 (rate_limit_exceeded): Rate limit reached for test-gpt on requests per min (RPM): Limit 3, Used 3.", retry.Error)
	require.Equal(t, 3, h.reg.Ledger().Run().Retries)
}

func TestRetryAfterIsHonoured(t *testing.T) {
	srv := newFakeServer(t,
		reply{status: 429, file: "openai_error_429.json", header: map[string]string{"Retry-After": "1"}},
		reply{status: 503, file: "anthropic_error_overloaded.json", header: map[string]string{"Retry-After-Ms": "250"}},
		ok("openai_text.json"))
	h := newHarness(t, yamlRoles("  visual_judge:\n    "+openaiRole(srv)))

	_, err := h.chat(t, VisualJudge, prompt("judge"))
	require.NoError(t, err)
	require.Equal(t, []time.Duration{time.Second, 250 * time.Millisecond}, h.clock.slept())
	require.Equal(t, time.Second, h.eventsOf(EventRetrying)[0].Delay)
}

func TestRetryAfterBeyondLimitFallsBack(t *testing.T) {
	primary := newFakeServer(t, reply{status: 429, file: "openai_error_429.json", header: map[string]string{"Retry-After": "3600"}})
	backup := newFakeServer(t, ok("anthropic_text.json"))
	h := newHarness(t, yamlRoles("  visual_judge:\n    "+openaiRole(primary)+"\n    fallback:\n      - "+strings.ReplaceAll(anthropicRole(backup), "\n    ", "\n        ")))

	resp, err := h.chat(t, VisualJudge, prompt("judge"))
	require.NoError(t, err)
	require.Equal(t, 1, resp.FallbackIndex)
	require.Empty(t, h.clock.slept())
	fb := h.eventsOf(EventFallback)
	require.Len(t, fb, 1)
	require.Contains(t, fb[0].Error, "provider asked to wait 1h0m0s, more than the 2m0s allowed")
}

// fallbackYAML configures visual_judge on primary (OpenAI format) with a
// fallback on backup (Anthropic format).
func fallbackYAML(primary, backup *fakeServer, extra string) string {
	return yamlRoles("  visual_judge:\n    " + openaiRole(primary) + extra + "\n    max_retries: 2\n    fallback:\n      - " +
		strings.ReplaceAll(anthropicRole(backup), "\n    ", "\n        "))
}

func TestFallbackAfterRetriesExhausted(t *testing.T) {
	primary := newFakeServer(t,
		reply{status: 500, file: "openai_error_500.json"},
		reply{status: 502},
		reply{status: 500, file: "openai_error_500.json"})
	backup := newFakeServer(t, ok("anthropic_text.json"))
	h := newHarness(t, fallbackYAML(primary, backup, ""))

	resp, err := h.chat(t, VisualJudge, prompt("judge"))
	require.NoError(t, err)
	require.Equal(t, "The scene shows a red cube.", resp.Text)
	require.Equal(t, "anthropic", resp.Provider)
	require.Equal(t, "test-claude", resp.Model)
	require.Equal(t, 1, resp.FallbackIndex)
	require.Len(t, primary.requests(), 3, "first attempt and max_retries 2")
	require.Len(t, backup.requests(), 1)
	require.Equal(t, []EventKind{EventRetrying, EventRetrying, EventFallback, EventDone}, h.kinds())
	fb := h.eventsOf(EventFallback)[0]
	require.Equal(t, "test-gpt", fb.Model)
	require.Equal(t, "anthropic/test-claude", fb.Next)
	require.Equal(t, "gave up after 3 attempts: openai test-gpt: HTTP 500 (server_error): The server had an error while processing your request.", fb.Error)
	// The retry of the 502 with no body still reads the status.
	require.Equal(t, "openai test-gpt: HTTP 502: Bad Gateway", h.eventsOf(EventRetrying)[1].Error)

	sum := h.reg.Ledger().Summary()
	require.Equal(t, []string{"anthropic/test-claude"}, keysOf(sum.ByModel))
	require.Equal(t, 1, sum.ByRole[VisualJudge].Calls)
}

func TestAllModelsFailedError(t *testing.T) {
	primary := newFakeServer(t, reply{status: 400, file: "openai_error_500.json"})
	backup := newFakeServer(t, reply{status: 400, file: "anthropic_error_overloaded.json"})
	h := newHarness(t, fallbackYAML(primary, backup, ""))

	_, err := h.chat(t, VisualJudge, prompt("judge"))
	var chainErr *ChainError
	require.ErrorAs(t, err, &chainErr)
	require.Len(t, chainErr.Errs, 2)
	require.False(t, IsFatal(err))
	require.Equal(t, "llm: role visual_judge: all 2 models failed: [1] openai test-gpt: HTTP 400 (server_error): The server had an error while processing your request.; [2] anthropic test-claude: HTTP 400 (overloaded_error): Overloaded", err.Error())
	require.Equal(t, []EventKind{EventFallback, EventFailed}, h.kinds())
}

func TestTokenCapFallsBackBeforeSending(t *testing.T) {
	primary := newFakeServer(t)
	backup := newFakeServer(t, ok("anthropic_text.json"))
	h := newHarness(t, fallbackYAML(primary, backup, "\n    max_input_tokens: 50"))

	resp, err := h.chat(t, VisualJudge, prompt(strings.Repeat("long prompt ", 40)))
	require.NoError(t, err)
	require.Equal(t, 1, resp.FallbackIndex)
	require.Empty(t, primary.requests())
	fb := h.eventsOf(EventFallback)
	require.Len(t, fb, 1)
	require.Equal(t, "openai test-gpt: request of about 128 input tokens exceeds max_input_tokens 50", fb[0].Error)
}

func TestTokenCapErrorFromProviderFallsBack(t *testing.T) {
	primary := newFakeServer(t, reply{status: 400, file: "openai_error_context_length.json"})
	backup := newFakeServer(t, ok("anthropic_text.json"))
	h := newHarness(t, fallbackYAML(primary, backup, ""))

	resp, err := h.chat(t, VisualJudge, prompt("judge"))
	require.NoError(t, err)
	require.Equal(t, 1, resp.FallbackIndex)
	require.Len(t, primary.requests(), 1, "a token cap error is not retried")
	require.Empty(t, h.clock.slept())
}

func TestTokenCapWithoutFallbackIsReported(t *testing.T) {
	primary := newFakeServer(t, reply{status: 400, file: "openai_error_context_length.json"})
	h := newHarness(t, yamlRoles("  visual_judge:\n    "+openaiRole(primary)))
	_, err := h.chat(t, VisualJudge, prompt("judge"))
	require.ErrorIs(t, err, ErrTokenCap)
	var apiErr *APIError
	require.ErrorAs(t, err, &apiErr)
	require.Equal(t, KindTokenCap, apiErr.Kind)
	require.Equal(t, "context_length_exceeded", apiErr.Code)
}

func TestFatalErrorsStopTheRun(t *testing.T) {
	cases := []struct {
		name, file, reason string
		status             int
		anthropic          bool
	}{
		{name: "bad key", status: 401, file: "openai_error_401.json", reason: "authentication failed; check the API key in $TEST_OPENAI_KEY"},
		{name: "no quota", status: 429, file: "openai_error_insufficient_quota.json", reason: "the account is out of credit or quota; top it up or point the role at another provider"},
		{name: "no credit", status: 402, file: "openrouter_error_402.json", reason: "the account is out of credit or quota; top it up or point the role at another provider"},
		{name: "forbidden", status: 403, file: "openai_error_500.json", reason: "permission denied; check that the API key in $TEST_OPENAI_KEY may use this model"},
		{name: "anthropic credit", status: 400, file: "anthropic_error_credit.json", anthropic: true, reason: "the account is out of credit or quota; top it up or point the role at another provider"},
		{name: "anthropic auth", status: 401, file: "anthropic_error_auth.json", anthropic: true, reason: "authentication failed; check the API key in $TEST_ANTHROPIC_KEY"},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			srv := newFakeServer(t, reply{status: tc.status, file: tc.file})
			backup := newFakeServer(t)
			entry := openaiRole(srv)
			if tc.anthropic {
				entry = anthropicRole(srv)
			}
			h := newHarness(t, yamlRoles("  generator:\n    "+entry+"\n    fallback:\n      - "+strings.ReplaceAll(openaiRole(backup), "\n    ", "\n        ")))

			_, err := h.chat(t, Generator, prompt("build a world"))
			var fatal *FatalError
			require.ErrorAs(t, err, &fatal)
			require.True(t, IsFatal(err))
			require.Equal(t, Generator, fatal.Role)
			require.Equal(t, tc.reason, fatal.Reason)
			var apiErr *APIError
			require.ErrorAs(t, err, &apiErr)
			require.Equal(t, tc.status, apiErr.Status)
			require.Len(t, srv.requests(), 1, "fatal errors are not retried")
			require.Empty(t, backup.requests(), "fatal errors do not fall back")
			require.Equal(t, []EventKind{EventFailed}, h.kinds())
		})
	}
}

func TestMissingKeyIsFatalBeforeAnyCall(t *testing.T) {
	h := newHarness(t, yamlRoles("  generator:\n    provider: openai\n    model: test-gpt\n    key_env: TEST_UNSET_KEY"))
	_, err := h.reg.Role(context.Background(), Generator)
	var fatal *FatalError
	require.ErrorAs(t, err, &fatal)
	require.Equal(t, "llm: fatal: role generator (openai test-gpt): missing API key: environment variable TEST_UNSET_KEY is not set", err.Error())
}

func TestFallbackWithMissingKeyIsSkipped(t *testing.T) {
	srv := newFakeServer(t, ok("openai_text.json"))
	h := newHarness(t, yamlRoles("  generator:\n    "+openaiRole(srv)+"\n    fallback:\n      - provider: anthropic\n        model: test-claude\n        key_env: TEST_UNSET_KEY"))
	m, err := h.reg.Role(context.Background(), Generator)
	require.NoError(t, err)
	require.Len(t, m.(*RoleModel).Chain(), 1)
	require.Contains(t, h.logs.String(), "llm fallback model skipped")
}

func TestCancelledContextStops(t *testing.T) {
	srv := newFakeServer(t, reply{status: 503, file: "openai_error_500.json"})
	h := newHarness(t, yamlRoles("  navigator:\n    "+openaiRole(srv)))
	m, err := h.reg.Role(context.Background(), Navigator)
	require.NoError(t, err)
	ctx, cancel := context.WithCancel(context.Background())
	h.reg.observers = append(h.reg.observers, func(e Event) {
		if e.Kind == EventRetrying {
			cancel()
		}
	})
	_, err = m.Chat(ctx, prompt("go"))
	require.ErrorIs(t, err, context.Canceled)
	require.Len(t, srv.requests(), 1)
}

func TestAdaptiveConcurrencyCutsOn429Bursts(t *testing.T) {
	srv := newFakeServer(t,
		reply{status: 429, file: "openai_error_429.json"},
		reply{status: 429, file: "openai_error_429.json"},
		ok("openai_text.json"))
	h := newHarness(t, "providers:\n  openai:\n    concurrency: 8\n"+yamlRoles("  navigator:\n    "+openaiRole(srv)))

	_, err := h.chat(t, Navigator, prompt("go"))
	require.NoError(t, err)
	require.Equal(t, 4, h.reg.Concurrency("openai", srv.url("/v1")))
	th := h.eventsOf(EventThrottled)
	require.Len(t, th, 1)
	require.Equal(t, 4, th[0].Limit)
}

func TestAdaptiveLimiter(t *testing.T) {
	clock := newFakeClock()
	l := newAdaptiveLimiter(8, clock)

	_, cut := l.rateLimited()
	require.False(t, cut, "a single 429 is not a burst")
	limit, cut := l.rateLimited()
	require.True(t, cut)
	require.Equal(t, 4, limit)

	// An isolated 429 long after is not a burst either.
	clock.now = clock.now.Add(time.Minute)
	_, cut = l.rateLimited()
	require.False(t, cut)

	// Recovery: +1 after 2×limit successes in a row.
	for range 7 {
		l.succeeded()
	}
	require.Equal(t, 4, l.current())
	l.succeeded()
	require.Equal(t, 5, l.current())

	// Slots: the limit bounds calls in flight.
	ctx := context.Background()
	for range 5 {
		require.NoError(t, l.acquire(ctx))
	}
	short, cancel := context.WithTimeout(ctx, 20*time.Millisecond)
	defer cancel()
	require.ErrorIs(t, l.acquire(short), context.DeadlineExceeded)
	l.release()
	require.NoError(t, l.acquire(ctx))
}

func TestRequestsPerMinuteWaits(t *testing.T) {
	srv := newFakeServer(t, ok("openai_text.json"), ok("openai_text.json"), ok("openai_text.json"))
	h := newHarness(t, yamlRoles("  navigator:\n    "+openaiRole(srv)+"\n    requests_per_minute: 2"))
	for range 3 {
		_, err := h.chat(t, Navigator, prompt("go"))
		require.NoError(t, err)
	}
	require.Equal(t, []time.Duration{30 * time.Second}, h.clock.slept())
	waits := h.eventsOf(EventRateWait)
	require.Len(t, waits, 1)
	require.Equal(t, 30*time.Second, waits[0].Delay)
}

func TestTokenBucket(t *testing.T) {
	clock := newFakeClock()
	b := newBucket(600, clock) // 10 per second
	ctx := context.Background()
	require.NoError(t, b.take(ctx, 600, nil))
	require.NoError(t, b.take(ctx, 100, nil))
	require.Equal(t, []time.Duration{10 * time.Second}, clock.slept())
	b.charge(context.Background(), 50) // actual usage above the estimate
	require.NoError(t, b.take(ctx, 10, nil))
	require.Equal(t, []time.Duration{10 * time.Second, 6 * time.Second}, clock.slept())
	var nilBucket *bucket
	require.NoError(t, nilBucket.take(ctx, 1e9, nil))
}

func TestRetryAfterParsing(t *testing.T) {
	now := time.Date(2025, 6, 1, 12, 0, 0, 0, time.UTC)
	h := func(k, v string) http.Header { return http.Header{http.CanonicalHeaderKey(k): []string{v}} }
	require.Equal(t, 7*time.Second, retryAfter(h("Retry-After", "7"), now))
	require.Equal(t, 1500*time.Millisecond, retryAfter(h("Retry-After", "1.5"), now))
	require.Equal(t, 90*time.Second, retryAfter(h("Retry-After", "Sun, 01 Jun 2025 12:01:30 GMT"), now))
	require.Equal(t, 20*time.Millisecond, retryAfter(h("retry-after-ms", "20"), now))
	require.Equal(t, time.Duration(0), retryAfter(h("Retry-After", "soon"), now))
	require.Equal(t, time.Duration(0), retryAfter(nil, now))
}

func TestBackoff(t *testing.T) {
	p := RetryPolicy{Base: time.Second, Max: 5 * time.Second}.normalized()
	require.Equal(t, []time.Duration{time.Second, 2 * time.Second, 4 * time.Second, 5 * time.Second, 5 * time.Second},
		[]time.Duration{p.backoff(1), p.backoff(2), p.backoff(3), p.backoff(4), p.backoff(30)})
	j := RetryPolicy{Base: time.Second, Max: time.Minute, Jitter: 0.5}.normalized()
	for range 50 {
		d := j.backoff(2)
		require.GreaterOrEqual(t, d, time.Second)
		require.LessOrEqual(t, d, 2*time.Second)
	}
}

func TestClassify(t *testing.T) {
	require.Equal(t, KindRetryable, classify(529, "overloaded_error", "", "Overloaded"))
	require.Equal(t, KindRetryable, classify(408, "", "", ""))
	require.Equal(t, KindFatal, classify(404, "", "model_not_found", "The model `gpt-9` does not exist"))
	require.Equal(t, KindRequest, classify(404, "", "", "No endpoints found that support image input"))
	require.Equal(t, KindTokenCap, classify(400, "invalid_request_error", "", "prompt is too long: 210000 tokens > 200000 maximum"))
	require.Equal(t, KindTokenCap, classify(413, "", "", "Request Entity Too Large"))
	require.Equal(t, KindRequest, classify(400, "invalid_request_error", "", "messages: field required"))
}

func keysOf[V any](m map[string]V) []string {
	var out []string
	for k := range m {
		out = append(out, k)
	}
	return out
}

func TestProviderConcurrencyBoundsCallsInFlight(t *testing.T) {
	body := readTestdata(t, "openai_text.json")
	var mu sync.Mutex
	inFlight, peak := 0, 0
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		mu.Lock()
		inFlight++
		peak = max(peak, inFlight)
		mu.Unlock()
		time.Sleep(20 * time.Millisecond)
		mu.Lock()
		inFlight--
		mu.Unlock()
		w.Header().Set("Content-Type", "application/json")
		_, _ = w.Write(body)
	}))
	t.Cleanup(srv.Close)
	h := newHarness(t, "providers:\n  openai:\n    concurrency: 2\n"+yamlRoles(
		"  navigator:\n    provider: openai\n    model: test-gpt\n    base_url: "+srv.URL+"/v1\n    key_env: TEST_OPENAI_KEY",
		"  code_probe:\n    provider: openai\n    model: test-gpt\n    base_url: "+srv.URL+"/v1\n    key_env: TEST_OPENAI_KEY"))
	nav, err := h.reg.Role(context.Background(), Navigator)
	require.NoError(t, err)
	probe, err := h.reg.Role(context.Background(), CodeProbe)
	require.NoError(t, err)

	var wg sync.WaitGroup
	for i := range 6 {
		m := nav
		if i%2 == 1 {
			m = probe
		}
		wg.Go(func() {
			_, err := m.Chat(context.Background(), prompt("go"))
			require.NoError(t, err)
		})
	}
	wg.Wait()
	require.Equal(t, 2, peak, "roles on the same provider share its concurrency limit")
	require.Equal(t, 6, h.reg.Ledger().Run().Calls)
}
