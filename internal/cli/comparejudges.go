package cli

import (
	"context"
	"errors"
	"fmt"
	"io"
	"path/filepath"
	"slices"
	"strings"

	"github.com/spf13/cobra"

	"github.com/worldprobe/worldprobe/internal/judgerun"
	"github.com/worldprobe/worldprobe/internal/judges"
	"github.com/worldprobe/worldprobe/internal/llm"
	"github.com/worldprobe/worldprobe/internal/run"
)

// comparisonJudges are the judges --judges names, in the table's order.
var comparisonJudges = []string{"dom", "visual"}

// CompareJudgesOptions are the flags of 'worldprobe compare-judges'.
type CompareJudgesOptions struct {
	engineFlags
	Run    string
	Judges []string
	Out    string
	DryRun bool
	// RetryFailed judges again the candidates a judge reached no verdict on.
	RetryFailed   bool
	ModelsFile    string
	Record        string
	Replay        string
	AllowUnpriced bool
	// resume is the command line that goes on after a stop.
	resume string
}

// NewCmdCompareJudges builds 'worldprobe compare-judges'.
func NewCmdCompareJudges(io IO) *cobra.Command {
	o := &CompareJudgesOptions{}
	cmd := &cobra.Command{
		Use:   "compare-judges RUN",
		Short: "Judge a run's candidates with a DOM check and a visual model, and compare them with the contract (WorldCoder-Bench's paradigm table)",
		Long: `Judges every candidate of the 'worldprobe run' folder RUN again with other
paradigms of evaluation, and compares their verdicts with the contract's, which are
the reference — WorldCoder-Bench's table of evaluation paradigms, on your own run
(docs/judges.md):

  dom     a DOM-structure check: the page loaded in Chromium (the task's viewport
          and seed, 30 frames), then the document (loaded, no uncaught exception),
          a canvas of non-zero size, and every element the brief and task.yaml's
          controls name (ids, and the text labels a HUD shows) present and visible;
          score = the share of checks that pass, pass = all pass
  visual  the run's screenshot of the page (or one taken now) and the brief sent
          to the visual_judge model role, asked for a JSON verdict {pass, score,
          reason}; skipped, with a note, when no visual model is configured (its
          API key is not in the environment; docs/models.md)

Neither ever reads the contract. The table gives, per judge and for the contract:
pass rate, Kendall's τ_b between the judge's score and the contract's V-Cov, the
false-positive rate (the share of the candidates the contract fails that the judge
passes), the false-negative rate, agreement, and the cost — wall time per candidate
relative to the DOM check, and dollars when the model is priced. A reply that is no
verdict (a refusal, prose without the JSON, a provider failure) is recorded and
counts as a fail with score 0. Trials that are infrastructure errors, that had no
page, or whose task or page changed since the run are left out and listed.

It prints the table and writes it with every candidate's verdicts to RUN/judges.md
and RUN/judges.json (--out FILE: FILE and FILE's name with .json). Each verdict is
stored beside its trial (RUN/trials/<trial>/judges/<judge>.json) as it is reached:
running the same command again judges only what is left (and, with --retry-failed,
the no-verdicts again); a verdict of another model or judge version is judged again.
--jobs N bounds the verdicts reached at once (pages open in Chromium, visual calls in
flight). A page that misses its deadline only because the machine is overloaded is
looked at again as 'run' does; if it still cannot be, that verdict is not reached and
a warning under the table says so. --dry-run prints how many pages would be loaded
and how many visual calls made, with their estimated cost, and sends nothing. A
budget of the models file (budgets: run_usd) stops it cleanly, keeping every verdict
(exit 4).

` + exitStatusHelp("the table was written, whatever its numbers, or after --dry-run", ""),
		Example: `  worldprobe run suites/starter --oracle --fixtures --out runs/starter
  worldprobe compare-judges runs/starter
  worldprobe compare-judges runs/starter --judges dom
  worldprobe compare-judges runs/starter --dry-run
  worldprobe compare-judges runs/starter --models models.yaml --out runs/starter/paradigms.md
  worldprobe compare-judges runs/starter --record rec/ && worldprobe compare-judges runs/starter --replay rec/ --out /tmp/again.md`,
		Args: func(cmd *cobra.Command, args []string) error {
			if len(args) != 1 {
				return usageErr("compare-judges needs one RUN folder")
			}
			return nil
		},
		RunE: func(cmd *cobra.Command, args []string) error {
			o.Run = args[0]
			o.resume = commandLine(cmd, args, "dry-run", "retry-failed")
			return runCompareJudges(cmd.Context(), io, o)
		},
	}
	f := cmd.Flags()
	o.engineFlags.register(f)
	f.StringSliceVar(&o.Judges, "judges", comparisonJudges, "judges to compare with the contract: dom, visual (comma-separated)")
	f.StringVar(&o.Out, "out", "", "Markdown file of the table (default RUN/judges.md); the JSON goes beside it, ending in .json")
	f.BoolVar(&o.DryRun, "dry-run", false, "print the pages that would be loaded and the visual calls that would be made, with their estimated cost; judge nothing")
	f.BoolVar(&o.RetryFailed, "retry-failed", false, "judge again the candidates a judge reached no verdict on")
	f.StringVar(&o.ModelsFile, "models", "", "models file (default \""+llm.DefaultModelsFile+"\" if present, else built-in defaults)")
	f.StringVar(&o.Record, "record", "", "record every answered model call into `DIR`")
	f.StringVar(&o.Replay, "replay", "", "answer every model call from the recordings in `DIR`, offline")
	f.BoolVar(&o.AllowUnpriced, "allow-unpriced", false, "allow a visual model missing from the pricing table (its cost is then unknown)")
	return cmd
}

