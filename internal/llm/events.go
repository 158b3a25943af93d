package llm

import (
	"context"
	"log/slog"
	"time"
)

// EventKind names what happened to a call, for progress displays.
type EventKind string

// Event kinds.
const (
	// EventAttempt: an attempt is being sent.
	EventAttempt EventKind = "attempt"
	// EventRetrying: an attempt failed and another follows after Delay.
	EventRetrying EventKind = "retrying"
	// EventFallback: the model failed; the next model of the chain (Next) is tried.
	EventFallback EventKind = "fallback"
	// EventThrottled: bursts of 429 cut the provider's concurrency to Limit.
	EventThrottled EventKind = "throttled"
	// EventRateWait: the role's requests/tokens per minute make the call wait Delay.
	EventRateWait EventKind = "rate_wait"
	// EventDone: the call was answered.
	EventDone EventKind = "done"
	// EventFailed: the call failed for good.
	EventFailed EventKind = "failed"
	// EventCacheHit: the answer came from the response cache.
	EventCacheHit EventKind = "cache_hit"
	// EventReplayed: the answer came from a recording.
	EventReplayed EventKind = "replayed"
	// EventBudgetExceeded: a budget refused the call.
	EventBudgetExceeded EventKind = "budget_exceeded"
)

// Event reports progress of a model call to observers.
type Event struct {
	// Kind is what happened.
	Kind EventKind
	// Time is when.
	Time time.Time
	// Role is the role that asked.
	Role Role
	// Trial is the trial of the call, if any.
	Trial string
	// Provider and Model name the model concerned.
	Provider, Model string
	// Attempt is the 1-based attempt number on that model.
	Attempt int
	// Delay is the wait of a retrying or rate_wait event.
	Delay time.Duration
	// Limit is the new concurrency limit of a throttled event.
	Limit int
	// Next is "provider/model" of the next model of a fallback event.
	Next string
	// Error describes the failure, secrets redacted.
	Error string
	// Usage counts the tokens of a done call.
	Usage Usage
	// CostUSD is the cost of a done call.
	CostUSD float64
}

// Observer receives events synchronously; it must return quickly.
type Observer func(Event)

// emit sends e to every observer and logs it.
func (r *Registry) emit(ctx context.Context, e Event) {
	e.Time = r.clock.Now()
	if e.Trial == "" {
		e.Trial = TrialFromContext(ctx)
	}
	level := slog.LevelDebug
	switch e.Kind {
	case EventRetrying, EventFallback, EventThrottled:
		level = slog.LevelInfo
	case EventFailed, EventBudgetExceeded:
		level = slog.LevelWarn
	}
	attrs := []slog.Attr{
		slog.String("event", string(e.Kind)), slog.String("role", string(e.Role)),
		slog.String("provider", e.Provider), slog.String("model", e.Model),
	}
	if e.Trial != "" {
		attrs = append(attrs, slog.String("trial", e.Trial))
	}
	if e.Attempt > 0 {
		attrs = append(attrs, slog.Int("attempt", e.Attempt))
	}
	if e.Delay > 0 {
		attrs = append(attrs, slog.Duration("delay", e.Delay))
	}
	if e.Next != "" {
		attrs = append(attrs, slog.String("next", e.Next))
	}
	if e.Limit > 0 {
		attrs = append(attrs, slog.Int("limit", e.Limit))
	}
	if e.Error != "" {
		attrs = append(attrs, slog.String("error", e.Error))
	}
	if e.Kind == EventDone {
		attrs = append(attrs, slog.Int64("input_tokens", e.Usage.InputTokens),
			slog.Int64("output_tokens", e.Usage.OutputTokens), slog.Float64("cost_usd", e.CostUSD))
	}
	r.log.LogAttrs(ctx, level, "llm "+string(e.Kind), attrs...)
	for _, o := range r.observers {
		o(e)
	}
}
