// Package judges holds the judges 'worldprobe compare-judges' measures
// against the contract: graders of the paradigms WorldCoder-Bench compares
// the state contract with (ablations: a DOM-structure check, a screenshot
// judged by a visual model). Each judges a candidate page from what its
// paradigm can see — the brief, the page's DOM, a screenshot — and never
// reads the task's contract. One file per judge.
package judges

import (
	"context"
	"errors"
	"time"

	"github.com/worldprobe/worldprobe/internal/llm"
	"github.com/worldprobe/worldprobe/internal/task"
)

// Candidate is one page to judge, with what the run recorded of it.
type Candidate struct {
	// Key is the trial's key; model calls are accounted under it.
	Key  string
	Task *task.Task
	// Page is the candidate's HTML file.
	Page string
	// Screenshot is the run's screenshot of the page after its load check
	// (RUN/trials/<trial>/screenshot.png); "" when the run has none.
	Screenshot string
}

// Verdict is what a judge found on one candidate.
type Verdict struct {
	// Judge names the judge; Config what judged: its version and, for a
	// model, which one. A stored verdict of another config is stale.
	Judge  string `json:"judge"`
	Config string `json:"config"`
	// Pass, Score (in [0, 1]) and Reason are the verdict.
	Pass   bool    `json:"pass"`
	Score  float64 `json:"score"`
	Reason string  `json:"reason"`
	// Failure is set when the judge reached no verdict: a reply that could
	// not be read, a refusal, a provider that failed after its retries.
	// Pass is then false and Score 0.
	Failure string `json:"failure,omitempty"`
	// Checks are the DOM check's checks, in order.
	Checks []Check `json:"checks,omitempty"`
	// Reply is the visual model's answer, as it came.
	Reply string `json:"reply,omitempty"`
	// Cost is what judging took.
	Cost Cost `json:"cost"`
}

// Cost is what judging one candidate took.
type Cost struct {
	// WallMs is the wall time, in milliseconds.
	WallMs float64 `json:"wall_ms"`
	// Calls counts model calls; the tokens and USD sum them.
	Calls        int     `json:"calls,omitempty"`
	InputTokens  int64   `json:"input_tokens,omitempty"`
	OutputTokens int64   `json:"output_tokens,omitempty"`
	USD          float64 `json:"usd"`
	// Unpriced is set when a call's model had no price (its cost counts
	// as 0 and the total is unknown).
	Unpriced bool `json:"unpriced,omitempty"`
	// Source is where the model's answer came from (live, cache, replay).
	Source llm.Source `json:"source,omitempty"`
}

// Judge judges candidate pages.
type Judge interface {
	// Name identifies the judge ("dom", "visual").
	Name() string
	// Config identifies what judges: the judge's version and settings,
	// and its model. A verdict stored under another config is judged again.
	Config() string
	// Judge judges one candidate. The error is for what must stop the
	// comparison (the browser went away, the context ended, a provider
	// refused for good, a budget ran out); a page that cannot be judged is
	// a verdict that says so.
	Judge(ctx context.Context, c Candidate) (*Verdict, error)
}

// Run judges c with j and stamps the verdict with the judge's name, its
// config and the wall time it took.
func Run(ctx context.Context, j Judge, c Candidate) (*Verdict, error) {
	start := time.Now()
	v, err := j.Judge(ctx, c)
	if err != nil {
		return nil, err
	}
	v.Judge, v.Config = j.Name(), j.Config()
	v.Cost.WallMs = float64(time.Since(start).Microseconds()) / 1000
	if v.Failure != "" {
		v.Pass, v.Score = false, 0
	}
	return v, nil
}

// Stops reports whether a model call's error must stop the comparison
// rather than be the candidate's failed verdict: the context ended, a
// provider refused for good ([llm.FatalError]) or a run budget ran out.
// A trial budget ends only that candidate's verdict.
func Stops(ctx context.Context, err error) bool {
	var b *llm.BudgetError
	if errors.As(err, &b) {
		return b.Scope != "trial"
	}
	return ctx.Err() != nil || llm.IsFatal(err) || errors.Is(err, llm.ErrBudgetExceeded)
}
