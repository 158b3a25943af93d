// Package taskcheck verifies a task before it is used: its files lint clean,
// its reference solution passes every assertion three times with identical
// verdicts and state hashes, each flawed fixture fails where its expect.yaml
// says, and (mutation testing) the contract kills every non-equivalent
// mutant of the reference.
package taskcheck

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"reflect"

	"github.com/worldprobe/worldprobe/internal/browser"
	"github.com/worldprobe/worldprobe/internal/contract"
	"github.com/worldprobe/worldprobe/internal/mutate"
	"github.com/worldprobe/worldprobe/internal/result"
	"github.com/worldprobe/worldprobe/internal/run"
	"github.com/worldprobe/worldprobe/internal/task"
	"github.com/worldprobe/worldprobe/internal/trial"
)

// ReferenceRuns is how many times the reference is judged.
const ReferenceRuns = 3

// FixtureResult is one fixture's check.
type FixtureResult struct {
	Name    string        `json:"name"`
	OK      bool          `json:"ok"`
	Message string        `json:"message"`
	Trial   *result.Trial `json:"trial"`
}

// Report is the outcome of checking one task.
type Report struct {
	Task          string          `json:"task"`
	Lint          []string        `json:"lint"`
	ReferenceOK   bool            `json:"reference_ok"`
	ReferenceMsgs []string        `json:"reference_problems"`
	Stable        bool            `json:"stable"`
	Fixtures      []FixtureResult `json:"fixtures"`
	Reference     *result.Trial   `json:"reference"`
	// Alternates are the task's alternate solutions (solutions/<style>/),
	// each judged ReferenceRuns times like the reference.
	Alternates []AlternateResult `json:"alternates"`
	// Scaffold is the check of the task's scaffold (task.yaml's scaffold:),
	// nil for a task without one.
	Scaffold *ScaffoldResult `json:"scaffold,omitempty"`
	// Mutation is set when mutants were run.
	Mutation *Mutation `json:"mutation,omitempty"`
	// Partial says what a partial check (Options.OnlyMutants) left out.
	Partial string `json:"partial,omitempty"`
	// Fingerprint identifies what the report was made from (the task's
	// files and the check's options) when it is kept in a reports folder
	// (task check --reports), so a resumed check knows what it can keep.
	Fingerprint string `json:"fingerprint,omitempty"`
	// Requirements is the brief's requirements with the probes that cover
	// them and what showed those probes can break.
	Requirements []RequirementCoverage `json:"requirements"`
	// Sandbox is how the browser that made the report was confined.
	Sandbox *browser.Sandbox `json:"sandbox,omitempty"`
	// World is what the world judge made of a world-judged task's
	// reference (task.yaml judge:; world.go), nil for a task with a
	// contract.
	World *WorldCheck `json:"world,omitempty"`
}

// RequirementCoverage is one requirement of the brief in a check.
type RequirementCoverage struct {
	task.Requirement
	// Probes cover the requirement (their covers: name it).
	Probes []string `json:"probes"`
	// BrokenBy lists the fixtures ("fixture NAME") and killed mutants
	// ("mutant ID") that fail one of those probes: proof that the covering
	// probes can break. Empty means no fixture or judged mutant showed it.
	BrokenBy []string `json:"broken_by"`
}

// Unbroken lists the requirements whose covering probes no fixture or
// judged mutant broke.
func (r *Report) Unbroken() []string {
	var out []string
	for _, q := range r.Requirements {
		if len(q.BrokenBy) == 0 {
			out = append(out, q.ID)
		}
	}
	return out
}

// chosenByID reports whether only mutants named by id were judged (task
// check --mutants): a subset that need not break every requirement.
func (m *Mutation) chosenByID() bool { return m.Selection != nil && len(m.Selection.IDs) > 0 }

