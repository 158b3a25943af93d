package metrics

import (
	"fmt"
	"math"

	"github.com/worldprobe/worldprobe/internal/result"
)

// DefaultRate is R of RoA: what an hour of a professional 3D web
// developer costs, in USD (WorldCoder-Bench, §"Key design" 4).
const DefaultRate = 60.0

// Generation is what making one candidate page took, as the generator
// recorded it: metrics reads these plain numbers and nothing of the
// generator itself. A nil field was not recorded (and is never taken for
// a zero).
type Generation struct {
	// Model, Task, Sample and Repair name the trial whose page this made,
	// as result.Trial does.
	Model  string `json:"model"`
	Task   string `json:"task"`
	Sample int    `json:"sample"`
	Repair string `json:"repair,omitempty"`
	// CostUSD is what the model calls that made the page cost, repair
	// turns included: C_model.
	CostUSD *float64 `json:"cost_usd,omitempty"`
	// ModelSeconds is the wall time the model took to answer, repair
	// turns included: H_model × 3600.
	ModelSeconds *float64 `json:"model_seconds,omitempty"`
}

func (g Generation) key() string {
	return fmt.Sprintf("%s\x00%s\x00%d\x00%s", g.Model, g.Task, g.Sample, g.Repair)
}

func trialKey(t *result.Trial) string {
	return Generation{Model: t.Model, Task: t.Task, Sample: t.Sample, Repair: t.Repair}.key()
}

// EconomicsOptions are the inputs of RoA and TEM beside the trials.
type EconomicsOptions struct {
	// HumanHours is H_human by task id: how long a skilled developer
	// would take (task.yaml's human_hours, or its difficulty's default:
	// task.Task.EstimatedHumanHours).
	HumanHours map[string]float64
	// Generations are the generator's records, one per page.
	Generations []Generation
	// Rate is R in USD per hour; ≤ 0 means DefaultRate.
	Rate float64
}

// Ratio is RoA or TEM with what it was computed from.
type Ratio struct {
	// Value is Numerator / Denominator; nil when it is not defined (NA
	// says why).
	Value *float64 `json:"value"`
	// Numerator is Σ V-Cov·H_human (·R for RoA) over the measured trials;
	// Denominator Σ C_model (RoA, USD) or Σ H_model (TEM, hours).
	Numerator   float64 `json:"numerator"`
	Denominator float64 `json:"denominator"`
	// Trials is how many scored trials had what the ratio needs.
	Trials int    `json:"trials"`
	NA     string `json:"na,omitempty"`
}

// Economics are WorldCoder-Bench's utility numbers for a group of trials.
type Economics struct {
	// RoA, Return on Automation, is human work saved per dollar spent:
	// Σ V-Cov(t)·H_human(t)·R / Σ C_model(t), in USD/USD.
	RoA Ratio `json:"roa"`
	// TEM, the Time Efficiency Multiplier, is human hours saved per hour
	// of model time: Σ V-Cov(t)·H_human(t) / Σ H_model(t), in h/h.
	TEM  Ratio   `json:"tem"`
	Rate float64 `json:"rate_usd_per_hour"`
	// Scored is how many scored trials the group has; NoHours how many of
	// them have no H_human (their task is not in HumanHours).
	Scored  int `json:"scored"`
	NoHours int `json:"no_human_hours,omitempty"`
}

// Efficiency computes RoA and TEM over the scored trials (V-Cov of a crash
// is 0: its cost counts, its value does not). The sums run over trials,
// so a task sampled K times counts K times on both sides. A trial counts
// in RoA when its generation cost is recorded and its task has human
// hours, in TEM when its model time is; a ratio over no such trial, or
// over a zero denominator, is nil with the reason in NA. It fails on a
// negative cost, time or human hours and on two records of one page.
func Efficiency(trials []*result.Trial, o EconomicsOptions) (Economics, error) {
	e, err := newEconomy(o)
	if err != nil {
		return Economics{}, err
	}
	return e.over(trials), nil
}

// economy is EconomicsOptions checked, its records indexed by trial.
type economy struct {
	gens  map[string]Generation
	hours map[string]float64
	rate  float64
}

func newEconomy(o EconomicsOptions) (*economy, error) {
	e := &economy{gens: make(map[string]Generation, len(o.Generations)), hours: o.HumanHours, rate: o.Rate}
	if e.rate <= 0 {
		e.rate = DefaultRate
	}
	for _, g := range o.Generations {
		switch {
		case g.CostUSD != nil && (*g.CostUSD < 0 || math.IsNaN(*g.CostUSD)):
			return nil, fmt.Errorf("generation of %s/%s sample %d: cost %v USD is negative", g.Model, g.Task, g.Sample, *g.CostUSD)
		case g.ModelSeconds != nil && (*g.ModelSeconds < 0 || math.IsNaN(*g.ModelSeconds)):
			return nil, fmt.Errorf("generation of %s/%s sample %d: model time %v s is negative", g.Model, g.Task, g.Sample, *g.ModelSeconds)
		}
		if _, dup := e.gens[g.key()]; dup {
			return nil, fmt.Errorf("two generation records of %s/%s sample %d %s", g.Model, g.Task, g.Sample, g.Repair)
		}
		e.gens[g.key()] = g
	}
	for id, h := range o.HumanHours {
		if h < 0 || math.IsNaN(h) {
			return nil, fmt.Errorf("task %s: human hours %v is negative", id, h)
		}
	}
	return e, nil
}

// over computes RoA and TEM over the scored trials.
func (e *economy) over(trials []*result.Trial) Economics {
	out := Economics{Rate: e.rate}
	for _, t := range trials {
		if !t.Scored() {
			continue
		}
		out.Scored++
		h, ok := e.hours[t.Task]
		if !ok {
			out.NoHours++
			continue
		}
		g, ok := e.gens[trialKey(t)]
		if !ok {
			continue
		}
		if g.CostUSD != nil {
			out.RoA.add(t.VCov*h*e.rate, *g.CostUSD)
		}
		if g.ModelSeconds != nil {
			out.TEM.add(t.VCov*h, *g.ModelSeconds/3600)
		}
	}
	out.RoA.finish("generation cost")
	out.TEM.finish("model time")
	return out
}

func (r *Ratio) add(num, den float64) {
	r.Numerator += num
	r.Denominator += den
	r.Trials++
}

func (r *Ratio) finish(what string) {
	switch {
	case r.Trials == 0:
		r.NA = "no scored trial has a recorded " + what + " and human hours"
	case r.Denominator == 0:
		r.NA = "the recorded " + what + " sums to 0"
	default:
		r.Value = defined(r.Numerator / r.Denominator)
	}
}
