package judgerun

import (
	"fmt"
	"path/filepath"
	"strings"

	"github.com/worldprobe/worldprobe/internal/atomicfile"
	"github.com/worldprobe/worldprobe/internal/metrics"
)

// ContractRow is the name of the table's reference row.
const ContractRow = "contract"

// Report is the comparison of a run folder's judges with its contract:
// what judges.md shows and judges.json holds.
type Report struct {
	// Run is the run folder; Trials counts its finished trials, Compared
	// the candidates compared; LeftOut lists the others.
	Run      string    `json:"run"`
	Trials   int       `json:"trials"`
	Compared int       `json:"compared"`
	LeftOut  []LeftOut `json:"left_out"`
	// Skipped are the judges asked for that did not run.
	Skipped []Skip `json:"skipped"`
	// NotReached lists the verdicts the machine was too overloaded to
	// reach ("judge on candidate"); their judges' rows leave them out.
	NotReached []string `json:"not_reached,omitempty"`
	// RelativeTo is the row relative costs are measured against: the
	// DOM check when it ran, else the contract.
	RelativeTo string `json:"relative_to"`
	// Rows are each judge's numbers, then the contract's.
	Rows []metrics.JudgeStats `json:"rows"`
	// Items are the candidates with every verdict.
	Items []*Item `json:"candidates"`
}

// NewReport compares the plan's verdicts with the contract's. A judge's
// row covers the candidates it has a verdict on.
func NewReport(p *Plan) *Report {
	r := &Report{Run: p.Run, Trials: p.Trials, Compared: len(p.Items), LeftOut: p.LeftOut, Skipped: p.Skipped, NotReached: p.Overloaded, Items: p.Items}
	if r.LeftOut == nil {
		r.LeftOut = []LeftOut{}
	}
	if r.Skipped == nil {
		r.Skipped = []Skip{}
	}
	r.RelativeTo = ContractRow
	for _, j := range p.Judges {
		var vs []metrics.JudgeVerdict
		for _, it := range p.Items {
			v := it.Verdicts[j.Name()]
			if v == nil {
				continue
			}
			vs = append(vs, metrics.JudgeVerdict{ContractPass: it.ContractPass, VCov: it.VCov, Pass: v.Pass, Score: v.Score,
				NoVerdict: v.Failure != "", WallMs: v.Cost.WallMs, USD: v.Cost.USD, Unpriced: v.Cost.Unpriced})
		}
		r.Rows = append(r.Rows, metrics.CompareJudge(j.Name(), vs))
		if j.Name() == "dom" {
			r.RelativeTo = "dom"
		}
	}
	var self []metrics.JudgeVerdict
	for _, it := range p.Items {
		self = append(self, metrics.JudgeVerdict{ContractPass: it.ContractPass, VCov: it.VCov, Pass: it.ContractPass, Score: it.VCov, WallMs: it.ContractWallMs})
	}
	r.Rows = append(r.Rows, metrics.CompareJudge(ContractRow, self))
	metrics.WithRelativeCost(r.Rows, r.RelativeTo)
	return r
}

// Write writes the report's Markdown to md and its JSON beside it (the
// same name ending in .json).
func (r *Report) Write(md string) (jsonPath string, err error) {
	if err := atomicfile.Write(md, []byte(r.Markdown())); err != nil {
		return "", err
	}
	jsonPath = strings.TrimSuffix(md, filepath.Ext(md)) + ".json"
	return jsonPath, atomicfile.WriteJSON(jsonPath, r)
}

// Table renders the paradigm table with the paragraph that says what it
// covers and the judges skipped: what compare-judges prints.
func (r *Report) Table() string {
	var b strings.Builder
	fmt.Fprintf(&b, "Run folder `%s`: %s, %s compared", r.Run, plural(r.Trials, "finished trial"), plural(r.Compared, "candidate"))
	if len(r.LeftOut) > 0 {
		fmt.Fprintf(&b, " (%d left out, listed at the end of judges.md)", len(r.LeftOut))
	}
	b.WriteString(". The contract's verdicts are the reference: a false positive is a candidate a judge passes and the " +
		"contract fails, a false negative one it fails and the contract passes; τ_b compares the judge's score with the " +
		"contract's V-Cov. A judge that reached no verdict fails the candidate with score 0 (docs/judges.md).\n\n")

	fmt.Fprintf(&b, "| judge | candidates | pass rate | τ_b vs V-Cov | FPR | FNR | agreement | no verdict | wall / candidate | relative cost (× %s) | $ / candidate |\n", r.RelativeTo)
	b.WriteString("|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|\n")
	for _, s := range r.Rows {
		fmt.Fprintf(&b, "| %s | %d | %s | %s | %s | %s | %s | %d | %s | %s | %s |\n", s.Judge, s.Candidates, pct(s.PassRate), num(s.TauB),
			pct(s.FPR), pct(s.FNR), pct(s.Agreement), s.NoVerdict, seconds(s.WallMsPerCandidate), times(s.RelativeCost), usd(s.USDPerCandidate))
	}
	for _, s := range r.Skipped {
		fmt.Fprintf(&b, "\n%s: skipped — %s\n", s.Judge, s.Why)
	}
	if len(r.NotReached) > 0 {
		fmt.Fprintf(&b, "\nWARNING: %s not reached, the machine being too overloaded (not scored; run the same command again on a quieter machine): %s\n",
			plural(len(r.NotReached), "verdict"), strings.Join(r.NotReached, "; "))
	}
	return b.String()
}

