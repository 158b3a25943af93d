package taskcheck

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"reflect"
	"sort"
	"strings"

	"github.com/worldprobe/worldprobe/internal/contract"
	"github.com/worldprobe/worldprobe/internal/mutate"
	"github.com/worldprobe/worldprobe/internal/pool"
	"github.com/worldprobe/worldprobe/internal/result"
	"github.com/worldprobe/worldprobe/internal/task"
	"github.com/worldprobe/worldprobe/internal/trial"
)

// Mutant statuses.
const (
	// Killed: some assertion did not pass, or the page crashed.
	Killed = "killed"
	// Equivalent: every assertion passed, the mutant read exactly the
	// reference's states, scene summaries and pixels over the contract's
	// probes, and it did so too under a seeded exploration with the task's
	// controls (beyond the contract's own inputs): nothing tells them
	// apart, so it does not count.
	Equivalent = "equivalent"
	// Survived: every assertion passed, yet the mutant behaved differently
	// from the reference. The contract is too weak.
	Survived = "survived"
	// Unjudged: the machine was too loaded to judge the mutant (its trial
	// ended as an infrastructure error after the judge's retries). It does
	// not count either way, and the task is not hardened until it is
	// judged again (--mutants ID on a quieter machine).
	Unjudged = "unjudged"
)

// MutantResult is one mutant's fate.
type MutantResult struct {
	mutate.Mutant
	Status string `json:"status"`
	// KilledBy names what killed it: "probe: expr: message" or "crash (kind): message".
	KilledBy string `json:"killed_by,omitempty"`
	// KilledIn is the probe whose assertion killed it ("" for a crash).
	KilledIn string `json:"killed_in,omitempty"`
	// Difference says, for a survivor, where it first differed from the
	// reference (probe, kind, line, frame).
	Difference string `json:"difference,omitempty"`
	// Explored is, for a mutant that passed the contract with the
	// reference's observations, how many exploration inputs it was then
	// compared under (0: the task declares no controls, only time passed;
	// -1: not explored).
	Explored int `json:"explored"`
}

// Mutation is the mutation-testing part of a task check.
type Mutation struct {
	Mutants    []MutantResult `json:"mutants"`
	Total      int            `json:"total"`
	Killed     int            `json:"killed"`
	Equivalent int            `json:"equivalent"`
	Survived   int            `json:"survived"`
	// Unjudged counts mutants the machine was too loaded to judge.
	Unjudged int `json:"unjudged,omitempty"`
	// Stats are the generator's counts (sites enumerated, dropped, per operator).
	Stats mutate.Stats `json:"stats"`
	// Selection is how the mutants were chosen (seed, maximum, operators, IDs).
	// Nil in reports written before it was recorded.
	Selection *mutate.Options `json:"selection,omitempty"`
	// Exploration says how equivalence was checked beyond the contract.
	Exploration *ExplorationInfo `json:"exploration,omitempty"`
}

// ExplorationInfo describes the exploration that equivalent candidates
// were compared under.
type ExplorationInfo struct {
	// Inputs is how many inputs the sequence sends; Controls how many
	// controls the task declares it draws from; Seed seeds the draw.
	Inputs   int    `json:"inputs"`
	Controls int    `json:"controls"`
	Seed     uint64 `json:"seed"`
	// Problem is set when the exploration could not be used (the reference
	// itself was not deterministic under it, or a control did not parse):
	// equivalence is then judged by the contract alone.
	Problem string `json:"problem,omitempty"`
}

// NonEquivalent is the number of mutants that count (unjudged ones do not).
func (m *Mutation) NonEquivalent() int { return m.Total - m.Equivalent - m.Unjudged }

// KillRate is killed over non-equivalent mutants (1 when there are none).
func (m *Mutation) KillRate() float64 {
	if m.NonEquivalent() == 0 {
		return 1
	}
	return float64(m.Killed) / float64(m.NonEquivalent())
}

