package metrics

import (
	"github.com/worldprobe/worldprobe/internal/result"
)

// BoardOptions set what a Board computes beside the trials.
type BoardOptions struct {
	// Bootstrap sets the V-Cov interval's resampling.
	Bootstrap BootstrapOptions
	// Ks are the k of pass@k to report where the samples allow; nil
	// means DefaultKs.
	Ks []int
	// Economics are the inputs of RoA and TEM.
	Economics EconomicsOptions
}

// Board is the full leaderboard: every number docs/metrics.md describes,
// per model (and repair).
type Board struct {
	// Trials counts the scored trials, Infra the infrastructure errors
	// left out.
	Trials    int              `json:"trials"`
	Infra     int              `json:"infra_errors"`
	Bootstrap BootstrapOptions `json:"bootstrap"`
	// Ks are the k of pass@k asked for (a row has those its samples
	// allow).
	Ks   []int   `json:"ks"`
	Rate float64 `json:"rate_usd_per_hour"`
	// Rows are the first-shot and error-only rows, ranked together.
	Rows []BoardRow `json:"rows"`
	// Feedback are the rows of pages repaired with contract feedback
	// (result.RepairFeedback): a leaderboard of their own, ranked apart
	// and never mixed into Rows — those pages were made after the model
	// saw failed checks' messages, which first-shot and error-only pages
	// never do.
	Feedback []BoardRow `json:"feedback_rows,omitempty"`
}

// BoardRow is one model's (and repair's) line with everything beyond
// its Row's scores.
type BoardRow struct {
	Row
	// VCovCI is the 95% bootstrap interval of VCov, clustered by task.
	VCovCI *Interval `json:"v_cov_ci"`
	// PassAtK holds pass@k for the ks the row's samples allow.
	PassAtK      []PassK      `json:"pass_at_k"`
	Attributions Attributions `json:"attributions"`
	Economics    Economics    `json:"economics"`
	// Design is the row's design score, apart from pass; nil when none
	// of its trials was asked for one.
	Design *DesignScore `json:"design,omitempty"`
}

// PassAt returns the row's pass@k, or nil when its samples do not allow k.
func (r BoardRow) PassAt(k int) *float64 {
	for _, p := range r.PassAtK {
		if p.K == k {
			v := p.Value
			return &v
		}
	}
	return nil
}

// NewBoard computes the leaderboard of trials, rows in Leaderboard's
// order. Each row's bootstrap uses the same seed, so a row's interval
// does not depend on the other rows. It fails when the generation records
// or human hours are invalid (see Efficiency).
func NewBoard(trials []*result.Trial, o BoardOptions) (Board, error) {
	if o.Ks == nil {
		o.Ks = append([]int(nil), DefaultKs...)
	}
	o.Bootstrap.Resamples = o.Bootstrap.resamples()
	econ, err := newEconomy(o.Economics)
	if err != nil {
		return Board{}, err
	}
	all := Summarise(trials)
	b := Board{Trials: all.Trials, Infra: all.Infra, Bootstrap: o.Bootstrap, Ks: o.Ks, Rate: econ.rate}
	others, feedback := FeedbackApart(trials)
	for _, part := range []struct {
		trials []*result.Trial
		rows   *[]BoardRow
	}{{others, &b.Rows}, {feedback, &b.Feedback}} {
		for _, g := range rowGroups(part.trials) {
			*part.rows = append(*part.rows, BoardRow{Row: g.row, VCovCI: VCovInterval(g.trials, o.Bootstrap), PassAtK: PassAtKs(g.trials, o.Ks),
				Attributions: AttributionShares(g.trials), Economics: econ.over(g.trials), Design: Design(g.trials)})
		}
	}
	return b, nil
}

// FeedbackApart splits trials into those of pages repaired with contract
// feedback (result.RepairFeedback) and the others (first-shot and
// error-only), each in its order: the two are ranked and reported apart.
func FeedbackApart(trials []*result.Trial) (others, feedback []*result.Trial) {
	for _, t := range trials {
		if t.Repair == result.RepairFeedback {
			feedback = append(feedback, t)
		} else {
			others = append(others, t)
		}
	}
	return others, feedback
}
