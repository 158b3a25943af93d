package cli

import (
	"encoding/json"
	"fmt"
	"os"
	"sort"

	"github.com/spf13/cobra"

	"github.com/worldprobe/worldprobe/internal/taskcheck"
)

// newTaskSummarizeCmd merges 'task check --json' reports into one summary.
func newTaskSummarizeCmd(io IO) *cobra.Command {
	var out string
	cmd := &cobra.Command{
		Use:   "summarize REPORT.json...",
		Short: "Merge 'task check --json' reports into one Markdown mutation summary",
		Long: `Reads the JSON that 'worldprobe task check --json' prints (a list of task
reports; several files, e.g. one per task or per machine) and writes the
same Markdown summary 'task check --summary' does: the per-task table, the
survivors, the equivalent mutants and the tasks with too few mutants.
Tasks are sorted by id; a task in several files keeps its last report.
Exit status 0 when every task is hardened, 1 otherwise.`,
		Example: `  worldprobe task check --json suites/starter/simulation/pendulum > pendulum.json
  worldprobe task summarize --out docs/hardening.md reports/*.json`,
		Args: func(cmd *cobra.Command, args []string) error {
			if len(args) == 0 {
				return usageErr("task summarize needs at least one REPORT.json")
			}
			return nil
		},
		RunE: func(cmd *cobra.Command, args []string) error {
			byTask := map[string]*taskcheck.Report{}
			for _, f := range args {
				b, err := os.ReadFile(f)
				if err != nil {
					return usageErr("%v", err)
				}
				var reps []*taskcheck.Report
				if err := json.Unmarshal(b, &reps); err != nil {
					return usageErr("%s is not the JSON of 'task check --json': %v", f, err)
				}
				for _, r := range reps {
					if r == nil || r.Task == "" {
						return usageErr("%s: a report without a task id", f)
					}
					byTask[r.Task] = r
				}
			}
			reports := make([]*taskcheck.Report, 0, len(byTask))
			for _, r := range byTask {
				reports = append(reports, r)
			}
			sort.Slice(reports, func(i, j int) bool { return reports[i].Task < reports[j].Task })
			doc := taskcheck.Document(reports)
			if out != "" {
				if err := os.WriteFile(out, []byte(doc), 0o644); err != nil {
					return runtimeErr(fmt.Errorf("writing the summary: %w", err))
				}
			} else {
				fmt.Fprint(io.Out, doc)
			}
			for _, r := range reports {
				if !r.Hardened() {
					return silentExit(ExitFailed)
				}
			}
			return nil
		},
	}
	cmd.Flags().StringVar(&out, "out", "", "write the summary to this file instead of stdout")
	return cmd
}