// Hardened reports whether every non-equivalent mutant was judged and killed.
func (m *Mutation) Hardened() bool { return m.Survived == 0 && m.Unjudged == 0 }

// runMutants generates mutants of t's reference and judges each.
func runMutants(ctx context.Context, j *trial.Runner, t *task.Task, c *contract.Contract, params map[string]any, refHash, work string, opts Options) (*Mutation, error) {
	src, err := os.ReadFile(t.SolutionPath())
	if err != nil {
		return nil, fmt.Errorf("reading the reference: %w", err)
	}
	gen, err := mutate.GenerateReport(src, filepath.ToSlash(filepath.Join(task.SolutionDir, task.PageFile)), opts.Mutate)
	if err != nil {
		return nil, fmt.Errorf("generating mutants of %s: %w", t.ID, err)
	}
	refTrace, _ := readTrace(filepath.Join(filepath.Dir(work), "reference", "0", trial.TraceFile))
	sel := opts.Mutate
	m := &Mutation{Mutants: make([]MutantResult, len(gen.Mutants)), Total: len(gen.Mutants), Stats: gen.Stats, Selection: &sel}
	done := 0
	err = pool.Map(ctx, opts.Jobs, len(gen.Mutants), func(ctx context.Context, i int) (MutantResult, error) {
		mu8 := gen.Mutants[i]
		r, err := judgeMutant(ctx, j, t, c, params, mu8, refHash, refTrace, filepath.Join(work, mu8.ID))
		if err != nil {
			return r, fmt.Errorf("mutant %s: %w", mu8.ID, err)
		}
		return r, nil
	}, func(i int, r MutantResult) error {
		m.Mutants[i] = r
		done++
		opts.progress(t, "mutant")(done, len(gen.Mutants))
		return nil
	})
	if err != nil {
		return nil, err
	}
	if err := explore(ctx, j, t, params, m, work, opts); err != nil {
		return nil, err
	}
	for _, r := range m.Mutants {
		switch r.Status {
		case Killed:
			m.Killed++
		case Equivalent:
			m.Equivalent++
		case Survived:
			m.Survived++
		case Unjudged:
			m.Unjudged++
		}
	}
	return m, nil
}

// judgeMutant writes the mutant next to copies of the reference's other
// files and judges it, stopping at the first failed assertion.
func judgeMutant(ctx context.Context, j *trial.Runner, t *task.Task, c *contract.Contract, params map[string]any,
	mt mutate.Mutant, refHash string, refTrace []string, dir string) (MutantResult, error) {
	out := MutantResult{Mutant: mt, Explored: -1}
	pageDir := filepath.Join(dir, "page")
	if err := task.CopyTree(filepath.Dir(t.SolutionPath()), pageDir); err != nil {
		return out, err
	}
	page := filepath.Join(pageDir, task.PageFile)
	if err := os.WriteFile(page, mt.HTML, 0o644); err != nil {
		return out, fmt.Errorf("writing the mutant: %w", err)
	}
	tr, err := j.Run(ctx, trial.Input{Key: "mutant-" + mt.ID, Task: t, Contract: c, Page: page, Params: params,
		Model: "mutants", Candidate: mt.ID, Dir: filepath.Join(dir, "trial"), Fingerprint: true, StopAtFirstFailure: true, SkipInspect: true})
	if err != nil {
		return out, err
	}
	switch {
	case tr.Outcome == result.OutcomeInfra:
		// Never an abort: the other mutants and tasks go on.
		out.Status, out.KilledBy = Unjudged, tr.CrashMessage
	case tr.Outcome == result.OutcomeCrash:
		out.Status, out.KilledBy = Killed, fmt.Sprintf("crash (%s): %s", tr.CrashKind, tr.CrashMessage)
	case len(tr.Failed()) > 0:
		a := tr.Failed()[0]
		out.Status, out.KilledBy, out.KilledIn = Killed, fmt.Sprintf("%s: %s: %s", a.Probe, a.Expr, a.Message), a.Probe
	case tr.StateHash == refHash:
		out.Status = Equivalent
	default:
		out.Status = Survived
		mine, _ := readTrace(filepath.Join(dir, "trial", trial.TraceFile))
		out.Difference = firstDifference(refTrace, mine)
	}
	return out, nil
}