// Markdown renders the report: the paradigm table, what was skipped,
// WorldCoder-Bench's table for comparison, every candidate's verdicts,
// where a judge and the contract disagree and what was left out.
func (r *Report) Markdown() string {
	var b strings.Builder
	b.WriteString("# Judges against the contract\n\n")
	b.WriteString(r.Table())
	b.WriteString("\nWorldCoder-Bench's table (WorldCoder-Core), for comparison:\n\n")
	b.WriteString("| paradigm | pass rate | τ_b vs V-Cov | FPR | relative cost |\n|---|---:|---:|---:|---:|\n")
	b.WriteString("| DOM-structure check | 32.6% | −0.021 | 33.7% | 1.0× |\n")
	b.WriteString("| screenshot + VLM judge | 2.7% | −0.068 | 3.2% | ~50× |\n")
	b.WriteString("| 8-step multi-turn agent audit | 49.7% | +0.111 | 45.6% | ~400× |\n")
	b.WriteString("| StateProbe (the contract) | — | 1.000 | 0.0% | ~2× |\n")

	if len(r.Items) == 0 {
		return b.String()
	}
	var names []string
	for _, s := range r.Rows[:len(r.Rows)-1] {
		names = append(names, s.Judge)
	}
	b.WriteString("\n## Candidates\n\n| task | model | candidate | contract | V-Cov |")
	for _, n := range names {
		fmt.Fprintf(&b, " %s |", n)
	}
	b.WriteString("\n|---|---|---|---|---:|" + strings.Repeat("---|", len(names)) + "\n")
	for _, it := range r.Items {
		cand := it.Candidate
		if it.Sample > 0 {
			cand += fmt.Sprintf(" (sample %d)", it.Sample)
		}
		fmt.Fprintf(&b, "| %s | %s | %s | %s | %.3f |", it.Task, it.Source(), cand, passFail(it.ContractPass), it.VCov)
		for _, n := range names {
			v := it.Verdicts[n]
			switch {
			case v == nil:
				b.WriteString(" — |")
			case v.Failure != "":
				b.WriteString(" no verdict |")
			default:
				fmt.Fprintf(&b, " %s %.3f |", passFail(v.Pass), v.Score)
			}
		}
		b.WriteString("\n")
	}

	var lines []string
	for _, it := range r.Items {
		for _, n := range names {
			v := it.Verdicts[n]
			switch {
			case v == nil:
			case v.Failure != "":
				lines = append(lines, fmt.Sprintf("- %s — %s: no verdict (%s)", it.Name(), n, cell(v.Failure, 200)))
			case v.Pass && !it.ContractPass:
				lines = append(lines, fmt.Sprintf("- %s — %s passes it (%s); the contract fails it: %s", it.Name(), n, cell(v.Reason, 200), cell(it.ContractReason, 200)))
			case !v.Pass && it.ContractPass:
				lines = append(lines, fmt.Sprintf("- %s — %s fails it (%s); the contract passes it", it.Name(), n, cell(v.Reason, 300)))
			}
		}
	}
	if len(lines) > 0 {
		b.WriteString("\n## Where a judge and the contract disagree\n\n" + strings.Join(lines, "\n") + "\n")
	}
	if len(r.LeftOut) > 0 {
		b.WriteString("\n## Left out\n\n")
		for _, l := range r.LeftOut {
			fmt.Fprintf(&b, "- %s: %s\n", l.Name, l.Reason)
		}
	}
	return b.String()
}

func passFail(pass bool) string {
	if pass {
		return "pass"
	}
	return "fail"
}

func pct(x *float64) string {
	if x == nil {
		return "n/a"
	}
	return fmt.Sprintf("%.1f%%", 100**x)
}

func num(x *float64) string {
	if x == nil {
		return "n/a"
	}
	return fmt.Sprintf("%.3f", *x)
}

func seconds(ms *float64) string {
	if ms == nil {
		return "n/a"
	}
	return fmt.Sprintf("%.2f s", *ms/1000)
}

func times(x *float64) string {
	if x == nil {
		return "n/a"
	}
	return fmt.Sprintf("%.1f×", *x)
}

func usd(x *float64) string {
	if x == nil {
		return "n/a (unpriced)"
	}
	return fmt.Sprintf("$%.4f", *x)
}

// cell makes text safe in a Markdown line: one line, pipes escaped,
// at most n characters.
func cell(s string, n int) string { return strings.ReplaceAll(clip(s, n), "|", `\|`) }

func plural(n int, noun string) string {
	if n == 1 {
		return "1 " + noun
	}
	return fmt.Sprintf("%d %ss", n, noun)
}
