package llm

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"net/http"
	"time"
)

// Cost sources of a [Response].
const (
	costFromProvider = "provider"
	costFromTable    = "table"
	costUnpriced     = "unpriced"
)

// chatClient sends one attempt in one wire format.
type chatClient interface {
	chat(ctx context.Context, req Request) (*Response, error)
}

// endpoint is one model of a role's chain with its client and limits.
type endpoint struct {
	reg        *Registry
	m          ResolvedModel
	client     chatClient
	price      *Price
	limiter    *adaptiveLimiter
	rpm, tpm   *bucket
	maxRetries int
}

// apply fills the request parameters the caller left unset.
func (e *endpoint) apply(req Request) Request {
	if req.Temperature == nil {
		req.Temperature = e.m.Temperature
	}
	if req.MaxTokens <= 0 {
		req.MaxTokens = e.m.MaxTokens
	}
	return req
}

// chat answers req with this model: token cap, cache, retries, costs.
func (e *endpoint) chat(ctx context.Context, role Role, req Request) (*Response, error) {
	req = e.apply(req)
	est := EstimateInputTokens(req)
	if e.m.MaxInputTokens > 0 && est > e.m.MaxInputTokens {
		return nil, &TokenCapError{Provider: e.m.Provider, Model: e.m.Model, Estimated: est, Cap: e.m.MaxInputTokens}
	}
	var digest string
	if e.reg.cache != nil {
		var err error
		if digest, err = Digest(e.m.Provider, e.m.Model, req); err != nil {
			return nil, err
		}
		if resp, ok := e.cached(ctx, role, digest); ok {
			return resp, nil
		}
	}
	resp, err := e.withRetries(ctx, role, req, est)
	if err != nil {
		return nil, err
	}
	e.account(ctx, role, resp)
	if e.reg.cache != nil {
		if err := e.reg.cache.Put(digest, resp); err != nil {
			e.reg.log.WarnContext(ctx, "llm cache write failed", slog.String("error", err.Error()))
		}
	}
	return resp, nil
}

// cached returns the cached answer of digest, if any. Cache hits cost
// nothing and add no tokens to the ledger.
func (e *endpoint) cached(ctx context.Context, role Role, digest string) (*Response, bool) {
	resp, ok, err := e.reg.cache.Get(digest)
	if err != nil {
		e.reg.log.WarnContext(ctx, "llm cache read failed", slog.String("error", err.Error()))
		return nil, false
	}
	if !ok {
		return nil, false
	}
	resp.Role, resp.Provider, resp.Model = role, e.m.Provider, e.m.Model
	resp.Source, resp.CostUSD, resp.CostSource, resp.Latency, resp.Attempts = SourceCache, 0, "", 0, 0
	e.reg.ledger.Add(Call{Time: e.reg.clock.Now(), Role: role, Trial: TrialFromContext(ctx),
		Provider: e.m.Provider, Model: e.m.Model, Source: SourceCache})
	e.reg.emit(ctx, Event{Kind: EventCacheHit, Role: role, Provider: e.m.Provider, Model: e.m.Model})
	return resp, true
}