// explore judges the reference (twice, to be sure it is deterministic under
// the exploration) and every contract-equivalent mutant under the task's
// exploration; a mutant whose observations differ from the reference's
// there is a survivor after all.
func explore(ctx context.Context, j *trial.Runner, t *task.Task, params map[string]any, m *Mutation, work string, opts Options) error {
	var equiv []int
	for i, r := range m.Mutants {
		if r.Status == Equivalent {
			equiv = append(equiv, i)
		}
	}
	seed := uint64(opts.Mutate.Seed)
	inputs := opts.ExploreInputs
	if inputs == 0 {
		inputs = DefaultExploreInputs
	}
	info := &ExplorationInfo{Controls: len(t.Controls), Seed: seed}
	m.Exploration = info
	if len(equiv) == 0 || inputs < 0 {
		return nil
	}
	ex, n, err := Exploration(t, seed, inputs)
	if err != nil {
		info.Problem = err.Error()
		return nil
	}
	info.Inputs = n
	judge := func(name, page string) (*result.Trial, error) {
		return j.Run(ctx, trial.Input{Key: "explore-" + name, Task: t, Contract: ex, Page: page, Params: params,
			Model: "explore", Candidate: name, Dir: filepath.Join(work, "explore", name), Fingerprint: true, SkipInspect: true})
	}
	// unjudged marks every candidate not judged when the machine was too
	// loaded to explore: their equivalence is not established.
	unjudged := func(why string) {
		for _, i := range equiv {
			if m.Mutants[i].Status == Equivalent && m.Mutants[i].Explored < 0 {
				m.Mutants[i].Status, m.Mutants[i].KilledBy = Unjudged, "exploring: "+why
			}
		}
	}
	ref0, err := judge("reference-0", t.SolutionPath())
	if err != nil {
		return err
	}
	ref1, err := judge("reference-1", t.SolutionPath())
	if err != nil {
		return err
	}
	if ref0.Outcome == result.OutcomeInfra || ref1.Outcome == result.OutcomeInfra {
		unjudged("the reference: " + ref0.CrashMessage + ref1.CrashMessage)
		return nil
	}
	if ref0.StateHash != ref1.StateHash || ref0.Outcome != result.OutcomeOK {
		info.Problem = "the reference does not behave the same way twice under the exploration (or crashed): equivalence is judged by the contract alone"
		return nil
	}
	refTrace, _ := readTrace(filepath.Join(work, "explore", "reference-0", trial.TraceFile))
	for _, i := range equiv {
		r := &m.Mutants[i]
		page := filepath.Join(work, r.ID, "page", task.PageFile)
		tr, err := judge(r.ID, page)
		if err != nil {
			return err
		}
		if tr.Outcome == result.OutcomeInfra {
			r.Status, r.KilledBy = Unjudged, "exploring: "+tr.CrashMessage
			continue
		}
		r.Explored = n
		if tr.StateHash != ref0.StateHash || tr.Outcome != result.OutcomeOK {
			r.Status = Survived
			mine, _ := readTrace(filepath.Join(work, "explore", r.ID, trial.TraceFile))
			r.Difference = fmt.Sprintf("passes the contract with the reference's observations, but differs under exploration (%d inputs, seed %d): %s",
				n, seed, firstDifference(refTrace, mine))
			if tr.Outcome != result.OutcomeOK {
				r.Difference = fmt.Sprintf("passes the contract with the reference's observations, but crashes under exploration (%d inputs, seed %d): %s: %s",
					n, seed, tr.CrashKind, tr.CrashMessage)
			}
		}
	}
	return nil
}