// AlternateResult is one alternate solution's check: like the reference, it
// must pass every assertion ReferenceRuns times with identical verdicts and
// state hashes.
type AlternateResult struct {
	Style    string        `json:"style"`
	OK       bool          `json:"ok"`
	Problems []string      `json:"problems"`
	Trial    *result.Trial `json:"trial"`
}

// ScaffoldResult is the check of a task's scaffold: judged once, every
// probe labelled fail_to_pass must fail on it (at least one assertion that
// does not pass) and every probe labelled pass_to_pass must pass.
type ScaffoldResult struct {
	OK bool `json:"ok"`
	// Problems are the labelled probes that broke their label, each as
	// "contract.yaml:LINE: …", and a scaffold that could not be judged.
	Problems []string `json:"problems"`
	// Probes are the labelled probes with what the scaffold did in each.
	Probes []ScaffoldProbe `json:"probes"`
	Trial  *result.Trial   `json:"trial"`
}

// ScaffoldProbe is one labelled probe judged on the scaffold.
type ScaffoldProbe struct {
	Name string `json:"name"`
	// Kind is contract.KindFailToPass or contract.KindPassToPass.
	Kind string `json:"kind"`
	// Passed: every assertion of the probe passed on the scaffold.
	Passed bool `json:"passed"`
	// As says whether the probe did on the scaffold what its kind asks.
	As bool `json:"as_labelled"`
}

// judgeScaffold judges t's scaffold once and holds every labelled probe
// to its kind.
func judgeScaffold(ctx context.Context, j *trial.Runner, t *task.Task, c *contract.Contract, params map[string]any, dir string) (*ScaffoldResult, error) {
	out := &ScaffoldResult{OK: true, Problems: []string{}, Probes: []ScaffoldProbe{}}
	page := t.ScaffoldPath()
	if _, err := os.Stat(page); err != nil {
		out.OK = false
		out.Problems = append(out.Problems, "no scaffold page: "+err.Error())
		return out, nil
	}
	tr, err := j.Run(ctx, trial.Input{Key: "scaffold", Task: t, Contract: c, Page: page, Params: params,
		Model: "scaffold", Candidate: "scaffold", Dir: dir})
	if err != nil {
		return nil, err
	}
	out.Trial = tr
	if tr.Outcome == result.OutcomeInfra {
		out.OK = false
		out.Problems = append(out.Problems, "not judged: "+tr.CrashMessage)
		return out, nil
	}
	failed := map[string]bool{}
	for _, a := range tr.Failed() {
		failed[a.Probe] = true
	}
	crash := ""
	if tr.Outcome == result.OutcomeCrash {
		crash = fmt.Sprintf(" (the scaffold crashed: %s: %s)", tr.CrashKind, tr.CrashMessage)
	}
	for _, p := range c.Probes {
		if p.Kind == "" {
			continue
		}
		passed := !failed[p.Name] && tr.Outcome != result.OutcomeCrash
		sp := ScaffoldProbe{Name: p.Name, Kind: p.Kind, Passed: passed}
		switch {
		case p.Kind == contract.KindFailToPass && passed:
			out.Problems = append(out.Problems, (&contract.PosError{File: c.File, Line: p.Line,
				Msg: fmt.Sprintf("probe %s is fail_to_pass but passes on the scaffold %s: it does not test the change the task asks for", p.Name, t.Scaffold)}).Error())
		case p.Kind == contract.KindPassToPass && !passed:
			out.Problems = append(out.Problems, (&contract.PosError{File: c.File, Line: p.Line,
				Msg: fmt.Sprintf("probe %s is pass_to_pass but fails on the scaffold %s%s: %s", p.Name, t.Scaffold, crash, firstFailure(tr, p.Name))}).Error())
		default:
			sp.As = true
		}
		out.Probes = append(out.Probes, sp)
	}
	out.OK = len(out.Problems) == 0
	return out, nil
}

