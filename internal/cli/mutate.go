package cli

import (
	"encoding/json"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"

	"github.com/spf13/cobra"

	"github.com/worldprobe/worldprobe/internal/mutate"
	"github.com/worldprobe/worldprobe/internal/task"
)

// DefaultMutants is the default --max of 'worldprobe task mutate': the
// same selection 'task check' judges by default.
const DefaultMutants = DefaultMaxMutants

// TaskMutateOptions are the flags of 'worldprobe task mutate'.
type TaskMutateOptions struct {
	Seed      int64
	Max       int
	Operators []string
	Out       string
	JSON      bool
	Path      string
}

func newTaskMutateCmd() *cobra.Command {
	o := &TaskMutateOptions{}
	var ops strings.Builder
	for _, op := range mutate.Operators() {
		fmt.Fprintf(&ops, "  %-20s %s\n", op.Name, op.Summary)
	}
	cmd := &cobra.Command{
		Use:   "mutate TASK",
		Short: "Generate mutants of a task's reference solution (to measure how much its contract catches)",
		Long: `Edits the JavaScript of TASK's solution/index.html (TASK may also be an HTML
page) on its syntax tree, one small change per mutant, and lists the mutants.
A good contract fails on (kills) most of them. Only inline <script> elements
of JavaScript (classic or type="module") are touched; everything else in the
page stays byte for byte. Mutants whose script no longer parses, that change
nothing, or that repeat another are dropped.

Operators:
` + ops.String() + `
With --max N (default ` + fmt.Sprint(DefaultMutants) + `; 0 for all) N mutants are drawn with --seed, round-robin over
the operators so that each operator with sites is represented. IDs
("<operator>-<n>") do not depend on --seed, --max or --operators; the same page
and flags give the same mutants byte for byte.

--out DIR writes DIR/<id>/index.html, DIR/<id>/mutant.diff and DIR/mutants.json
(the list with diffs, without the pages).`,
		Example: `  worldprobe task mutate suites/starter/simulation/bouncing-ball
  worldprobe task mutate --max 0 --operators scale-constant,freeze-time suites/starter/simulation/pendulum
  worldprobe task mutate --seed 7 --out /tmp/mutants --json page.html`,
		Args: func(cmd *cobra.Command, args []string) error {
			if len(args) != 1 {
				return usageErr("task mutate needs exactly one TASK folder (or HTML page)")
			}
			return nil
		},
		RunE: func(cmd *cobra.Command, args []string) error {
			o.Path = args[0]
			return runTaskMutate(cmd.OutOrStdout(), cmd.ErrOrStderr(), o)
		},
	}
	f := cmd.Flags()
	f.Int64Var(&o.Seed, "seed", 1, "seed of the draw when there are more mutants than --max")
	f.IntVar(&o.Max, "max", DefaultMutants, "number of mutants (0 = all)")
	f.StringSliceVar(&o.Operators, "operators", nil, "only these operators (comma-separated names, see above)")
	f.StringVar(&o.Out, "out", "", "write the mutants to this folder")
	f.BoolVar(&o.JSON, "json", false, "print the mutants (with diffs) and statistics as JSON")
	return cmd
}

// mutantsFile is what --out writes to mutants.json.
type mutantsFile struct {
	Page    string          `json:"page"`
	Seed    int64           `json:"seed"`
	Max     int             `json:"max"`
	Mutants []mutate.Mutant `json:"mutants"`
	Stats   mutate.Stats    `json:"stats"`
}

func runTaskMutate(out, errOut io.Writer, o *TaskMutateOptions) error {
	if o.Max < 0 {
		return usageErr("--max must be 0 (all) or more")
	}
	page, err := mutatePage(o.Path)
	if err != nil {
		return usageErr("%v", err)
	}
	src, err := os.ReadFile(page)
	if err != nil {
		return runtimeErr(err)
	}
	rep, err := mutate.GenerateReport(src, filepath.Base(page), mutate.Options{Seed: o.Seed, Max: o.Max, Operators: o.Operators})
	if err != nil {
		return usageErr("%v", err)
	}
	for _, s := range rep.Stats.Skipped {
		fmt.Fprintf(errOut, "%s: %s\n", page, s)
	}
	doc := mutantsFile{Page: page, Seed: o.Seed, Max: o.Max, Mutants: rep.Mutants, Stats: rep.Stats}
	if doc.Mutants == nil {
		doc.Mutants = []mutate.Mutant{}
	}
	if o.Out != "" {
		if err := writeMutants(o.Out, doc); err != nil {
			return runtimeErr(err)
		}
	}
	if o.JSON {
		enc := json.NewEncoder(out)
		enc.SetIndent("", "  ")
		enc.SetEscapeHTML(false)
		if err := enc.Encode(doc); err != nil {
			return runtimeErr(err)
		}
		return nil
	}
	printMutants(out, page, rep)
	if o.Out != "" {
		fmt.Fprintf(out, "wrote %d mutants to %s\n", len(rep.Mutants), o.Out)
	}
	return nil
}

// mutatePage resolves TASK to the page to mutate.
func mutatePage(p string) (string, error) {
	st, err := os.Stat(p)
	if err != nil {
		return "", err
	}
	if !st.IsDir() {
		return p, nil
	}
	t, err := task.Load(p)
	if err != nil {
		return "", err
	}
	return t.SolutionPath(), nil
}

func writeMutants(dir string, doc mutantsFile) error {
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return err
	}
	for _, m := range doc.Mutants {
		d := filepath.Join(dir, m.ID)
		if err := os.MkdirAll(d, 0o755); err != nil {
			return err
		}
		if err := os.WriteFile(filepath.Join(d, "index.html"), m.HTML, 0o644); err != nil {
			return err
		}
		if err := os.WriteFile(filepath.Join(d, "mutant.diff"), []byte(m.Diff), 0o644); err != nil {
			return err
		}
	}
	var b strings.Builder
	enc := json.NewEncoder(&b)
	enc.SetIndent("", "  ")
	enc.SetEscapeHTML(false)
	if err := enc.Encode(doc); err != nil {
		return err
	}
	return os.WriteFile(filepath.Join(dir, "mutants.json"), []byte(b.String()), 0o644)
}

func printMutants(out io.Writer, page string, rep *mutate.Report) {
	w := 2
	for _, m := range rep.Mutants {
		w = max(w, len(m.ID))
	}
	fmt.Fprintf(out, "%-*s  %-9s  %s\n", w, "id", "line:col", "description")
	for _, m := range rep.Mutants {
		fmt.Fprintf(out, "%-*s  %-9s  %s\n", w, m.ID, fmt.Sprintf("%d:%d", m.Line, m.Col), m.Description)
	}
	st := rep.Stats
	fmt.Fprintf(out, "\n%s: %d of %d mutants shown (%d sites in %d script(s); dropped %d unparsable, %d unchanged, %d duplicates)\n",
		page, st.Selected, sumPerOp(st.PerOp), st.Sites, st.Scripts, st.Invalid, st.NoChange, st.Dupes)
}

func sumPerOp(ps []mutate.OpStat) int {
	n := 0
	for _, p := range ps {
		n += p.Mutants
	}
	return n
}
