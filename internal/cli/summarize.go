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

Reports judged at different mutant seeds (task check --seed) are kept apart:
the summary is of the first seed read, and a table after it shows each
task's kill rate at every seed — a contract hardened against one seed's
mutants, measured on another's.
Exit status 0 when every task is hardened (at the first seed), 1 otherwise.`,
		Example: `  worldprobe task check --json suites/starter/simulation/pendulum > pendulum.json
  worldprobe task summarize --out docs/hardening.md reports/*.json
  worldprobe task summarize --out docs/hardening.md seed1.json seed7.json`,
		Args: func(cmd *cobra.Command, args []string) error {
			if len(args) == 0 {
				return usageErr("task summarize needs at least one REPORT.json")
			}
			return nil
		},
		RunE: func(cmd *cobra.Command, args []string) error {
			bySeed := map[int64]map[string]*taskcheck.Report{}
			var seeds []int64
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
					var seed int64
					if r.Mutation != nil && r.Mutation.Selection != nil {
						seed = r.Mutation.Selection.Seed
					}
					if bySeed[seed] == nil {
						bySeed[seed] = map[string]*taskcheck.Report{}
						seeds = append(seeds, seed)
					}
					bySeed[seed][r.Task] = r
				}
			}
			sets := make([][]*taskcheck.Report, 0, len(seeds))
			for _, seed := range seeds {
				set := make([]*taskcheck.Report, 0, len(bySeed[seed]))
				for _, r := range bySeed[seed] {
					set = append(set, r)
				}
				sort.Slice(set, func(i, j int) bool { return set[i].Task < set[j].Task })
				sets = append(sets, set)
			}
			var reports []*taskcheck.Report
			if len(sets) > 0 {
				reports = sets[0]
			}
			doc := taskcheck.Document(reports)
			if len(sets) > 1 {
				doc += "\n## Kill rate at each mutant seed\n\n" + taskcheck.KillRates(sets)
			}
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
