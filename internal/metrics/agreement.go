package metrics

import (
	"fmt"
	"math"
	"sort"
)

// Label is an expert's verdict on one candidate page: the ground truth a
// verifier is measured against.
type Label struct {
	Task      string `json:"task"`
	Candidate string `json:"candidate"`
	// Pass is true when the page does what its brief asks.
	Pass bool `json:"pass"`
}

// Item is one labelled candidate with the verifier's verdict on it in
// each of several repeated runs.
type Item struct {
	Label
	// Group is who made the page (the trial's model): the report has a
	// row per group, as GenXR-Bench's Table 2 has per app source.
	Group string `json:"group"`
	// Verdicts are the verifier's pass or fail, one per run, in run order.
	Verdicts []bool `json:"verdicts"`
	// VCov are the trial's V-Cov, one per run.
	VCov []float64 `json:"v_cov"`
}

// Confusion counts one run's verdicts against the labels: a positive is a
// pass.
type Confusion struct {
	TP int `json:"tp"`
	FP int `json:"fp"`
	TN int `json:"tn"`
	FN int `json:"fn"`
}

// Accuracy is the share of verdicts that match the label.
func (c Confusion) Accuracy() float64 { return ratio(c.TP+c.TN, c.TP+c.FP+c.TN+c.FN) }

// Precision is the share of passes given to pages labelled pass (NaN
// when the verifier passed none).
func (c Confusion) Precision() float64 { return ratio(c.TP, c.TP+c.FP) }

// Recall is the share of pages labelled pass that the verifier passed
// (NaN when none is labelled pass).
func (c Confusion) Recall() float64 { return ratio(c.TP, c.TP+c.FN) }

func ratio(a, b int) float64 {
	if b == 0 {
		return math.NaN()
	}
	return float64(a) / float64(b)
}

// AgreementStats are GenXR-Bench's verifier-reliability numbers (§3.6,
// Table 2) over a set of items.
type AgreementStats struct {
	Items int `json:"items"`
	Runs  int `json:"runs"`
	// PerRun is each run's confusion counts.
	PerRun []Confusion `json:"per_run"`
	// Accuracy, Precision and Recall are each run's, as mean ± sample
	// standard deviation over the runs.
	Accuracy  MeanSD `json:"accuracy"`
	Precision MeanSD `json:"precision"`
	Recall    MeanSD `json:"recall"`
	// FleissKappa is Fleiss' κ with the runs as raters and pass and fail
	// as categories: how far the runs agree with each other beyond chance.
	// Nil with one run, or when every verdict is the same.
	FleissKappa *float64 `json:"fleiss_kappa"`
	// Flakiness is the share of items whose verdict differs between runs;
	// nil with one run. Flaky lists them ("task candidate").
	Flakiness *float64 `json:"flakiness"`
	Flaky     []string `json:"flaky,omitempty"`
	// TauB is Kendall's τ_b between the labels (1 pass, 0 fail) and each
	// item's mean V-Cov over the runs: whether the graded score orders the
	// pages as the experts do. Nil when every label, or every mean, is the
	// same.
	TauB *float64 `json:"tau_b_v_cov"`
}

// GroupAgreement is the agreement over one group's items.
type GroupAgreement struct {
	Group string `json:"group"`
	AgreementStats
}

// AgreementReport is the agreement over all items and per group.
type AgreementReport struct {
	Overall AgreementStats   `json:"overall"`
	Groups  []GroupAgreement `json:"groups"`
}

// Agreement measures a verifier against expert labels over repeated runs.
// Every item must have one verdict and one V-Cov per run, the same number
// of runs for all; groups are sorted by name.
func Agreement(items []Item) (AgreementReport, error) {
	var rep AgreementReport
	if len(items) == 0 {
		return rep, fmt.Errorf("agreement: no labelled item has a verdict")
	}
	runs := len(items[0].Verdicts)
	byGroup := map[string][]Item{}
	for _, it := range items {
		if len(it.Verdicts) != runs || len(it.VCov) != runs {
			return rep, fmt.Errorf("agreement: %s %s has %d verdicts and %d V-Cov values, want %d of each (one per run)",
				it.Task, it.Candidate, len(it.Verdicts), len(it.VCov), runs)
		}
		byGroup[it.Group] = append(byGroup[it.Group], it)
	}
	if runs == 0 {
		return rep, fmt.Errorf("agreement: no run")
	}
	rep.Overall = agreementStats(items, runs)
	for g, its := range byGroup {
		rep.Groups = append(rep.Groups, GroupAgreement{Group: g, AgreementStats: agreementStats(its, runs)})
	}
	sort.Slice(rep.Groups, func(i, j int) bool { return rep.Groups[i].Group < rep.Groups[j].Group })
	return rep, nil
}

// agreementStats computes the statistics of items, each with runs
// verdicts.
func agreementStats(items []Item, runs int) AgreementStats {
	s := AgreementStats{Items: len(items), Runs: runs, PerRun: make([]Confusion, runs)}
	counts := make([][]int, len(items))
	labels := make([]float64, len(items))
	means := make([]float64, len(items))
	flaky := 0
	for i, it := range items {
		passes := 0
		for r, v := range it.Verdicts {
			c := &s.PerRun[r]
			switch {
			case v && it.Pass:
				c.TP++
			case v:
				c.FP++
			case it.Pass:
				c.FN++
			default:
				c.TN++
			}
			if v {
				passes++
			}
		}
		counts[i] = []int{passes, runs - passes}
		if passes != 0 && passes != runs {
			flaky++
			s.Flaky = append(s.Flaky, it.Task+" "+it.Candidate)
		}
		if it.Pass {
			labels[i] = 1
		}
		for _, v := range it.VCov {
			means[i] += v
		}
		means[i] /= float64(runs)
	}
	acc, prec, rec := make([]float64, runs), make([]float64, runs), make([]float64, runs)
	for r, c := range s.PerRun {
		acc[r], prec[r], rec[r] = c.Accuracy(), c.Precision(), c.Recall()
	}
	s.Accuracy, s.Precision, s.Recall = meanSD(acc), meanSD(prec), meanSD(rec)
	if runs >= 2 {
		if k, err := FleissKappa(counts); err == nil {
			s.FleissKappa = defined(k)
		}
		s.Flakiness = defined(float64(flaky) / float64(len(items)))
	}
	if len(items) >= 2 {
		if tau, err := KendallTauB(labels, means); err == nil {
			s.TauB = defined(tau)
		}
	}
	sort.Strings(s.Flaky)
	return s
}
