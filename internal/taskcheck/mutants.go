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
	"sync"

	"github.com/worldprobe/worldprobe/internal/contract"
	"github.com/worldprobe/worldprobe/internal/mutate"
	"github.com/worldprobe/worldprobe/internal/result"
	"github.com/worldprobe/worldprobe/internal/task"
	"github.com/worldprobe/worldprobe/internal/trial"
)

// Mutant statuses.
const (
	// Killed: some assertion did not pass, or the page crashed.
	Killed = "killed"
	// Equivalent: every assertion passed and the mutant read exactly the
	// reference's states, scene summaries and pixels over the contract's
	// probes: no probe can tell them apart, so it does not count.
	Equivalent = "equivalent"
	// Survived: every assertion passed, yet the mutant behaved differently
	// from the reference. The contract is too weak.
	Survived = "survived"
)

// MutantResult is one mutant's fate.
type MutantResult struct {
	mutate.Mutant
	Status string `json:"status"`
	// KilledBy names what killed it: "probe: expr: message" or "crash (kind): message".
	KilledBy string `json:"killed_by,omitempty"`
	// Difference says, for a survivor, where it first differed from the
	// reference (probe, kind, line, frame).
	Difference string `json:"difference,omitempty"`
}

// Mutation is the mutation-testing part of a task check.
type Mutation struct {
	Mutants    []MutantResult `json:"mutants"`
	Total      int            `json:"total"`
	Killed     int            `json:"killed"`
	Equivalent int            `json:"equivalent"`
	Survived   int            `json:"survived"`
	// Stats are the generator's counts (sites enumerated, dropped, per operator).
	Stats mutate.Stats `json:"stats"`
	// Selection is how the mutants were chosen (seed, maximum, operators, IDs).
	// Nil in reports written before it was recorded.
	Selection *mutate.Options `json:"selection,omitempty"`
}

// NonEquivalent is the number of mutants that count.
func (m *Mutation) NonEquivalent() int { return m.Total - m.Equivalent }

// KillRate is killed over non-equivalent mutants (1 when there are none).
func (m *Mutation) KillRate() float64 {
	if m.NonEquivalent() == 0 {
		return 1
	}
	return float64(m.Killed) / float64(m.NonEquivalent())
}

// Hardened reports whether every non-equivalent mutant was killed.
func (m *Mutation) Hardened() bool { return m.Survived == 0 }

// runMutants generates mutants of t's reference and judges each.
func runMutants(ctx context.Context, j *trial.Judge, t *task.Task, c *contract.Contract, params map[string]any, refHash, work string, opts Options) (*Mutation, error) {
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
	jobs := max(1, opts.Jobs)
	sem := make(chan struct{}, jobs)
	var wg sync.WaitGroup
	var mu sync.Mutex
	var firstErr error
	done := 0
	for i, mu8 := range gen.Mutants {
		wg.Add(1)
		go func() {
			defer wg.Done()
			sem <- struct{}{}
			defer func() { <-sem }()
			if ctx.Err() != nil {
				return
			}
			r, err := judgeMutant(ctx, j, t, c, params, mu8, refHash, refTrace, filepath.Join(work, mu8.ID))
			mu.Lock()
			defer mu.Unlock()
			if err != nil {
				if firstErr == nil {
					firstErr = fmt.Errorf("mutant %s: %w", mu8.ID, err)
				}
				return
			}
			m.Mutants[i] = r
			done++
			if opts.Progress != nil {
				opts.Progress(t.ID, done, len(gen.Mutants))
			}
		}()
	}
	wg.Wait()
	if firstErr != nil {
		return nil, firstErr
	}
	if err := ctx.Err(); err != nil {
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
		}
	}
	return m, nil
}

// judgeMutant writes the mutant next to copies of the reference's other
// files and judges it, stopping at the first failed assertion.
func judgeMutant(ctx context.Context, j *trial.Judge, t *task.Task, c *contract.Contract, params map[string]any,
	mt mutate.Mutant, refHash string, refTrace []string, dir string) (MutantResult, error) {
	out := MutantResult{Mutant: mt}
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
	case tr.Outcome == result.OutcomeCrash:
		out.Status, out.KilledBy = Killed, fmt.Sprintf("crash (%s): %s", tr.CrashKind, tr.CrashMessage)
	case len(tr.Failed()) > 0:
		a := tr.Failed()[0]
		out.Status, out.KilledBy = Killed, fmt.Sprintf("%s: %s: %s", a.Probe, a.Expr, a.Message)
	case tr.StateHash == refHash:
		out.Status = Equivalent
	default:
		out.Status = Survived
		mine, _ := readTrace(filepath.Join(dir, "trial", trial.TraceFile))
		out.Difference = firstDifference(refTrace, mine)
	}
	return out, nil
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
	b.WriteString("| task | mutants | killed | equivalent | survived | kill rate | fixtures | reference |\n")
	b.WriteString("|---|---:|---:|---:|---:|---:|---:|---|\n")
	var tot Mutation
	hardened := 0
	var survivors, equivalents, few []string
	for _, r := range reports {
		fx := 0
		for _, f := range r.Fixtures {
			if f.OK {
				fx++
			}
		}
		ref := "pass ×" + fmt.Sprint(ReferenceRuns)
		if !r.ReferenceOK || !r.Stable {
			ref = "FAIL"
		}
		m := r.Mutation
		if m == nil {
			fmt.Fprintf(&b, "| %s | - | - | - | - | - | %d/%d | %s |\n", r.Task, fx, len(r.Fixtures), ref)
			continue
		}
		tot.Total += m.Total
		tot.Killed += m.Killed
		tot.Equivalent += m.Equivalent
		tot.Survived += m.Survived
		fmt.Fprintf(&b, "| %s | %d | %d | %d | %d | %.1f%% | %d/%d | %s |\n", r.Task, m.Total, m.Killed, m.Equivalent, m.Survived,
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
			case Equivalent:
				equivalents = append(equivalents, line)
			}
		}
	}
	fmt.Fprintf(&b, "| **all %d tasks** | %d | %d | %d | %d | %.1f%% | | |\n", len(reports), tot.Total, tot.Killed, tot.Equivalent, tot.Survived, 100*tot.KillRate())
	fmt.Fprintf(&b, "\n%d of %d tasks hardened (clean, no survivor, at least %d non-equivalent mutants).\n", hardened, len(reports), MinNonEquivalent)
	section := func(title string, lines []string) {
		if len(lines) > 0 {
			fmt.Fprintf(&b, "\n### %s\n\n%s\n", title, strings.Join(lines, "\n"))
		}
	}
	section("Survivors", survivors)
	section("Equivalent mutants (excluded from the kill rate)", equivalents)
	section(fmt.Sprintf("Fewer than %d non-equivalent mutants", MinNonEquivalent), few)
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
		"reference ×3 (fingerprinted), every fixture, then the mutants: **killed** (an assertion failed or " +
		"the page crashed), **equivalent** (passed and read exactly the reference's states, scene summaries " +
		"and pixels: excluded), **survived** (passed, yet behaved differently: the contract is too weak). " +
		"How to read and fix a report: [authoring.md](authoring.md).\n\n" + Markdown(reports)
}

// mdCode keeps backquoted code from breaking a Markdown list line.
func mdCode(s string) string {
	return strings.ReplaceAll(strings.ReplaceAll(s, "|", "\\|"), "\n", " ")
}
