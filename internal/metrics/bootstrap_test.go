package metrics

import (
	"fmt"
	"math"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/worldprobe/worldprobe/internal/result"
)

func vtrial(task string, v float64) *result.Trial {
	return &result.Trial{Model: "m", Task: task, VCov: v, Pass: v == 1, Outcome: result.OutcomeOK}
}

func TestQuantile(t *testing.T) {
	xs := []float64{4, 1, 3, 2}
	require.Equal(t, 2.5, quantile(xs, 0.5)) // h = 3·0.5 = 1.5: 2 + 0.5·(3 − 2)
	require.Equal(t, []float64{1, 2, 3, 4}, xs, "sorted in place")
	require.Equal(t, 1.0, quantile(xs, 0))
	require.Equal(t, 4.0, quantile(xs, 1))
	require.InDelta(t, 1.075, quantile(xs, 0.025), 1e-12) // h = 0.075
	require.InDelta(t, 3.925, quantile(xs, 0.975), 1e-12) // h = 2.925
	require.True(t, math.IsNaN(quantile(nil, 0.5)))
}

// A task drawn in a resample brings all its trials: with task a (three
// trials of V-Cov 1) and task b (one of 0), a resample of two tasks is aa
// (mean 1), ab or ba (3/4) or bb (0), with probabilities 1/4, 1/2, 1/4 —
// never the 1/2 or 1/4 that resampling single trials would also give.
func TestBootstrapResamplesWholeTasks(t *testing.T) {
	trials := []*result.Trial{vtrial("a", 1), vtrial("b", 0), vtrial("a", 1), vtrial("a", 1)}
	cs := clustersByTask(trials)
	require.Equal(t, []cluster{{sum: 3, n: 3}, {sum: 0, n: 1}}, cs)
	means := resampledMeans(cs, BootstrapOptions{Seed: 7})
	require.Len(t, means, DefaultResamples)
	seen := map[float64]int{}
	for _, m := range means {
		seen[m]++
	}
	require.Len(t, seen, 3)
	for _, m := range []float64{0, 0.75, 1} {
		require.Contains(t, seen, m)
	}
	// 2000 draws: each count is within 4.5 standard deviations of its
	// expectation (σ = √(2000·p(1−p)) ≈ 19.4 for p = 1/4, 22.4 for 1/2).
	require.InDelta(t, 500, seen[0], 90)
	require.InDelta(t, 1000, seen[0.75], 100)
	require.InDelta(t, 500, seen[1], 90)

	ci := VCovInterval(trials, BootstrapOptions{Seed: 7})
	require.Equal(t, &Interval{Lo: 0, Hi: 1, Level: 0.95, Clusters: 2, Resamples: 2000, Seed: 7}, ci,
		"a quarter of the means are 0 and a quarter are 1: both percentiles sit on them")
}

func TestBootstrapIsDeterministic(t *testing.T) {
	var trials []*result.Trial
	for i := range 12 {
		for s := range 3 {
			trials = append(trials, vtrial(fmt.Sprintf("t%02d", i), float64((i*7+s*3)%10)/10))
		}
	}
	trials = append(trials, &result.Trial{Model: "m", Task: "t99", Outcome: result.OutcomeInfra})
	o := BootstrapOptions{Seed: 42, Resamples: 500}
	a, b := VCovInterval(trials, o), VCovInterval(trials, o)
	require.Equal(t, a, b, "same trials, same seed: same interval")
	require.Equal(t, 12, a.Clusters, "the infrastructure error is not a task")
	mean := Summarise(trials).VCov
	require.Less(t, a.Lo, mean)
	require.Greater(t, a.Hi, mean)

	reversed := make([]*result.Trial, len(trials))
	for i, tr := range trials {
		reversed[len(trials)-1-i] = tr
	}
	require.Equal(t, a, VCovInterval(reversed, o), "the order of the trials does not matter")
	require.NotEqual(t, a, VCovInterval(trials, BootstrapOptions{Seed: 43, Resamples: 500}), "another seed, other draws")
}

func TestBootstrapEdgeCases(t *testing.T) {
	require.Nil(t, VCovInterval(nil, BootstrapOptions{}))
	require.Nil(t, VCovInterval([]*result.Trial{{Task: "x", Outcome: result.OutcomeInfra}}, BootstrapOptions{}))
	one := VCovInterval([]*result.Trial{vtrial("x", 0.5), vtrial("x", 0.25)}, BootstrapOptions{Resamples: 10})
	require.Equal(t, &Interval{Lo: 0.375, Hi: 0.375, Level: 0.95, Clusters: 1, Resamples: 10}, one, "one task: no spread to resample")
}
