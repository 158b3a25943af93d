package llm

import (
	"log/slog"
	"net/http"
)

// Option configures a [Registry].
type Option func(*settings)

type settings struct {
	httpClient    *http.Client
	logger        *slog.Logger
	observers     []Observer
	clock         Clock
	retry         *RetryPolicy
	cacheDir      string
	recordDir     string
	replayDir     string
	allowUnpriced bool
	budgets       *Budgets
	ledger        *Ledger
	shared        SharedBuckets
}

// WithHTTPClient sets the HTTP client of every provider (proxies, tests).
func WithHTTPClient(c *http.Client) Option { return func(s *settings) { s.httpClient = c } }

// WithLogger sets the logger; by default slog.Default().
func WithLogger(l *slog.Logger) Option { return func(s *settings) { s.logger = l } }

// WithObserver adds an observer of call events (retrying, fallback, ...),
// e.g. to show a "retrying" state on a progress display.
func WithObserver(o Observer) Option {
	return func(s *settings) { s.observers = append(s.observers, o) }
}

// WithClock replaces the clock used for backoff, Retry-After and rate
// limits; tests pass a fake one.
func WithClock(c Clock) Option { return func(s *settings) { s.clock = c } }

// WithRetryPolicy replaces the backoff policy; zero fields take defaults
// except Jitter.
func WithRetryPolicy(p RetryPolicy) Option { return func(s *settings) { s.retry = &p } }

// WithCacheDir enables the response cache in dir (overrides cache_dir).
func WithCacheDir(dir string) Option { return func(s *settings) { s.cacheDir = dir } }

// WithRecord writes every answered call to dir (--record DIR).
func WithRecord(dir string) Option { return func(s *settings) { s.recordDir = dir } }

// WithReplay answers every call from the recordings in dir and never
// touches the network (--replay DIR). An unrecorded request fails with a
// [FatalError] wrapping a [ReplayMissError].
func WithReplay(dir string) Option { return func(s *settings) { s.replayDir = dir } }

// WithAllowUnpriced lets models without a price run (--allow-unpriced).
func WithAllowUnpriced(allow bool) Option { return func(s *settings) { s.allowUnpriced = allow } }

// WithBudgets replaces the budgets of models.yaml.
func WithBudgets(b Budgets) Option { return func(s *settings) { s.budgets = &b } }

// WithLedger makes the registry account into l, e.g. one ledger shared by
// several registries of a run.
func WithLedger(l *Ledger) Option { return func(s *settings) { s.ledger = l } }
