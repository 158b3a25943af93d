package metrics

import (
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/worldprobe/worldprobe/internal/result"
)

func TestPassAtK(t *testing.T) {
	require.Equal(t, 0.0, PassAtK(5, 0, 1))
	require.Equal(t, 1.0, PassAtK(5, 5, 1))
	require.InDelta(t, 0.4, PassAtK(5, 2, 1), 1e-12)
	require.InDelta(t, 1-(3.0/5)*(2.0/4), PassAtK(5, 2, 2), 1e-12) // 0.7
	require.Equal(t, 1.0, PassAtK(3, 2, 2))
	require.Equal(t, 0.0, PassAtK(0, 0, 1))
}

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
