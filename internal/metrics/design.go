package metrics

import (
	"sort"

	"github.com/worldprobe/worldprobe/internal/result"
)

// DesignScore is a leaderboard row's design score (run --design,
// docs/xr-design.md): its trials' ratings on the ten XR design
// heuristics, 1 (poor) to 5 (excellent), apart from the functional scores.
type DesignScore struct {
	// Rated counts the scored trials with a design score, Unjudged those
	// whose design was asked for and not rated (no model, budget, a reply
	// without ten ratings).
	Rated    int `json:"rated"`
	Unjudged int `json:"unjudged"`
	// Mean is the mean of the rated trials' scores (each the mean of its
	// ten ratings); nil when none was rated.
	Mean *float64 `json:"mean"`
	// Heuristics are each heuristic's mean rating over the rated trials,
	// in the order the first rated trial lists them.
	Heuristics []HeuristicMean `json:"heuristics,omitempty"`
}

// HeuristicMean is one design heuristic's mean rating over a row's rated
// trials.
type HeuristicMean struct {
	Heuristic string  `json:"heuristic"`
	Mean      float64 `json:"mean"`
	Trials    int     `json:"trials"`
}

// Design is the design score of trials; nil when no scored trial has one
// (the design was not asked for). Infrastructure errors are left out, as
// everywhere.
func Design(trials []*result.Trial) *DesignScore {
	var d DesignScore
	var sum float64
	sums := map[string]float64{}
	counts := map[string]int{}
	order := map[string]int{}
	for _, t := range trials {
		if !t.Scored() || t.Design == nil {
			continue
		}
		if t.Design.Unjudged != "" {
			d.Unjudged++
			continue
		}
		d.Rated++
		sum += t.Design.Score
		for _, r := range t.Design.Ratings {
			if _, seen := order[r.Heuristic]; !seen {
				order[r.Heuristic] = len(order)
			}
			sums[r.Heuristic] += float64(r.Score)
			counts[r.Heuristic]++
		}
	}
	if d.Rated+d.Unjudged == 0 {
		return nil
	}
	if d.Rated > 0 {
		m := sum / float64(d.Rated)
		d.Mean = &m
	}
	for h, n := range counts {
		d.Heuristics = append(d.Heuristics, HeuristicMean{Heuristic: h, Mean: sums[h] / float64(n), Trials: n})
	}
	sort.Slice(d.Heuristics, func(i, j int) bool { return order[d.Heuristics[i].Heuristic] < order[d.Heuristics[j].Heuristic] })
	return &d
}
