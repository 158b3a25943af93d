package metrics

import "math"

// JudgeVerdict is one candidate page as the contract and another judge
// saw it: a row of WorldCoder-Bench's comparison of evaluation paradigms
// (ablations: a DOM-structure check, a screenshot judged by a visual
// model, an agent audit, each against the contract's V-Cov).
type JudgeVerdict struct {
	// ContractPass and VCov are the contract's verdict: the reference.
	ContractPass bool    `json:"contract_pass"`
	VCov         float64 `json:"v_cov"`
	// Pass and Score (in [0, 1]) are the judge's verdict. NoVerdict is set
	// when the judge reached none (a reply that could not be read, a
	// refusal, a provider failure): it counts as a fail with score 0, as
	// a grading pipeline that gets no verdict does not pass the page.
	Pass      bool    `json:"pass"`
	Score     float64 `json:"score"`
	NoVerdict bool    `json:"no_verdict,omitempty"`
	// WallMs is the judge's wall time on the candidate; USD what its
	// model calls cost, Unpriced set when one of them had no price.
	WallMs   float64 `json:"wall_ms"`
	USD      float64 `json:"usd"`
	Unpriced bool    `json:"unpriced,omitempty"`
}

// JudgeStats are one judge's numbers over a set of candidates, the
// contract's verdicts taken as the truth and pass as the positive class.
type JudgeStats struct {
	Judge      string `json:"judge"`
	Candidates int    `json:"candidates"`
	// Confusion counts the judge's verdicts against the contract's.
	Confusion Confusion `json:"confusion"`
	// NoVerdict counts the candidates the judge reached no verdict on
	// (counted as fails with score 0).
	NoVerdict int `json:"no_verdict"`
	// PassRate is the share of candidates the judge passes.
	PassRate *float64 `json:"pass_rate"`
	// TauB is Kendall's τ_b between the judge's scores and the
	// contract's V-Cov; nil when either is the same for every candidate.
	TauB *float64 `json:"tau_b_v_cov"`
	// FPR is the false-positive rate: the share of the candidates the
	// contract fails that the judge passes, FP / (FP + TN). FNR is the
	// share of those the contract passes that the judge fails,
	// FN / (FN + TP). Agreement is the share of candidates on which the
	// judge and the contract agree.
	FPR       *float64 `json:"fpr"`
	FNR       *float64 `json:"fnr"`
	Agreement *float64 `json:"agreement"`
	// WallMsPerCandidate is the mean wall time per candidate;
	// RelativeCost is that over the base judge's (see [WithRelativeCost]).
	WallMsPerCandidate *float64 `json:"wall_ms_per_candidate"`
	RelativeCost       *float64 `json:"relative_cost"`
	// USD sums the model calls' cost and USDPerCandidate is its mean; both
	// nil when a call had no price.
	USD             *float64 `json:"usd"`
	USDPerCandidate *float64 `json:"usd_per_candidate"`
}

// CompareJudge computes one judge's numbers over its verdicts. With no
// verdict every rate is nil.
func CompareJudge(judge string, vs []JudgeVerdict) JudgeStats {
	s := JudgeStats{Judge: judge, Candidates: len(vs)}
	if len(vs) == 0 {
		return s
	}
	scores, vcov := make([]float64, len(vs)), make([]float64, len(vs))
	passes := 0
	wall, usd, unpriced := 0.0, 0.0, false
	for i, v := range vs {
		pass, score := v.Pass, v.Score
		if v.NoVerdict {
			pass, score = false, 0
			s.NoVerdict++
		}
		switch {
		case pass && v.ContractPass:
			s.Confusion.TP++
		case pass:
			s.Confusion.FP++
		case v.ContractPass:
			s.Confusion.FN++
		default:
			s.Confusion.TN++
		}
		if pass {
			passes++
		}
		scores[i], vcov[i] = score, v.VCov
		wall += v.WallMs
		usd += v.USD
		unpriced = unpriced || v.Unpriced
	}
	c := s.Confusion
	n := len(vs)
	s.PassRate = defined(float64(passes) / float64(n))
	s.FPR = defined(ratio(c.FP, c.FP+c.TN))
	s.FNR = defined(ratio(c.FN, c.FN+c.TP))
	s.Agreement = defined(c.Accuracy())
	if n >= 2 {
		if tau, err := KendallTauB(scores, vcov); err == nil {
			s.TauB = defined(tau)
		}
	}
	s.WallMsPerCandidate = defined(wall / float64(n))
	if !unpriced {
		s.USD, s.USDPerCandidate = defined(usd), defined(usd/float64(n))
	}
	return s
}

// WithRelativeCost sets each row's RelativeCost: its wall time per
// candidate over that of the row named base (WorldCoder-Bench's relative
// cost, the DOM check being 1.0×). Rows stay nil when base is missing or
// took no time.
func WithRelativeCost(rows []JudgeStats, base string) {
	var ref *float64
	for _, r := range rows {
		if r.Judge == base {
			ref = r.WallMsPerCandidate
		}
	}
	if ref == nil || *ref <= 0 || math.IsNaN(*ref) {
		return
	}
	for i := range rows {
		if w := rows[i].WallMsPerCandidate; w != nil {
			rows[i].RelativeCost = defined(*w / *ref)
		}
	}
}
