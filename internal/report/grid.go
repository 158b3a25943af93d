package report

import (
	"fmt"
	"sort"

	"github.com/worldprobe/worldprobe/internal/metrics"
	"github.com/worldprobe/worldprobe/internal/result"
)

// chip is one trial as the grid and a trial page's neighbours show it: a
// text mark and a short label (readable without colour), a colour class,
// a tooltip, the link to its page (empty when it has none) and what the
// filters match.
type chip struct {
	Href, Class, Mark, Text, Title string
	// Who names the trial before its mark where the chip stands alone
	// (a trial page's list of the task's trials), empty in the grid.
	Who string
	// Status is result.Trial.Class; Attribution the attribution of a
	// trial that did not pass ("" when it passed); Model its column.
	Status, Attribution, Model string
}

// marks are the text marks of the trial classes.
var marks = map[string]string{"pass": "✓", "fail": "✗", "crash": "!", "timeout": "!", "infra": "?"}

// statusOrder is the order the status filter lists the classes in.
var statusOrder = []string{"pass", "fail", "crash", "timeout", "infra"}

// columnOf is the leaderboard row (and grid column) a trial belongs to.
func columnOf(t *result.Trial) string { return metrics.Row{Model: t.Model, Repair: t.Repair}.Name() }

// attributionOf is what the attribution filter matches: "" for a pass,
// metrics.Unattributed for a failure without one.
func attributionOf(t *result.Trial) string {
	switch {
	case t.Pass && t.Scored():
		return ""
	case t.Attribution == "":
		return metrics.Unattributed
	}
	return t.Attribution
}

func newChip(t *result.Trial, href string) chip {
	c := chip{Href: href, Class: t.Class(), Mark: marks[t.Class()], Status: t.Class(), Attribution: attributionOf(t), Model: columnOf(t)}
	who := t.Candidate
	switch {
	case t.Candidate == "":
		who = fmt.Sprintf("sample %d", t.Sample)
	case t.Sample > 0:
		who = fmt.Sprintf("%s sample %d", t.Candidate, t.Sample)
	}
	switch t.Class() {
	case "pass":
		c.Text = pct0(t.VCov)
		c.Title = fmt.Sprintf("%s, %s: pass, V-Cov %s", c.Model, who, pct(t.VCov))
	case "fail":
		c.Text = pct0(t.VCov)
		c.Title = fmt.Sprintf("%s, %s: fail, V-Cov %s, %s", c.Model, who, pct(t.VCov), c.Attribution)
	case "crash", "timeout":
		c.Text = t.Class()
		c.Title = fmt.Sprintf("%s, %s: crash (%s), V-Cov 0", c.Model, who, t.CrashKind)
	default:
		c.Text = "infra"
		c.Title = fmt.Sprintf("%s, %s: infrastructure error, not scored", c.Model, who)
	}
	if w := t.World; w != nil && t.Outcome != result.OutcomeInfra {
		// A world-judged trial shows its score, an open one as open.
		c.Text = worldText(w)
		c.Title += "; " + worldTitle(w)
	}
	return c
}

// pct0 is a share as a whole percentage, rounded down so that 99.6% never
// reads as a full 100%.
func pct0(x float64) string {
	p := int(100*x + 1e-9)
	return fmt.Sprintf("%d%%", p)
}

// gridView is the models × tasks grid: a column per leaderboard row, a
// row per task grouped by category, each cell the chips of its trials.
type gridView struct {
	Columns []gridColumn
	Groups  []gridGroup
}

type gridColumn struct {
	Name, VCov string
}

type gridGroup struct {
	Category string
	Tasks    []gridRow
}

type gridRow struct {
	Task, Category, Difficulty, VariantOf string
	Cells                                 []gridCell
}

type gridCell struct {
	Model string
	Chips []chip
}

// newGrid lays the trials out by task and leaderboard row; href gives a
// trial's page relative to the report ("" when it has none).
func newGrid(trials []*result.Trial, rows []metrics.BoardRow, href func(*result.Trial) string) gridView {
	var g gridView
	col := map[string]int{}
	for i, r := range rows {
		col[r.Name()] = i
		g.Columns = append(g.Columns, gridColumn{Name: r.Name(), VCov: pct(r.VCov)})
	}
	byTask := map[string][]*result.Trial{}
	for _, t := range trials {
		byTask[t.Task] = append(byTask[t.Task], t)
	}
	tasks := sortedKeys(byTask)
	groupOf := map[string]int{}
	for _, id := range tasks {
		ts := byTask[id]
		sortTrials(ts)
		first := ts[0]
		gi, ok := groupOf[first.Category]
		if !ok {
			gi = len(g.Groups)
			groupOf[first.Category] = gi
			g.Groups = append(g.Groups, gridGroup{Category: first.Category})
		}
		row := gridRow{Task: id, Category: first.Category, Difficulty: first.Difficulty, VariantOf: first.VariantOf, Cells: make([]gridCell, len(rows))}
		for i, r := range rows {
			row.Cells[i].Model = r.Name()
		}
		for _, t := range ts {
			if i, ok := col[columnOf(t)]; ok {
				row.Cells[i].Chips = append(row.Cells[i].Chips, newChip(t, href(t)))
			}
		}
		g.Groups[gi].Tasks = append(g.Groups[gi].Tasks, row)
	}
	sort.SliceStable(g.Groups, func(i, j int) bool { return g.Groups[i].Category < g.Groups[j].Category })
	return g
}

// sortTrials orders trials by task, model, repair, candidate and sample.
func sortTrials(ts []*result.Trial) {
	sort.SliceStable(ts, func(i, j int) bool {
		a, b := ts[i], ts[j]
		switch {
		case a.Task != b.Task:
			return a.Task < b.Task
		case a.Model != b.Model:
			return a.Model < b.Model
		case a.Repair != b.Repair:
			return a.Repair < b.Repair
		case a.Candidate != b.Candidate:
			return a.Candidate < b.Candidate
		case a.Sample != b.Sample:
			return a.Sample < b.Sample
		}
		return a.Key < b.Key
	})
}
