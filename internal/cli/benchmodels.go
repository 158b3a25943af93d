package cli

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"sort"
	"strings"

	"github.com/spf13/cobra"
	"github.com/spf13/pflag"

	"github.com/worldprobe/worldprobe/internal/result"
	"github.com/worldprobe/worldprobe/internal/run"
	"github.com/worldprobe/worldprobe/internal/task"
)

// NewCmdBenchModels builds 'worldprobe bench-models': gen, then run over
// what it wrote, as one resumable command.
func NewCmdBenchModels(io IO) *cobra.Command {
	genFlags, runFlags := NewCmdGen(io).Flags(), NewCmdRun(io).Flags()
	var out string
	var genJobs int
	cmd := &cobra.Command{
		Use:   "bench-models SUITE_OR_TASKS... --model M [--model M]...",
		Short: "From models to a leaderboard in one command: generate the pages, judge them, report",
		Long: `Runs 'worldprobe gen' for every --model into OUT/gen, then 'worldprobe run' over
what it wrote into OUT/run: each model's folder (its samples, and its agent or
repaired pages, each a model of their own) becomes one --candidates model, so
the leaderboard (OUT/run/leaderboard.md, report.html) has Pass@1, pass@k for
-n ≥ k, V-Cov with its interval, A/S/T, by category and difficulty, and RoA and
TEM priced from gen.json. A sample whose generation failed is judged as a
no_candidate crash, scored 0.

Every flag of gen and of run is accepted and passed to the command it belongs
to (see 'worldprobe gen --help' and 'worldprobe run --help'); --jobs is run's
(pages judged at once), --gen-jobs gen's (samples generated at once). With
--variants DIR the models also answer the Robust variants' prompts, so Core and
Robust V-Cov compare the same models.

Both halves resume: run the same command again after an interruption or a
budget stop and nothing finished is paid for or judged twice.`,
		Example: `  worldprobe bench-models suites/starter --model openai/gpt-4.1 --model anthropic/claude-sonnet-4-5 -n 3 --out bench
  worldprobe bench-models suites/starter --model generator --dry-run
  worldprobe bench-models suites/starter/application/bar-chart --model openai/demo-model-a \
    --replay examples/demo-gen/recordings --oracle --out out/bench-demo`,
		Args: cobra.MinimumNArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			return runBenchModels(cmd, io, args, out, genJobs, genFlags, runFlags)
		},
	}
	f := cmd.Flags()
	f.StringVar(&out, "out", "bench", "output folder: OUT/gen (the pages) and OUT/run (the run folder and its reports)")
	f.IntVar(&genJobs, "gen-jobs", 4, "samples generated at once (gen's --jobs)")
	// run's flags first: where both have a flag (--jobs, --task, --chromium,
	// --web…), its help is run's. --candidates and --allow-missing are
	// bench-models' own doing.
	for _, fs := range []*pflag.FlagSet{runFlags, genFlags} {
		fs.VisitAll(func(fl *pflag.Flag) {
			if f.Lookup(fl.Name) == nil && fl.Name != "candidates" && fl.Name != "allow-missing" && fl.Name != "judge" {
				f.AddFlag(fl)
			}
		})
	}
	return cmd
}

// passedFlags renders the flags of cmd that were set and that fs also has
// as arguments for the command fs belongs to.
func passedFlags(cmd *cobra.Command, fs *pflag.FlagSet, skip ...string) []string {
	var args []string
	cmd.Flags().Visit(func(fl *pflag.Flag) {
		if fs.Lookup(fl.Name) == nil || slices.Contains(skip, fl.Name) {
			return
		}
		if sv, ok := fl.Value.(pflag.SliceValue); ok {
			for _, v := range sv.GetSlice() {
				args = append(args, "--"+fl.Name+"="+v)
			}
			return
		}
		args = append(args, "--"+fl.Name+"="+fl.Value.String())
	})
	return args
}

