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
	// Mutation is set when mutants were run.
	Mutation *Mutation `json:"mutation,omitempty"`
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
	// Progress, when set, is told about each judged mutant.
	Progress func(task string, done, total int)
}

// Check runs every check of t. work is a scratch folder for artifacts.
func Check(ctx context.Context, j *trial.Judge, t *task.Task, work string, opts Options) (*Report, error) {
	rep := &Report{Task: t.ID, Lint: []string{}, ReferenceMsgs: []string{}, Stable: true}
	for _, f := range task.Lint(t) {
		rep.Lint = append(rep.Lint, f.String())
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
	var first []result.Assertion
	rep.ReferenceOK = true
	for i := 0; i < ReferenceRuns; i++ {
		// The reference is fingerprinted (scene and pixels too) so that
		// mutants can be compared with it, and so that its stability
		// covers everything the comparison reads.
		tr, err := j.Run(ctx, trial.Input{Key: fmt.Sprintf("reference-%d", i), Task: t, Contract: c, Page: t.SolutionPath(),
			Params: params, Model: "oracle", Candidate: "solution", Sample: i, Dir: filepath.Join(work, "reference", fmt.Sprint(i)),
			Fingerprint: opts.Mutants})
		if err != nil {
			return nil, err
		}
		if i == 0 {
			rep.Reference = tr
			first = tr.Assertions
		} else if !reflect.DeepEqual(first, tr.Assertions) {
			rep.Stable = false
			rep.ReferenceMsgs = append(rep.ReferenceMsgs, fmt.Sprintf("run %d gave different verdicts than run 1", i+1))
		} else if tr.StateHash != rep.Reference.StateHash {
			rep.Stable = false
			rep.ReferenceMsgs = append(rep.ReferenceMsgs, fmt.Sprintf("run %d read different states than run 1 (trace %s differs from %s)", i+1,
				filepath.Join(work, "reference", fmt.Sprint(i), trial.TraceFile), filepath.Join(work, "reference", "0", trial.TraceFile)))
		}
		if tr.Outcome == result.OutcomeCrash {
			rep.ReferenceOK = false
			rep.ReferenceMsgs = append(rep.ReferenceMsgs, fmt.Sprintf("run %d: crash (%s): %s", i+1, tr.CrashKind, tr.CrashMessage))
			break
		}
		for _, a := range tr.Failed() {
			rep.ReferenceOK = false
			rep.ReferenceMsgs = append(rep.ReferenceMsgs, fmt.Sprintf("run %d: %s %s/%s: %s", i+1, a.Status, a.Level, a.Probe, a.Message))
		}
		if !rep.ReferenceOK {
			break
		}
	}
	fixtures, err := t.Fixtures()
	if err != nil {
		rep.Lint = append(rep.Lint, err.Error())
		return rep, nil
	}
	for _, fx := range fixtures {
		tr, err := j.Run(ctx, trial.Input{Key: "fixture-" + fx.Name, Task: t, Contract: c, Page: fx.Page, Params: params,
			Model: "fixtures", Candidate: fx.Name, Dir: filepath.Join(work, "fixtures", fx.Name)})
		if err != nil {
			return nil, err
		}
		ok, msg := run.CheckFixture(tr, fx.Expect)
		rep.Fixtures = append(rep.Fixtures, FixtureResult{Name: fx.Name, OK: ok, Message: msg, Trial: tr})
	}
	if opts.Mutants && rep.ReferenceOK && rep.Stable {
		m, err := runMutants(ctx, j, t, c, params, rep.Reference.StateHash, filepath.Join(work, "mutants"), opts)
		if err != nil {
			return nil, err
		}
		rep.Mutation = m
	}
	return rep, nil
}
