package llm

import "context"

// Model answers chat requests. The models returned by [Registry.Role]
// handle limits, retries, fallbacks, costs, the cache and recordings.
type Model interface {
	// Chat sends one request and returns the answer.
	Chat(ctx context.Context, req Request) (*Response, error)
}

// ModelFunc adapts a function to [Model], e.g. for fakes in tests.
type ModelFunc func(ctx context.Context, req Request) (*Response, error)

// Chat calls f.
func (f ModelFunc) Chat(ctx context.Context, req Request) (*Response, error) { return f(ctx, req) }

type trialKey struct{}

// WithTrial returns a context whose model calls are accounted, and
// budgeted, under the trial id.
func WithTrial(ctx context.Context, trial string) context.Context {
	return context.WithValue(ctx, trialKey{}, trial)
}

// TrialFromContext returns the trial id set by [WithTrial], or "".
func TrialFromContext(ctx context.Context) string {
	s, _ := ctx.Value(trialKey{}).(string)
	return s
}
