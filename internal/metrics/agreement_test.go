package metrics

import (
	"math"
	"testing"

	"github.com/stretchr/testify/require"
)

// TestFleissKappaWorkedExample is the worked example of Fleiss' κ on
// Wikipedia's "Fleiss' kappa" page: 10 subjects, 14 raters, 5 categories.
// Exactly: P̄ = 172/455 ≈ 0.378, P̄_e = 417/1960 ≈ 0.213 (column totals 20,
// 28, 39, 21, 32 of 140 ratings), κ = 4211/20059 ≈ 0.210.
func TestFleissKappaWorkedExample(t *testing.T) {
	counts := [][]int{
		{0, 0, 0, 0, 14}, {0, 2, 6, 4, 2}, {0, 0, 3, 5, 6}, {0, 3, 9, 2, 0}, {2, 2, 8, 1, 1},
		{7, 7, 0, 0, 0}, {3, 2, 6, 3, 0}, {2, 5, 3, 2, 2}, {6, 5, 2, 1, 0}, {0, 2, 2, 3, 7},
	}
	k, err := FleissKappa(counts)
	require.NoError(t, err)
	require.InDelta(t, 4211.0/20059, k, 1e-12)
	require.InDelta(t, 0.210, k, 0.0005)
}

// TestFleissKappaByHand: 4 subjects, 3 raters, pass/fail counts
// [3 0] [0 3] [2 1] [3 0].
//
//	P_i = (Σ n_ij² − 3) / 6 = 1, 1, (4+1−3)/6 = 1/3, 1   → P̄ = (10/3)/4 = 5/6
//	p_pass = 8/12 = 2/3, p_fail = 1/3                    → P̄_e = 4/9 + 1/9 = 5/9
//	κ = (5/6 − 5/9) / (1 − 5/9) = (5/18) / (8/18) = 5/8
func TestFleissKappaByHand(t *testing.T) {
	k, err := FleissKappa([][]int{{3, 0}, {0, 3}, {2, 1}, {3, 0}})
	require.NoError(t, err)
	require.InDelta(t, 5.0/8, k, 1e-12)

	k, err = FleissKappa([][]int{{3, 0}, {0, 3}})
	require.NoError(t, err)
	require.Equal(t, 1.0, k, "perfect agreement")
	k, err = FleissKappa([][]int{{3, 0}, {3, 0}})
	require.NoError(t, err)
	require.True(t, math.IsNaN(k), "every rating in one category: P̄_e = 1, κ undefined")

	for _, bad := range [][][]int{nil, {{1, 0}}, {{2, 1}, {1, 1}}, {{2, 1}, {1, 1, 1}}, {{3, 0}, {4, -1}}} {
		_, err := FleissKappa(bad)
		require.Error(t, err, "%v", bad)
	}
}

// TestKendallTauB by hand, with ties: x = 1 2 2 3, y = 1 3 2 2. Of the 6
// pairs, (0,1) (0,2) (0,3) are concordant, (1,3) is discordant, (1,2) is
// tied in x only and (2,3) in y only: n_c = 3, n_d = 1, n_0 = 6, n_1 =
// n_2 = 1, so τ_b = (3 − 1) / √(5·5) = 0.4.
func TestKendallTauB(t *testing.T) {
	tau, err := KendallTauB([]float64{1, 2, 2, 3}, []float64{1, 3, 2, 2})
	require.NoError(t, err)
	require.InDelta(t, 0.4, tau, 1e-12)

	tau, err = KendallTauB([]float64{1, 2, 3, 4}, []float64{10, 20, 30, 40})
	require.NoError(t, err)
	require.Equal(t, 1.0, tau)
	tau, err = KendallTauB([]float64{1, 2, 3, 4}, []float64{4, 3, 2, 1})
	require.NoError(t, err)
	require.Equal(t, -1.0, tau)
	// A pair tied in both lists counts in n_1 and n_2 and nowhere else:
	// x = 1 1 2, y = 5 5 6: n_c = 2, n_1 = n_2 = 1, τ_b = 2 / √(2·2) = 1.
	tau, err = KendallTauB([]float64{1, 1, 2}, []float64{5, 5, 6})
	require.NoError(t, err)
	require.Equal(t, 1.0, tau)
	tau, err = KendallTauB([]float64{1, 1, 1}, []float64{1, 2, 3})
	require.NoError(t, err)
	require.True(t, math.IsNaN(tau), "x constant: undefined")

	for _, bad := range [][2][]float64{{{1}, {1}}, {{1, 2}, {1}}, {{1, math.NaN()}, {1, 2}}} {
		_, err := KendallTauB(bad[0], bad[1])
		require.Error(t, err)
	}
}