// withRetries repeats attempts on retryable failures, waiting the
// provider's Retry-After or an exponential backoff.
func (e *endpoint) withRetries(ctx context.Context, role Role, req Request, est int) (*Response, error) {
	for attempt := 1; ; attempt++ {
		resp, err := e.attempt(ctx, role, req, est, attempt)
		if err == nil {
			resp.Attempts = attempt
			return resp, nil
		}
		if ctx.Err() != nil {
			return nil, ctx.Err()
		}
		var apiErr *APIError
		isAPI := errors.As(err, &apiErr)
		if isAPI && apiErr.Status == http.StatusTooManyRequests {
			if limit, cut := e.limiter.rateLimited(); cut {
				e.reg.emit(ctx, Event{Kind: EventThrottled, Role: role, Provider: e.m.Provider, Model: e.m.Model, Limit: limit})
			}
		}
		switch errorKind(err) {
		case KindFatal:
			return nil, &FatalError{Role: role, Provider: e.m.Provider, Model: e.m.Model,
				Reason: fatalReason(apiErr.Status, apiErr.Type, apiErr.Code, apiErr.Message, e.m.KeyEnv), Err: err}
		case KindRetryable:
			if attempt > e.maxRetries {
				return nil, fmt.Errorf("gave up after %d attempts: %w", attempt, err)
			}
			delay := e.reg.retry.backoff(attempt)
			if isAPI && apiErr.RetryAfter > 0 {
				if apiErr.RetryAfter > e.reg.retry.MaxRetryAfter {
					return nil, fmt.Errorf("provider asked to wait %s, more than the %s allowed: %w", apiErr.RetryAfter, e.reg.retry.MaxRetryAfter, err)
				}
				delay = apiErr.RetryAfter
			}
			e.reg.emit(ctx, Event{Kind: EventRetrying, Role: role, Provider: e.m.Provider, Model: e.m.Model,
				Attempt: attempt, Delay: delay, Error: err.Error()})
			if err := e.reg.clock.Sleep(ctx, delay); err != nil {
				return nil, err
			}
		default:
			return nil, err
		}
	}
}

// errorKind classifies an attempt's error.
func errorKind(err error) ErrorKind {
	var apiErr *APIError
	var tErr *TransportError
	switch {
	case errors.As(err, &apiErr):
		return apiErr.Kind
	case errors.As(err, &tErr):
		return KindRetryable
	default:
		return KindRequest
	}
}

// attempt sends req once, inside the provider's concurrency limit and
// the role's rate limits, bounded by the model's timeout.
func (e *endpoint) attempt(ctx context.Context, role Role, req Request, est, attempt int) (*Response, error) {
	if err := e.limiter.acquire(ctx); err != nil {
		return nil, err
	}
	defer e.limiter.release()
	onWait := func(d time.Duration) {
		e.reg.emit(ctx, Event{Kind: EventRateWait, Role: role, Provider: e.m.Provider, Model: e.m.Model, Attempt: attempt, Delay: d})
	}
	if err := e.rpm.take(ctx, 1, onWait); err != nil {
		return nil, err
	}
	if err := e.tpm.take(ctx, float64(est), onWait); err != nil {
		return nil, err
	}
	e.reg.emit(ctx, Event{Kind: EventAttempt, Role: role, Provider: e.m.Provider, Model: e.m.Model, Attempt: attempt})
	actx, cancel := context.WithTimeout(ctx, e.m.Timeout.D())
	defer cancel()
	start := e.reg.clock.Now()
	resp, err := e.client.chat(actx, req)
	if err != nil {
		return nil, err
	}
	resp.Latency = e.reg.clock.Now().Sub(start)
	resp.Role, resp.Provider, resp.Model, resp.Source = role, e.m.Provider, e.m.Model, SourceLive
	e.tpm.charge(ctx, float64(resp.Usage.Total()-int64(est)))
	e.limiter.succeeded()
	return resp, nil
}

// account prices a live answer and adds it to the ledger.
func (e *endpoint) account(ctx context.Context, role Role, resp *Response) {
	switch {
	case resp.CostSource == costFromProvider:
	case e.price != nil:
		resp.CostUSD, resp.CostSource = e.price.Cost(resp.Usage), costFromTable
	default:
		resp.CostUSD, resp.CostSource = 0, costUnpriced
	}
	e.reg.ledger.Add(Call{Time: e.reg.clock.Now(), Role: role, Trial: TrialFromContext(ctx), Provider: e.m.Provider,
		Model: e.m.Model, Usage: resp.Usage, CostUSD: resp.CostUSD, Latency: resp.Latency, Attempts: resp.Attempts, Source: SourceLive})
	e.reg.emit(ctx, Event{Kind: EventDone, Role: role, Provider: e.m.Provider, Model: e.m.Model,
		Attempt: resp.Attempts, Usage: resp.Usage, CostUSD: resp.CostUSD})
}
