package cli

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"time"

	"github.com/spf13/cobra"

	"github.com/worldprobe/worldprobe/internal/report"
	"github.com/worldprobe/worldprobe/internal/result"
	"github.com/worldprobe/worldprobe/internal/run"
	"github.com/worldprobe/worldprobe/internal/task"
	"github.com/worldprobe/worldprobe/internal/trial"
)

// RunOptions are the flags of 'worldprobe run'.
type RunOptions struct {
	engineFlags
	Candidates []string
	Oracle     bool
	Fixtures   bool
	Repeat     int
	Out        string
	Rerun      []string
	Suite      string
	Tasks      []string
	Variants   string
}

// NewCmdRun builds 'worldprobe run'.
func NewCmdRun(io IO) *cobra.Command {
	o := &RunOptions{}
	cmd := &cobra.Command{
		Use:   "run SUITE",
		Short: "Judge candidate pages against a suite's hidden contracts",
		Long: `Judge candidate pages against every task of SUITE (a folder of
<category>/<slug>/task.yaml, or one category folder, or one task folder; --task
keeps the tasks whose ids match a glob, and --variants then only their variants). Candidates come from --candidates [MODEL=]DIR, with a
page at DIR/<task-id>/index.html or DIR/<task-id>.html; --oracle adds each task's
reference solution as model "oracle", --fixtures its known-flawed fixtures as model
"fixtures". Each trial loads the page, then runs each contract probe in a fresh page.

The run folder (--out, default runs/<suite name>) holds config.json, lock.json,
trials/<trial>/result.json with a screenshot, results.db (SQLite) and report.html.
A finished trial's result.json is written the moment it finishes, atomically, so an
interrupted run (even kill -9) loses no finished trial. Running the same command
again resumes; a different configuration or changed candidates are refused.
--rerun crash,timeout runs those classes again (classes: infra, crash — every crash,
timeouts included —, timeout, fail, pass, all).

Infrastructure is never scored against a page: a trial whose page misses a harness
deadline while the machine is overloaded (load average above 1.5 per core) is judged
again with the deadline doubled, up to twice; if it still misses it with the machine
still overloaded and a blank page cannot run promptly either (the harness checks
itself, so a page that loops forever and loads the machine itself is a timeout), it
is recorded as infra_error, left out of every score, and the run ends by saying how
many — run the same command with --rerun infra on a quieter machine. The leaderboard
says how many trials were retried and why.

` + exitStatusHelp("every trial ran, whatever the scores", ""),
		Example: `  worldprobe run suites/starter --oracle --fixtures
  worldprobe run suites/starter --candidates gpt=out/gpt --candidates claude=out/claude --repeat 3
  worldprobe run suites/starter --candidates gpt=out/gpt --rerun crash,timeout
  worldprobe run suites/starter --task 'simulation/*' --oracle --out out/sim
  worldprobe run suites/starter/rendering/fog-depth --fixtures
  worldprobe suite perturb suites/starter --variants 3 --out robust && worldprobe run suites/starter --variants robust --oracle`,
		Args: func(cmd *cobra.Command, args []string) error {
			if len(args) != 1 {
				return usageErr("run needs one SUITE folder")
			}
			return nil
		},
		RunE: func(cmd *cobra.Command, args []string) error {
			o.Suite = args[0]
			return runRun(cmd.Context(), io, o)
		},
	}
	f := cmd.Flags()
	o.engineFlags.register(f)
	f.StringArrayVar(&o.Candidates, "candidates", nil, "[MODEL=]DIR of candidate pages (repeatable); MODEL defaults to DIR's name")
	f.StringSliceVar(&o.Tasks, "task", nil, "only the tasks whose ids match these globs, e.g. 'simulation/*' or '*/pendulum' (comma-separated or repeated)")
	f.BoolVar(&o.Oracle, "oracle", false, "add each task's reference solution as model 'oracle'")
	f.BoolVar(&o.Fixtures, "fixtures", false, "add each task's flawed fixtures as model 'fixtures'")
	f.IntVar(&o.Repeat, "repeat", 1, "samples per task and candidate")
	f.StringVar(&o.Out, "out", "", "run folder (default runs/<suite name>)")
	f.StringSliceVar(&o.Rerun, "rerun", nil, "trial classes to run again on resume: infra (not scored: the machine was overloaded), crash (every crash, timeouts included), timeout, fail, pass, all")
	f.StringVar(&o.Variants, "variants", "", "also judge the Robust variants in this folder (written by 'worldprobe suite perturb'); the leaderboard then shows Core vs. Robust V-Cov")
	return cmd
}

