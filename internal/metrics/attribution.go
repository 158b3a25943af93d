package metrics

import (
	"sort"

	"github.com/worldprobe/worldprobe/internal/result"
)

// Unattributed stands for a failed trial that carries no attribution.
const Unattributed = "none"

// Share is the part of the failed trials given one attribution.
type Share struct {
	Attribution string  `json:"attribution"`
	Count       int     `json:"count"`
	Share       float64 `json:"share"`
}

// Attributions are the failed trials of a group and why they failed.
type Attributions struct {
	// Failed counts the scored trials that did not pass (crashes
	// included).
	Failed int `json:"failed"`
	// Shares split Failed by the trials' attribution (result.Trial's
	// attribution, set by contract.Attribute: crash, schema_drift,
	// state_mismatch, physics_violation, broken_interaction, other), most
	// frequent first, ties by name. Their counts sum to Failed.
	Shares []Share `json:"shares"`
}

// AttributionShares counts why the scored trials that did not pass
// failed. Infrastructure errors are not failures and are left out.
func AttributionShares(trials []*result.Trial) Attributions {
	counts := map[string]int{}
	var a Attributions
	for _, t := range trials {
		if !t.Scored() || t.Pass {
			continue
		}
		a.Failed++
		attr := t.Attribution
		if attr == "" {
			attr = Unattributed
		}
		counts[attr]++
	}
	a.Shares = make([]Share, 0, len(counts))
	for attr, n := range counts {
		a.Shares = append(a.Shares, Share{Attribution: attr, Count: n, Share: float64(n) / float64(a.Failed)})
	}
	sort.Slice(a.Shares, func(i, j int) bool {
		if a.Shares[i].Count != a.Shares[j].Count {
			return a.Shares[i].Count > a.Shares[j].Count
		}
		return a.Shares[i].Attribution < a.Shares[j].Attribution
	})
	return a
}

// Share returns the share of attribution attr (0 when none failed so).
func (a Attributions) Share(attr string) float64 {
	for _, s := range a.Shares {
		if s.Attribution == attr {
			return s.Share
		}
	}
	return 0
}
