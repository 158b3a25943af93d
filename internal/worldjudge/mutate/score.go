package mutate

import (
	"fmt"
	"io"
	"strings"

	jsmutate "github.com/worldprobe/worldprobe/internal/mutate"
	"github.com/worldprobe/worldprobe/internal/result"
	"github.com/worldprobe/worldprobe/internal/worldjudge"
	"github.com/worldprobe/worldprobe/internal/worldjudge/measure"
	"github.com/worldprobe/worldprobe/internal/worldjudge/probe"
	"github.com/worldprobe/worldprobe/internal/worldjudge/rubric"
)

// Cell is the points one judge kept on a set of items: Kept of the judged
// part, Unjudged the points whose halves no model judged (never counted
// as kept or lost).
type Cell struct {
	Kept     float64 `json:"kept"`
	Unjudged float64 `json:"unjudged"`
}

// Columns are WorldBench's Table 5 with worldprobe's last column: of the
// removed items' Points, what each judge kept.
//   - CodeOnly: the code halves alone decide (each item's points scaled
//     by the share of its code halves that pass; WorldBench's code-only
//     regrade), a quote passing when it is source text (no coverage);
//   - SnapshotOnly: the sight halves alone decide, the same way;
//   - Full: WorldBench's full judge, every half at its share, a code half
//     passing on source text;
//   - FullCoverage: the same, a code half passing only when its quote's
//     lines ran (worldprobe's judge).
type Columns struct {
	Items        int     `json:"items"`
	Points       float64 `json:"points"`
	CodeOnly     Cell    `json:"code_only"`
	SnapshotOnly Cell    `json:"snapshot_only"`
	Full         Cell    `json:"full"`
	FullCoverage Cell    `json:"full_coverage"`
}

func (c *Columns) add(o Columns) {
	c.Items += o.Items
	c.Points = measure.Round(c.Points+o.Points, 2)
	for _, p := range [][2]*Cell{{&c.CodeOnly, &o.CodeOnly}, {&c.SnapshotOnly, &o.SnapshotOnly}, {&c.Full, &o.Full}, {&c.FullCoverage, &o.FullCoverage}} {
		p[0].Kept = measure.Round(p[0].Kept+p[1].Kept, 2)
		p[0].Unjudged = measure.Round(p[0].Unjudged+p[1].Unjudged, 2)
	}
}

// verdict is a half's verdict for one judge: pass, fail or unjudged.
type verdict int8

const (
	vUnjudged verdict = iota
	vPass
	vFail
)

// codeVerdicts are a code half's verdicts by WorldBench's rules (its
// quotes source text, coverage aside) and with coverage (its status).
func codeVerdicts(h worldjudge.HalfReport) (wb, cov verdict) {
	switch h.Status {
	case worldjudge.StatusPass:
		return vPass, vPass
	case worldjudge.StatusFail:
		cov = vFail
	default:
		return vUnjudged, vUnjudged
	}
	if len(h.Evidence) == 0 {
		return vFail, cov
	}
	for _, ev := range h.Evidence {
		if !(ev.Verdict.Verified && (ev.Refused == "" || ev.Refused == probe.RefusedNotRun)) {
			return vFail, cov
		}
	}
	return vPass, cov
}

func sightVerdict(h worldjudge.HalfReport) verdict {
	switch h.Status {
	case worldjudge.StatusPass:
		return vPass
	case worldjudge.StatusFail:
		return vFail
	}
	return vUnjudged
}

// columns scores items (by test, biome and id) in a judgement.
func columns(rep *worldjudge.Report, items []ItemRef) Columns {
	want := map[string]bool{}
	for _, it := range items {
		want[it.key()] = true
	}
	var c Columns
	for _, tr := range rep.Tests {
		for _, it := range tr.Items {
			if !want[tr.ID+"/"+it.Biome+"/"+it.ID] {
				continue
			}
			c.Items++
			c.Points = measure.Round(c.Points+it.Points, 2)
			var code, sight, full, fullCov acc
			for _, h := range it.Halves {
				switch h.Half {
				case rubric.HalfCode, rubric.HalfCodeMotion:
					wb, cv := codeVerdicts(h)
					code.add(h.Share, wb)
					full.add(h.Share, wb)
					fullCov.add(h.Share, cv)
				default:
					v := sightVerdict(h)
					sight.add(h.Share, v)
					full.add(h.Share, v)
					fullCov.add(h.Share, v)
				}
			}
			code.into(&c.CodeOnly, it.Points, true)
			sight.into(&c.SnapshotOnly, it.Points, true)
			full.into(&c.Full, it.Points, false)
			fullCov.into(&c.FullCoverage, it.Points, false)
		}
	}
	return c
}

// acc sums shares of halves by verdict.
type acc struct{ pass, fail, open float64 }

func (a *acc) add(share float64, v verdict) {
	switch v {
	case vPass:
		a.pass += share
	case vFail:
		a.fail += share
	default:
		a.open += share
	}
}

