// Package metrics aggregates trial results: coverage means, pass@k and
// leaderboards per model, category and difficulty.
package metrics

import (
	"math"
	"sort"

	"github.com/worldprobe/worldprobe/internal/result"
)

// Scores are mean scores over a group of trials. Crashed trials count with
// zero everywhere; infrastructure errors not at all (they are counted in
// Infra, and Trials leaves them out).
type Scores struct {
	Trials  int     `json:"trials"`
	Tasks   int     `json:"tasks"`
	VCov    float64 `json:"v_cov"`
	ACov    float64 `json:"a_cov"`
	SCov    float64 `json:"s_cov"`
	TCov    float64 `json:"t_cov"`
	Pass1   float64 `json:"pass_at_1"`
	Crashes int     `json:"crashes"`
	// Infra counts trials left out as infrastructure errors.
	Infra int `json:"infra_errors,omitempty"`
	// Retried counts scored trials judged again after a missed deadline
	// under overload.
	Retried int `json:"retried,omitempty"`
}

// Row is one model's line of the leaderboard.
type Row struct {
	Model      string            `json:"model"`
	Scores                       // overall
	ByCategory map[string]Scores `json:"by_category"`
	ByDiff     map[string]Scores `json:"by_difficulty"`
	// Robust is the score over variant trials; Core over the rest (empty
	// when a run has no variants).
	Core   *Scores `json:"core,omitempty"`
	Robust *Scores `json:"robust,omitempty"`
}

// Summarise computes Scores for trials. pass@1 is averaged per task first,
// so a task sampled K times weighs as much as a task sampled once.
func Summarise(trials []*result.Trial) Scores {
	var s Scores
	if len(trials) == 0 {
		return s
	}
	perTask := map[string][2]int{} // task → (samples, passes)
	for _, t := range trials {
		if !t.Scored() {
			s.Infra++
			continue
		}
		if t.Retries > 0 {
			s.Retried++
		}
		s.Trials++
		s.VCov += t.VCov
		s.ACov += t.ACov
		s.SCov += t.SCov
		s.TCov += t.TCov
		if t.Outcome == result.OutcomeCrash {
			s.Crashes++
		}
		k := t.Task + "\x00" + t.Variant
		c := perTask[k]
		c[0]++
		if t.Pass {
			c[1]++
		}
		perTask[k] = c
	}
	if s.Trials == 0 {
		return s
	}
	n := float64(s.Trials)
	s.VCov, s.ACov, s.SCov, s.TCov = s.VCov/n, s.ACov/n, s.SCov/n, s.TCov/n
	s.Tasks = len(perTask)
	for _, c := range perTask {
		s.Pass1 += PassAtK(c[0], c[1], 1)
	}
	s.Pass1 /= float64(len(perTask))
	return s
}

// PassAtK is the unbiased estimator of pass@k from n samples with c
// passes: 1 − C(n−c, k) / C(n, k).
func PassAtK(n, c, k int) float64 {
	if n <= 0 || k <= 0 {
		return 0
	}
	if k > n {
		k = n
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

// Leaderboard groups trials by model, best V-Cov first (ties by name).
func Leaderboard(trials []*result.Trial) []Row {
	byModel := group(trials, func(t *result.Trial) string { return t.Model })
	rows := make([]Row, 0, len(byModel))
	for model, ts := range byModel {
		r := Row{Model: model, Scores: Summarise(ts), ByCategory: map[string]Scores{}, ByDiff: map[string]Scores{}}
		for cat, g := range group(ts, func(t *result.Trial) string { return t.Category }) {
			r.ByCategory[cat] = Summarise(g)
		}
		for d, g := range group(ts, func(t *result.Trial) string { return t.Difficulty }) {
			r.ByDiff[d] = Summarise(g)
		}
		// Core counts the Core tasks that have variants in the run, so
		// the drop compares like with like; when none of them was judged,
		// every Core trial.
		var core, allCore, robust []*result.Trial
		varied := map[string]bool{}
		for _, t := range ts {
			if t.Variant != "" {
				robust = append(robust, t)
				varied[t.VariantOf] = true
			}
		}
		for _, t := range ts {
			if t.Variant == "" {
				allCore = append(allCore, t)
				if varied[t.Task] {
					core = append(core, t)
				}
			}
		}
		if len(core) == 0 {
			core = allCore
		}
		if len(robust) > 0 {
			c, rb := Summarise(core), Summarise(robust)
			r.Core, r.Robust = &c, &rb
		}
		rows = append(rows, r)
	}
	sort.Slice(rows, func(i, j int) bool {
		if math.Abs(rows[i].VCov-rows[j].VCov) > 1e-12 {
			return rows[i].VCov > rows[j].VCov
		}
		return rows[i].Model < rows[j].Model
	})
	return rows
}

// Categories lists the categories present, sorted.
func Categories(trials []*result.Trial) []string {
	seen := map[string]bool{}
	for _, t := range trials {
		seen[t.Category] = true
	}
	out := make([]string, 0, len(seen))
	for c := range seen {
		out = append(out, c)
	}
	sort.Strings(out)
	return out
}

func group(trials []*result.Trial, key func(*result.Trial) string) map[string][]*result.Trial {
	m := map[string][]*result.Trial{}
	for _, t := range trials {
		m[key(t)] = append(m[key(t)], t)
	}
	return m
}
