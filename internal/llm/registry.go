package llm

import (
	"context"
	"errors"
	"fmt"
	"io/fs"
	"log/slog"
	"net/http"
	"os"
	"sync"
)

// Getenv reads an environment variable; os.Getenv in production.
type Getenv func(string) string

// Registry hands out role models built from a models file. It is safe for
// concurrent use; models of the same provider share its adaptive
// concurrency limit.
type Registry struct {
	cfg           *Config
	source        string
	env           Getenv
	httpClient    *http.Client
	clock         Clock
	shared        SharedBuckets
	retry         RetryPolicy
	log           *slog.Logger
	observers     []Observer
	pricing       PriceTable
	allowUnpriced bool
	budgets       Budgets
	ledger        *Ledger
	redact        *redactor
	cache         *Cache
	record        *RecordStore
	replay        *RecordStore

	mu       sync.Mutex
	roles    map[Role]*RoleModel
	limiters map[string]*adaptiveLimiter
}

// BuiltinSource is what [Registry.Source] says when no models file is used.
const BuiltinSource = "built-in defaults"

// Load reads the models file at path and returns a registry. An empty
// path means models.yaml in the working directory if it exists, else the
// built-in defaults. env reads API keys; nil means os.Getenv.
func Load(path string, env Getenv, opts ...Option) (*Registry, error) {
	cfg, source, err := loadConfig(path)
	if err != nil {
		return nil, err
	}
	r, err := New(cfg, env, opts...)
	if err != nil {
		return nil, err
	}
	r.source = source
	return r, nil
}

func loadConfig(path string) (*Config, string, error) {
	if path == "" {
		if _, err := os.Stat(DefaultModelsFile); errors.Is(err, fs.ErrNotExist) {
			return &Config{Version: 1}, BuiltinSource, nil
		}
		path = DefaultModelsFile
	}
	cfg, err := ReadConfig(path)
	if err != nil {
		return nil, "", err
	}
	return cfg, path, nil
}

// New returns a registry for cfg. env reads API keys; nil means os.Getenv.
func New(cfg *Config, env Getenv, opts ...Option) (*Registry, error) {
	if cfg == nil {
		cfg = &Config{Version: 1}
	}
	if err := cfg.Validate(); err != nil {
		return nil, fmt.Errorf("llm: models config: %w", err)
	}
	var s settings
	for _, o := range opts {
		o(&s)
	}
	if env == nil {
		env = os.Getenv
	}
	r := &Registry{
		cfg: cfg, source: "config", env: env,
		httpClient: s.httpClient, clock: s.clock, shared: s.shared, log: s.logger, observers: s.observers,
		pricing: DefaultPricing().withOverrides(cfg.Pricing), allowUnpriced: cfg.AllowUnpriced || s.allowUnpriced,
		budgets: cfg.Budgets, ledger: s.ledger, redact: &redactor{},
		roles: map[Role]*RoleModel{}, limiters: map[string]*adaptiveLimiter{},
	}
	if r.httpClient == nil {
		r.httpClient = &http.Client{}
	}
	if r.clock == nil {
		r.clock = realClock{}
	}
	if r.log == nil {
		r.log = slog.Default()
	}
	r.retry = DefaultRetryPolicy()
	if s.retry != nil {
		r.retry = s.retry.normalized()
	}
	if s.budgets != nil {
		r.budgets = *s.budgets
	}
	if r.ledger == nil {
		r.ledger = NewLedger()
	}
	if s.recordDir != "" && s.replayDir != "" {
		return nil, errors.New("llm: --record and --replay cannot be used together")
	}
	if s.recordDir != "" {
		r.record = NewRecordStore(s.recordDir)
	}
	if s.replayDir != "" {
		if _, err := os.Stat(s.replayDir); err != nil {
			return nil, fmt.Errorf("llm: replay folder: %w", err)
		}
		r.replay = NewRecordStore(s.replayDir)
	}
	if dir := firstNonEmpty(s.cacheDir, cfg.CacheDir); dir != "" && r.replay == nil {
		c, err := OpenCache(dir)
		if err != nil {
			return nil, err
		}
		r.cache = c
	}
	return r, nil
}