func runBenchModels(cmd *cobra.Command, io IO, paths []string, out string, genJobs int, genFlags, runFlags *pflag.FlagSet) error {
	if !cmd.Flags().Changed("model") {
		return usageErr("bench-models needs --model ROLE or PROVIDER/MODEL (repeatable)")
	}
	genOut, runOut := filepath.Join(out, "gen"), filepath.Join(out, "run")
	genPaths := append([]string(nil), paths...)
	if v := cmd.Flags().Lookup("variants"); v != nil && v.Changed {
		genPaths = append(genPaths, v.Value.String())
	}
	genArgs := append(append([]string{"gen"}, genPaths...), "--out", genOut, fmt.Sprintf("--jobs=%d", genJobs))
	// Flags gen shares with run (--chromium, --web…) are for gen's agent
	// runs and repairs only; the model access flags (--models, --record,
	// --replay) are for both: gen's generator and run's judge roles.
	// --db, --executor and --rescue-after are run's: gen generates in
	// its pool here.
	skip := []string{"out", "jobs", "task", "db", "executor", "rescue-after"}
	agent, repairs := cmd.Flags().Lookup("agent"), cmd.Flags().Lookup("repair")
	if (agent == nil || agent.Value.String() != "true") && (repairs == nil || repairs.Value.String() == "0") {
		genFlags.VisitAll(func(fl *pflag.Flag) {
			if runFlags.Lookup(fl.Name) != nil && !slices.Contains([]string{"models", "record", "replay"}, fl.Name) {
				skip = append(skip, fl.Name)
			}
		})
	}
	genArgs = append(genArgs, passedFlags(cmd, genFlags, skip...)...)
	// --task keeps the tasks and, in the variants folder, their variants.
	for _, t := range taskGlobs(cmd) {
		genArgs = append(genArgs, "--task="+t, "--task="+t+"-v*")
	}
	fmt.Fprintf(io.ErrOut, "bench-models: generating → %s\n", genOut)
	if err := sub(cmd, io, genArgs); err != nil {
		return err
	}
	if dry := cmd.Flags().Lookup("dry-run"); dry != nil && dry.Changed && dry.Value.String() == "true" {
		return nil
	}
	models, err := modelFolders(genOut)
	if err != nil {
		return runtimeErr(err)
	}
	if len(models) == 0 {
		return runtimeErr(fmt.Errorf("gen wrote no model folder in %s", genOut))
	}
	suite, ids, err := oneSuite(paths)
	if err != nil {
		return usageErr("%v", err)
	}
	runArgs := []string{"run", suite, "--out", runOut, "--allow-missing"}
	if len(taskGlobs(cmd)) == 0 {
		for _, id := range ids {
			runArgs = append(runArgs, "--task="+id)
		}
	}
	for _, m := range models {
		runArgs = append(runArgs, "--candidates", modelName(m)+"="+m)
	}
	runArgs = append(runArgs, passedFlags(cmd, runFlags, "out", "candidates", "allow-missing")...)
	fmt.Fprintf(io.ErrOut, "bench-models: judging %d model folders → %s\n", len(models), runOut)
	return sub(cmd, io, runArgs)
}

// taskGlobs are the --task patterns given.
func taskGlobs(cmd *cobra.Command) []string {
	fl := cmd.Flags().Lookup("task")
	if fl == nil || !fl.Changed {
		return nil
	}
	if sv, ok := fl.Value.(pflag.SliceValue); ok {
		return sv.GetSlice()
	}
	return strings.Split(fl.Value.String(), ",")
}

// sub runs one worldprobe command line in this process, with the same
// streams and context.
func sub(cmd *cobra.Command, io IO, args []string) error {
	root := NewRootCmd(io)
	root.SetArgs(args)
	return root.ExecuteContext(cmd.Context())
}

// modelName is the --candidates name of a gen model folder: its name,
// but a repaired folder (<model-slug>+error-only, +feedback) is judged
// under its model's, as run tells the two apart by their gen.json.
func modelName(dir string) string {
	name := filepath.Base(dir)
	for _, r := range result.Repairs() {
		if base, ok := strings.CutSuffix(name, "+"+r); ok {
			return base
		}
	}
	return name
}

// modelFolders lists the folders of out that gen wrote for a model (they
// hold sample-<k> folders), sorted by name.
func modelFolders(out string) ([]string, error) {
	entries, err := os.ReadDir(out)
	if errors.Is(err, os.ErrNotExist) {
		return nil, nil
	}
	if err != nil {
		return nil, fmt.Errorf("reading %s: %w", out, err)
	}
	var dirs []string
	for _, e := range entries {
		if !e.IsDir() {
			continue
		}
		d := filepath.Join(out, e.Name())
		if samples, _, err := run.SampleDirs(d); err == nil && len(samples) > 0 {
			dirs = append(dirs, d)
		}
	}
	sort.Strings(dirs)
	return dirs, nil
}

// oneSuite is the one folder run judges for paths: the path itself when
// there is one, else the suite folder holding all of their tasks, with the
// tasks' ids (run takes one SUITE and keeps tasks with --task).
func oneSuite(paths []string) (string, []string, error) {
	if len(paths) == 1 {
		return paths[0], nil, nil
	}
	tasks, err := task.Select(paths, nil)
	if err != nil {
		return "", nil, err
	}
	var root string
	var ids []string
	for _, t := range tasks {
		dir := filepath.Clean(t.Dir)
		r := strings.TrimSuffix(dir, string(filepath.Separator)+filepath.FromSlash(t.ID))
		if r == dir {
			return "", nil, fmt.Errorf("task %s is not in a suite folder (%s)", t.ID, t.Dir)
		}
		if root != "" && r != root {
			return "", nil, fmt.Errorf("the tasks come from two suites, %s and %s: run judges one suite; give bench-models one suite (and --task)", root, r)
		}
		root = r
		ids = append(ids, t.ID)
	}
	return root, ids, nil
}