// readTrace reads a trace.jsonl as lines.
func readTrace(file string) ([]string, error) {
	b, err := os.ReadFile(file)
	if err != nil {
		return nil, err
	}
	var lines []string
	start := 0
	for i, c := range b {
		if c == '\n' {
			lines = append(lines, string(b[start:i]))
			start = i + 1
		}
	}
	if start < len(b) {
		lines = append(lines, string(b[start:]))
	}
	return lines, nil
}

// firstDifference describes the first observation where two traces differ.
func firstDifference(ref, mine []string) string {
	for i := 0; i < min(len(ref), len(mine)); i++ {
		if ref[i] != mine[i] {
			return describeObservation(ref[i], mine[i])
		}
	}
	if len(ref) != len(mine) {
		return fmt.Sprintf("the reference read %d states, the mutant %d", len(ref), len(mine))
	}
	return ""
}

// describeObservation says where two observations differ: the probe,
// step and frame, and the first differing value.
func describeObservation(refLine, line string) string {
	type obs struct {
		Probe  string         `json:"probe"`
		Kind   string         `json:"kind"`
		Name   string         `json:"name"`
		Line   int            `json:"line"`
		Frame  int            `json:"frame"`
		State  any            `json:"state"`
		Scene  map[string]any `json:"scene"`
		Pixels string         `json:"pixels"`
	}
	var ref, o obs
	if json.Unmarshal([]byte(refLine), &ref) != nil || json.Unmarshal([]byte(line), &o) != nil {
		return "an observation differs from the reference's"
	}
	where := fmt.Sprintf("probe %s, %s", o.Probe, o.Kind)
	if o.Name != "" {
		where += " " + o.Name
	}
	if o.Line > 0 {
		where += fmt.Sprintf(" (contract line %d)", o.Line)
	}
	where += fmt.Sprintf(", frame %d", o.Frame)
	var what string
	switch {
	case ref.Probe != o.Probe || ref.Kind != o.Kind || ref.Frame != o.Frame || ref.Line != o.Line:
		what = "the runs took different paths"
	case !reflect.DeepEqual(ref.State, o.State):
		what = "state" + firstDiff(ref.State, o.State)
	case !reflect.DeepEqual(ref.Scene, o.Scene):
		what = "scene summary" + firstDiff(any(ref.Scene), any(o.Scene))
	case ref.Pixels != o.Pixels:
		what = "the drawn pixels differ"
	}
	return "differs from the reference at " + where + ": " + what
}

// firstDiff names the first path where a and b differ, with both values.
func firstDiff(a, b any) string {
	switch x := a.(type) {
	case map[string]any:
		if y, ok := b.(map[string]any); ok {
			keys := make([]string, 0, len(x)+len(y))
			for k := range x {
				keys = append(keys, k)
			}
			for k := range y {
				if _, ok := x[k]; !ok {
					keys = append(keys, k)
				}
			}
			sort.Strings(keys)
			for _, k := range keys {
				if !reflect.DeepEqual(x[k], y[k]) {
					return "." + k + firstDiff(x[k], y[k])
				}
			}
		}
	case []any:
		if y, ok := b.([]any); ok && len(x) == len(y) {
			for i := range x {
				if !reflect.DeepEqual(x[i], y[i]) {
					return fmt.Sprintf("[%d]", i) + firstDiff(x[i], y[i])
				}
			}
		}
	}
	ja, _ := json.Marshal(a)
	jb, _ := json.Marshal(b)
	return fmt.Sprintf(" is %s, the reference's %s", abbreviate(string(jb)), abbreviate(string(ja)))
}

func abbreviate(s string) string {
	if len(s) > 80 {
		return s[:77] + "..."
	}
	return s
}

// Hardened reports whether the task passed every check, mutation testing
// included, with at least MinNonEquivalent non-equivalent mutants.
func (r *Report) Hardened() bool {
	return r.OK() && r.Mutation != nil && r.Mutation.NonEquivalent() >= MinNonEquivalent
}

