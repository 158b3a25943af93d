package cli

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"sync"

	"github.com/spf13/cobra"

	"github.com/worldprobe/worldprobe/internal/contract"
	"github.com/worldprobe/worldprobe/internal/mutate"
	"github.com/worldprobe/worldprobe/internal/pool"
	"github.com/worldprobe/worldprobe/internal/result"
	"github.com/worldprobe/worldprobe/internal/task"
	"github.com/worldprobe/worldprobe/internal/taskcheck"
	"github.com/worldprobe/worldprobe/internal/trial"
	"github.com/worldprobe/worldprobe/internal/worldjudge"
)

// NewCmdTask groups the task authoring commands.
func NewCmdTask(io IO) *cobra.Command {
	cmd := &cobra.Command{
		Use:   "task",
		Short: "Author and verify tasks (see docs/tasks.md)",
	}
	cmd.AddCommand(newCmdTaskCheck(io))
	cmd.AddCommand(newTaskMutateCmd())
	cmd.AddCommand(newTaskSummarizeCmd(io))
	cmd.AddCommand(newCmdTaskPrompt(io))
	return cmd
}

// TaskCheckOptions are the flags of 'worldprobe task check'.
type TaskCheckOptions struct {
	engineFlags
	JSON       bool
	Paths      []string
	Tasks      []string
	NoMutants  bool
	Seed       int64
	MaxMutants int
	Operators  []string
	MutantIDs  []string
	Summary    string
	Reports    string
	// OnlyMutants skips alternates and fixtures (taskcheck.Options.OnlyMutants).
	OnlyMutants bool
}

// DefaultMaxMutants is how many mutants 'task check' judges per task by default.
const DefaultMaxMutants = 20

func newCmdTaskCheck(io IO) *cobra.Command {
	o := &TaskCheckOptions{}
	cmd := &cobra.Command{
		Use:   "check TASK...",
		Short: "Lint a task, prove its reference passes, its fixtures fail as stated, and its contract kills mutants",
		Long: `For each TASK (a task folder, a category folder or a suite folder for all its
tasks; --task keeps those whose ids match a glob):
  - lint: task.yaml and contract.yaml are valid, every state path the contract
    reads is declared in task.yaml and named in brief.md, every parameter is
    written {{params.NAME}} in the brief and read from the reference's
    task-params block;
  - the reference solution passes every assertion ` + fmt.Sprint(taskcheck.ReferenceRuns) + ` times with identical
    verdicts and identical state hashes, and so does every alternate solution
    (solutions/<style>/index.html: the same task solved blind, in another style);
  - a task with a scaffold (task.yaml's scaffold:) has its scaffold judged
    once: every probe labelled kind: fail_to_pass must fail on it and every
    probe labelled kind: pass_to_pass must pass (docs/tasks.md);
  - each candidates/<name>/ fixture fails where its expect.yaml says;
  - mutation testing (unless --no-mutants): up to --max-mutants mutants of the
    reference (see 'worldprobe task mutate --help') are judged. A mutant is
    killed when an assertion fails or the page crashes; equivalent when it
    passes and read exactly the reference's states, scene summaries and pixels
    (excluded); otherwise it survived, and the contract is too weak. A task is
    hardened when no mutant survives; survivors are printed with their diffs.
A task judged against a rubric (task.yaml judge:) has no contract: its rubric
must load, its reference and alternates are judged offline by the world judge
twice (complete, with frames and coverage, identical state hashes), its
fixtures must fail the rubric tests their expect.yaml names, and no mutants
are made (docs/judge.md).
` + exitStatusHelp("every task is clean and hardened", "any is not"),
		Example: `  worldprobe task check suites/starter/simulation/bouncing-ball
  worldprobe task check --no-mutants suites/starter
  worldprobe task check --no-mutants --task 'simulation/*' suites/starter
  worldprobe task check --summary docs/hardening.md suites/starter
  worldprobe task check --mutants flip-comparison-2,scale-constant-5 suites/starter/simulation/pendulum`,
		Args: func(cmd *cobra.Command, args []string) error {
			if len(args) == 0 {
				return usageErr("task check needs at least one TASK folder")
			}
			return nil
		},
		RunE: func(cmd *cobra.Command, args []string) error {
			o.Paths = args
			return runTaskCheck(cmd.Context(), io, o)
		},
	}
	o.engineFlags.register(cmd.Flags())
	registerTaskFlag(cmd.Flags(), &o.Tasks, "tasks")
	cmd.Flags().BoolVar(&o.JSON, "json", false, "print the reports as JSON")
	cmd.Flags().BoolVar(&o.NoMutants, "no-mutants", false, "skip mutation testing (lint, reference and fixtures only)")
	cmd.Flags().Int64Var(&o.Seed, "seed", 1, "seed of the mutant selection")
	cmd.Flags().IntVar(&o.MaxMutants, "max-mutants", DefaultMaxMutants, "mutants judged per task, chosen across operators (0 = all)")
	cmd.Flags().StringSliceVar(&o.Operators, "operators", nil, "only these mutation operators (comma-separated; default all)")
	cmd.Flags().StringSliceVar(&o.MutantIDs, "mutants", nil, "only the mutants with these IDs, e.g. a survivor after a contract fix (comma-separated; overrides --max-mutants and --seed)")
	cmd.Flags().BoolVar(&o.OnlyMutants, "only-mutants", false, "judge only the reference and the mutants (no alternates, no fixtures): to measure the kill rate at another --seed once the full check is clean")
	cmd.Flags().StringVar(&o.Reports, "reports", "", "keep each task's report in this folder (DIR/<category>/<slug>.json) the moment it is checked; run again to resume: tasks whose files and options are unchanged are not checked again")
	cmd.Flags().StringVar(&o.Summary, "summary", "", "also write the summary as Markdown to this file (text above a \"<!-- generated by worldprobe …\" line in it is kept)")
	return cmd
}

