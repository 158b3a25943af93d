package cli

import (
	"context"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"path/filepath"
	"runtime"
	"sort"
	"strings"
	"text/tabwriter"

	"github.com/spf13/cobra"

	"github.com/worldprobe/worldprobe/internal/browser"
	"github.com/worldprobe/worldprobe/internal/diagnose"
	"github.com/worldprobe/worldprobe/internal/gen"
	"github.com/worldprobe/worldprobe/internal/llm"
	"github.com/worldprobe/worldprobe/internal/repair"
	"github.com/worldprobe/worldprobe/internal/task"
	"github.com/worldprobe/worldprobe/internal/trial"
)

// GenOptions are the flags of 'worldprobe gen'.
type GenOptions struct {
	Paths  []string
	Tasks  []string
	Models []string
	// Samples is -n: samples per task and model.
	Samples    int
	Out        string
	ModelsFile string
	Record     string
	Replay     string
	DryRun     bool
	Jobs       int
	// RetryFailed generates failed samples again; RegenerateChanged those
	// whose prompt changed.
	RetryFailed       bool
	RegenerateChanged bool
	AllowUnpriced     bool
	// Agent runs each sample as an agent (--agent and its flags).
	Agent agentFlags
	// Repair is --repair: rounds of repair per page after the first shot
	// (0: none); RepairMode is --repair-mode (errors, feedback).
	Repair     int
	RepairMode string
	// resume is the command line that goes on after a stop.
	resume string
	// repairSet is whether --repair-mode was given.
	repairSet bool
	// queue are --db, --executor, --judge and --rescue-after.
	queue genQueueFlags
}