// MinNonEquivalent is how many non-equivalent mutants a task needs before
// a clean mutation run counts as hardening it.
const MinNonEquivalent = 10

// Markdown renders the mutation summary of reports as a Markdown document:
// a table with, per task, its mutants, killed, equivalent, survivors, kill
// rate, fixtures and reference, a total line, and then the survivors, the
// equivalent mutants (excluded from the kill rate, listed so that a reader
// can judge them) and the tasks with fewer than MinNonEquivalent
// non-equivalent mutants.
func Markdown(reports []*Report) string {
	var b strings.Builder
	b.WriteString("| task | alternates | requirements | mutants | killed | equivalent | survived | kill rate | fixtures | reference |\n")
	b.WriteString("|---|---:|---:|---:|---:|---:|---:|---:|---:|---|\n")
	var tot Mutation
	hardened := 0
	var survivors, equivalents, unjudged, few, uncovered, unsandboxed []string
	for _, r := range reports {
		if r.Sandbox != nil && !r.Sandbox.On {
			unsandboxed = append(unsandboxed, "- "+r.Task)
		}
		fx := 0
		for _, f := range r.Fixtures {
			if f.OK {
				fx++
			}
		}
		alt := 0
		for _, a := range r.Alternates {
			if a.OK {
				alt++
			}
		}
		ref := "pass ×" + fmt.Sprint(ReferenceRuns)
		if !r.ReferenceOK || !r.Stable {
			ref = "FAIL"
		}
		reqs := "-"
		if len(r.Requirements) > 0 {
			reqs = fmt.Sprintf("%d/%d", len(r.Requirements)-len(r.Unbroken()), len(r.Requirements))
			if r.Mutation == nil {
				reqs = fmt.Sprintf("%d", len(r.Requirements))
			}
		}
		for _, q := range r.Requirements {
			if len(q.Probes) == 0 {
				uncovered = append(uncovered, fmt.Sprintf("- %s `%s`: covered by no probe", r.Task, q.ID))
			} else if r.Mutation != nil && len(q.BrokenBy) == 0 {
				uncovered = append(uncovered, fmt.Sprintf("- %s `%s`: no fixture or mutant broke %s", r.Task, q.ID, strings.Join(q.Probes, ", ")))
			}
		}
		alts := fmt.Sprintf("%d/%d", alt, len(r.Alternates))
		m := r.Mutation
		if m == nil {
			fmt.Fprintf(&b, "| %s | %s | %s | - | - | - | - | - | %d/%d | %s |\n", r.Task, alts, reqs, fx, len(r.Fixtures), ref)
			continue
		}
		tot.Total += m.Total
		tot.Killed += m.Killed
		tot.Equivalent += m.Equivalent
		tot.Survived += m.Survived
		fmt.Fprintf(&b, "| %s | %s | %s | %d | %d | %d | %d | %.1f%% | %d/%d | %s |\n", r.Task, alts, reqs, m.Total, m.Killed, m.Equivalent, m.Survived,
			100*m.KillRate(), fx, len(r.Fixtures), ref)
		if r.Hardened() {
			hardened++
		}
		if m.NonEquivalent() < MinNonEquivalent {
			few = append(few, fmt.Sprintf("- %s: %d non-equivalent mutants", r.Task, m.NonEquivalent()))
		}
		for _, x := range m.Mutants {
			line := fmt.Sprintf("- %s `%s` (line %d): %s", r.Task, x.ID, x.Line, mdCode(x.Description))
			switch x.Status {
			case Survived:
				survivors = append(survivors, line+"; "+mdCode(x.Difference))
			case Unjudged:
				unjudged = append(unjudged, line+"; "+mdCode(x.KilledBy))
			case Equivalent:
				switch {
				case x.Explored > 0:
					line += fmt.Sprintf(" — also alike under exploration with %d inputs", x.Explored)
				case x.Explored == 0:
					line += " — also alike under exploration (no controls: time only)"
				default:
					line += " — not explored"
					if m.Exploration != nil && m.Exploration.Problem != "" {
						line += ": " + mdCode(m.Exploration.Problem)
					}
				}
				equivalents = append(equivalents, line)
			}
		}
	}
	fmt.Fprintf(&b, "| **all %d tasks** | | | %d | %d | %d | %d | %.1f%% | | |\n", len(reports), tot.Total, tot.Killed, tot.Equivalent, tot.Survived, 100*tot.KillRate())
	fmt.Fprintf(&b, "\n%d of %d tasks hardened (clean, no survivor, at least %d non-equivalent mutants).\n", hardened, len(reports), MinNonEquivalent)
	section := func(title string, lines []string) {
		if len(lines) > 0 {
			fmt.Fprintf(&b, "\n### %s\n\n%s\n", title, strings.Join(lines, "\n"))
		}
	}
	section("Checked WITHOUT Chromium's sandbox (--unsafe-no-sandbox)", unsandboxed)
	section("Survivors", survivors)
	section("Not judged: the machine was overloaded (judge again with --mutants ID)", unjudged)
	section("Equivalent mutants (excluded from the kill rate)", equivalents)
	section(fmt.Sprintf("Fewer than %d non-equivalent mutants", MinNonEquivalent), few)
	section("Requirements not shown breakable", uncovered)
	b.WriteString(coverageTables(reports))
	return b.String()
}

