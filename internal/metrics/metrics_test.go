package metrics

import (
	"sort"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/worldprobe/worldprobe/internal/result"
)

func TestLeaderboard(t *testing.T) {
	tr := func(model, task, cat, diff string, pass bool, v float64, crash bool) *result.Trial {
		o := result.OutcomeOK
		if crash {
			o = result.OutcomeCrash
		}
		return &result.Trial{Model: model, Task: task, Category: cat, Difficulty: diff, Pass: pass, VCov: v, ACov: v, SCov: v, TCov: v, Outcome: o}
	}
	trials := []*result.Trial{
		tr("a", "t1", "simulation", "D2", true, 1, false),
		tr("a", "t1", "simulation", "D2", false, 0.5, false), // second sample of t1
		tr("a", "t2", "rendering", "D3", false, 0, true),
		tr("b", "t1", "simulation", "D2", true, 1, false),
		tr("b", "t2", "rendering", "D3", true, 1, false),
	}
	rows := Leaderboard(trials)
	require.Len(t, rows, 2)
	require.Equal(t, "b", rows[0].Model)
	require.Equal(t, 1.0, rows[0].VCov)
	require.Equal(t, 1.0, rows[0].Pass1)
	a := rows[1]
	require.Equal(t, "a", a.Model)
	require.Equal(t, 3, a.Trials)
	require.Equal(t, 2, a.Tasks)
	require.Equal(t, 1, a.Crashes)
	require.InDelta(t, 0.5, a.VCov, 1e-12)
	require.InDelta(t, (0.5+0)/2, a.Pass1, 1e-12) // t1: 1 of 2 samples; t2: 0
	require.InDelta(t, 0.75, a.ByCategory["simulation"].VCov, 1e-12)
	require.Equal(t, 0.0, a.ByCategory["rendering"].VCov)
	require.Equal(t, []string{"rendering", "simulation"}, Categories(trials))
	require.Nil(t, a.Robust)
}

// TestCoreVersusRobust compares a Core task with its own variants, not
// with every Core task of the run.
func TestCoreVersusRobust(t *testing.T) {
	tr := func(task, variant, of string, v float64) *result.Trial {
		return &result.Trial{Model: "m", Task: task, Variant: variant, VariantOf: of, Category: "simulation", Difficulty: "D2",
			VCov: v, Pass: v == 1, Outcome: result.OutcomeOK}
	}
	rows := Leaderboard([]*result.Trial{
		tr("simulation/ball", "", "", 1),
		tr("simulation/other", "", "", 0.2), // has no variants: not in Core
		tr("simulation/ball-v1", "v1", "simulation/ball", 0.5),
		tr("simulation/ball-v2", "v2", "simulation/ball", 0.7),
	})
	require.Len(t, rows, 1)
	require.NotNil(t, rows[0].Robust)
	require.Equal(t, 1, rows[0].Core.Trials)
	require.Equal(t, 1.0, rows[0].Core.VCov)
	require.InDelta(t, 0.6, rows[0].Robust.VCov, 1e-12)
	require.Equal(t, 2, rows[0].Robust.Tasks)
}

// Infrastructure errors are left out of every score; retried trials count
// as they finished.
func TestInfraErrorsAreNotScored(t *testing.T) {
	trials := []*result.Trial{
		{Model: "a", Task: "t1", Category: "simulation", Outcome: result.OutcomeOK, Pass: true, VCov: 1, ACov: 1, SCov: 1, TCov: 1, Retries: 1},
		{Model: "a", Task: "t2", Category: "simulation", Outcome: result.OutcomeOK, Pass: false, VCov: 0.5, ACov: 0.5, SCov: 0.5, TCov: 0.5},
		{Model: "a", Task: "t3", Category: "simulation", Outcome: result.OutcomeInfra},
	}
	s := Summarise(trials)
	require.Equal(t, 2, s.Trials)
	require.Equal(t, 2, s.Tasks)
	require.Equal(t, 1, s.Infra)
	require.Equal(t, 1, s.Retried)
	require.Equal(t, 0, s.Crashes)
	require.InDelta(t, 0.75, s.VCov, 1e-12)
	require.InDelta(t, 0.5, s.Pass1, 1e-12)

	only := Summarise(trials[2:])
	require.Equal(t, Scores{Infra: 1}, only, "a group of infrastructure errors has no score, not a zero one")
}

// Subdomains break a row down like categories; trials without one are
// left out of that breakdown.
func TestBySubdomain(t *testing.T) {
	rows := Leaderboard([]*result.Trial{
		{Model: "m", Task: "a", Category: "simulation", Subdomain: "orbits", Difficulty: "D2", VCov: 1, Pass: true, Outcome: result.OutcomeOK},
		{Model: "m", Task: "b", Category: "simulation", Subdomain: "orbits", Difficulty: "D3", VCov: 0.5, Outcome: result.OutcomeOK},
		{Model: "m", Task: "c", Category: "rendering", Difficulty: "D3", VCov: 0, Outcome: result.OutcomeOK},
	})
	require.Len(t, rows, 1)
	require.Equal(t, []string{"orbits"}, keys(rows[0].BySubdomain))
	require.InDelta(t, 0.75, rows[0].BySubdomain["orbits"].VCov, 1e-12)
	require.Equal(t, 2, rows[0].BySubdomain["orbits"].Tasks)
	require.InDelta(t, 0.25, rows[0].ByDiff["D3"].VCov, 1e-12)
	require.Nil(t, Leaderboard([]*result.Trial{{Model: "m", Task: "c", Outcome: result.OutcomeOK}})[0].BySubdomain)
}