// NewCmdGen builds 'worldprobe gen'.
func NewCmdGen(io IO) *cobra.Command {
	o := &GenOptions{}
	cmd := &cobra.Command{
		Use:   "gen SUITE_OR_TASKS...",
		Short: "Generate candidate pages with a model, in the layout 'run --candidates' reads",
		Long: `Asks a model for the page of every task of SUITE_OR_TASKS (suite, category or
task folders; --task keeps the tasks whose ids match a glob). The model sees
exactly what 'worldprobe task prompt' prints — the brief with its parameters
filled in and the state interface — under a fixed instruction to answer with one
self-contained HTML file (three.js from a CDN URL is fine: run serves the vendored
copy). Nothing of the contract, the reference solution, the alternates or the
fixtures is sent.

--model is a role of the models file (generator, the default writer, or any other)
or PROVIDER/MODEL (openai/gpt-4.1, anthropic/claude-sonnet-4-5,
openrouter/anthropic/claude-sonnet-4.5, ollama/qwen2.5-coder:14b): that one
model without fallbacks, with the generator role's parameters and the base_url
and key_env of the models file's first entry for that provider. Repeat --model
for several models. API keys come from the environment variables the models
file names (docs/models.md).

The reply is reduced to one HTML file: the fenced html block (prose around it
dropped), with the JavaScript and CSS files of the reply inlined where the page
refers to them by name, or an unfenced document. A reply cut off by the output
limit is continued (the partial answer is sent back, up to 3 calls). A reply
with no page, a refusal or a provider failure is recorded as a failed sample
with its reason, and the others go on.

Each sample is written as OUT/<model-slug>/sample-<k>/<task-id>/index.html
with gen.json (model, role, tokens, cost, latency, finish reason, turns, prompt
and task digests, error) and reply.md (the raw reply) next to it. Judge sample k
with 'worldprobe run SUITE --candidates NAME=OUT/<model-slug>/sample-<k>'; gen
prints the command. Running the same command again skips the samples whose
gen.json says done (and the failed ones unless --retry-failed); a sample whose
prompt changed since it was generated is named and refused unless
--regenerate-changed. --dry-run prints the calls it would make and their
estimated cost, and sends nothing.

--repair R repairs every first-shot page in up to R rounds, each page kept as
it is and its repaired version written as a page of its own, in
OUT/<model-slug>+error-only/sample-<k>/<task-id>/ (or +feedback). A round checks
the page and sends the model what the check found with the page, nothing else;
the model answers with SEARCH/REPLACE edits (an edit whose text does not occur
exactly once is refused, with the reason, and asked again, twice at most). With
--repair-mode errors (the default) the check is the page's scripts parsed and the
page run in Chromium for the task's frame budget: its syntax errors, uncaught
exceptions, console errors, WebGL and load failures, hangs and crashes go back.
A page without any is not sent. --repair-mode feedback judges the page as 'run'
does and sends the messages of the checks it failed (never the contract itself);
its pages are ranked in a leaderboard of their own. Each repaired page's gen.json
records its rounds, edits, tokens, cost and time, the first shot's included.

A budget of the models file (budgets: run_usd, run_tokens) stops gen cleanly:
calls under way finish and are kept, it says how many samples are done and how
to resume, and it exits 4. Interrupted (Ctrl-C), it keeps every finished sample
and exits 3. Layout and gen.json: docs/generation.md.

--agent runs each sample as an agent instead: the model works in a fresh folder
holding only the task's prompt (brief.md), its state interface as data and an
empty index.html, through tools — list_files, read_file, grep, write_file,
edit_file, run_page (the page in the real runtime: load errors, exceptions,
console messages, WebGL problems and a snapshot of window.__3D_STATE__, never a
contract verdict) and finish — until it calls finish, answers without a tool
call, or --max-turns, --max-agent-tokens, --max-agent-usd or a budget of the
models file runs out (recorded as finish_reason budget, the page so far kept).
The final index.html is written to OUT/<model-slug>+agent/sample-<k>/<task-id>/
with gen.json (turns, tool calls per tool, tokens, cost, the test-to-edit ratio)
and trajectory.jsonl (every turn, keys redacted).

--db URL generates as River jobs in PostgreSQL (--executor river: in
OUT/queue.db): one job per sample's generation and one per page's repair, unique
by task digest × model × sample × step, run by this process's --jobs workers
(--jobs 0: none) and by 'worldprobe worker --db URL --models FILE' on any machine
that sees OUT at the same path. Each model answer is stored in the database
before its job ends: a job run again (retried, rescued from a killed worker)
never pays a call twice. --judge RUN enqueues each finished page's trial into the
run folder RUN for the workers; 'run SUITE --candidates <model-slug>=OUT/<model-slug>
--db URL --out RUN' collects them. Interrupted, gen leaves its jobs queued.

` + exitStatusHelp("every planned sample has a gen.json, failed samples included (they are counted and listed), or after --dry-run", ""),
		Example: `  worldprobe gen suites/starter --model generator
  worldprobe gen suites/starter --model openai/gpt-4.1 --model anthropic/claude-sonnet-4-5 -n 3
  worldprobe gen suites/starter --task 'simulation/*' --model ollama/qwen2.5-coder:14b --out out/gen
  worldprobe gen suites/starter --model openai/gpt-4.1 --repair 2
  worldprobe gen suites/starter --model openai/gpt-4.1 --repair 1 --repair-mode feedback
  worldprobe gen suites/starter --model generator --dry-run
  worldprobe gen suites/starter --model generator --retry-failed
  worldprobe gen suites/starter --model generator --record rec/ && worldprobe gen suites/starter --model generator --replay rec/ --out out/replayed
  worldprobe gen suites/starter --model openai/gpt-4.1 --out out/gen && worldprobe run suites/starter --candidates gpt=out/gen/openai-gpt-4.1/sample-1
  worldprobe gen suites/starter --model anthropic/claude-sonnet-4-5 --agent --max-turns 20`,
		Args: func(cmd *cobra.Command, args []string) error {
			if len(args) == 0 {
				return usageErr("gen needs at least one SUITE or TASK folder")
			}
			return nil
		},
		RunE: func(cmd *cobra.Command, args []string) error {
			o.Paths = args
			o.Agent.changed = cmd.Flags().Changed
			o.resume = commandLine(cmd, args, "retry-failed", "regenerate-changed", "dry-run")
			o.repairSet = cmd.Flags().Changed("repair-mode")
			return runGen(cmd.Context(), io, o)
		},
	}
	f := cmd.Flags()
	registerTaskFlag(f, &o.Tasks, "tasks")
	f.StringArrayVar(&o.Models, "model", nil, "ROLE or PROVIDER/MODEL that writes the pages (repeatable)")
	f.IntVarP(&o.Samples, "samples", "n", 1, "samples per task and model")
	f.StringVar(&o.Out, "out", "gen", "output folder: OUT/<model-slug>/sample-<k>/<task-id>/index.html")
	f.StringVar(&o.ModelsFile, "models", "", "models file (default \""+llm.DefaultModelsFile+"\" if present, else built-in defaults)")
	f.StringVar(&o.Record, "record", "", "record every answered call into `DIR`")
	f.StringVar(&o.Replay, "replay", "", "answer every call from the recordings in `DIR`, offline")
	f.BoolVar(&o.DryRun, "dry-run", false, "print the calls that would be made and their estimated cost; send nothing")
	f.IntVar(&o.Jobs, "jobs", 4, "samples generated at once")
	f.BoolVar(&o.RetryFailed, "retry-failed", false, "generate again the samples whose gen.json says failed")
	f.BoolVar(&o.RegenerateChanged, "regenerate-changed", false, "generate again the samples whose prompt changed since they were generated")
	f.BoolVar(&o.AllowUnpriced, "allow-unpriced", false, "allow models missing from the pricing table (their cost counts as 0)")
	f.IntVar(&o.Repair, "repair", 0, "repair each first-shot page in up to `R` rounds, written to OUT/<model-slug>+<repair>/ (0: no repair)")
	f.StringVar(&o.RepairMode, "repair-mode", string(repair.Errors), "what a repair round sends back: errors (the errors the page raises) or feedback (the messages of the checks it fails; ranked apart)")
	o.Agent.register(f)
	o.queue.register(f)
	return cmd
}

