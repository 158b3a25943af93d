package llm

import (
	"maps"
	"sync"
	"time"
)

// Call is one answered model call as the [Ledger] records it.
type Call struct {
	// Time is when the call finished.
	Time time.Time `json:"time"`
	// Role is the role that asked.
	Role Role `json:"role"`
	// Trial is the trial of the call, if any.
	Trial string `json:"trial,omitempty"`
	// Provider is the provider that answered.
	Provider string `json:"provider"`
	// Model is the model that answered.
	Model string `json:"model"`
	// Usage counts tokens billed (zero for cache hits).
	Usage Usage `json:"usage"`
	// CostUSD is the price paid (zero for cache hits).
	CostUSD float64 `json:"cost_usd"`
	// Latency is the time of the successful attempt.
	Latency time.Duration `json:"latency_ns"`
	// Attempts counts attempts on the answering model.
	Attempts int `json:"attempts"`
	// Source is live, cache or replay.
	Source Source `json:"source"`
}

// Totals sums calls.
type Totals struct {
	// Calls counts answered calls, whatever their source.
	Calls int `json:"calls"`
	// InputTokens sums input tokens.
	InputTokens int64 `json:"input_tokens"`
	// OutputTokens sums output tokens.
	OutputTokens int64 `json:"output_tokens"`
	// CachedInputTokens sums input tokens read from provider prompt caches.
	CachedInputTokens int64 `json:"cached_input_tokens"`
	// CostUSD sums the cost.
	CostUSD float64 `json:"cost_usd"`
	// Latency sums the latencies.
	Latency time.Duration `json:"latency_ns"`
	// Retries counts attempts beyond the first.
	Retries int `json:"retries"`
	// CacheHits counts calls served from the response cache.
	CacheHits int `json:"cache_hits"`
	// Replays counts calls served from recordings.
	Replays int `json:"replays"`
}

// Tokens returns input plus output tokens.
func (t Totals) Tokens() int64 { return t.InputTokens + t.OutputTokens }

func (t *Totals) add(c Call) {
	t.Calls++
	t.InputTokens += c.Usage.InputTokens
	t.OutputTokens += c.Usage.OutputTokens
	t.CachedInputTokens += c.Usage.CachedInputTokens
	t.CostUSD += c.CostUSD
	t.Latency += c.Latency
	t.Retries += max(c.Attempts-1, 0)
	switch c.Source {
	case SourceCache:
		t.CacheHits++
	case SourceReplay:
		t.Replays++
	}
}

// Summary is the ledger's totals, ready to write to a run folder.
type Summary struct {
	// Run sums every call.
	Run Totals `json:"run"`
	// ByRole splits the sums per role.
	ByRole map[Role]Totals `json:"by_role"`
	// ByModel splits the sums per "provider/model".
	ByModel map[string]Totals `json:"by_model"`
	// ByTrial splits the sums per trial.
	ByTrial map[string]Totals `json:"by_trial"`
}

// Ledger sums tokens, cost and latency per run, role, model and trial. It
// is safe for concurrent use.
type Ledger struct {
	mu      sync.Mutex
	calls   []Call
	run     Totals
	byRole  map[Role]Totals
	byModel map[string]Totals
	byTrial map[string]Totals
}

// NewLedger returns an empty ledger.
func NewLedger() *Ledger {
	return &Ledger{byRole: map[Role]Totals{}, byModel: map[string]Totals{}, byTrial: map[string]Totals{}}
}

// Add records a call.
func (l *Ledger) Add(c Call) {
	l.mu.Lock()
	defer l.mu.Unlock()
	l.calls = append(l.calls, c)
	l.run.add(c)
	addTo(l.byRole, c.Role, c)
	addTo(l.byModel, c.Provider+"/"+c.Model, c)
	if c.Trial != "" {
		addTo(l.byTrial, c.Trial, c)
	}
}

func addTo[K comparable](m map[K]Totals, k K, c Call) {
	t := m[k]
	t.add(c)
	m[k] = t
}

// Run returns the totals of the run.
func (l *Ledger) Run() Totals {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.run
}

// Trial returns the totals of one trial.
func (l *Ledger) Trial(id string) Totals {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.byTrial[id]
}

// Calls returns a copy of every recorded call, in order.
func (l *Ledger) Calls() []Call {
	l.mu.Lock()
	defer l.mu.Unlock()
	return append([]Call(nil), l.calls...)
}

// Summary returns every total.
func (l *Ledger) Summary() Summary {
	l.mu.Lock()
	defer l.mu.Unlock()
	return Summary{Run: l.run, ByRole: maps.Clone(l.byRole), ByModel: maps.Clone(l.byModel), ByTrial: maps.Clone(l.byTrial)}
}