// firstFailure is the first assertion of probe that did not pass in tr,
// described for a message.
func firstFailure(tr *result.Trial, probe string) string {
	for _, a := range tr.Failed() {
		if a.Probe == probe {
			return fmt.Sprintf("%s at line %d: %s", a.Status, a.Line, a.Message)
		}
	}
	return "it did not run"
}

// solutionCheck is a correct solution judged ReferenceRuns times.
type solutionCheck struct {
	first      *result.Trial
	ok, stable bool
	problems   []string
	err        error // infrastructure
}

// compareRun takes run i (from 0) of a page that must pass into out: the
// first run is kept; a later one whose verdicts differ from the first's,
// or whose state hash does (unlike is what that means, e.g. which files
// differ), makes the page unstable; a crash or an infrastructure error
// fails it. It reports whether the check stops at this run.
func (out *solutionCheck) compareRun(i int, tr *result.Trial, unlike string) (stop bool) {
	if i == 0 {
		out.first = tr
	} else if !reflect.DeepEqual(out.first.Assertions, tr.Assertions) {
		out.stable = false
		out.problems = append(out.problems, fmt.Sprintf("run %d gave different verdicts than run 1", i+1))
	} else if tr.StateHash != out.first.StateHash {
		out.stable = false
		out.problems = append(out.problems, fmt.Sprintf("run %d %s", i+1, unlike))
	}
	switch tr.Outcome {
	case result.OutcomeCrash:
		out.ok = false
		out.problems = append(out.problems, fmt.Sprintf("run %d: crash (%s): %s", i+1, tr.CrashKind, tr.CrashMessage))
		return true
	case result.OutcomeInfra:
		out.ok = false
		out.problems = append(out.problems, fmt.Sprintf("run %d: not judged: %s", i+1, tr.CrashMessage))
		return true
	}
	return false
}

// judgeSolution judges a page that must pass: every assertion, ReferenceRuns
// times, with identical verdicts and state hashes. It stops at the first
// run that does not pass.
func judgeSolution(ctx context.Context, j *trial.Runner, t *task.Task, c *contract.Contract, params map[string]any,
	name, page, dir string, fingerprint bool, progress func(done, total int)) solutionCheck {
	out := solutionCheck{ok: true, stable: true, problems: []string{}}
	for i := 0; i < ReferenceRuns; i++ {
		runDir := filepath.Join(dir, fmt.Sprint(i))
		tr, err := j.Run(ctx, trial.Input{Key: fmt.Sprintf("%s-%d", name, i), Task: t, Contract: c, Page: page,
			Params: params, Model: "oracle", Candidate: name, Sample: i, Dir: runDir, Fingerprint: fingerprint})
		if err != nil {
			out.err = err
			return out
		}
		progress(i+1, ReferenceRuns)
		if out.compareRun(i, tr, fmt.Sprintf("read different states than run 1 (trace %s differs from %s)",
			filepath.Join(runDir, trial.TraceFile), filepath.Join(dir, "0", trial.TraceFile))) {
			return out
		}
		for _, a := range tr.Failed() {
			out.ok = false
			out.problems = append(out.problems, fmt.Sprintf("run %d: %s %s/%s: %s", i+1, a.Status, a.Level, a.Probe, a.Message))
		}
		if !out.ok {
			return out
		}
	}
	return out
}

// OK reports whether the task passed every check.
func (r *Report) OK() bool {
	if len(r.Lint) > 0 || !r.ReferenceOK || !r.Stable {
		return false
	}
	for _, f := range r.Fixtures {
		if !f.OK {
			return false
		}
	}
	for _, a := range r.Alternates {
		if !a.OK {
			return false
		}
	}
	if r.Scaffold != nil && !r.Scaffold.OK {
		return false
	}
	// Without fixtures, or with only the mutants asked for by id, a
	// requirement may be unbroken only for want of them.
	if r.Mutation != nil && r.Partial == "" && !r.Mutation.chosenByID() && len(r.Unbroken()) > 0 {
		return false
	}
	return r.Mutation == nil || r.Mutation.Hardened()
}

