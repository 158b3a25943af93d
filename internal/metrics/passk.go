package metrics

import (
	"math"
	"sort"

	"github.com/worldprobe/worldprobe/internal/result"
)

// DefaultKs are the k of pass@k a leaderboard reports when the samples
// allow them.
var DefaultKs = []int{1, 3, 5, 10}

// PassAtK is the unbiased estimator of pass@k from n samples of one task
// with c passes (Chen et al. 2021, arXiv 2107.03374, §2.1):
//
//	pass@k = 1 − C(n−c, k) / C(n, k) = 1 − ∏_{i=n−c+1}^{n} (1 − k/i)
//
// in the product form, which neither overflows nor loses precision. It is
// 1 when n − c < k (every k-subset holds a pass). It is undefined — NaN —
// when k < 1, n < k (fewer samples than k: clamping k to n would report
// pass@n under the name pass@k) or c is not in [0, n].
func PassAtK(n, c, k int) float64 {
	if k < 1 || n < k || c < 0 || c > n {
		return math.NaN()
	}
	if n-c < k {
		return 1
	}
	prod := 1.0
	for i := n - c + 1; i <= n; i++ {
		prod *= 1 - float64(k)/float64(i)
	}
	return 1 - prod
}

// PassK is pass@k over a group of trials.
type PassK struct {
	K int `json:"k"`
	// Value is the mean over tasks of each task's unbiased pass@k.
	Value float64 `json:"value"`
	// Tasks is how many tasks it averages.
	Tasks int `json:"tasks"`
}

// PassAtKs computes pass@k for each k in ks that the samples allow: per
// task (a Robust variant is a task of its own) from its n scored samples
// and c passes, then averaged over tasks, so that a task sampled ten times
// weighs as much as one sampled once. A k larger than the fewest samples
// any task has is left out (pass@k needs n ≥ k for every task). The
// result is in the order of ks; infrastructure errors are not samples.
func PassAtKs(trials []*result.Trial, ks []int) []PassK {
	tasks := samplesPerTask(trials)
	if len(tasks) == 0 {
		return nil
	}
	fewest := math.MaxInt
	for _, c := range tasks {
		fewest = min(fewest, c.n)
	}
	var out []PassK
	for _, k := range ks {
		if k < 1 || k > fewest {
			continue
		}
		sum := 0.0
		for _, c := range tasks {
			sum += PassAtK(c.n, c.pass, k)
		}
		out = append(out, PassK{K: k, Value: sum / float64(len(tasks)), Tasks: len(tasks)})
	}
	return out
}

// taskSamples counts one task's scored samples and passes.
type taskSamples struct {
	task    string
	n, pass int
}

// samplesPerTask groups the scored trials by task (and variant), sorted
// by task so that whatever iterates them does so in a fixed order.
func samplesPerTask(trials []*result.Trial) []taskSamples {
	idx := map[string]int{}
	var out []taskSamples
	for _, t := range trials {
		if !t.Scored() {
			continue
		}
		k := t.Task + "\x00" + t.Variant
		i, ok := idx[k]
		if !ok {
			i = len(out)
			idx[k] = i
			out = append(out, taskSamples{task: k})
		}
		out[i].n++
		if t.Pass {
			out[i].pass++
		}
	}
	sort.Slice(out, func(i, j int) bool { return out[i].task < out[j].task })
	return out
}
