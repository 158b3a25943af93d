package metrics

import (
	"testing"

	"github.com/stretchr/testify/require"
)

// paradigmSet is seven candidates as the contract (pass, V-Cov) and a
// judge (pass, score) saw them; the fifth got no verdict (its 0.6 is not
// counted: a no-verdict is a fail with score 0).
//
//	#  contract      judge         wall ms  $
//	1  pass 1.00     pass 0.9      100      0.01   TP
//	2  fail 0.75     pass 0.8      200      0.02   FP
//	3  fail 0.50     fail 0.3      300      0.03   TN
//	4  fail 0.50     pass 0.8      100      0.01   FP
//	5  pass 1.00     none (0)      100      0.01   FN
//	6  fail 0.00     fail 0.1      400      0.04   TN
//	7  fail 0.25     fail 0.1      200      0.02   TN
func paradigmSet() []JudgeVerdict {
	return []JudgeVerdict{
		{ContractPass: true, VCov: 1, Pass: true, Score: 0.9, WallMs: 100, USD: 0.01},
		{ContractPass: false, VCov: 0.75, Pass: true, Score: 0.8, WallMs: 200, USD: 0.02},
		{ContractPass: false, VCov: 0.5, Pass: false, Score: 0.3, WallMs: 300, USD: 0.03},
		{ContractPass: false, VCov: 0.5, Pass: true, Score: 0.8, WallMs: 100, USD: 0.01},
		{ContractPass: true, VCov: 1, Pass: true, Score: 0.6, NoVerdict: true, WallMs: 100, USD: 0.01},
		{ContractPass: false, VCov: 0, Pass: false, Score: 0.1, WallMs: 400, USD: 0.04},
		{ContractPass: false, VCov: 0.25, Pass: false, Score: 0.1, WallMs: 200, USD: 0.02},
	}
}

// TestCompareJudgeByHand checks every number of the set above against
// values worked out by hand.
//
// Confusion (truth: the contract): TP 1 (#1), FP 2 (#2, #4), TN 3 (#3, #6,
// #7), FN 1 (#5). Pass rate 3/7; FPR = FP/(FP+TN) = 2/5; FNR = FN/(FN+TP)
// = 1/2; agreement (TP+TN)/7 = 4/7.
//
// Kendall's τ_b of the scores x = (0.9, 0.8, 0.3, 0.8, 0, 0.1, 0.1) against
// y = V-Cov (1, 0.75, 0.5, 0.5, 1, 0, 0.25), over the 21 pairs:
//
//	concordant (12): 12 13 14 16 17 23 26 27 36 37 46 47
//	discordant (5):  25 35 45 56 57
//	tied in x (2):   24 67          tied in y (2): 15 34
//	τ_b = (12 − 5) / √((21 − 2)(21 − 2)) = 7/19 ≈ 0.368
//
// Wall time 1400/7 = 200 ms a candidate, $0.14 in all, $0.02 a candidate.
func TestCompareJudgeByHand(t *testing.T) {
	s := CompareJudge("visual", paradigmSet())
	require.Equal(t, "visual", s.Judge)
	require.Equal(t, 7, s.Candidates)
	require.Equal(t, Confusion{TP: 1, FP: 2, TN: 3, FN: 1}, s.Confusion)
	require.Equal(t, 1, s.NoVerdict)
	require.InDelta(t, 3.0/7, *s.PassRate, 1e-12)
	require.InDelta(t, 0.4, *s.FPR, 1e-12)
	require.InDelta(t, 0.5, *s.FNR, 1e-12)
	require.InDelta(t, 4.0/7, *s.Agreement, 1e-12)
	require.InDelta(t, 7.0/19, *s.TauB, 1e-12)
	require.InDelta(t, 200, *s.WallMsPerCandidate, 1e-9)
	require.InDelta(t, 0.14, *s.USD, 1e-12)
	require.InDelta(t, 0.02, *s.USDPerCandidate, 1e-12)
	require.Nil(t, s.RelativeCost, "set by WithRelativeCost")

	// The contract against itself: τ_b 1 whatever the ties, no false
	// positive or negative, full agreement.
	var self []JudgeVerdict
	for _, v := range paradigmSet() {
		self = append(self, JudgeVerdict{ContractPass: v.ContractPass, VCov: v.VCov, Pass: v.ContractPass, Score: v.VCov, WallMs: 800})
	}
	c := CompareJudge("contract", self)
	require.Equal(t, 1.0, *c.TauB)
	require.Equal(t, 0.0, *c.FPR)
	require.Equal(t, 0.0, *c.FNR)
	require.Equal(t, 1.0, *c.Agreement)
	require.InDelta(t, 2.0/7, *c.PassRate, 1e-12)
	require.Equal(t, 0.0, *c.USD, "no model call: priced at $0")

	// Relative cost: wall time per candidate over the DOM check's (50 ms).
	dom := JudgeStats{Judge: "dom", WallMsPerCandidate: defined(50)}
	rows := []JudgeStats{dom, s, c}
	WithRelativeCost(rows, "dom")
	require.Equal(t, 1.0, *rows[0].RelativeCost)
	require.Equal(t, 4.0, *rows[1].RelativeCost)
	require.Equal(t, 16.0, *rows[2].RelativeCost)
}

// Undefined numbers are nil, never 0: a judge that gives every page the
// same score has no τ_b, FNR needs a page the contract passes, an
// unpriced call leaves the cost unknown, and no verdict at all leaves
// every rate undefined.
func TestCompareJudgeUndefined(t *testing.T) {
	s := CompareJudge("dom", []JudgeVerdict{
		{ContractPass: false, VCov: 0.5, Pass: true, Score: 1, WallMs: 10},
		{ContractPass: false, VCov: 0.9, Pass: true, Score: 1, WallMs: 30, Unpriced: true},
	})
	require.Nil(t, s.TauB, "every score is 1")
	require.Nil(t, s.FNR, "the contract passes none")
	require.Equal(t, 1.0, *s.FPR)
	require.Equal(t, 0.0, *s.Agreement)
	require.Nil(t, s.USD)
	require.Nil(t, s.USDPerCandidate)
	require.Equal(t, 20.0, *s.WallMsPerCandidate)

	one := CompareJudge("dom", []JudgeVerdict{{ContractPass: true, VCov: 1, Pass: true, Score: 1}})
	require.Nil(t, one.TauB, "τ_b needs two pairs of scores")
	require.Equal(t, 1.0, *one.Agreement)

	none := CompareJudge("visual", nil)
	require.Equal(t, JudgeStats{Judge: "visual"}, none)

	rows := []JudgeStats{none, {Judge: "dom", WallMsPerCandidate: defined(0)}}
	WithRelativeCost(rows, "dom")
	require.Nil(t, rows[1].RelativeCost, "a base that took no time gives no ratio")
	WithRelativeCost(rows, "absent")
	require.Nil(t, rows[1].RelativeCost)
}