func runGen(ctx context.Context, io IO, o *GenOptions) error {
	switch {
	case len(o.Models) == 0:
		return usageErr("gen needs --model ROLE or PROVIDER/MODEL (e.g. --model generator, --model openai/gpt-4.1)")
	case o.Samples < 1:
		return usageErr("-n must be at least 1")
	case o.Record != "" && o.Replay != "":
		return usageErr("--record and --replay cannot be used together")
	case o.Repair < 0:
		return usageErr("--repair must be 0 (no repair) or a number of rounds")
	case o.Repair == 0 && o.repairSet:
		return usageErr("--repair-mode %s needs --repair R (the rounds of repair)", o.RepairMode)
	}
	if err := o.queue.check(o.Jobs); err != nil {
		return err
	}
	if o.queue.on() && o.Agent.On {
		return usageErr("--agent samples run in this process: --db and --executor river are for first shots and their repairs")
	}
	mode, err := repair.ParseMode(o.RepairMode)
	if err != nil {
		return usageErr("--repair-mode: %v", err)
	}
	if err := o.Agent.check(o.Repair > 0); err != nil {
		return err
	}
	if o.Agent.On && o.Repair > 0 {
		return usageErr("--repair repairs first-shot pages; --agent pages were already run and edited by the agent: give one of them")
	}
	tasks, err := task.Select(o.Paths, o.Tasks)
	if err != nil {
		return usageErr("%v", err)
	}
	models, err := genModels(ctx, io, o)
	if err != nil {
		return err
	}
	opts := gen.Options{Tasks: tasks, Models: models, Samples: o.Samples, Out: o.Out, Jobs: o.Jobs,
		RetryFailed: o.RetryFailed, RegenerateChanged: o.RegenerateChanged, DryRun: o.DryRun, Progress: io.ErrOut}
	if o.Agent.On {
		agentModels(models, &opts)
	}
	sum, err := gen.Plan(opts)
	if err != nil {
		return runtimeErr(err)
	}
	if len(sum.Changed) > 0 {
		fmt.Fprintf(io.ErrOut, "--regenerate-changed: the prompt of %s changed; generating them again:\n", plural(len(sum.Changed), "sample"))
		for _, s := range sum.Changed {
			fmt.Fprintf(io.ErrOut, "  %s: %s sample %d\n", s.Task.ID, s.Model.Slug, s.Index)
		}
	}
	if o.DryRun {
		if err := gen.Execute(ctx, opts, sum); err != nil {
			return runtimeErr(err)
		}
		writeDryRun(io.Out, sum, models)
		if o.Agent.On {
			writeAgentDryRun(io.Out, o)
		}
		if o.Repair > 0 {
			fmt.Fprintf(io.Out, "repair (%s): up to %s of at most %d calls for each page whose check finds something; not estimated (which pages need it is known only once they are generated and checked)\n",
				mode.Label(), plural(o.Repair, "round"), 1+repair.MaxRetries)
		}
		return nil
	}
	if o.queue.on() {
		return runGenQueued(ctx, io, o, mode, tasks, models, sum)
	}
	execute := func() error { return gen.Execute(ctx, opts, sum) }
	if o.Agent.On {
		run, done, err := agentExecutor(ctx, io, o, sum)
		if err != nil {
			return err
		}
		defer done()
		execute = run
	}
	fmt.Fprintf(io.ErrOut, "gen: %s × %s × %s = %s (%d kept, %d to generate), %d jobs → %s\n",
		plural(len(tasks), "task"), plural(len(models), "model"), plural(o.Samples, "sample"), plural(sum.Planned, "sample"),
		sum.KeptDone+sum.KeptFailed, len(sum.ToDo), o.Jobs, o.Out)
	err = execute()
	writeGenSummary(io.Out, sum)
	var rsum *repair.Summary
	if err == nil && o.Repair > 0 {
		if rsum, err = runRepair(ctx, io, o, mode, tasks, models); rsum != nil {
			writeRepairSummary(io.Out, o, mode, rsum)
		}
		if err != nil {
			return repairStopped(ctx, io, o, rsum, err)
		}
	}
	writeRunCommand(io.Out, o, mode, models)
	switch {
	case err == nil:
		return nil
	case ctx.Err() != nil:
		fmt.Fprintf(io.ErrOut, "gen interrupted (%v): %d of %d samples finished and kept, %d not generated\nresume with: %s\n",
			ctx.Err(), sum.Finished(), sum.Planned, sum.Planned-sum.Finished(), o.resume)
		return silentExit(ExitInfrastructure)
	case errors.Is(err, llm.ErrBudgetExceeded):
		return fmt.Errorf("gen stopped: %w\n%d of %d samples finished and kept (%d generated now), %d not generated; raise the budget under budgets: in the models file and resume with: %s",
			err, sum.Finished(), sum.Planned, len(sum.Records), sum.Planned-sum.Finished(), o.resume)
	case llm.IsFatal(err):
		return fmt.Errorf("gen stopped: %w\n%d of %d samples finished and kept; fix the models file or the key and resume with: %s",
			err, sum.Finished(), sum.Planned, o.resume)
	}
	return runtimeErr(fmt.Errorf("gen stopped: %w\n%d of %d samples finished and kept; resume with: %s", err, sum.Finished(), sum.Planned, o.resume))
}