// Options configure Check.
type Options struct {
	// Mutants runs mutation testing (see Mutation).
	Mutants bool
	// Mutate selects the mutants (seed, maximum, operators).
	Mutate mutate.Options
	// Jobs is how many mutants are judged at once; 0 means 1.
	Jobs int
	// Progress, when set, is told about each trial as it finishes: phase
	// is "reference run", "alternate <style> run", "scaffold", "fixture" or "mutant",
	// done of total in that phase.
	Progress func(task, phase string, done, total int)
	// ExploreInputs is how many inputs the exploration that confirms an
	// equivalent mutant sends; 0 means DefaultExploreInputs, < 0 none.
	ExploreInputs int
	// OnlyMutants judges the reference and the mutants only, not the
	// alternates and fixtures: for measuring the kill rate at another
	// mutant seed once the full check is clean. The report says so
	// (Report.Partial).
	OnlyMutants bool
}

// progress is Progress for one phase of t's check (a no-op when unset).
func (o Options) progress(t *task.Task, phase string) func(done, total int) {
	return func(done, total int) {
		if o.Progress != nil {
			o.Progress(t.ID, phase, done, total)
		}
	}
}

// Check runs every check of t. work is a scratch folder for artifacts.
func Check(ctx context.Context, j *trial.Runner, t *task.Task, work string, opts Options) (*Report, error) {
	rep := &Report{Task: t.ID, Lint: []string{}, ReferenceMsgs: []string{}, Stable: true, Alternates: []AlternateResult{},
		Requirements: []RequirementCoverage{}}
	if j.Browser != nil {
		sb := j.Browser.Sandbox()
		rep.Sandbox = &sb
	}
	for _, f := range task.Lint(t) {
		rep.Lint = append(rep.Lint, f.String())
	}
	if t.WorldJudged() {
		return checkWorld(ctx, j, t, work, opts, rep)
	}
	c, err := contract.Load(t.ContractPath())
	if err != nil {
		// Lint reported it; nothing more can run.
		rep.ReferenceMsgs = append(rep.ReferenceMsgs, err.Error())
		return rep, nil
	}
	if _, err := os.Stat(t.SolutionPath()); err != nil {
		rep.ReferenceMsgs = append(rep.ReferenceMsgs, "no reference solution: "+err.Error())
		return rep, nil
	}
	params := t.DefaultParams()
	// The reference is fingerprinted (scene and pixels too) so that mutants
	// can be compared with it, and so that its stability covers everything
	// the comparison reads.
	ref := judgeSolution(ctx, j, t, c, params, "solution", t.SolutionPath(), filepath.Join(work, "reference"), opts.Mutants,
		opts.progress(t, "reference run"))
	if ref.err != nil {
		return nil, ref.err
	}
	rep.Reference, rep.ReferenceOK, rep.Stable, rep.ReferenceMsgs = ref.first, ref.ok, ref.stable, ref.problems
	if opts.OnlyMutants {
		rep.Partial = "only the reference and the mutants were judged: alternates and fixtures were not"
	} else if stop, err := judgeAlternatesAndFixtures(ctx, j, t, c, params, work, rep, opts); err != nil {
		return nil, err
	} else if stop {
		return rep, nil
	}
	if opts.Mutants && rep.ReferenceOK && rep.Stable {
		m, err := runMutants(ctx, j, t, c, params, rep.Reference.StateHash, filepath.Join(work, "mutants"), opts)
		if err != nil {
			return nil, err
		}
		rep.Mutation = m
	}
	rep.Requirements = requirementCoverage(t, c, rep)
	return rep, nil
}

