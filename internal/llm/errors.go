package llm

import (
	"errors"
	"fmt"
	"strings"
	"time"
)

// ErrBudgetExceeded is matched (errors.Is) by every [BudgetError].
var ErrBudgetExceeded = errors.New("llm: budget exceeded")

// ErrTokenCap is matched by errors for requests larger than a model's
// input token cap; such requests move on to the next fallback model.
var ErrTokenCap = errors.New("llm: request exceeds the model's token cap")

// ErrUnpriced is matched by errors for models missing from the pricing table.
var ErrUnpriced = errors.New("llm: model has no price")

// ErrReplayMiss is matched by every [ReplayMissError].
var ErrReplayMiss = errors.New("llm: unrecorded request")

// ErrorKind classifies a provider failure.
type ErrorKind string

// Error kinds.
const (
	// KindRetryable failures (429, 5xx, timeouts) are retried with backoff.
	KindRetryable ErrorKind = "retryable"
	// KindFatal failures (bad key, no credit) stop the run.
	KindFatal ErrorKind = "fatal"
	// KindTokenCap failures move to the next fallback model at once.
	KindTokenCap ErrorKind = "token_cap"
	// KindRequest failures are not retried on the same model.
	KindRequest ErrorKind = "request"
)

// APIError is an HTTP error answered by a provider. Its text never holds
// the API key.
type APIError struct {
	// Provider and Model name the endpoint.
	Provider, Model string
	// Status is the HTTP status code.
	Status int
	// Type and Code are the provider's error type and code, if any.
	Type, Code string
	// Message is the provider's message, with secrets redacted.
	Message string
	// RetryAfter is the wait the provider asked for, or 0.
	RetryAfter time.Duration
	// Kind is how worldprobe treats the failure.
	Kind ErrorKind
}

// Error describes the failure.
func (e *APIError) Error() string {
	var b strings.Builder
	fmt.Fprintf(&b, "%s %s: HTTP %d", e.Provider, e.Model, e.Status)
	if id := firstNonEmpty(e.Code, e.Type); id != "" {
		fmt.Fprintf(&b, " (%s)", id)
	}
	if e.Message != "" {
		fmt.Fprintf(&b, ": %s", e.Message)
	}
	return b.String()
}

// Is makes a token-cap APIError match [ErrTokenCap].
func (e *APIError) Is(target error) bool { return target == ErrTokenCap && e.Kind == KindTokenCap }

// TransportError is a failure to reach a provider or a timeout.
type TransportError struct {
	// Provider and Model name the endpoint.
	Provider, Model string
	// Message describes the failure, with secrets redacted.
	Message string
	// Timeout is true when the attempt ran out of time.
	Timeout bool
}

// Error describes the failure.
func (e *TransportError) Error() string {
	if e.Timeout {
		return fmt.Sprintf("%s %s: timeout: %s", e.Provider, e.Model, e.Message)
	}
	return fmt.Sprintf("%s %s: %s", e.Provider, e.Model, e.Message)
}

// TokenCapError reports a request estimated above a model's max_input_tokens.
type TokenCapError struct {
	// Provider and Model name the endpoint.
	Provider, Model string
	// Estimated is the estimated input tokens; Cap the configured limit.
	Estimated, Cap int
}

// Error describes the failure.
func (e *TokenCapError) Error() string {
	return fmt.Sprintf("%s %s: request of about %d input tokens exceeds max_input_tokens %d", e.Provider, e.Model, e.Estimated, e.Cap)
}

// Is matches [ErrTokenCap].
func (e *TokenCapError) Is(target error) bool { return target == ErrTokenCap }

// FatalError stops the run: a bad or missing key, no credit, an unknown
// model, an unrecorded request in replay mode. It must not be scored as a
// model failure. Check with errors.As or [IsFatal].
type FatalError struct {
	// Role is the role whose call failed, if known.
	Role Role
	// Provider and Model name the endpoint, if known.
	Provider, Model string
	// Reason tells the user what went wrong and what to check.
	Reason string
	// Err is the underlying error.
	Err error
}

// Error describes the failure.
func (e *FatalError) Error() string {
	var b strings.Builder
	b.WriteString("llm: fatal")
	if e.Role != "" {
		fmt.Fprintf(&b, ": role %s", e.Role)
	}
	if e.Model != "" {
		fmt.Fprintf(&b, " (%s %s)", e.Provider, e.Model)
	}
	if e.Reason != "" {
		fmt.Fprintf(&b, ": %s", e.Reason)
	}
	if e.Err != nil {
		fmt.Fprintf(&b, ": %v", e.Err)
	}
	return b.String()
}

// Unwrap returns the underlying error.
func (e *FatalError) Unwrap() error { return e.Err }

// IsFatal reports whether err is, or wraps, a [FatalError].
func IsFatal(err error) bool {
	var f *FatalError
	return errors.As(err, &f)
}

// BudgetError reports a spending limit that was reached; it matches
// [ErrBudgetExceeded].
type BudgetError struct {
	// Scope is "run" or "trial".
	Scope string
	// Trial is the trial id for a trial budget.
	Trial string
	// Unit is "usd" or "tokens".
	Unit string
	// Limit is the budget and Spent what was spent.
	Limit, Spent float64
}

// Error describes the limit.
func (e *BudgetError) Error() string {
	scope := e.Scope
	if e.Trial != "" {
		scope = fmt.Sprintf("trial %s", e.Trial)
	}
	if e.Unit == "tokens" {
		return fmt.Sprintf("llm: %s budget exceeded: %.0f of %.0f tokens used", scope, e.Spent, e.Limit)
	}
	return fmt.Sprintf("llm: %s budget exceeded: $%.4f of $%.4f spent", scope, e.Spent, e.Limit)
}

// Unwrap returns [ErrBudgetExceeded].
func (e *BudgetError) Unwrap() error { return ErrBudgetExceeded }

// ReplayMissError reports a request with no recording in replay mode. It
// names the role and the request digest so the missing recording can be
// made with --record.
type ReplayMissError struct {
	// Role is the role that asked.
	Role Role
	// Digest is the request digest (the recording's file name).
	Digest string
	// Dir is the replay folder.
	Dir string
}

// Error describes the miss.
func (e *ReplayMissError) Error() string {
	return fmt.Sprintf("llm: replay: no recorded response for role %s, request digest %s, in %s (record it with --record)", e.Role, e.Digest, e.Dir)
}

// Unwrap returns [ErrReplayMiss].
func (e *ReplayMissError) Unwrap() error { return ErrReplayMiss }

func firstNonEmpty(ss ...string) string {
	for _, s := range ss {
		if s != "" {
			return s
		}
	}
	return ""
}