// coverageTables renders, per task, its requirements with their covering
// probes and what broke them, folded (one <details> per task).
func coverageTables(reports []*Report) string {
	var b strings.Builder
	started := false
	for _, r := range reports {
		if len(r.Requirements) == 0 {
			continue
		}
		if !started {
			b.WriteString("\n### Requirement coverage\n\n")
			started = true
		}
		fmt.Fprintf(&b, "<details><summary>%s: %d requirements</summary>\n\n| requirement | section | probes | broken by |\n|---|---|---|---|\n", r.Task, len(r.Requirements))
		for _, q := range r.Requirements {
			broken := strings.Join(q.BrokenBy, ", ")
			if len(q.BrokenBy) > 4 {
				broken = strings.Join(q.BrokenBy[:4], ", ") + fmt.Sprintf(", … (%d)", len(q.BrokenBy))
			}
			if broken == "" {
				broken = "-"
			}
			fmt.Fprintf(&b, "| `%s` | %s | %s | %s |\n", q.ID, q.Section, strings.Join(q.Probes, ", "), broken)
		}
		b.WriteString("\n</details>\n")
	}
	return b.String()
}

// KillRates renders the kill rate of each task at each mutant seed, from
// report sets judged at different seeds (each set one seed): a contract
// hardened against one seed's mutants is measured on another's.
func KillRates(sets [][]*Report) string {
	if len(sets) == 0 {
		return ""
	}
	var seeds []string
	byTask := map[string][]string{}
	var order []string
	killed, nonEq, unjudged := make([]int, len(sets)), make([]int, len(sets)), make([]int, len(sets))
	var survivors []string
	for i, set := range sets {
		seed := "?"
		for _, r := range set {
			if r.Mutation != nil && r.Mutation.Selection != nil {
				seed = fmt.Sprint(r.Mutation.Selection.Seed)
				break
			}
		}
		seeds = append(seeds, "seed "+seed)
		for _, r := range set {
			if _, ok := byTask[r.Task]; !ok {
				order = append(order, r.Task)
				byTask[r.Task] = make([]string, len(sets))
			}
			cell := "-"
			if m := r.Mutation; m != nil {
				cell = fmt.Sprintf("%.1f%% (%d/%d)", 100*m.KillRate(), m.Killed, m.NonEquivalent())
				if m.Unjudged > 0 {
					cell = fmt.Sprintf("%.1f%% (%d/%d, %d unjudged)", 100*m.KillRate(), m.Killed, m.NonEquivalent(), m.Unjudged)
				}
				killed[i], nonEq[i], unjudged[i] = killed[i]+m.Killed, nonEq[i]+m.NonEquivalent(), unjudged[i]+m.Unjudged
				for _, mu := range m.Mutants {
					if mu.Status == Survived {
						survivors = append(survivors, fmt.Sprintf("- seed %s, %s `%s` (line %d): %s — %s", seed, r.Task, mu.ID, mu.Line, mu.Description, mu.Difference))
					}
				}
			}
			byTask[r.Task][i] = cell
		}
	}
	sort.Strings(order)
	var b strings.Builder
	b.WriteString("| task | " + strings.Join(seeds, " | ") + " |\n|---|" + strings.Repeat("---:|", len(seeds)) + "\n")
	for _, t := range order {
		cells := byTask[t]
		for i, c := range cells {
			if c == "" {
				cells[i] = "-"
			}
		}
		b.WriteString("| " + t + " | " + strings.Join(cells, " | ") + " |\n")
	}
	totals := make([]string, len(sets))
	for i := range sets {
		rate := 0.0
		if nonEq[i] > 0 {
			rate = float64(killed[i]) / float64(nonEq[i])
		}
		totals[i] = fmt.Sprintf("**%.1f%%** (%d/%d)", 100*rate, killed[i], nonEq[i])
		if unjudged[i] > 0 {
			totals[i] = fmt.Sprintf("**%.1f%%** (%d/%d, %d unjudged)", 100*rate, killed[i], nonEq[i], unjudged[i])
		}
	}
	b.WriteString("| **all** | " + strings.Join(totals, " | ") + " |\n")
	if len(survivors) > 0 {
		b.WriteString("\nSurvivors:\n\n" + strings.Join(survivors, "\n") + "\n")
	}
	return b.String()
}