// runRepair repairs the first-shot pages gen wrote (--repair): it plans,
// starts the browser if a page is to be checked, and repairs.
func runRepair(ctx context.Context, io IO, o *GenOptions, mode repair.Mode, tasks []*task.Task, models []*gen.Model) (*repair.Summary, error) {
	ro := repair.Options{Tasks: tasks, Models: models, Samples: o.Samples, Out: o.Out, Mode: mode, Rounds: o.Repair, Jobs: o.Jobs,
		RetryFailed: o.RetryFailed, Progress: io.ErrOut}
	sum, err := repair.Plan(ro)
	if err != nil {
		return nil, runtimeErr(err)
	}
	fmt.Fprintf(io.ErrOut, "repair (%s, up to %s): %s (%d kept, %d to repair", mode.Label(), plural(o.Repair, "round"), plural(sum.Planned, "page"), sum.Kept, len(sum.ToDo))
	if sum.Waiting > 0 {
		fmt.Fprintf(io.ErrOut, ", %d without a finished first shot", sum.Waiting)
	}
	fmt.Fprintf(io.ErrOut, ") → %s\n", filepath.Join(o.Out, "<model-slug>+"+mode.Label()))
	for _, j := range sum.Again {
		fmt.Fprintf(io.ErrOut, "  repairing again %s %s sample %d: %s\n", j.Task.ID, j.Model.Slug, j.Index, j.Why)
	}
	check := false
	for _, j := range sum.ToDo {
		check = check || j.First.Status == gen.StatusDone
	}
	if !check { // nothing to check: only first shots without a page
		return sum, repair.Execute(ctx, ro, sum)
	}
	ef := &engineFlags{Chromium: o.Agent.Chromium, Web: o.Agent.Web, Jobs: max(1, min(o.Jobs, runtime.NumCPU())),
		PageMemoryMiB: int(browser.DefaultPageMemory >> 20)}
	b, res, err := ef.start(ctx, io, 0, 0)
	if err != nil {
		return sum, err
	}
	defer b.Close()
	logger := slog.New(slog.NewTextHandler(io.ErrOut, &slog.HandlerOptions{Level: slog.LevelWarn}))
	if mode == repair.Feedback {
		ro.Diagnoser = &diagnose.Feedback{Runner: &trial.Runner{Browser: b, Resolver: res, SkipDraw: true, Logger: logger}}
	} else {
		ro.Diagnoser = &diagnose.Errors{Browser: b, Resolver: res, Logger: logger}
	}
	return sum, repair.Execute(ctx, ro, sum)
}

