package cli

import (
	"context"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"time"

	"github.com/spf13/cobra"
	"github.com/spf13/pflag"

	"github.com/worldprobe/worldprobe/internal/metrics"
	"github.com/worldprobe/worldprobe/internal/queue"
	"github.com/worldprobe/worldprobe/internal/report"
	"github.com/worldprobe/worldprobe/internal/result"
	"github.com/worldprobe/worldprobe/internal/run"
	"github.com/worldprobe/worldprobe/internal/task"
	"github.com/worldprobe/worldprobe/internal/trial"
	"github.com/worldprobe/worldprobe/internal/worldjudge"
)

// RunOptions are the flags of 'worldprobe run'.
type RunOptions struct {
	engineFlags
	// looks choose the visual_judge model of the contracts' look steps
	// and of the design score.
	looks lookFlags
	// Design rates every XR trial's recorded frames on the XR design
	// heuristics (docs/xr-design.md).
	Design     bool
	Candidates []string
	Oracle     bool
	Fixtures   bool
	Repeat     int
	Out        string
	Rerun      []string
	Suite      string
	Tasks      []string
	Variants   string
	// UpdateChanged resumes a run folder whose tasks or pages changed,
	// judging their trials again.
	UpdateChanged bool
	// AllowMissing runs a model whose folder lacks most pages.
	AllowMissing bool
	// Offline judges the world-judged tasks (task.yaml judge:) without
	// models (run_world.go).
	Offline bool
	// video choose what the trials record.
	video videoFlags
	// resume is the command line that resumes this run (the one given,
	// without --rerun and --update-changed).
	resume string
	// queueFlags choose River (--executor river, --db URL) over the
	// in-process pool.
	queueFlags
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
A --candidates folder whose gen.json records name a repair ('gen --repair' writes
OUT/<model-slug>+error-only/... and +feedback/...) is judged as that model's repaired
pages: give it the first-shot folder's MODEL, and the leaderboard has a row for each
("gpt", "gpt (error-only)"), contract-feedback rows in a leaderboard of their own.

The run folder (--out, default runs/<suite name>) holds config.json, lock.json,
trials/<trial>/result.json with a screenshot and trace.jsonl (and, for an XR task or
with --video, video-<probe>.webm of each probe's page, or a contact-sheet PNG without
ffmpeg), results.db (SQLite), queue.db (River's jobs: each trial is one, judged by
this process's --jobs workers; --executor pool judges in-process without it),
report.html (the leaderboard with plots and a models × tasks grid linking to each trial's
page, trials/<trial>/index.html: its failed assertions against the reference, state-over-time
plots, videos, screenshot and trace; docs/report.md), and beside it leaderboard.md and leaderboard.json (pass@k, V-Cov with its 95% bootstrap
interval, A/S/T-Cov, breakdowns, Core vs. Robust, attribution shares, and RoA and
TEM when the candidates folders hold gen.json records of cost and time; see
docs/metrics.md).
A finished trial's result.json is written the moment it finishes, atomically, so an
interrupted run (even kill -9) loses no finished trial. Interrupted (Ctrl-C), run
says how many trials it kept, writes a partial report and prints the command that
resumes. Running the same command again resumes. Against a folder made with another
configuration it names each difference: added models, tasks, pages and samples are
run and the finished trials kept; changed tasks and pages are refused unless
--update-changed judges their trials again; removing anything is refused.
--rerun crash,timeout runs those classes again (classes: infra, crash — every crash,
timeouts included —, timeout, fail, pass, all).

A --candidates folder with no page for at least half of the tasks is refused (exit
2) with the paths looked for, unless --allow-missing: each missing page is then a
no_candidate crash, scored 0, and a warning says so.

A contract's look steps (scoped visual assertions) are judged by the visual_judge
model role (--models, default models.yaml if present; --record DIR and --replay DIR
as for gen; docs/models.md). Without a model for it — its key not set — each look is
unjudged: neither passed nor failed; pass and the coverages are over the judged
assertions, and each trial says how many were unjudged (docs/contracts.md).
A task whose task.yaml declares judge: {rubric: DIR} has no contract: after the load
check its page goes to the world judge (as 'worldprobe judge': capture on the virtual
clock, pixel measures, coverage, and with --models the model roles), writing judge.json,
judge.html and frames/ into the trial folder; its score (out of the rubric's points,
280 for WorldBench's island, per test) is in result.json, results.db, report.html and
the leaderboard, an open score shown as open. Such a suite needs --models FILE or
--offline (every model half unjudged); which one (and the roles' models) is part of
each such trial's key, and with --db workers judge those trials the same way.
Act steps are driven by the xr_actor role of the same models file; without a model for it
the assertions after each act are unjudged.
--design rates every recorded XR trial on the ten heuristics of docs/xr-design.md with
the same role: the mean of ten 1-5 ratings, apart from pass (unjudged without a model).

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
  worldprobe run suites/starter --candidates gpt=out/gpt --update-changed   # after editing a task or a page
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
			o.resume = commandLine(cmd, args, "rerun", "update-changed")
			return runRun(cmd.Context(), io, o)
		},
	}
	f := cmd.Flags()
	o.engineFlags.register(f)
	f.StringArrayVar(&o.Candidates, "candidates", nil, "[MODEL=]DIR of candidate pages, DIR/<task-id>/index.html, or a gen model folder whose sample-<k> folders are samples of one model (repeatable); MODEL defaults to DIR's name")
	registerTaskFlag(f, &o.Tasks, "tasks")
	f.BoolVar(&o.Oracle, "oracle", false, "add each task's reference solution as model 'oracle'")
	f.BoolVar(&o.Fixtures, "fixtures", false, "add each task's flawed fixtures as model 'fixtures'")
	f.IntVar(&o.Repeat, "repeat", 1, "samples per task and candidate")
	f.StringVar(&o.Out, "out", "", "run folder (default runs/<suite name>)")
	f.StringSliceVar(&o.Rerun, "rerun", nil, "trial classes to run again on resume: infra (not scored: the machine was overloaded), crash (every crash, timeouts included), timeout, fail, pass, all")
	f.BoolVar(&o.UpdateChanged, "update-changed", false, "resume a run folder whose task folders or candidate pages changed: judge their trials again, keep every other finished trial")
	f.BoolVar(&o.AllowMissing, "allow-missing", false, "run a --candidates folder that has no page for half the tasks or more (each missing page is a no_candidate crash, scored 0)")
	o.video.register(f)
	f.StringVar(&o.Variants, "variants", "", "also judge the Robust variants in this folder (written by 'worldprobe suite perturb'); the leaderboard then shows Core vs. Robust V-Cov")
	o.queueFlags.register(f)
	o.looks.register(f)
	f.BoolVar(&o.Offline, "offline", false, "judge the tasks judged against a rubric (judge: in task.yaml; the world judge, docs/judge.md) without models: every model half unjudged, the score open")
	f.BoolVar(&o.Design, "design", false, "rate every recorded XR trial on the ten XR design heuristics of docs/xr-design.md with the visual_judge role: a 1-5 design score apart from pass")
	return cmd
}

func runRun(ctx context.Context, io IO, o *RunOptions) error {
	if o.Repeat < 1 {
		return usageErr("--repeat must be at least 1")
	}
	video, err := o.video.value()
	if err != nil {
		return err
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
		repair, err := repairOf(abs, tasks)
		if err != nil {
			return usageErr("--candidates %s: %v", c, err)
		}
		sources = append(sources, run.Source{Model: model, Dir: abs, Repair: repair})
	}
	given := map[string]string{}
	for i, s := range sources {
		if other, ok := given[s.ID()]; ok {
			what := "first-shot pages (no repair in their gen.json)"
			if s.Repair != "" {
				what = s.Repair + " pages"
			}
			return usageErr("--candidates %s and --candidates %s are both model %s's %s: give them different names (NAME=DIR)", other, o.Candidates[i], s.Model, what)
		}
		given[s.ID()] = o.Candidates[i]
	}
	if o.Oracle {
		sources = append(sources, run.Source{Model: result.ModelOracle, Oracle: true})
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
	if err := worldFlags(o, tasks); err != nil {
		return err
	}
	world, err := worldSetup(ctx, io, o, tasks)
	if err != nil {
		return err
	}
	out := o.Out
	if out == "" {
		out = filepath.Join("runs", filepath.Base(filepath.Clean(o.Suite)))
	}
	suiteAbs, _ := filepath.Abs(o.Suite)
	cfg := run.Config{Suite: suiteAbs, Sources: sources, Repeat: o.Repeat}
	if world != nil {
		// How the world judge judges is part of each such trial's key.
		cfg.WorldJudge = world.Name()
		run.JudgeWorlds(plan, cfg.WorldJudge)
	}
	if o.Variants != "" {
		cfg.Variants, _ = filepath.Abs(o.Variants)
	}
	for _, t := range tasks {
		cfg.Tasks = append(cfg.Tasks, t.ID)
	}
	missing := run.MissingPages(plan, sources)
	var most []run.Missing
	for _, m := range missing {
		if m.Most() {
			most = append(most, m)
		}
	}
	if len(most) > 0 && !o.AllowMissing {
		var lines []string
		for _, m := range most {
			lines = append(lines, missingText(m))
		}
		return usageErr("%s\ncheck the --candidates folders, or give --allow-missing to judge each missing page as a no_candidate crash (scored 0)",
			strings.Join(lines, "\n"))
	}
	for _, m := range most {
		fmt.Fprintf(io.ErrOut, "WARNING: %s (--allow-missing: each is judged as a no_candidate crash, scored 0)\n", missingText(m))
	}

	if err := o.queueFlags.check(o.Jobs); err != nil {
		return err
	}
	exec, jobs, chromium := io.executor, o.Jobs, ""
	executor := "" // how the first line names a queue, when there is one
	page := report.Page{Title: "worldprobe run: " + filepath.Base(o.Suite)}
	var runner *trial.Runner
	if exec == nil {
		// --db with --jobs 0 judges nothing here, but the browser still
		// names the Chromium and sandbox the run folder's lock records.
		o.Jobs = max(1, o.Jobs)
		b, res, err := o.start(ctx, io, 0, 0)
		o.Jobs = jobs
		if err != nil {
			return err
		}
		defer b.Close()
		defer b.WriteCPULedger(io.ErrOut) // only with WORLDPROBE_CPU_LEDGER set
		if o.DB != "" {
			if err := o.looks.shareLimits(ctx, o.DB); err != nil {
				return runtimeErr(err)
			}
			defer o.looks.close()
		}
		looker, err := o.looks.looker(ctx, io, tasks)
		if err != nil {
			return err
		}
		actor, err := o.looks.actor(ctx, io, tasks)
		if err != nil {
			return err
		}
		runner = &trial.Runner{Browser: b, Resolver: res, SkipDraw: true, Video: video, Looker: looker, Actor: actor}
		if world != nil {
			runner.World = worldjudge.TrialJudges(b, res, *world)
		}
		if o.Design {
			if runner.Design, err = o.looks.designRater(ctx, io); err != nil {
				return err
			}
		}
		chromium = b.Version()
		if jobs > 0 {
			jobs = b.Jobs()
		}
		page.Sandbox, page.Unsandboxed = b.Sandbox().String(), !b.Sandbox().On
		q, err := o.queueFlags.open(ctx, io, out, jobs, runner)
		if err != nil {
			return err
		}
		if q != nil {
			defer q.Close()
			exec, executor = &queue.Executor{Queue: q}, o.queueFlags.describe()
		} else if st, err := o.artifacts.open(ctx, io); err != nil {
			return err
		} else if st != nil {
			exec = &copyingExecutor{inner: &run.Local{Runner: runner, Jobs: jobs}, store: st}
		}
	}
	fmt.Fprintf(io.ErrOut, "run %s: %d tasks, %d trials, %d jobs%s → %s\n", o.Suite, len(tasks), len(plan), jobs, executor, out)
	artifacts, err := o.artifacts.open(ctx, io)
	if err != nil {
		return err
	}
	var fetch func(ctx context.Context, want map[string]string) ([]string, error)
	if artifacts != nil {
		// Trials finished by workers that do not share the run folder are
		// in the store only: fetched, they are kept as any finished trial.
		fetch = func(ctx context.Context, want map[string]string) ([]string, error) {
			return fetchFinished(ctx, io, artifacts, out, want)
		}
	}
	sum, err := run.Execute(ctx, run.Options{
		Out: out, Config: cfg, Plan: plan, Jobs: jobs, Rerun: o.Rerun, UpdateChanged: o.UpdateChanged,
		Executor: exec, Runner: runner, Worldprobe: Version, Chromium: chromium, Progress: io.ErrOut, Fetch: fetch,
	})
	if err != nil && sum == nil {
		return runtimeErr(err)
	}
	if artifacts != nil {
		// The trials judged now elsewhere, for the report's pages (also
		// after an interruption: the partial report shows them).
		if _, err := fetchFinished(context.WithoutCancel(ctx), io, artifacts, out, sum.Dirs); err != nil {
			return runtimeErr(err)
		}
	}
	reportPath := filepath.Join(out, "report.html")
	gens, warnings := generations(plan, sources)
	for _, w := range warnings {
		fmt.Fprintf(io.ErrOut, "WARNING: %s\n", w)
	}
	board := metrics.BoardOptions{Economics: metrics.EconomicsOptions{HumanHours: humanHours(plan), Generations: gens}}
	if err == nil {
		if err := writeResults(io, o, plan, sum, reportPath, page, board); err != nil {
			return runtimeErr(err)
		}
		for _, m := range most {
			fmt.Fprintf(io.ErrOut, "WARNING: model %s had no page for %s: judged as no_candidate crashes, scored 0 (--allow-missing; the pages were looked for in %s)\n",
				m.Source.Model, missingCount(m), m.Source.Dir)
		}
		return nil
	}

	// Stopped midway: every finished trial is kept; say so, report them
	// as a partial run and say how to go on.
	stopped := "run stopped: " + err.Error()
	if ctx.Err() != nil {
		stopped = fmt.Sprintf("run interrupted (%v)", ctx.Err())
	}
	page.Title += " (partial)"
	page.Partial = fmt.Sprintf("%s with %d of %d planned trials finished; the scores cover those only. Resume with: %s",
		stopped, len(sum.Trials), sum.Planned, o.resume)
	reportErr := writeResults(io, o, plan, sum, reportPath, page, board)
	fmt.Fprintf(io.ErrOut, "%s\n%d of %d planned trials finished and kept (%d run now, %d from before), %d not run\n",
		stopped, len(sum.Trials), sum.Planned, sum.Ran, sum.Kept, sum.Planned-len(sum.Trials))
	if reportErr != nil {
		fmt.Fprintf(io.ErrOut, "resume with: %s\n", o.resume)
		return runtimeErr(fmt.Errorf("writing the partial report: %w", reportErr))
	}
	fmt.Fprintf(io.ErrOut, "partial report over the finished trials: %s\nresume with: %s\n", reportPath, o.resume)
	return silentExit(ExitInfrastructure)
}

// writeResults prints the run's end over its finished trials — the
// fixtures that did not fail as expected (with a count of those that did),
// then the leaderboard, then where everything is, so that the summary is
// the last thing on the screen — and writes the HTML report page to
// reportPath and the Markdown and JSON leaderboards beside it, marked
// partial when page.Partial says why.
func writeResults(io IO, o *RunOptions, plan []run.Planned, sum *run.Summary, reportPath string, page report.Page, board metrics.BoardOptions) error {
	if o.Fixtures {
		writeFixtureCheck(io.Out, plan, sum.Trials)
	}
	fmt.Fprintln(io.Out)
	report.Table(io.Out, sum.Trials)
	l, err := report.NewLeaderboard(page.Title, page.Partial, sum.Trials, board)
	if err != nil {
		return err
	}
	page.Generated, page.Trials, page.Board, page.Dirs = time.Now().UTC().Format(time.RFC3339), sum.Trials, l, sum.Dirs
	if err := report.WriteHTML(reportPath, page); err != nil {
		return err
	}
	if err := report.WriteLeaderboards(filepath.Dir(reportPath), l); err != nil {
		return err
	}
	if page.Partial != "" {
		fmt.Fprintf(io.Out, "\npartial: %d of %d planned trials (%d run, %d kept) · results: %s · report: %s\n",
			len(sum.Trials), sum.Planned, sum.Ran, sum.Kept, sum.DB, reportPath)
		return nil
	}
	fmt.Fprintf(io.Out, "\n%d trials (%d run, %d kept) · results: %s · report: %s\n", len(sum.Trials), sum.Ran, sum.Kept, sum.DB, reportPath)
	return nil
}

// writeFixtureCheck prints how many fixtures failed where their expect.yaml
// says and, one line each, those that did not.
func writeFixtureCheck(w io.Writer, plan []run.Planned, trials []*result.Trial) {
	byKey := map[string]*result.Trial{}
	for _, t := range trials {
		byKey[t.Key] = t
	}
	var misses []string
	judged := 0
	for _, p := range plan {
		t, ok := byKey[p.Key]
		if p.Expect == nil || !ok {
			continue
		}
		judged++
		if ok, msg := run.CheckFixture(t, p.Expect.Expect); !ok {
			misses = append(misses, fmt.Sprintf("  MISS %s/%s: %s", p.Task.ID, p.Candidate, msg))
		}
	}
	if judged == 0 {
		return
	}
	if len(misses) == 0 {
		fmt.Fprintf(w, "\nFixtures: all %d failed where their expect.yaml says\n", judged)
		return
	}
	fmt.Fprintf(w, "\nFixtures: %d of %d failed where their expect.yaml says; %d did not:\n%s\n",
		judged-len(misses), judged, len(misses), strings.Join(misses, "\n"))
}

// missingText says which pages a candidates folder lacks and where they
// were looked for, with what the folder holds instead.
func missingText(m run.Missing) string {
	first := m.Tasks[0]
	dir, file := m.Expected(first)
	return fmt.Sprintf("model %s (--candidates %s=%s) has no page for %s: looked for %s or %s (for task %s: %s or %s); %s",
		m.Source.Model, m.Source.Model, m.Source.Dir, missingCount(m),
		filepath.Join(m.Source.Dir, "<task-id>", "index.html"), filepath.Join(m.Source.Dir, "<task-id>.html"),
		first, dir, file, folderHolds(m.Source.Dir))
}

// missingCount says for how many of its tasks a folder has no page.
func missingCount(m run.Missing) string {
	switch {
	case m.Of == 1 && len(m.Tasks) == 1:
		return "its 1 task"
	case len(m.Tasks) == m.Of:
		return fmt.Sprintf("any of its %d tasks", m.Of)
	}
	return fmt.Sprintf("%d of %d tasks", len(m.Tasks), m.Of)
}

// folderHolds says what is in dir: its first entries, folders with a
// trailing slash.
func folderHolds(dir string) string {
	entries, err := os.ReadDir(dir)
	if err != nil {
		return fmt.Sprintf("the folder cannot be read: %v", err)
	}
	if len(entries) == 0 {
		return "the folder is empty"
	}
	var names []string
	for _, e := range entries {
		n := e.Name()
		if e.IsDir() {
			n += "/"
		}
		names = append(names, n)
	}
	const shown = 5
	if len(names) > shown {
		return fmt.Sprintf("the folder holds %s and %d more", strings.Join(names[:shown], ", "), len(names)-shown)
	}
	return "the folder holds " + strings.Join(names, ", ")
}

// commandLine is the command line cmd was given (its flags in the order
// cobra sorts them), without the flags named in drop, quoted for a POSIX
// shell.
func commandLine(cmd *cobra.Command, args []string, drop ...string) string {
	parts := strings.Fields(cmd.CommandPath())
	for _, a := range args {
		parts = append(parts, shellQuote(a))
	}
	cmd.Flags().Visit(func(f *pflag.Flag) {
		if slices.Contains(drop, f.Name) {
			return
		}
		if sv, ok := f.Value.(pflag.SliceValue); ok {
			for _, v := range sv.GetSlice() {
				parts = append(parts, "--"+f.Name, shellQuote(v))
			}
			return
		}
		if f.Value.Type() == "bool" {
			if f.Value.String() == "true" {
				parts = append(parts, "--"+f.Name)
			} else {
				parts = append(parts, "--"+f.Name+"=false")
			}
			return
		}
		parts = append(parts, "--"+f.Name, shellQuote(f.Value.String()))
	})
	return strings.Join(parts, " ")
}

// shellQuote quotes s for a POSIX shell when it needs it.
func shellQuote(s string) string {
	if s != "" && strings.IndexFunc(s, func(r rune) bool {
		return !(r >= 'a' && r <= 'z' || r >= 'A' && r <= 'Z' || r >= '0' && r <= '9' || strings.ContainsRune("-_./=:,+@%", r))
	}) < 0 {
		return s
	}
	return "'" + strings.ReplaceAll(s, "'", `'\''`) + "'"
}

// videoFlags are --video, --no-video and --video-every, which run and
// worker share: what the trials record.
type videoFlags struct {
	// All records every trial's probes, None none; by default only XR
	// trials record. Every records every n-th stepped frame.
	All, None bool
	Every     int
}

func (f *videoFlags) register(fs *pflag.FlagSet) {
	fs.BoolVar(&f.All, "video", false, "record every trial's probes, not only XR tasks' (each probe's page a WebM in its trial folder, played on its page of report.html; docs/xr.md)")
	fs.BoolVar(&f.None, "no-video", false, "record no trial, XR tasks' included")
	fs.IntVar(&f.Every, "video-every", 1, "record every n-th stepped frame (a clip keeps at most 600 frames: past that it keeps every other one)")
}

// value is the runner's Video for the flags.
func (f *videoFlags) value() (trial.Video, error) {
	if f.All && f.None {
		return trial.Video{}, usageErr("--video and --no-video contradict each other")
	}
	if f.Every < 1 {
		return trial.Video{}, usageErr("--video-every must be at least 1")
	}
	v := trial.Video{Mode: trial.VideoXR, Every: f.Every}
	switch {
	case f.All:
		v.Mode = trial.VideoAll
	case f.None:
		v.Mode = trial.VideoOff
	}
	return v, nil
}
