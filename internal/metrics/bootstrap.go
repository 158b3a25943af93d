package metrics

import (
	"math/rand/v2"
	"sort"

	"github.com/worldprobe/worldprobe/internal/result"
)

// Bootstrap defaults.
const (
	// DefaultResamples is how many bootstrap resamples an interval draws.
	DefaultResamples = 2000
	// confidence is the interval's level: the 2.5th to the 97.5th
	// percentile.
	confidence = 0.95
	// pcgStream is the second word of the PCG state: fixed, so that the
	// seed alone decides the draws.
	pcgStream = 0x9e3779b97f4a7c15
)

// BootstrapOptions set a bootstrap interval's resampling.
type BootstrapOptions struct {
	// Resamples is how many resamples to draw; ≤ 0 means DefaultResamples.
	Resamples int `json:"resamples"`
	// Seed seeds the resampling (the zero value, 0, is a seed like any
	// other): the same trials and seed give the same interval.
	Seed uint64 `json:"seed"`
}

func (o BootstrapOptions) resamples() int {
	if o.Resamples <= 0 {
		return DefaultResamples
	}
	return o.Resamples
}

// Interval is a bootstrap confidence interval.
type Interval struct {
	Lo float64 `json:"lo"`
	Hi float64 `json:"hi"`
	// Level is the confidence level (0.95).
	Level float64 `json:"level"`
	// Clusters is how many tasks were resampled.
	Clusters  int    `json:"clusters"`
	Resamples int    `json:"resamples"`
	Seed      uint64 `json:"seed"`
}

// cluster is one task's scored trials: the sum of their V-Cov and how
// many there are.
type cluster struct {
	sum float64
	n   int
}

// VCovInterval is the 95% percentile-bootstrap confidence interval of the
// mean V-Cov of trials, clustered by task: each resample draws as many
// tasks as there are, uniformly with replacement, takes every scored
// trial of each drawn task (a task drawn twice counts twice) and computes
// their mean V-Cov; the interval runs from the 2.5th to the 97.5th
// percentile of the resampled means (quantile type 7). Samples of one task
// are correlated, so resampling trials instead of tasks would make the
// interval too narrow. Nil when no trial is scored.
func VCovInterval(trials []*result.Trial, o BootstrapOptions) *Interval {
	cs := clustersByTask(trials)
	if len(cs) == 0 {
		return nil
	}
	means := resampledMeans(cs, o)
	return &Interval{Lo: quantile(means, (1-confidence)/2), Hi: quantile(means, 1-(1-confidence)/2),
		Level: confidence, Clusters: len(cs), Resamples: len(means), Seed: o.Seed}
}

// clustersByTask groups the scored trials by task id, in the order of the
// ids, each task's V-Cov summed in ascending order: the draws, and the
// sums, do not depend on the order of the trials.
func clustersByTask(trials []*result.Trial) []cluster {
	byTask := map[string][]float64{}
	for _, t := range trials {
		if t.Scored() {
			byTask[t.Task] = append(byTask[t.Task], t.VCov)
		}
	}
	ids := make([]string, 0, len(byTask))
	for id := range byTask {
		ids = append(ids, id)
	}
	sort.Strings(ids)
	out := make([]cluster, len(ids))
	for i, id := range ids {
		vs := byTask[id]
		sort.Float64s(vs)
		for _, v := range vs {
			out[i].sum += v
		}
		out[i].n = len(vs)
	}
	return out
}

// resampledMeans draws o's resamples of the clusters and returns the mean
// of each (every trial of a drawn cluster weighs one).
func resampledMeans(cs []cluster, o BootstrapOptions) []float64 {
	r := rand.New(rand.NewPCG(o.Seed, pcgStream))
	means := make([]float64, o.resamples())
	for b := range means {
		sum, n := 0.0, 0
		for range cs {
			c := cs[r.IntN(len(cs))]
			sum += c.sum
			n += c.n
		}
		means[b] = sum / float64(n)
	}
	return means
}