// repairStopped reports a repair that stopped before every page was
// repaired: interrupted, a budget, a fatal provider error, or another
// failure. The pages repaired are kept.
func repairStopped(ctx context.Context, io IO, o *GenOptions, sum *repair.Summary, err error) error {
	done, planned := 0, 0
	if sum != nil {
		done, planned = sum.Kept+len(sum.Records), sum.Planned-sum.Waiting
	}
	switch {
	case ctx.Err() != nil:
		fmt.Fprintf(io.ErrOut, "gen interrupted while repairing (%v): %d of %d repaired pages finished and kept\nresume with: %s\n", ctx.Err(), done, planned, o.resume)
		return silentExit(ExitInfrastructure)
	case errors.Is(err, llm.ErrBudgetExceeded):
		return fmt.Errorf("gen stopped while repairing: %w\n%d of %d repaired pages finished and kept; raise the budget under budgets: in the models file and resume with: %s", err, done, planned, o.resume)
	case llm.IsFatal(err):
		return fmt.Errorf("gen stopped while repairing: %w\n%d of %d repaired pages finished and kept; fix the models file or the key and resume with: %s", err, done, planned, o.resume)
	}
	var ce *exitError
	if errors.As(err, &ce) {
		return err
	}
	return runtimeErr(fmt.Errorf("gen stopped while repairing: %w\n%d of %d repaired pages finished and kept; resume with: %s", err, done, planned, o.resume))
}

// writeRepairSummary prints what the repair did: how each page's repair
// ended, its calls and cost.
func writeRepairSummary(w io.Writer, o *GenOptions, mode repair.Mode, sum *repair.Summary) {
	all := append(append([]*gen.Record(nil), sum.KeptRecords...), sum.Records...)
	ends := repair.Counts(all)
	var parts []string
	for _, e := range []struct {
		end  gen.RepairEnd
		what string
	}{
		{gen.RepairNothingToFix, "had nothing to fix (no call)"}, {gen.RepairFixed, "fixed"},
		{gen.RepairOutOfRounds, "still failing after " + plural(o.Repair, "round")}, {gen.RepairUnchanged, "unchanged (no edit applied)"},
		{gen.RepairError, "stopped by a failed call"}, {gen.RepairNoPage, "without a first-shot page"},
	} {
		if n := ends[e.end]; n > 0 {
			parts = append(parts, fmt.Sprintf("%d %s", n, e.what))
		}
	}
	var in, out int64
	var cost float64
	calls := 0
	for _, r := range sum.Records {
		in, out, cost, calls = in+r.Repaired.TokensIn, out+r.Repaired.TokensOut, cost+r.Repaired.CostUSD, calls+r.Repaired.Calls
	}
	fmt.Fprintf(w, "%s repair of %s: %s; %d repaired now in %s, %d kept\n", mode.Label(), plural(len(all), "page"), strings.Join(parts, ", "),
		len(sum.Records), plural(calls, "call"), sum.Kept)
	fmt.Fprintf(w, "repair cost $%.4f, tokens in %d, out %d (each repaired page's gen.json adds its first shot's)\n", cost, in, out)
}

// genModels builds the models of --model: a registry each, sharing one
// ledger (so budgets cover them all), their clients checked now (keys,
// prices) unless this is a dry run.
func genModels(ctx context.Context, io IO, o *GenOptions) ([]*gen.Model, error) {
	opts, _ := modelOptions(io, o.Record, o.Replay, o.AllowUnpriced, llm.WithLedger(llm.NewLedger()), llm.WithObserver(genProgress(io.ErrOut)))
	base, err := llm.Load(o.ModelsFile, io.Getenv, opts...)
	if err != nil {
		return nil, err
	}
	var models []*gen.Model
	slugs := map[string]string{}
	for _, spec := range o.Models {
		m, err := genModel(ctx, io, base.Config(), spec, opts, o.DryRun)
		if err != nil {
			return nil, err
		}
		if other, ok := slugs[m.Slug]; ok {
			return nil, usageErr("--model %s and --model %s both write with %s (folder %s): give each model once", other, spec, m.Name, m.Slug)
		}
		slugs[m.Slug] = spec
		models = append(models, m)
	}
	return models, nil
}