// A model's repaired pages are a row of their own, named with the repair,
// never averaged with its first-shot pages.
func TestRepairRows(t *testing.T) {
	tr := func(repair string, pass bool) *result.Trial {
		v := 0.5
		if pass {
			v = 1
		}
		return &result.Trial{Model: "m", Task: "t", Category: "simulation", Difficulty: "D1", Repair: repair, Pass: pass, VCov: v, Outcome: result.OutcomeOK}
	}
	rows := Leaderboard([]*result.Trial{tr("", false), tr(result.RepairFeedback, true), tr(result.RepairErrorOnly, false), tr("", true)})
	require.Len(t, rows, 3)
	require.Equal(t, []string{"m (feedback)", "m", "m (error-only)"}, []string{rows[0].Name(), rows[1].Name(), rows[2].Name()})
	require.Equal(t, 1.0, rows[0].Pass1)
	require.Equal(t, 0.5, rows[1].Pass1, "first-shot: one of two samples passed")
	require.Equal(t, 2, rows[1].Trials)
	require.Equal(t, 0.0, rows[2].Pass1)
}

func TestNewBoard(t *testing.T) {
	var trials []*result.Trial
	for i, v := range []float64{1, 0.5, 0, 1} {
		trials = append(trials, &result.Trial{Model: "m", Task: []string{"a", "a", "b", "c"}[i], Sample: []int{0, 1, 0, 0}[i],
			Category: "simulation", Difficulty: "D2", VCov: v, Pass: v == 1, Attribution: map[bool]string{true: "", false: "other"}[v == 1], Outcome: result.OutcomeOK})
	}
	trials = append(trials, &result.Trial{Model: "n", Task: "a", Category: "simulation", Difficulty: "D2", Outcome: result.OutcomeInfra})
	o := BoardOptions{Bootstrap: BootstrapOptions{Seed: 3, Resamples: 100},
		Economics: EconomicsOptions{HumanHours: map[string]float64{"a": 2, "b": 1, "c": 1},
			Generations: []Generation{{Model: "m", Task: "a", CostUSD: f(0.5)}, {Model: "m", Task: "a", Sample: 1, CostUSD: f(0.5)}}}}
	b, err := NewBoard(trials, o)
	require.NoError(t, err)
	require.Equal(t, 4, b.Trials)
	require.Equal(t, 1, b.Infra)
	require.Equal(t, DefaultKs, b.Ks)
	require.Equal(t, 60.0, b.Rate)
	require.Equal(t, BootstrapOptions{Seed: 3, Resamples: 100}, b.Bootstrap)
	require.Len(t, b.Rows, 2)
	m := b.Rows[0]
	require.Equal(t, "m", m.Model)
	require.Equal(t, VCovInterval(trials[:4], o.Bootstrap), m.VCovCI)
	require.Equal(t, []PassK{{K: 1, Value: (0.5 + 0 + 1) / 3, Tasks: 3}}, m.PassAtK, "b and c have one sample each")
	require.Equal(t, (0.5+0+1)/3, *m.PassAt(1))
	require.Nil(t, m.PassAt(3))
	require.Equal(t, 2, m.Attributions.Failed)
	// RoA over the two samples of a: (1·2·60 + 0.5·2·60) / (0.5 + 0.5) = 180.
	require.InDelta(t, 180, *m.Economics.RoA.Value, 1e-9)
	require.Nil(t, m.Economics.TEM.Value)
	n := b.Rows[1]
	require.Equal(t, "n", n.Model)
	require.Nil(t, n.VCovCI, "only an infrastructure error: no interval")
	require.Nil(t, n.PassAtK)

	_, err = NewBoard(trials, BoardOptions{Economics: EconomicsOptions{HumanHours: map[string]float64{"a": -1}}})
	require.Error(t, err)
}

func keys[V any](m map[string]V) []string {
	var out []string
	for k := range m {
		out = append(out, k)
	}
	sort.Strings(out)
	return out
}

// Pages repaired with contract feedback are a leaderboard of their own:
// NewBoard never ranks them with first-shot and error-only rows.
func TestBoardRanksFeedbackApart(t *testing.T) {
	tr := func(model, repair string, v float64) *result.Trial {
		return &result.Trial{Model: model, Task: "t", Category: "simulation", Difficulty: "D1", Repair: repair, Pass: v == 1, VCov: v, Outcome: result.OutcomeOK}
	}
	b, err := NewBoard([]*result.Trial{tr("m", "", 0.5), tr("m", result.RepairFeedback, 1), tr("m", result.RepairErrorOnly, 0.75), tr("n", result.RepairFeedback, 0.25)},
		BoardOptions{Bootstrap: BootstrapOptions{Seed: 1, Resamples: 10}})
	require.NoError(t, err)
	var rows, feedback []string
	for _, r := range b.Rows {
		rows = append(rows, r.Name())
	}
	for _, r := range b.Feedback {
		feedback = append(feedback, r.Name())
	}
	require.Equal(t, []string{"m (error-only)", "m"}, rows)
	require.Equal(t, []string{"m (feedback)", "n (feedback)"}, feedback)
	require.Equal(t, 4, b.Trials)
}
