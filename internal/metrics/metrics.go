// Package metrics computes the numbers worldprobe reports, as pure,
// deterministic functions of trial results (docs/metrics.md gives every
// formula and its source): coverage means, unbiased pass@k, a bootstrap
// confidence interval of V-Cov clustered by task, breakdowns by category,
// subdomain and difficulty, Core vs. Robust, first-shot vs. after repair,
// failure-attribution shares, RoA and TEM, and the agreement statistics of
// a verifier against expert labels (accuracy, precision, recall, Fleiss' κ,
// flakiness, Kendall's τ_b).
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

// Row is one line of the leaderboard: one model, judged first-shot or
// after one kind of repair (a model's repaired pages are a configuration
// of their own, never averaged with its first-shot ones).
type Row struct {
	Model string `json:"model"`
	// Repair is how the pages were made: "" first-shot, else the repair
	// the generator ran (result.RepairErrorOnly, result.RepairFeedback).
	Repair     string            `json:"repair,omitempty"`
	Scores                       // overall
	ByCategory map[string]Scores `json:"by_category"`
	ByDiff     map[string]Scores `json:"by_difficulty"`
	// BySubdomain leaves out trials of tasks without a subdomain.
	BySubdomain map[string]Scores `json:"by_subdomain,omitempty"`
	// Robust is the score over variant trials; Core over the rest (empty
	// when a run has no variants).
	Core   *Scores `json:"core,omitempty"`
	Robust *Scores `json:"robust,omitempty"`
}

// Name is the row's label: the model, and the repair when there was one
// ("gpt (feedback)").
func (r Row) Name() string {
	if r.Repair == "" {
		return r.Model
	}
	return r.Model + " (" + r.Repair + ")"
}

// Summarise computes Scores for trials. pass@1 is averaged per task first,
// so a task sampled K times weighs as much as a task sampled once.
func Summarise(trials []*result.Trial) Scores {
	var s Scores
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
	}
	if s.Trials == 0 {
		return s
	}
	n := float64(s.Trials)
	s.VCov, s.ACov, s.SCov, s.TCov = s.VCov/n, s.ACov/n, s.SCov/n, s.TCov/n
	tasks := samplesPerTask(trials)
	s.Tasks = len(tasks)
	for _, c := range tasks {
		s.Pass1 += PassAtK(c.n, c.pass, 1)
	}
	s.Pass1 /= float64(len(tasks))
	return s
}

// Leaderboard groups trials by model and repair, best V-Cov first (ties
// by name).
func Leaderboard(trials []*result.Trial) []Row {
	groups := rowGroups(trials)
	rows := make([]Row, len(groups))
	for i, g := range groups {
		rows[i] = g.row
	}
	return rows
}

// rowGroup is a leaderboard row with the trials it was computed from.
type rowGroup struct {
	row    Row
	trials []*result.Trial
}

// rowGroups computes the leaderboard rows in their order, each with its
// trials.
func rowGroups(trials []*result.Trial) []rowGroup {
	byRow := group(trials, rowKey)
	out := make([]rowGroup, 0, len(byRow))
	for _, ts := range byRow {
		out = append(out, rowGroup{row: row(ts), trials: ts})
	}
	sort.Slice(out, func(i, j int) bool {
		a, b := out[i].row, out[j].row
		if math.Abs(a.VCov-b.VCov) > 1e-12 {
			return a.VCov > b.VCov
		}
		return a.Name() < b.Name()
	})
	return out
}

// rowKey is the leaderboard row a trial belongs to: its model and repair.
func rowKey(t *result.Trial) string { return t.Model + "\x00" + t.Repair }

// row is the leaderboard line of one model's trials of one repair.
func row(ts []*result.Trial) Row {
	r := Row{Model: ts[0].Model, Repair: ts[0].Repair, Scores: Summarise(ts),
		ByCategory: breakdown(ts, func(t *result.Trial) string { return t.Category }),
		ByDiff:     breakdown(ts, func(t *result.Trial) string { return t.Difficulty }),
	}
	if sub := breakdown(ts, func(t *result.Trial) string { return t.Subdomain }); len(sub) > 0 {
		r.BySubdomain = sub
	}
	r.Core, r.Robust = coreRobust(ts)
	return r
}

// breakdown summarises the trials by key, leaving out those whose key is
// empty.
func breakdown(ts []*result.Trial, key func(*result.Trial) string) map[string]Scores {
	out := map[string]Scores{}
	for k, g := range group(ts, key) {
		if k != "" {
			out[k] = Summarise(g)
		}
	}
	return out
}

// coreRobust scores the Robust variant trials and the Core trials they
// are compared with; nil, nil when there are no variants. Core counts the
// Core tasks that have variants among the trials, so the drop compares
// like with like; when none of them was judged, every Core trial.
func coreRobust(ts []*result.Trial) (core, robust *Scores) {
	var coreTs, allCore, robustTs []*result.Trial
	varied := map[string]bool{}
	for _, t := range ts {
		if t.Variant != "" {
			robustTs = append(robustTs, t)
			varied[t.VariantOf] = true
		}
	}
	if len(robustTs) == 0 {
		return nil, nil
	}
	for _, t := range ts {
		if t.Variant == "" {
			allCore = append(allCore, t)
			if varied[t.Task] {
				coreTs = append(coreTs, t)
			}
		}
	}
	if len(coreTs) == 0 {
		coreTs = allCore
	}
	c, rb := Summarise(coreTs), Summarise(robustTs)
	return &c, &rb
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
