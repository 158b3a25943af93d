package cli

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"sort"
	"strings"

	"github.com/spf13/cobra"

	"github.com/worldprobe/worldprobe/internal/perturb"
	"github.com/worldprobe/worldprobe/internal/task"
	"github.com/worldprobe/worldprobe/internal/taskcheck"
	"github.com/worldprobe/worldprobe/internal/trial"
)

// NewCmdSuite groups the commands that work on a whole suite.
func NewCmdSuite(io IO) *cobra.Command {
	cmd := &cobra.Command{
		Use:   "suite",
		Short: "Work on whole suites (Robust variants)",
	}
	cmd.AddCommand(newCmdSuitePerturb(io))
	return cmd
}

// PerturbOptions are the flags of 'worldprobe suite perturb'.
type PerturbOptions struct {
	engineFlags
	Paths    []string
	Tasks    []string
	Variants int
	Seed     uint64
	Out      string
	Check    bool
}

// VariantRecord is one line of variants.json.
type VariantRecord struct {
	ID        string             `json:"id"`
	VariantOf string             `json:"variant_of"`
	Variant   int                `json:"variant"`
	Values    map[string]float64 `json:"values"`
}

func newCmdSuitePerturb(io IO) *cobra.Command {
	o := &PerturbOptions{}
	cmd := &cobra.Command{
		Use:   "perturb SUITE... --variants K --out DIR",
		Short: "Write Robust variants of every task with parameters",
		Long: `For every task of SUITE (a suite, category or task folder; --task keeps the tasks
whose ids match a glob) whose task.yaml declares parameters with ranges, write K
Robust variants below DIR: DIR/<category>/<slug>-v1 … -vK. Each variant draws its
parameters from [min, max] (three significant digits, whole numbers for integer
parameters, at least 15% of the range away from the default), fills them into the
brief (every {{params.NAME}}) and the reference's task-params block, and sets them as
the parameters' values in task.yaml, where the contract reads them as params.NAME.
Fixtures are not copied: they are written against the Core values.

The draw depends only on the task id, the variant number and --seed. DIR/variants.json
lists every variant with its values. With --check, each variant's reference must pass
its contract (` + fmt.Sprint(taskcheck.ReferenceRuns) + ` runs, identical verdicts).

Judge variants next to the Core suite with 'worldprobe run SUITE --variants DIR':
the leaderboard then shows Core vs. Robust V-Cov per model and the drop.

` + exitStatusHelp("the variants are written (and, with --check, pass)", "a variant's reference fails --check"),
		Example: `  worldprobe suite perturb suites/starter --variants 3 --seed 1 --out out/robust
  worldprobe suite perturb suites/starter --variants 2 --out out/robust --check
  worldprobe run suites/starter --variants out/robust --oracle --out out/robust-run`,
		Args: func(cmd *cobra.Command, args []string) error {
			if len(args) == 0 {
				return usageErr("suite perturb needs a SUITE folder (or task or category folders)")
			}
			return nil
		},
		RunE: func(cmd *cobra.Command, args []string) error {
			o.Paths = args
			return runPerturb(cmd.Context(), io, o)
		},
	}
	f := cmd.Flags()
	o.engineFlags.register(f)
	f.IntVar(&o.Variants, "variants", 3, "variants per task")
	registerTaskFlag(f, &o.Tasks, "tasks")
	f.Uint64Var(&o.Seed, "seed", 1, "seed of the draw")
	f.StringVar(&o.Out, "out", "", "folder to write the variants to (required)")
	f.BoolVar(&o.Check, "check", false, "run 'task check' (reference only) on every variant")
	return cmd
}

func runPerturb(ctx context.Context, io IO, o *PerturbOptions) error {
	if o.Out == "" {
		return usageErr("suite perturb needs --out DIR")
	}
	if o.Variants < 1 {
		return usageErr("--variants must be at least 1")
	}
	tasks, err := task.Select(o.Paths, o.Tasks)
	if err != nil {
		return usageErr("%v", err)
	}
	outAbs := mustAbs(o.Out) + string(filepath.Separator)
	for _, p := range o.Paths {
		if strings.HasPrefix(outAbs, mustAbs(p)+string(filepath.Separator)) {
			return usageErr("--out %s is inside %s; write variants elsewhere", o.Out, p)
		}
	}
	var records []VariantRecord
	var variants []*task.Task
	var skipped []string
	for _, t := range tasks {
		if t.VariantOf != "" {
			continue
		}
		ranged := false
		for _, p := range t.Params {
			ranged = ranged || (p.Min != nil && p.Max != nil && *p.Min < *p.Max)
		}
		if !ranged {
			skipped = append(skipped, t.ID)
			continue
		}
		for n := 1; n <= o.Variants; n++ {
			vals := perturb.Draw(t, n, o.Seed)
			v, err := perturb.Write(t, n, vals, o.Out)
			if err != nil {
				return runtimeErr(fmt.Errorf("writing variant %d of %s: %w", n, t.ID, err))
			}
			variants = append(variants, v.Task)
			records = append(records, VariantRecord{ID: v.Task.ID, VariantOf: t.ID, Variant: n, Values: vals})
		}
	}
	if len(records) == 0 {
		return usageErr("no task of %s declares parameters with a range (min and max)", strings.Join(o.Paths, ", "))
	}
	b, err := json.MarshalIndent(records, "", "  ")
	if err != nil {
		return runtimeErr(err)
	}
	if err := os.WriteFile(filepath.Join(o.Out, "variants.json"), append(b, '\n'), 0o644); err != nil {
		return runtimeErr(err)
	}
	for _, r := range records {
		names := make([]string, 0, len(r.Values))
		for n := range r.Values {
			names = append(names, n)
		}
		sort.Strings(names)
		var parts []string
		for _, n := range names {
			parts = append(parts, n+"="+task.FormatParam(r.Values[n]))
		}
		fmt.Fprintf(io.Out, "%-44s %s\n", r.ID, strings.Join(parts, " "))
	}
	fmt.Fprintf(io.Out, "%d variants of %d tasks written to %s (%d tasks have no ranged parameters)\n",
		len(records), len(records)/o.Variants, o.Out, len(skipped))
	if !o.Check {
		return nil
	}
	br, res, err := o.start(ctx, io, 0, 0)
	if err != nil {
		return err
	}
	defer br.Close()
	work, err := os.MkdirTemp("", "worldprobe-perturb-")
	if err != nil {
		return runtimeErr(err)
	}
	defer os.RemoveAll(work)
	judge := &trial.Runner{Browser: br, Resolver: res, SkipDraw: true}
	reports, err := checkAll(ctx, io, judge, variants, work, taskcheck.Options{}, nil)
	if err != nil {
		return err
	}
	printChecks(io, reports)
	for _, r := range reports {
		if !r.OK() {
			return silentExit(ExitFailed)
		}
	}
	return nil
}

func mustAbs(p string) string {
	a, err := filepath.Abs(p)
	if err != nil {
		return p
	}
	return a
}
