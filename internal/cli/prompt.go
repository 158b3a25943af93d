package cli

import (
	"fmt"
	"os"
	"path/filepath"

	"github.com/spf13/cobra"

	"github.com/worldprobe/worldprobe/internal/task"
)

// TaskPromptOptions are the flags of 'worldprobe task prompt'.
type TaskPromptOptions struct {
	Paths []string
	Tasks []string
	Out   string
}

func newCmdTaskPrompt(io IO) *cobra.Command {
	o := &TaskPromptOptions{}
	cmd := &cobra.Command{
		Use:   "prompt TASK...",
		Short: "Print the exact prompt a model is given for a task (brief and state interface)",
		Long: `Prints what a model is told about each TASK (a task folder, or a category or
suite folder for all its tasks; --task keeps those whose ids match a glob): the brief with its parameters filled in at their defaults,
followed by the state interface table and, for a task with a scaffold, the
scaffold's source (the answer is the whole changed page). Nothing else reaches a model: not the
contract, the reference solution, the alternates or the fixtures.

With --out DIR, writes DIR/<task-id>/prompt.md for each task instead (the
layout used to hand tasks to someone writing a solution blind).`,
		Example: `  worldprobe task prompt suites/starter/simulation/bouncing-ball
  worldprobe task prompt --out /tmp/prompts suites/starter
  worldprobe task prompt --task 'rendering/*' suites/starter`,
		Args: func(cmd *cobra.Command, args []string) error {
			if len(args) == 0 {
				return usageErr("task prompt needs at least one TASK folder")
			}
			return nil
		},
		RunE: func(cmd *cobra.Command, args []string) error {
			o.Paths = args
			return runTaskPrompt(io, o)
		},
	}
	cmd.Flags().StringVar(&o.Out, "out", "", "write DIR/<task-id>/prompt.md per task instead of printing")
	registerTaskFlag(cmd.Flags(), &o.Tasks, "tasks")
	return cmd
}

func runTaskPrompt(io IO, o *TaskPromptOptions) error {
	tasks, err := task.Select(o.Paths, o.Tasks)
	if err != nil {
		return usageErr("%v", err)
	}
	for i, t := range tasks {
		p, err := t.Prompt()
		if err != nil {
			return runtimeErr(fmt.Errorf("%s: %w", t.ID, err))
		}
		if o.Out == "" {
			if i > 0 {
				fmt.Fprint(io.Out, "\n---\n\n")
			}
			fmt.Fprint(io.Out, p)
			continue
		}
		dir := filepath.Join(o.Out, filepath.FromSlash(t.ID))
		if err := os.MkdirAll(dir, 0o755); err != nil {
			return runtimeErr(err)
		}
		if err := os.WriteFile(filepath.Join(dir, "prompt.md"), []byte(p), 0o644); err != nil {
			return runtimeErr(err)
		}
		fmt.Fprintf(io.Out, "%s\n", filepath.Join(dir, "prompt.md"))
	}
	return nil
}