// visualSetup is the visual judge's model, or why it is skipped.
type visualSetup struct {
	judge *judges.VisualJudge
	skip  string
	// info describes the primary model, for the dry run's estimate.
	info llm.ModelInfo
}

func runCompareJudges(ctx context.Context, io IO, o *CompareJudgesOptions) error {
	if len(o.Judges) == 0 {
		return usageErr("--judges needs at least one of %s", strings.Join(comparisonJudges, ", "))
	}
	seen := map[string]bool{}
	for _, j := range o.Judges {
		if !slices.Contains(comparisonJudges, j) {
			return usageErr("--judges %q: the judges are %s", j, strings.Join(comparisonJudges, ", "))
		}
		if seen[j] {
			return usageErr("--judges names %s twice", j)
		}
		seen[j] = true
	}
	if o.Record != "" && o.Replay != "" {
		return usageErr("--record and --replay cannot be used together")
	}
	if o.Jobs < 1 {
		return usageErr("--jobs must be at least 1")
	}
	if _, err := run.ReadConfig(o.Run); err != nil {
		return usageErr("%s is not a 'worldprobe run' folder: %w", o.Run, err)
	}
	out := o.Out
	if out == "" {
		out = filepath.Join(o.Run, "judges.md")
	}

	var list []judges.Judge
	var skipped []judgerun.Skip
	dom := &judges.DOMJudge{}
	var visual visualSetup
	for _, name := range comparisonJudges {
		if !seen[name] {
			continue
		}
		switch name {
		case "dom":
			list = append(list, dom)
		case "visual":
			var err error
			if visual, err = visualJudge(ctx, io, o); err != nil {
				return err
			}
			if visual.skip != "" {
				skipped = append(skipped, judgerun.Skip{Judge: "visual", Why: visual.skip})
				fmt.Fprintf(io.ErrOut, "visual: skipped — %s\n", visual.skip)
				continue
			}
			list = append(list, visual.judge)
		}
	}
	opts := judgerun.Options{Run: o.Run, Judges: list, Skipped: skipped, RetryFailed: o.RetryFailed, Jobs: o.Jobs, Progress: io.ErrOut}
	plan, err := judgerun.NewPlan(opts)
	if err != nil {
		return usageErr("reading %s: %w", o.Run, err)
	}
	if o.DryRun {
		writeJudgesDryRun(io.Out, plan, visual)
		return nil
	}

	// The browser loads the DOM check's pages and takes the screenshots
	// the run kept none of.
	needBrowser := false
	for _, j := range plan.ToDo {
		needBrowser = needBrowser || j.Judge.Name() == "dom" || j.Item.JudgeCandidate().Screenshot == ""
	}
	if needBrowser {
		b, res, err := o.start(ctx, io, 0, 0)
		if err != nil {
			return err
		}
		defer b.Close()
		dom.Browser, dom.Resolver = b, res
		if visual.judge != nil {
			visual.judge.Browser, visual.judge.Resolver = b, res
		}
	}
	var names []string
	for _, j := range list {
		names = append(names, j.Name())
	}
	fmt.Fprintf(io.ErrOut, "compare-judges %s: %s × %s (%s): %s kept, %d to reach, %d jobs → %s\n", o.Run,
		plural(len(plan.Items), "candidate"), plural(len(list), "judge"), strings.Join(names, ", "), plural(plan.Kept, "verdict"), len(plan.ToDo), o.Jobs, out)
	err = judgerun.Execute(ctx, opts, plan)
	if err != nil {
		done := plan.Kept + len(plan.ToDo) - plan.Missing()
		left := fmt.Sprintf("%d of %d verdicts reached and kept, %d left", done, plan.Kept+len(plan.ToDo), plan.Missing())
		switch {
		case ctx.Err() != nil:
			fmt.Fprintf(io.ErrOut, "compare-judges interrupted (%v): %s\nresume with: %s\n", ctx.Err(), left, o.resume)
			return silentExit(ExitInfrastructure)
		case errors.Is(err, llm.ErrBudgetExceeded):
			return fmt.Errorf("compare-judges stopped: %w\n%s; raise the budget under budgets: in the models file and resume with: %s", err, left, o.resume)
		case llm.IsFatal(err):
			return fmt.Errorf("compare-judges stopped: %w\n%s; fix the models file or the key and resume with: %s", err, left, o.resume)
		}
		return runtimeErr(fmt.Errorf("compare-judges stopped: %w\n%s; resume with: %s", err, left, o.resume))
	}
	rep := judgerun.NewReport(plan)
	jsonPath, err := rep.Write(out)
	if err != nil {
		return runtimeErr(err)
	}
	fmt.Fprintf(io.Out, "%s\ntable, every candidate's verdicts and the disagreements: %s, %s\n", rep.Table(), out, jsonPath)
	return nil
}