// into adds an item's points to cell: scaled to its halves' total share
// when alone (a code-only or snapshot-only judge gives the item's whole
// points on its own halves), else at the halves' shares.
func (a acc) into(cell *Cell, points float64, alone bool) {
	total := a.pass + a.fail + a.open
	if total == 0 {
		return
	}
	scale := 1.0
	if alone {
		scale = 1 / total
	}
	cell.Kept = measure.Round(cell.Kept+points*a.pass*scale, 2)
	cell.Unjudged = measure.Round(cell.Unjudged+points*a.open*scale, 2)
}

// Row is one line of Table 5: a removal kind over every target.
type Row struct {
	How string `json:"how"`
	// Built, Loaded: how many targets could be removed this way and how
	// many of those mutants loaded (only those are scored).
	Built  int `json:"built"`
	Loaded int `json:"loaded"`
	Columns
}

// QuoteRow sums the quote checks of one removal kind.
type QuoteRow struct {
	How    string `json:"how"`
	Loaded int    `json:"loaded"`
	// Quotes are the removed builders' substantive lines; Verified those
	// still source text (a code-only judge keeps them); Ran those whose
	// lines ran (worldprobe keeps them).
	Quotes   int `json:"quotes"`
	Verified int `json:"verified"`
	Ran      int `json:"ran"`
}

func table(rep *Report) ([]Row, []QuoteRow) {
	var rows []Row
	var qrows []QuoteRow
	for _, how := range jsmutate.Removals {
		r := Row{How: how}
		q := QuoteRow{How: how}
		for _, v := range rep.Variants {
			if v.How != how {
				continue
			}
			if v.Built {
				r.Built++
			}
			if !v.Loaded {
				continue
			}
			r.Loaded++
			q.Loaded++
			r.Columns.add(v.Points)
			for _, qc := range v.Quotes {
				q.Quotes++
				if qc.Verified {
					q.Verified++
				}
				if qc.Ran != nil && *qc.Ran {
					q.Ran++
				}
			}
		}
		rows = append(rows, r)
		qrows = append(qrows, q)
	}
	return rows, qrows
}

func (c Cell) String() string {
	if c.Unjudged > 0 {
		return fmt.Sprintf("%g (+%g %s)", c.Kept, c.Unjudged, result.StatusUnjudged)
	}
	return fmt.Sprintf("%g", c.Kept)
}

// Print writes the targets and the two tables as text.
func Print(w io.Writer, rep *Report) {
	fmt.Fprintf(w, "%s: %d targets (from %s)\n", rep.World, len(rep.Targets), rep.TargetsFrom)
	if rep.Note != "" {
		fmt.Fprintf(w, "  note: %s\n", rep.Note)
	}
	for _, t := range rep.Targets {
		items := ""
		if len(t.Items) > 0 {
			var ids []string
			for _, it := range t.Items {
				ids = append(ids, it.Test+" "+strings.TrimSpace(it.Biome+" "+it.Item))
			}
			items = "; items: " + strings.Join(ids, ", ")
		}
		fmt.Fprintf(w, "  %s() lines %d–%d: %s%s\n", t.Function, t.Lines[0], t.Lines[1], t.Why, items)
	}
	for _, v := range rep.Variants {
		if !v.Built || !v.Loaded {
			fmt.Fprintf(w, "  %s %s: not scored: %s\n", v.Function, v.How, v.Reason)
		}
	}
	if rep.Original.Points.Items > 0 {
		fmt.Fprintf(w, "\nPoints kept on removed items (of their points; Table 5, worldprobe last)\n")
		fmt.Fprintf(w, "%-9s %6s %6s %6s %7s %-16s %-16s %-16s %-16s\n", "removal", "built", "loaded", "items", "points", "code-only", "snapshot-only", "full", "full+coverage")
		o := rep.Original.Points
		fmt.Fprintf(w, "%-9s %6s %6s %6d %7g %-16s %-16s %-16s %-16s\n", "none", "-", "-", o.Items, o.Points, o.CodeOnly, o.SnapshotOnly, o.Full, o.FullCoverage)
		for _, r := range rep.Points {
			fmt.Fprintf(w, "%-9s %6d %6d %6d %7g %-16s %-16s %-16s %-16s\n", r.How, r.Built, r.Loaded, r.Items, r.Points, r.CodeOnly, r.SnapshotOnly, r.Full, r.FullCoverage)
		}
	}
	fmt.Fprintf(w, "\nLines of the removed builders, quoted as they were (no model)\n")
	fmt.Fprintf(w, "%-9s %6s %6s %20s %18s\n", "removal", "loaded", "quotes", "source (code-only)", "ran (coverage)")
	for _, q := range rep.Quotes {
		fmt.Fprintf(w, "%-9s %6d %6d %20d %18d\n", q.How, q.Loaded, q.Quotes, q.Verified, q.Ran)
	}
}
