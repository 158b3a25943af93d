package cli

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"

	"github.com/spf13/cobra"

	"github.com/worldprobe/worldprobe/internal/task"
	"github.com/worldprobe/worldprobe/internal/taskcheck"
	"github.com/worldprobe/worldprobe/internal/trial"
)

// NewCmdTask groups the task authoring commands.
func NewCmdTask(io IO) *cobra.Command {
	cmd := &cobra.Command{
		Use:   "task",
		Short: "Author and verify tasks (see docs/tasks.md)",
	}
	cmd.AddCommand(newCmdTaskCheck(io))
	return cmd
}

// TaskCheckOptions are the flags of 'worldprobe task check'.
type TaskCheckOptions struct {
	engineFlags
	JSON  bool
	Paths []string
}

func newCmdTaskCheck(io IO) *cobra.Command {
	o := &TaskCheckOptions{}
	cmd := &cobra.Command{
		Use:   "check TASK...",
		Short: "Lint a task, prove its reference passes, and its fixtures fail as stated",
		Long: `For each TASK (a task folder, or a suite folder for all its tasks):
  - lint: task.yaml and contract.yaml are valid, every state path the contract
    reads is declared in task.yaml and named in brief.md;
  - the reference solution passes every assertion ` + fmt.Sprint(taskcheck.ReferenceRuns) + ` times with identical verdicts;
  - each candidates/<name>/ fixture fails where its expect.yaml says.
Exit status 0 when every task is clean, 1 otherwise.`,
		Example: `  worldprobe task check suites/starter/simulation/bouncing-ball
  worldprobe task check suites/starter`,
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
	cmd.Flags().BoolVar(&o.JSON, "json", false, "print the reports as JSON")
	return cmd
}

func loadTasks(paths []string) ([]*task.Task, error) {
	var tasks []*task.Task
	for _, p := range paths {
		if _, err := os.Stat(filepath.Join(p, task.TaskFile)); err == nil {
			t, err := task.Load(p)
			if err != nil {
				return nil, err
			}
			tasks = append(tasks, t)
			continue
		}
		ts, err := task.LoadSuite(p)
		if err != nil {
			return nil, err
		}
		if len(ts) == 0 {
			return nil, fmt.Errorf("%s: no task.yaml here or below", p)
		}
		tasks = append(tasks, ts...)
	}
	return tasks, nil
}

func runTaskCheck(ctx context.Context, io IO, o *TaskCheckOptions) error {
	tasks, err := loadTasks(o.Paths)
	if err != nil {
		return usageErr("%v", err)
	}
	b, res, err := o.start(ctx, io)
	if err != nil {
		return err
	}
	defer b.Close()
	work, err := os.MkdirTemp("", "worldprobe-check-")
	if err != nil {
		return runtimeErr(err)
	}
	defer os.RemoveAll(work)
	judge := &trial.Judge{Browser: b, Resolver: res, SkipDraw: true}
	reports := make([]*taskcheck.Report, len(tasks))
	errs := make([]error, len(tasks))
	sem := make(chan struct{}, b.Jobs())
	done := make(chan int)
	for i, t := range tasks {
		go func() {
			sem <- struct{}{}
			defer func() { <-sem }()
			reports[i], errs[i] = taskcheck.Check(ctx, judge, t, filepath.Join(work, fmt.Sprint(i)))
			done <- i
		}()
	}
	for range tasks {
		i := <-done
		if errs[i] == nil {
			fmt.Fprintf(io.ErrOut, "checked %s: %s\n", tasks[i].ID, map[bool]string{true: "clean", false: "PROBLEMS"}[reports[i].OK()])
		}
	}
	for i, err := range errs {
		if err != nil {
			return runtimeErr(fmt.Errorf("checking %s: %w", tasks[i].ID, err))
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

func printChecks(io IO, reports []*taskcheck.Report) {
	fmt.Fprintf(io.Out, "%-36s %6s %10s %7s %9s\n", "task", "lint", "reference", "stable", "fixtures")
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
		fmt.Fprintf(io.Out, "%-36s %6s %10s %7t %5d/%-3d\n", r.Task, lint, ref, r.Stable, fx, len(r.Fixtures))
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
		for _, f := range r.Fixtures {
			if !f.OK {
				fmt.Fprintf(io.Out, "  fixture %s: %s\n", f.Name, f.Message)
			}
		}
	}
}
