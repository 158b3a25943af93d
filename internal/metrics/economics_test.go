package metrics

import (
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/worldprobe/worldprobe/internal/result"
)

func f(x float64) *float64 { return &x }

// TestEfficiency by hand, R = 60 USD/h:
//
//	trial  V-Cov  H_human  cost    model time
//	t1     0.5    2 h      $0.10   60 s
//	t2     1      1 h      $0.30   120 s
//	t3     0.25   4 h      —       180 s    (no cost recorded: TEM only)
//	t4     1      1 h      —       —        (no record: neither)
//	t5     infrastructure error             (not scored)
//
// RoA = (0.5·2·60 + 1·1·60) / (0.10 + 0.30) = 120 / 0.4 = 300 USD/USD.
// TEM = (0.5·2 + 1·1 + 0.25·4) / ((60 + 120 + 180) / 3600) = 3 / 0.1 = 30 h/h.
func TestEfficiency(t *testing.T) {
	tr := func(task string, v float64) *result.Trial {
		return &result.Trial{Model: "m", Task: task, VCov: v, Outcome: result.OutcomeOK}
	}
	trials := []*result.Trial{tr("t1", 0.5), tr("t2", 1), tr("t3", 0.25), tr("t4", 1),
		{Model: "m", Task: "t5", Outcome: result.OutcomeInfra}}
	o := EconomicsOptions{
		HumanHours: map[string]float64{"t1": 2, "t2": 1, "t3": 4, "t4": 1, "t5": 1},
		Generations: []Generation{
			{Model: "m", Task: "t1", CostUSD: f(0.10), ModelSeconds: f(60)},
			{Model: "m", Task: "t2", CostUSD: f(0.30), ModelSeconds: f(120)},
			{Model: "m", Task: "t3", ModelSeconds: f(180)},
			{Model: "m", Task: "t5", CostUSD: f(9), ModelSeconds: f(9)},
			{Model: "m", Task: "t1", Sample: 1, CostUSD: f(5)},          // another sample: no such trial
			{Model: "m", Task: "t2", Repair: "feedback", CostUSD: f(5)}, // the repaired page: no such trial
		},
	}
	e, err := Efficiency(trials, o)
	require.NoError(t, err)
	require.Equal(t, 60.0, e.Rate)
	require.Equal(t, 4, e.Scored)
	require.Equal(t, 0, e.NoHours)
	require.Equal(t, 2, e.RoA.Trials)
	require.InDelta(t, 120, e.RoA.Numerator, 1e-12)
	require.InDelta(t, 0.4, e.RoA.Denominator, 1e-12)
	require.InDelta(t, 300, *e.RoA.Value, 1e-9)
	require.Equal(t, 3, e.TEM.Trials)
	require.InDelta(t, 3, e.TEM.Numerator, 1e-12)
	require.InDelta(t, 0.1, e.TEM.Denominator, 1e-12)
	require.InDelta(t, 30, *e.TEM.Value, 1e-9)

	o.Rate = 120
	e, err = Efficiency(trials, o)
	require.NoError(t, err)
	require.InDelta(t, 600, *e.RoA.Value, 1e-9, "RoA scales with R, TEM does not")
	require.InDelta(t, 30, *e.TEM.Value, 1e-9)
}

func TestEfficiencyWithoutData(t *testing.T) {
	trials := []*result.Trial{{Model: "m", Task: "t1", VCov: 1, Outcome: result.OutcomeOK}}
	e, err := Efficiency(trials, EconomicsOptions{HumanHours: map[string]float64{"t1": 1}})
	require.NoError(t, err)
	require.Nil(t, e.RoA.Value, "no cost data: n/a, not 0")
	require.Nil(t, e.TEM.Value)
	require.Equal(t, "no scored trial has a recorded generation cost and human hours", e.RoA.NA)
	require.Equal(t, "no scored trial has a recorded model time and human hours", e.TEM.NA)

	e, err = Efficiency(trials, EconomicsOptions{Generations: []Generation{{Model: "m", Task: "t1", CostUSD: f(1)}}})
	require.NoError(t, err)
	require.Equal(t, 1, e.NoHours)
	require.Nil(t, e.RoA.Value, "no human hours for the task: not measured")

	e, err = Efficiency(trials, EconomicsOptions{HumanHours: map[string]float64{"t1": 1},
		Generations: []Generation{{Model: "m", Task: "t1", CostUSD: f(0), ModelSeconds: f(0)}}})
	require.NoError(t, err)
	require.Nil(t, e.RoA.Value)
	require.Equal(t, "the recorded generation cost sums to 0", e.RoA.NA)
	require.Equal(t, "the recorded model time sums to 0", e.TEM.NA)

	for _, o := range []EconomicsOptions{
		{Generations: []Generation{{Model: "m", Task: "t1", CostUSD: f(-1)}}},
		{Generations: []Generation{{Model: "m", Task: "t1", ModelSeconds: f(-1)}}},
		{Generations: []Generation{{Model: "m", Task: "t1"}, {Model: "m", Task: "t1"}}},
		{HumanHours: map[string]float64{"t1": -2}},
	} {
		_, err := Efficiency(trials, o)
		require.Error(t, err)
	}
}