// judgeAlternatesAndFixtures judges t's alternate solutions and fixtures
// into rep. stop reports a problem found by lint that ends the check.
func judgeAlternatesAndFixtures(ctx context.Context, j *trial.Runner, t *task.Task, c *contract.Contract, params map[string]any, work string, rep *Report, opts Options) (stop bool, err error) {
	alts, err := t.Alternates()
	if err != nil {
		rep.Lint = append(rep.Lint, err.Error())
	}
	rep.Alternates = []AlternateResult{}
	for _, a := range alts {
		r := judgeSolution(ctx, j, t, c, params, a.Style, a.Page, filepath.Join(work, "alternates", a.Style), false,
			opts.progress(t, "alternate "+a.Style+" run"))
		if r.err != nil {
			return false, r.err
		}
		rep.Alternates = append(rep.Alternates, AlternateResult{Style: a.Style, OK: r.ok && r.stable, Problems: r.problems, Trial: r.first})
	}
	if t.Scaffold != "" {
		sc, err := judgeScaffold(ctx, j, t, c, params, filepath.Join(work, "scaffold"))
		if err != nil {
			return false, err
		}
		rep.Scaffold = sc
		opts.progress(t, "scaffold")(1, 1)
	}
	return judgeFixtures(ctx, j, t, c, params, work, rep, opts)
}

// judgeFixtures judges t's fixtures into rep (c is nil for a world-judged
// task: the runner's world judge grades them). stop reports a problem
// found by lint that ends the check.
func judgeFixtures(ctx context.Context, j *trial.Runner, t *task.Task, c *contract.Contract, params map[string]any, work string, rep *Report, opts Options) (stop bool, err error) {
	fixtures, err := t.Fixtures()
	if err != nil {
		rep.Lint = append(rep.Lint, err.Error())
		return true, nil
	}
	for i, fx := range fixtures {
		tr, err := j.Run(ctx, trial.Input{Key: "fixture-" + fx.Name, Task: t, Contract: c, Page: fx.Page, Params: params,
			Model: "fixtures", Candidate: fx.Name, Dir: filepath.Join(work, "fixtures", fx.Name)})
		if err != nil {
			return false, err
		}
		ok, msg := run.CheckFixture(tr, fx.Expect)
		rep.Fixtures = append(rep.Fixtures, FixtureResult{Name: fx.Name, OK: ok, Message: msg, Trial: tr})
		opts.progress(t, "fixture")(i+1, len(fixtures))
	}
	return false, nil
}

// requirementCoverage maps each requirement of t's brief to its covering
// probes and to the fixtures and killed mutants that fail one of them.
func requirementCoverage(t *task.Task, c *contract.Contract, rep *Report) []RequirementCoverage {
	reqs, _, err := t.Requirements()
	if err != nil {
		return []RequirementCoverage{}
	}
	cov := task.Coverage(reqs, c)
	failedIn := map[string][]string{} // probe → fixtures and mutants that failed it
	for _, f := range rep.Fixtures {
		if f.Trial == nil {
			continue
		}
		seen := map[string]bool{}
		for _, a := range f.Trial.Failed() {
			if !seen[a.Probe] {
				seen[a.Probe] = true
				failedIn[a.Probe] = append(failedIn[a.Probe], "fixture "+f.Name)
			}
		}
	}
	if rep.Mutation != nil {
		for _, m := range rep.Mutation.Mutants {
			if m.Status == Killed && m.KilledIn != "" {
				failedIn[m.KilledIn] = append(failedIn[m.KilledIn], "mutant "+m.ID)
			}
		}
	}
	out := make([]RequirementCoverage, 0, len(reqs))
	for _, r := range reqs {
		rc := RequirementCoverage{Requirement: r, Probes: cov[r.ID], BrokenBy: []string{}}
		if rc.Probes == nil {
			rc.Probes = []string{}
		}
		seen := map[string]bool{}
		for _, p := range rc.Probes {
			for _, by := range failedIn[p] {
				if !seen[by] {
					seen[by] = true
					rc.BrokenBy = append(rc.BrokenBy, by)
				}
			}
		}
		out = append(out, rc)
	}
	return out
}