func runTaskCheck(ctx context.Context, io IO, o *TaskCheckOptions) error {
	if o.OnlyMutants && o.NoMutants {
		return usageErr("--only-mutants and --no-mutants leave nothing to judge but the reference")
	}
	tasks, err := task.Select(o.Paths, o.Tasks)
	if err != nil {
		return usageErr("%v", err)
	}
	b, res, err := o.start(ctx, io, 0, 0)
	if err != nil {
		return err
	}
	defer b.Close()
	work, err := os.MkdirTemp("", "worldprobe-check-")
	if err != nil {
		return runtimeErr(err)
	}
	defer os.RemoveAll(work)
	judge := &trial.Runner{Browser: b, Resolver: res, SkipDraw: true}
	if worldJudged(tasks) {
		// A task judged against a rubric: its worlds are judged offline
		// (no model: the capture, frames, pixels and coverage).
		judge.World = worldjudge.TrialJudges(b, res, worldjudge.Options{Offline: true})
	}
	copts := taskcheck.Options{Mutants: !o.NoMutants, OnlyMutants: o.OnlyMutants, Jobs: b.Jobs(),
		Mutate: mutate.Options{Seed: o.Seed, Max: o.MaxMutants, Operators: o.Operators, IDs: o.MutantIDs}}
	var mu sync.Mutex
	copts.Progress = func(id, phase string, done, total int) {
		mu.Lock()
		defer mu.Unlock()
		fmt.Fprintf(io.ErrOut, "  %s: %s %d/%d\n", id, phase, done, total)
	}
	var kept *checkReports
	if o.Reports != "" {
		kept = newCheckReports(o.Reports, o)
	}
	reports, err := checkAll(ctx, io, judge, tasks, work, copts, kept)
	if err != nil {
		return err
	}
	if o.Summary != "" {
		if err := writeSummary(o.Summary, taskcheck.Document(reports)); err != nil {
			return runtimeErr(fmt.Errorf("writing the summary: %w", err))
		}
	}
	if o.JSON {
		enc := json.NewEncoder(io.Out)
		enc.SetIndent("", "  ")
		if err := enc.Encode(reports); err != nil {
			return runtimeErr(err)
		}
	} else {
		printChecks(io, reports)
	}
	for _, r := range reports {
		if !r.OK() {
			return silentExit(ExitFailed)
		}
	}
	return nil
}