// genModel is the model of one --model spec under the models file's
// config base: with its client, or, in a dry run, its limits and price.
// API keys come from io's environment.
func genModel(ctx context.Context, io IO, base *llm.Config, spec string, opts []llm.Option, dryRun bool) (*gen.Model, error) {
	cfg, role, err := gen.ConfigFor(base, spec)
	if err != nil {
		return nil, usageErr("%v", err)
	}
	res, err := cfg.Resolve(role)
	if err != nil {
		return nil, usageErr("--model %s: %v", spec, err)
	}
	m := &gen.Model{Spec: spec, Role: role, Name: res.Chain[0].String()}
	m.Slug = gen.Slug(m.Name)
	reg, err := llm.New(cfg, io.Getenv, opts...)
	if err != nil {
		return nil, err
	}
	if dryRun {
		infos, err := reg.Describe(ctx)
		if err != nil {
			return nil, err
		}
		for _, info := range infos {
			if info.Role == role {
				primary := info.Models[0]
				m.MaxTokens, m.Price, m.Pricing = primary.MaxTokens, primary.Price, primary.Pricing
			}
		}
	} else if m.Chat, err = reg.Role(ctx, role); err != nil {
		return nil, err
	}
	return m, nil
}

// genProgress reports retries and fallbacks while gen runs.
func genProgress(w io.Writer) llm.Observer {
	return func(e llm.Event) {
		switch e.Kind {
		case llm.EventRetrying:
			fmt.Fprintf(w, "retrying %s/%s in %s (attempt %d failed: %s)\n", e.Provider, e.Model, e.Delay, e.Attempt, e.Error)
		case llm.EventFallback:
			fmt.Fprintf(w, "falling back from %s/%s to %s (%s)\n", e.Provider, e.Model, e.Next, e.Error)
		case llm.EventThrottled:
			fmt.Fprintf(w, "%s is rate limiting: concurrency cut to %d\n", e.Provider, e.Limit)
		}
	}
}

// writeGenSummary prints what gen did: samples with a page and failed
// ones (each named), cost and tokens.
func writeGenSummary(w io.Writer, sum *gen.Summary) {
	done, failed := sum.Done()
	var in, out int64
	var cost float64
	calls := 0
	for _, r := range sum.Records {
		in, out, cost, calls = in+r.TokensIn, out+r.TokensOut, cost+r.CostUSD, calls+r.Turns
	}
	failures := append([]*gen.Record(nil), sum.FailedKept...)
	truncated := 0
	for _, r := range sum.Records {
		if r.Status == gen.StatusFailed {
			failures = append(failures, r)
		} else if r.FinishReason == gen.FinishTruncated {
			truncated++
		}
	}
	sort.Slice(failures, func(i, j int) bool {
		a, b := failures[i], failures[j]
		if a.Task != b.Task {
			return a.Task < b.Task
		}
		if a.Requested != b.Requested {
			return a.Requested < b.Requested
		}
		return a.Sample < b.Sample
	})
	byFinish := map[gen.Finish]int{}
	for _, r := range failures {
		byFinish[r.FinishReason]++
	}
	var kinds []string
	for _, f := range []gen.Finish{gen.FinishNoHTML, gen.FinishRefusal, gen.FinishError, gen.FinishTruncated, gen.FinishBudget, gen.FinishStop, gen.FinishOther} {
		if byFinish[f] > 0 {
			kinds = append(kinds, fmt.Sprintf("%s %d", f, byFinish[f]))
		}
	}
	fmt.Fprintf(w, "\n%d of %d samples have a page, %d failed", sum.KeptDone+done, sum.Planned, sum.KeptFailed+failed)
	if len(kinds) > 0 {
		fmt.Fprintf(w, " (%s)", strings.Join(kinds, ", "))
	}
	fmt.Fprintf(w, "; %d generated now in %s, %d kept\n", len(sum.Records), plural(calls, "call"), sum.KeptDone+sum.KeptFailed)
	fmt.Fprintf(w, "cost $%.4f, tokens in %d, out %d\n", cost, in, out)
	if truncated > 0 {
		fmt.Fprintf(w, "%s still cut off by the output limit after continuing (finish_reason truncated; raise max_tokens in the models file)\n", plural(truncated, "page is"))
	}
	if len(failures) > 0 {
		fmt.Fprintln(w, "failed samples (gen.json says why; --retry-failed generates them again):")
		for _, r := range failures {
			fmt.Fprintf(w, "  %s %s sample %d: %s: %s\n", r.Task, r.Requested, r.Sample, r.FinishReason, r.Error)
		}
	}
}