// visualJudge builds the visual judge on the visual_judge role, or says
// why it is skipped: no API key in the environment for its model.
func visualJudge(ctx context.Context, io IO, o *CompareJudgesOptions) (visualSetup, error) {
	reg, logger, err := loadModels(io, o.ModelsFile, o.Record, o.Replay, o.AllowUnpriced, llm.WithObserver(genProgress(io.ErrOut)))
	if err != nil {
		return visualSetup{}, err
	}
	var s visualSetup
	var name string
	var noKey bool
	if s.info, name, noKey, err = roleModelInfo(ctx, reg, llm.VisualJudge, o.Replay); err != nil {
		return visualSetup{}, err
	}
	if noKey {
		s.skip = fmt.Sprintf("no visual model is configured: the %s role's model %s needs an API key in $%s, which is not set (models: %s; docs/models.md)",
			llm.VisualJudge, name, s.info.KeyEnv, reg.Source())
		return s, nil
	}
	s.judge = &judges.VisualJudge{ModelName: name, Logger: logger}
	if o.DryRun {
		return s, nil
	}
	if s.judge.Model, err = reg.Role(ctx, llm.VisualJudge); err != nil {
		return visualSetup{}, err
	}
	return s, nil
}

// writeJudgesDryRun prints what comparing would do: the verdicts kept,
// the pages the DOM check would load, the visual calls and their
// estimated cost.
func writeJudgesDryRun(w io.Writer, p *judgerun.Plan, visual visualSetup) {
	fmt.Fprintf(w, "dry run: %s of %s compared (%d left out), %s kept, %d to reach; nothing is judged or sent\n",
		plural(len(p.Items), "candidate"), plural(p.Trials, "finished trial"), len(p.LeftOut), plural(p.Kept, "verdict"), len(p.ToDo))
	doms, calls, shots, tokens := 0, 0, 0, 0
	for _, j := range p.ToDo {
		switch j.Judge.Name() {
		case "dom":
			doms++
		case "visual":
			calls++
			if j.Item.JudgeCandidate().Screenshot == "" {
				shots++
			}
			if req, err := judges.VisualRequest(j.Item.JudgeCandidate().Task, nil); err == nil {
				tokens += llm.EstimateInputTokens(req) // the screenshot at a flat rate, whatever its bytes
			}
		}
	}
	image := llm.EstimateInputTokens(llm.Request{Messages: []llm.Message{llm.UserParts(llm.Image("image/png", nil))}}) -
		llm.EstimateInputTokens(llm.Request{Messages: []llm.Message{llm.UserParts()}})
	for _, j := range p.Judges {
		switch j.Name() {
		case "dom":
			fmt.Fprintf(w, "dom: %s to load and check in Chromium\n", plural(doms, "page"))
		case "visual":
			fmt.Fprintf(w, "visual: %s to %s", plural(calls, "call"), visual.judge.ModelName)
			if shots > 0 {
				fmt.Fprintf(w, " (%d without the run's screenshot: taken in Chromium first)", shots)
			}
			fmt.Fprintln(w)
			if calls == 0 {
				continue
			}
			maxOut := visual.info.MaxTokens * calls
			switch {
			case visual.info.Price != nil:
				in := visual.info.Price.Cost(llm.Usage{InputTokens: int64(tokens)})
				outUSD := visual.info.Price.Cost(llm.Usage{OutputTokens: int64(maxOut)})
				fmt.Fprintf(w, "estimated cost: $%.4f for the prompts (about %d input tokens, a screenshot counted as %d) + at most $%.4f for the output (%d tokens a call) = at most $%.4f\n",
					in, tokens, image, outUSD, visual.info.MaxTokens, in+outUSD)
			case visual.info.Pricing == "provider":
				fmt.Fprintf(w, "estimated cost: unknown before the calls: %s is priced by the provider per call (about %d input tokens, at most %d output tokens)\n",
					visual.judge.ModelName, tokens, maxOut)
			case visual.info.Pricing == "free":
				fmt.Fprintf(w, "estimated cost: $0 (%s is free; about %d input tokens)\n", visual.judge.ModelName, tokens)
			default:
				fmt.Fprintf(w, "estimated cost: unknown: %s has no price in the pricing table (add it under pricing: in the models file; about %d input tokens, at most %d output tokens)\n",
					visual.judge.ModelName, tokens, maxOut)
			}
		}
	}
	for _, s := range p.Skipped {
		fmt.Fprintf(w, "%s: skipped — %s\n", s.Judge, s.Why)
	}
}