// checkAll checks tasks, as many at once as the browser has jobs, and says
// on stderr when each is done.
//
// With kept (--reports), a task whose report is kept from an earlier run
// with the same inputs is not checked again, and each new report is saved
// the moment its task is checked.
func checkAll(ctx context.Context, io IO, judge *trial.Runner, tasks []*task.Task, work string, opts taskcheck.Options, kept *checkReports) ([]*taskcheck.Report, error) {
	reports := make([]*taskcheck.Report, len(tasks))
	type checked struct {
		report     *taskcheck.Report
		fromBefore bool
	}
	err := pool.Map(ctx, judge.Browser.Jobs(), len(tasks), func(ctx context.Context, i int) (checked, error) {
		t := tasks[i]
		if kept != nil {
			r, err := kept.load(t)
			if err != nil {
				return checked{}, fmt.Errorf("checking %s: %w", t.ID, err)
			}
			if r != nil {
				return checked{r, true}, nil
			}
		}
		r, err := taskcheck.Check(ctx, judge, t, filepath.Join(work, fmt.Sprint(i)), opts)
		if err == nil && kept != nil {
			err = kept.save(t, r)
		}
		if err != nil {
			return checked{}, fmt.Errorf("checking %s: %w", t.ID, err)
		}
		return checked{r, false}, nil
	}, func(i int, c checked) error {
		reports[i] = c.report
		how := ""
		if c.fromBefore {
			how = " (kept from " + kept.path(tasks[i]) + ")"
		}
		fmt.Fprintf(io.ErrOut, "checked %s: %s%s\n", tasks[i].ID, map[bool]string{true: "clean", false: "PROBLEMS"}[c.report.OK()], how)
		return nil
	})
	if err != nil {
		return nil, runtimeErr(err)
	}
	return reports, nil
}