func runRun(ctx context.Context, io IO, o *RunOptions) error {
	if o.Repeat < 1 {
		return usageErr("--repeat must be at least 1")
	}
	for _, c := range o.Rerun {
		if !slices.Contains(result.RerunClasses, strings.TrimSpace(c)) {
			return usageErr("--rerun %q: classes are %s", c, strings.Join(result.RerunClasses, ", "))
		}
	}
	tasks, err := task.Select([]string{o.Suite}, o.Tasks)
	if err != nil {
		return usageErr("loading %s: %w", o.Suite, err)
	}
	if o.Variants != "" {
		vs, err := task.LoadSuite(o.Variants)
		if err != nil {
			return usageErr("loading variants %s: %w", o.Variants, err)
		}
		selected := map[string]bool{}
		for _, t := range tasks {
			selected[t.ID] = true
		}
		n := 0
		for _, v := range vs {
			if v.VariantOf == "" {
				return usageErr("--variants %s: %s is not a Robust variant (no variant_of in its task.yaml)", o.Variants, v.ID)
			}
			if selected[v.VariantOf] {
				tasks = append(tasks, v)
				n++
			}
		}
		if n == 0 {
			return usageErr("--variants %s: no variant of the %d selected tasks (write them with 'worldprobe suite perturb')", o.Variants, len(selected))
		}
	}
	var sources []run.Source
	for _, c := range o.Candidates {
		model, dir, ok := strings.Cut(c, "=")
		if !ok {
			dir, model = model, filepath.Base(filepath.Clean(model))
		}
		if st, err := os.Stat(dir); err != nil || !st.IsDir() {
			return usageErr("--candidates %s: not a folder", c)
		}
		abs, _ := filepath.Abs(dir)
		sources = append(sources, run.Source{Model: model, Dir: abs})
	}
	if o.Oracle {
		sources = append(sources, run.Source{Model: "oracle", Oracle: true})
	}
	if o.Fixtures {
		sources = append(sources, run.Source{Model: "fixtures", Fixtures: true})
	}
	if len(sources) == 0 {
		return usageErr("nothing to judge: give --candidates, --oracle or --fixtures")
	}
	plan, err := run.Plan(tasks, sources, o.Repeat)
	if err != nil {
		return usageErr("%v", err)
	}
	out := o.Out
	if out == "" {
		out = filepath.Join("runs", filepath.Base(filepath.Clean(o.Suite)))
	}
	suiteAbs, _ := filepath.Abs(o.Suite)
	cfg := run.Config{Suite: suiteAbs, Sources: sources, Repeat: o.Repeat}
	if o.Variants != "" {
		cfg.Variants, _ = filepath.Abs(o.Variants)
	}
	for _, t := range tasks {
		cfg.Tasks = append(cfg.Tasks, t.ID)
	}
	b, res, err := o.start(ctx, io, 0, 0)
	if err != nil {
		return err
	}
	defer b.Close()
	fmt.Fprintf(io.ErrOut, "run %s: %d tasks, %d trials, %d jobs → %s\n", o.Suite, len(tasks), len(plan), b.Jobs(), out)
	sum, err := run.Execute(ctx, run.Options{
		Out: out, Config: cfg, Plan: plan, Jobs: b.Jobs(), Rerun: o.Rerun,
		Runner:     &trial.Runner{Browser: b, Resolver: res, SkipDraw: true},
		Worldprobe: Version, Chromium: b.Version(), Progress: io.ErrOut,
	})
	if err != nil {
		return runtimeErr(err)
	}
	fmt.Fprintln(io.Out)
	report.Table(io.Out, sum.Trials)
	if o.Fixtures {
		fmt.Fprintln(io.Out, "\nFixtures:")
		for _, p := range plan {
			if p.Expect == nil {
				continue
			}
			for _, t := range sum.Trials {
				if t.Key == p.Key {
					ok, msg := run.CheckFixture(t, p.Expect.Expect)
					mark := "ok  "
					if !ok {
						mark = "MISS"
					}
					fmt.Fprintf(io.Out, "  %s %s/%s: %s\n", mark, p.Task.ID, p.Candidate, msg)
				}
			}
		}
	}
	reportPath := filepath.Join(out, "report.html")
	if err := report.WriteHTML(reportPath, report.Page{Title: "worldprobe run: " + filepath.Base(o.Suite),
		Generated: time.Now().UTC().Format(time.RFC3339), Trials: sum.Trials,
		Sandbox: b.Sandbox().String(), Unsandboxed: !b.Sandbox().On}); err != nil {
		return runtimeErr(err)
	}
	fmt.Fprintf(io.Out, "\n%d trials (%d run, %d kept) · results: %s · report: %s\n", len(sum.Trials), sum.Ran, sum.Kept, sum.DB, reportPath)
	return nil
}