// Document is Markdown under a heading and a paragraph saying how the
// mutants were chosen (from the reports' selections) and how to read it:
// what 'task check --summary' and 'task summarize' write.
func Document(reports []*Report) string {
	sels := map[string]bool{}
	var sel []string
	for _, r := range reports {
		if r.Mutation == nil {
			continue
		}
		o := r.Mutation.Selection
		d := ""
		switch {
		case o == nil:
			d = "selection not recorded"
		case len(o.IDs) > 0:
			d = "chosen mutants (--mutants)"
		case o.Max == 0:
			d = "every mutant"
		default:
			d = fmt.Sprintf("up to %d mutants per task at seed %d", o.Max, o.Seed)
		}
		if o != nil && len(o.Operators) > 0 {
			d += ", operators " + strings.Join(o.Operators, ", ")
		}
		if !sels[d] {
			sels[d] = true
			sel = append(sel, d)
		}
	}
	how := "no mutation testing"
	if len(sel) > 0 {
		how = strings.Join(sel, "; ")
	}
	return "# Mutation summary\n\n" +
		"`worldprobe task check` on " + fmt.Sprint(len(reports)) + " tasks (" + how + "). Per task: lint, the " +
		"reference ×3 (fingerprinted), every alternate solution ×3 (written blind from the prompt alone), " +
		"every fixture, then the mutants: **killed** (an assertion failed or " +
		"the page crashed), **equivalent** (passed and read exactly the reference's states, scene summaries " +
		"and pixels, and behaved like the reference under a seeded exploration with the task's controls: excluded), " +
		"**survived** (passed, yet behaved differently: the contract is too weak). **requirements**: of the brief's " +
		"requirements, those whose covering probes a fixture or killed mutant broke. " +
		"How to read and fix a report: [authoring.md](authoring.md).\n\n" + Markdown(reports)
}

// mdCode keeps backquoted code from breaking a Markdown list line.
func mdCode(s string) string {
	return strings.ReplaceAll(strings.ReplaceAll(s, "|", "\\|"), "\n", " ")
}
