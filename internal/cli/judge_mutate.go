package cli

import (
	"context"
	"fmt"
	"os"
	"path/filepath"

	"github.com/spf13/cobra"

	jsmutate "github.com/worldprobe/worldprobe/internal/mutate"
	"github.com/worldprobe/worldprobe/internal/worldjudge"
	"github.com/worldprobe/worldprobe/internal/worldjudge/capture"
	"github.com/worldprobe/worldprobe/internal/worldjudge/mutate"
)

// JudgeMutateOptions are the flags of 'worldprobe judge mutate'.
type JudgeMutateOptions struct {
	JudgeOptions
	Functions []string
}

// NewCmdJudgeMutate builds 'worldprobe judge mutate'.
func NewCmdJudgeMutate(io IO) *cobra.Command {
	o := &JudgeMutateOptions{}
	cmd := &cobra.Command{
		Use:   "mutate WORLD --rubric DIR (--models FILE | --offline) [--function NAME]...",
		Short: "Remove features of a world by construction and see which judge still gives them points (WorldBench's mutation test, with coverage)",
		Long: `Remove features of WORLD by construction, judge the changed biomes again, and
print how many points each judge keeps on items that are no longer built —
WorldBench's Table 5 (a code-only judge, a snapshot-only judge, the full judge),
with worldprobe's judge as the last column (the full judge with coverage: a quote
earns only if its lines ran). The target: dead and disabled features keep no
code credit. See docs/judge.md, "The mutation test".

A feature is a builder function. Each target is removed three ways, on the parsed
script (never with regular expressions):
  delete    its body is emptied; the function and its calls stay
  dead      every statement calling it is deleted; the definition stays
  disabled  every statement calling it becomes if (false) { … }
A removal that cannot be made (no call statement; the function is also used as a
callback or inside an expression, so it would still run) is reported, not scored.
Each mutant is captured like any world; one that does not load to the end, or
throws what the original did not, is reported, not scored.

Which functions (say which in the output):
  --function NAME  (repeatable) the builders you name;
  with --models    the code probe's verified quotes of the original: the innermost
                   function holding each WC003–WC005 item's look quote builds
                   that item (the render loop is never a target);
  --offline        the rubric's keyword hints: a function whose name matches a
                   biome's id, a scope alias or a word of its items' ids.

What is measured:
  - with --models, per removal, of the removed items' points: code-only (code
    halves alone, a quote passing when it is source text), snapshot-only (sight
    halves alone, blind-confirmed), full (WorldBench's rules: every half at its
    share), full + coverage (worldprobe's). Points no model judged are shown as
    "+N unjudged", never as kept or lost;
  - in every mode, with no model: each substantive line of a removed builder's
    original body is quoted as it was and checked against the mutant — still
    source text (a code-only judge keeps it) and whether its lines ran (worldprobe
    keeps it only then).

OUT (--out) gets original/ (the unchanged world's judgement), <function>-<how>/
for every mutant (world.html, judge.json, report.html), mutate.json and
report.html (the tables, each quote, links to every judgement). Mutants are
written into OUT, so a world that loads files relative to itself loses them.
`,
		Example: `  worldprobe judge mutate ../shared/corpus/worldbench/worlds/kimi-k-3/world.html --rubric suites/worldbench/island --offline
  worldprobe judge mutate world.html --rubric suites/worldbench/island --offline --function buildVolcano --function addPalms
  worldprobe judge mutate world.html --rubric suites/worldbench/island --models models.yaml --out mutated`,
		Args: func(cmd *cobra.Command, args []string) error {
			if len(args) != 1 {
				return usageErr("judge mutate needs exactly one WORLD")
			}
			return nil
		},
		RunE: func(cmd *cobra.Command, args []string) error {
			o.Worlds = args
			return runJudgeMutate(cmd.Context(), io, o)
		},
	}
	f := cmd.Flags()
	o.engineFlags.register(f)
	f.StringVar(&o.Rubric, "rubric", "", "rubric folder (its rubric.yaml), e.g. suites/worldbench/island")
	f.BoolVar(&o.Offline, "offline", false, "no models: targets from --function or the rubric's keyword hints; only the quote table is measured")
	f.StringVar(&o.ModelsFile, "models", "", "models file giving the judge's roles (docs/models.md); without it, --offline")
	f.StringVar(&o.Out, "out", "mutate", "output folder")
	f.StringArrayVar(&o.Functions, "function", nil, "a builder function to remove (repeatable); default: from the code probe's quotes (--models) or the rubric's keyword hints (--offline)")
	o.registerCapture(f)
	return cmd
}

func runJudgeMutate(ctx context.Context, io IO, o *JudgeMutateOptions) error {
	r, err := o.checkCapture("judge mutate")
	if err != nil {
		return err
	}
	world, err := worldFile(o.Worlds[0])
	if err != nil {
		return usageErr("%v", err)
	}
	if len(o.Functions) > 0 {
		page, err := os.ReadFile(world)
		if err != nil {
			return usageErr("%v", err)
		}
		have := map[string]bool{}
		builders, _ := jsmutate.Builders(page)
		for _, b := range builders {
			have[b.Name] = true
		}
		for _, n := range o.Functions {
			if !have[n] {
				return usageErr("--function %s: %s defines no function of that name", n, world)
			}
		}
	}
	models, err := judgeModels(ctx, io, &o.JudgeOptions)
	if err != nil {
		return err
	}
	jo := worldjudge.Options{Rubric: r, Offline: models == nil}
	copts := capture.DefaultOptions(r.Pixels)
	copts.Horizon, copts.Samples, copts.Seed, copts.FPS, copts.CallTimeout = o.Horizon, o.Samples, o.Seed, o.FPS, o.Timeout
	if models != nil {
		jo.Models = models // an interface: never a typed nil
	}
	if jo.Look, copts.Navigator, err = worldRoles(ctx, models, o.ModelsFile); err != nil {
		return err
	}
	if o.Viewport != "" {
		w, h, err := (&viewportFlag{Viewport: o.Viewport}).size()
		if err != nil {
			return err
		}
		copts.Width, copts.Height = w, h
	}
	jo.Capture = copts
	b, res, err := o.start(ctx, io, copts.Width, copts.Height)
	if err != nil {
		return err
	}
	defer b.Close()
	if err := os.MkdirAll(o.Out, 0o755); err != nil {
		return runtimeErr(fmt.Errorf("making %s: %w", o.Out, err))
	}
	rep, err := mutate.Run(ctx, b, res, world, o.Out, mutate.Options{Judge: jo, Functions: o.Functions})
	if err != nil {
		return runtimeErr(err)
	}
	if err := mutate.Write(o.Out, rep); err != nil {
		return runtimeErr(err)
	}
	mutate.Print(io.Out, rep)
	fmt.Fprintf(io.Out, "\n→ %s\n", filepath.Join(o.Out, "report.html"))
	return nil
}