// TestAgreement: five labelled pages judged in three runs, by hand.
//
//	item  label  verdicts  V-Cov            group
//	A     pass   P P P     1   1    1       m1
//	B     pass   P F P     1   0.5  1       m1
//	C     fail   F F F     0.5 0.5  0.5     m1
//	D     fail   P F F     1   0.75 0.75    m2
//	E     pass   F F F     0.2 0.2  0.2     m2
//
// Run 1: TP 2 (A B), FP 1 (D), TN 1 (C), FN 1 (E): accuracy 3/5, precision
// 2/3, recall 2/3. Run 2: TP 1, FP 0, TN 2, FN 2: 3/5, 1, 1/3. Run 3: TP 2,
// FP 0, TN 2, FN 1: 4/5, 1, 2/3. Accuracy 2/3 ± √(1/75) (deviations −1/15,
// −1/15, 2/15; Σ² = 6/225, over n − 1 = 2); precision 8/9 ± √(1/27);
// recall 5/9 ± √(1/27).
//
// Fleiss' κ over [passes fails]: [3 0] [2 1] [0 3] [1 2] [0 3]; P_i = 1,
// 1/3, 1, 1/3, 1, P̄ = 11/15; p = 6/15, 9/15, P̄_e = 13/25; κ = (11/15 −
// 13/25) / (12/25) = 4/9. Flaky: B and D, 2/5.
//
// τ_b between labels 1 1 0 0 1 and mean V-Cov 1, 5/6, 1/2, 5/6, 1/5: of
// the 10 pairs, AC AD BC are concordant, CE DE discordant, AB AE BE CD
// tied in the labels, BD in V-Cov: τ_b = (3 − 2) / √((10 − 4)(10 − 1)) =
// 1/√54.
func TestAgreement(t *testing.T) {
	item := func(task string, pass bool, group string, verdicts []bool, vcov ...float64) Item {
		return Item{Label: Label{Task: task, Candidate: "c", Pass: pass}, Group: group, Verdicts: verdicts, VCov: vcov}
	}
	P, F := true, false
	items := []Item{
		item("A", P, "m1", []bool{P, P, P}, 1, 1, 1),
		item("B", P, "m1", []bool{P, F, P}, 1, 0.5, 1),
		item("C", F, "m1", []bool{F, F, F}, 0.5, 0.5, 0.5),
		item("D", F, "m2", []bool{P, F, F}, 1, 0.75, 0.75),
		item("E", P, "m2", []bool{F, F, F}, 0.2, 0.2, 0.2),
	}
	rep, err := Agreement(items)
	require.NoError(t, err)
	o := rep.Overall
	require.Equal(t, 5, o.Items)
	require.Equal(t, 3, o.Runs)
	require.Equal(t, []Confusion{{TP: 2, FP: 1, TN: 1, FN: 1}, {TP: 1, TN: 2, FN: 2}, {TP: 2, TN: 2, FN: 1}}, o.PerRun)
	requireMeanSD(t, o.Accuracy, 2.0/3, math.Sqrt(1.0/75), 3)
	requireMeanSD(t, o.Precision, 8.0/9, math.Sqrt(1.0/27), 3)
	requireMeanSD(t, o.Recall, 5.0/9, math.Sqrt(1.0/27), 3)
	require.InDelta(t, 4.0/9, *o.FleissKappa, 1e-12)
	require.InDelta(t, 0.4, *o.Flakiness, 1e-12)
	require.Equal(t, []string{"B c", "D c"}, o.Flaky)
	require.InDelta(t, 1/math.Sqrt(54), *o.TauB, 1e-12)

	require.Len(t, rep.Groups, 2)
	m2 := rep.Groups[1]
	require.Equal(t, "m2", m2.Group)
	// Run 1: D passed (FP), E failed (FN); runs 2 and 3: D TN, E FN.
	require.Equal(t, []Confusion{{FP: 1, FN: 1}, {TN: 1, FN: 1}, {TN: 1, FN: 1}}, m2.PerRun)
	requireMeanSD(t, m2.Accuracy, 1.0/3, math.Sqrt(1.0/12), 3)
	require.Equal(t, 1, m2.Precision.Runs, "runs 2 and 3 passed nothing: precision undefined there")
	require.Equal(t, 0.0, *m2.Precision.Mean)
	require.Nil(t, m2.Precision.SD, "one defined value has no spread")
	// [1 2] [0 3]: P̄ = (1/3 + 1)/2 = 2/3, p = 1/6, 5/6, P̄_e = 13/18: κ = (12/18 − 13/18)/(5/18).
	require.InDelta(t, -0.2, *m2.FleissKappa, 1e-12)

	one, err := Agreement([]Item{item("A", P, "m", []bool{P}, 1), item("B", F, "m", []bool{P}, 1)})
	require.NoError(t, err)
	require.Nil(t, one.Overall.FleissKappa, "one run: no agreement between runs")
	require.Nil(t, one.Overall.Flakiness)
	require.Nil(t, one.Overall.Accuracy.SD)
	require.Nil(t, one.Overall.TauB, "every V-Cov equal")

	_, err = Agreement(nil)
	require.Error(t, err)
	_, err = Agreement([]Item{item("A", P, "m", []bool{P}, 1), item("B", P, "m", []bool{P, P}, 1, 1)})
	require.ErrorContains(t, err, "B c has 2 verdicts")
}

func requireMeanSD(t *testing.T, m MeanSD, mean, sd float64, runs int) {
	t.Helper()
	require.Equal(t, runs, m.Runs)
	require.NotNil(t, m.Mean)
	require.InDelta(t, mean, *m.Mean, 1e-12)
	require.NotNil(t, m.SD)
	require.InDelta(t, sd, *m.SD, 1e-12)
}