func printChecks(io IO, reports []*taskcheck.Report) {
	fmt.Fprintf(io.Out, "%-36s %5s %9s %6s %10s %8s %7s %6s %5s %8s %9s\n", "task", "lint", "reference", "stable", "alternates", "fixtures",
		"mutants", "killed", "equiv", "survived", "kill rate")
	for _, r := range reports {
		fx := 0
		for _, f := range r.Fixtures {
			if f.OK {
				fx++
			}
		}
		ref := "pass"
		if !r.ReferenceOK {
			ref = "FAIL"
		}
		lint := "ok"
		if len(r.Lint) > 0 {
			lint = fmt.Sprintf("%d", len(r.Lint))
		}
		alt := 0
		for _, a := range r.Alternates {
			if a.OK {
				alt++
			}
		}
		fmt.Fprintf(io.Out, "%-36s %5s %9s %6t %10s %8s", r.Task, lint, ref, r.Stable, fmt.Sprintf("%d/%d", alt, len(r.Alternates)),
			fmt.Sprintf("%d/%d", fx, len(r.Fixtures)))
		if m := r.Mutation; m != nil {
			fmt.Fprintf(io.Out, " %7d %6d %5d %8d %8.1f%%", m.Total, m.Killed, m.Equivalent, m.Survived, 100*m.KillRate())
		} else {
			fmt.Fprintf(io.Out, " %7s %6s %5s %8s %9s", "-", "-", "-", "-", "-")
		}
		fmt.Fprintln(io.Out)
	}
	for _, r := range reports {
		if r.OK() {
			continue
		}
		fmt.Fprintf(io.Out, "\n%s\n", r.Task)
		for _, l := range r.Lint {
			fmt.Fprintf(io.Out, "  lint: %s\n", l)
		}
		for _, m := range r.ReferenceMsgs {
			fmt.Fprintf(io.Out, "  reference: %s\n", m)
		}
		for _, a := range r.Alternates {
			for _, m := range a.Problems {
				fmt.Fprintf(io.Out, "  alternate %s: %s\n", a.Style, m)
			}
		}
		if r.Scaffold != nil {
			for _, m := range r.Scaffold.Problems {
				fmt.Fprintf(io.Out, "  scaffold: %s\n", m)
			}
		}
		for _, f := range r.Fixtures {
			if !f.OK {
				fmt.Fprintf(io.Out, "  fixture %s: %s\n", f.Name, f.Message)
			}
		}
		if m := r.Mutation; m != nil && r.Partial == "" {
			for _, id := range r.Unbroken() {
				fmt.Fprintf(io.Out, "  requirement %s: no fixture or killed mutant breaks its covering probes (add a fixture that breaks it, see docs/authoring.md)\n", id)
			}
		}
		if m := r.Mutation; m != nil {
			for _, mr := range m.Mutants {
				if mr.Status == taskcheck.Unjudged {
					fmt.Fprintf(io.Out, "  not judged %s (machine overloaded; judge again with --mutants %s): %s\n", mr.ID, mr.ID, mr.KilledBy)
				}
				if mr.Status != taskcheck.Survived {
					continue
				}
				fmt.Fprintf(io.Out, "  survivor %s (%s at %d:%d): %s\n    %s\n", mr.ID, mr.Operator, mr.Line, mr.Col, mr.Description, mr.Difference)
				for _, l := range strings.Split(strings.TrimRight(mr.Diff, "\n"), "\n") {
					fmt.Fprintf(io.Out, "    %s\n", l)
				}
			}
		}
	}
	for _, r := range reports {
		if w := r.World; w != nil {
			fmt.Fprintf(io.Out, "\n%s: world judged offline: %s, %d frames, %s; %s\n", r.Task, w.Status, w.Frames, w.Coverage, worldScoreText(w.Score))
		}
		if r.Partial != "" {
			fmt.Fprintf(io.Out, "%s: %s\n", r.Task, r.Partial)
		}
	}
	for _, r := range reports {
		if r.Scaffold != nil {
			fmt.Fprintf(io.Out, "\n%s: scaffold %s\n", r.Task, scaffoldSummary(r.Scaffold))
			for _, p := range r.Scaffold.Probes {
				fmt.Fprintf(io.Out, "  %-13s %-40s %s\n", p.Kind, p.Name, map[bool]string{true: "passes on the scaffold", false: "fails on the scaffold"}[p.Passed])
			}
		}
	}
	for _, r := range reports {
		if m := r.Mutation; m != nil && m.Equivalent > 0 {
			fmt.Fprintf(io.Out, "\n%s: %d equivalent mutants (excluded):\n", r.Task, m.Equivalent)
			for _, mr := range m.Mutants {
				if mr.Status == taskcheck.Equivalent {
					fmt.Fprintf(io.Out, "  %s (%s at %d:%d): %s\n", mr.ID, mr.Operator, mr.Line, mr.Col, mr.Description)
				}
			}
		}
	}
}

// worldScoreText says a world score: "212.5/280", or "open: 2 judged
// (earned 2), 2 unjudged of 4".
func worldScoreText(s result.WorldScore) string {
	if s.Earned != nil {
		return fmt.Sprintf("score %g/%g", *s.Earned, s.Max)
	}
	return fmt.Sprintf("score open: %g judged (earned %g), %g unjudged of %g", s.Judged, s.EarnedOfJudged, s.Unjudged, s.Max)
}

// scaffoldSummary counts a scaffold check's labelled probes that did what
// their kind asks: "fail_to_pass 4/4 fail, pass_to_pass 2/2 pass".
func scaffoldSummary(s *taskcheck.ScaffoldResult) string {
	var f2p, f2pAs, p2p, p2pAs int
	for _, p := range s.Probes {
		switch p.Kind {
		case contract.KindFailToPass:
			f2p++
			if p.As {
				f2pAs++
			}
		case contract.KindPassToPass:
			p2p++
			if p.As {
				p2pAs++
			}
		}
	}
	return fmt.Sprintf("fail_to_pass %d/%d fail, pass_to_pass %d/%d pass", f2pAs, f2p, p2pAs, p2p)
}
