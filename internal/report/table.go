// Package report renders run results: a terminal leaderboard and a
// self-contained HTML report that works offline.
package report

import (
	"fmt"
	"io"
	"strings"

	"github.com/worldprobe/worldprobe/internal/metrics"
	"github.com/worldprobe/worldprobe/internal/result"
)

// Table writes the leaderboard as a fixed-width text table.
//
// Pages repaired with contract feedback are ranked in a table of their
// own under the first, never among the first-shot and error-only rows.
func Table(w io.Writer, trials []*result.Trial) {
	others, feedback := metrics.FeedbackApart(trials)
	cats := metrics.Categories(trials)
	if len(others) > 0 || len(feedback) == 0 {
		rowTable(w, metrics.Leaderboard(others), cats)
	}
	if len(feedback) > 0 {
		if len(others) > 0 {
			fmt.Fprintln(w)
		}
		fmt.Fprintln(w, "contract-feedback repair, ranked apart (the model saw its failed checks' messages):")
		rowTable(w, metrics.Leaderboard(feedback), cats)
	}
	Infrastructure(w, trials)
}

// rowTable writes rows as a fixed-width table, a column per category.
func rowTable(w io.Writer, rows []metrics.Row, cats []string) {
	fmt.Fprintf(w, "%-16s %6s %7s %7s %7s %7s %7s %7s", "model", "trials", "V-Cov", "A-Cov", "S-Cov", "T-Cov", "pass@1", "crashes")
	for _, c := range cats {
		fmt.Fprintf(w, " %12s", abbrev(c, 12))
	}
	robust := false
	for _, r := range rows {
		robust = robust || r.Robust != nil
	}
	if robust {
		fmt.Fprintf(w, " %7s %7s %7s", "core", "robust", "drop")
	}
	fmt.Fprintln(w)
	for _, r := range rows {
		fmt.Fprintf(w, "%-16s %6d %7s %7s %7s %7s %7s %7d", abbrev(r.Name(), 16), r.Trials, pct(r.VCov), pct(r.ACov), pct(r.SCov), pct(r.TCov), pct(r.Pass1), r.Crashes)
		for _, c := range cats {
			if s, ok := r.ByCategory[c]; ok {
				fmt.Fprintf(w, " %12s", pct(s.VCov))
			} else {
				fmt.Fprintf(w, " %12s", "-")
			}
		}
		if robust {
			if r.Robust != nil {
				fmt.Fprintf(w, " %7s %7s %7s", pct(r.Core.VCov), pct(r.Robust.VCov), pct(r.Core.VCov-r.Robust.VCov))
			} else {
				fmt.Fprintf(w, " %7s %7s %7s", "-", "-", "-")
			}
		}
		fmt.Fprintln(w)
	}
}

// Infrastructure writes, when there are any, how many trials were retried
// after a missed deadline under overload and how many were left out of the
// scores as infrastructure errors, with what to do about them.
func Infrastructure(w io.Writer, trials []*result.Trial) {
	retried, infra := 0, 0
	for _, t := range trials {
		if t.Retries > 0 {
			retried++
		}
		if !t.Scored() {
			infra++
		}
	}
	if retried > 0 {
		fmt.Fprintf(w, "%d trial(s) were judged again after missing a deadline on an overloaded machine (retry_reasons in their result.json)\n", retried)
	}
	if infra > 0 {
		fmt.Fprintf(w, "WARNING: %d trial(s) not scored: infrastructure errors (the machine was too overloaded for their pages to meet the harness deadlines); run the same command with --rerun infra on a quieter machine\n", infra)
	}
}

func pct(x float64) string { return fmt.Sprintf("%.1f%%", 100*x) }

func abbrev(s string, n int) string {
	if len(s) <= n {
		return s
	}
	return s[:n-1] + "…"
}

// Failures writes, per failed trial, its failing assertions.
func Failures(w io.Writer, trials []*result.Trial) {
	for _, t := range trials {
		if t.Pass {
			continue
		}
		what := t.Attribution
		switch t.Outcome {
		case result.OutcomeCrash:
			what = "crash (" + t.CrashKind + ")"
		case result.OutcomeInfra:
			what = "infrastructure error, not scored"
		}
		if t.Unjudged > 0 && t.Outcome == result.OutcomeOK {
			what += fmt.Sprintf(" (%d unjudged)", t.Unjudged)
		}
		fmt.Fprintf(w, "%s  %s/%s: %s\n", t.Task, t.Model, t.Candidate, what)
		if t.CrashMessage != "" {
			fmt.Fprintf(w, "    %s\n", t.CrashMessage)
		}
		for _, a := range t.Failed() {
			fmt.Fprintf(w, "    %-6s %s/%s: %s\n", a.Status, a.Level, a.Probe, strings.ReplaceAll(a.Message, "\n", " "))
		}
	}
}