// Role returns the model of role, built on first use: its fallback chain,
// limits, prices and keys are checked now, so that a missing key or price
// fails before any call. The returned model is a *[RoleModel].
func (r *Registry) Role(ctx context.Context, role Role) (Model, error) {
	r.mu.Lock()
	defer r.mu.Unlock()
	if m, ok := r.roles[role]; ok {
		return m, nil
	}
	res, err := r.cfg.Resolve(role)
	if err != nil {
		return nil, err
	}
	m := &RoleModel{reg: r, role: role}
	for i, rm := range res.Chain {
		ep, err := r.newEndpoint(role, rm, res.MaxRetries)
		if err != nil && i == 0 {
			return nil, err
		}
		if err != nil {
			r.log.WarnContext(ctx, "llm fallback model skipped", slog.String("role", string(role)),
				slog.String("model", rm.String()), slog.String("error", r.redact.string(err.Error())))
			continue
		}
		m.chain = append(m.chain, ep)
	}
	r.log.DebugContext(ctx, "llm role ready", slog.String("role", string(role)), slog.String("model", res.Chain[0].String()),
		slog.Int("fallbacks", len(m.chain)-1), slog.String("source", r.source))
	r.roles[role] = m
	return m, nil
}

// newEndpoint builds one model of a chain: key, price, client and limits.
// It holds r.mu.
func (r *Registry) newEndpoint(role Role, m ResolvedModel, maxRetries int) (*endpoint, error) {
	ep := &endpoint{reg: r, m: m, maxRetries: maxRetries}
	if r.replay != nil {
		return ep, nil // answers come from recordings: no key, price or client
	}
	key := ""
	if m.KeyEnv != "" {
		key = r.env(m.KeyEnv)
		r.redact.add(key)
	}
	if key == "" && m.KeyRequired() {
		return nil, &FatalError{Role: role, Provider: m.Provider, Model: m.Model,
			Reason: fmt.Sprintf("missing API key: environment variable %s is not set", m.KeyEnv)}
	}
	price, err := r.priceOf(role, m)
	if err != nil {
		return nil, err
	}
	ep.price = price
	switch m.Wire() {
	case wireAnthropic:
		ep.client = newAnthropicClient(m, key, r.httpClient, r.redact, r.clock)
	default:
		ep.client = newOpenAIClient(m, key, r.httpClient, r.redact, r.clock)
	}
	ep.limiter = r.limiterLocked(m)
	if r.shared != nil {
		ep.rpm = newSharedBucket(m.RequestsPerMinute, r.clock, r.shared, m.Provider+"/"+m.Model+" requests")
		ep.tpm = newSharedBucket(m.TokensPerMinute, r.clock, r.shared, m.Provider+"/"+m.Model+" tokens")
	} else {
		ep.rpm = newBucket(m.RequestsPerMinute, r.clock)
		ep.tpm = newBucket(m.TokensPerMinute, r.clock)
	}
	return ep, nil
}

// priceOf finds m's price. A nil price without error means the cost comes
// from the provider or is allowed to be unknown.
func (r *Registry) priceOf(role Role, m ResolvedModel) (*Price, error) {
	if p, ok := r.pricing.Lookup(m.Model); ok {
		return &p, nil
	}
	switch {
	case m.spec.free:
		return &Price{}, nil
	case m.spec.reportsCost, r.allowUnpriced:
		return nil, nil
	}
	return nil, fmt.Errorf("llm: role %s: %s: %w; add it under pricing: in models.yaml (USD per 1M tokens) or allow it with --allow-unpriced",
		role, m, ErrUnpriced)
}

// limiterLocked returns the adaptive limiter shared by every model of the
// same provider and base URL.
func (r *Registry) limiterLocked(m ResolvedModel) *adaptiveLimiter {
	key := m.Provider + " " + m.BaseURL
	if l, ok := r.limiters[key]; ok {
		return l
	}
	n := defaultConcurrency
	if pc, ok := r.cfg.Providers[m.Provider]; ok && pc.Concurrency > 0 {
		n = pc.Concurrency
	}
	l := newAdaptiveLimiter(n, r.clock)
	r.limiters[key] = l
	return l
}

// Concurrency returns the current adaptive concurrency limit of a
// provider at baseURL ("" for the provider's default URL), or 0 if no
// role uses it yet.
func (r *Registry) Concurrency(provider, baseURL string) int {
	if baseURL == "" {
		baseURL = providerSpecs[provider].baseURL
	}
	r.mu.Lock()
	defer r.mu.Unlock()
	if l, ok := r.limiters[provider+" "+normalizeBaseURL(baseURL)]; ok {
		return l.current()
	}
	return 0
}

// Ledger returns the ledger the registry accounts into.
func (r *Registry) Ledger() *Ledger { return r.ledger }

// Config returns the configuration read.
func (r *Registry) Config() *Config { return r.cfg }

// Source returns the models file used, or [BuiltinSource].
func (r *Registry) Source() string { return r.source }

// Budgets returns the budgets in force.
func (r *Registry) Budgets() Budgets { return r.budgets }