// writeRunCommand prints the run command that judges the pages: each
// sample's first-shot folder and, after --repair, its repaired folder
// under the same name (run reads which is which from gen.json).
func writeRunCommand(w io.Writer, o *GenOptions, mode repair.Mode, models []*gen.Model) {
	suite := "SUITE"
	if len(o.Paths) == 1 {
		suite = shellQuote(o.Paths[0])
	}
	cmd := "worldprobe run " + suite
	for _, t := range o.Tasks {
		cmd += " --task " + shellQuote(t)
	}
	for _, m := range models {
		dir := gen.CandidatesDir(o.Out, m, 1)
		fixed := repair.Dir(o.Out, m, mode, 1)
		if o.Samples > 1 {
			// The model's folder: run judges its sample-<k> folders as
			// samples of one model, for pass@k.
			dir, fixed = filepath.Dir(dir), filepath.Dir(fixed)
		}
		cmd += " --candidates " + shellQuote(m.Slug+"="+dir)
		if o.Repair > 0 {
			cmd += " --candidates " + shellQuote(m.Slug+"="+fixed)
		}
	}
	fmt.Fprintf(w, "pages in %s; judge them with:\n  %s\n", o.Out, cmd)
}

// writeDryRun prints the calls a dry run found and their estimated cost.
func writeDryRun(w io.Writer, sum *gen.Summary, models []*gen.Model) {
	fmt.Fprintf(w, "dry run: %s would be made (%d of %d samples kept); nothing is sent\n",
		plural(len(sum.Calls), "call"), sum.KeptDone+sum.KeptFailed, sum.Planned)
	if len(sum.Calls) > 0 {
		tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', 0)
		fmt.Fprintln(tw, "TASK\tSAMPLE\tMODEL\tPROMPT TOKENS (EST.)\tMAX OUTPUT\tINPUT $\tOUTPUT $ (AT MOST)")
		for _, c := range sum.Calls {
			in, outUSD := "?", "?"
			if c.Priced {
				in, outUSD = fmt.Sprintf("%.4f", c.InputUSD), fmt.Sprintf("%.4f", c.OutputUSD)
			}
			fmt.Fprintf(tw, "%s\t%d\t%s\t%d\t%d\t%s\t%s\n", c.Sample.Task.ID, c.Sample.Index, c.Sample.Model.Name, c.InputTokens, c.MaxOutputTokens, in, outUSD)
		}
		tw.Flush()
	}
	var inUSD, outUSD float64
	tokens := 0
	for _, c := range sum.Calls {
		inUSD, outUSD, tokens = inUSD+c.InputUSD, outUSD+c.OutputUSD, tokens+c.InputTokens
	}
	fmt.Fprintf(w, "estimated cost: $%.4f for the prompts (about %d input tokens) + at most $%.4f for the output (max_tokens per call) = at most $%.4f;"+
		" continuations of cut-off replies (up to %d more calls a sample) are not counted\n", inUSD, tokens, outUSD, inUSD+outUSD, gen.MaxTurns-1)
	for _, m := range models {
		switch m.Pricing {
		case "provider":
			fmt.Fprintf(w, "%s: priced by the provider per call, not counted above\n", m.Name)
		case "missing":
			fmt.Fprintf(w, "%s: no price in the pricing table, not counted above (add it under pricing: in the models file)\n", m.Name)
		}
	}
}

// plural writes n and the noun, with an s unless n is 1 ("1 sample",
// "2 samples", "2 pages are").
func plural(n int, noun string) string {
	if n == 1 {
		return "1 " + noun
	}
	if first, rest, ok := strings.Cut(noun, " "); ok && rest == "is" {
		return fmt.Sprintf("%d %ss are", n, first)
	}
	return fmt.Sprintf("%d %ss", n, noun)
}
