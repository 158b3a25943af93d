package cli

import (
	"encoding/json"
	"fmt"
	"io"
	"sort"
	"strings"

	"github.com/spf13/cobra"

	"github.com/worldprobe/worldprobe/internal/metrics"
	"github.com/worldprobe/worldprobe/internal/result"
	"github.com/worldprobe/worldprobe/internal/run"
	"github.com/worldprobe/worldprobe/internal/task"
)

// AgreementOptions are the flags of 'worldprobe agreement'.
type AgreementOptions struct {
	Labels          string
	LabelsFromSuite string
	JSON            bool
	Runs            []string
}

// NewCmdAgreement builds 'worldprobe agreement'.
func NewCmdAgreement(io IO) *cobra.Command {
	o := &AgreementOptions{}
	cmd := &cobra.Command{
		Use:   "agreement (--labels FILE | --labels-from-suite SUITE) RUN...",
		Short: "Measure the verifier against expert labels over repeated runs (accuracy, precision, recall, Fleiss' κ, flakiness)",
		Long: `Compares the verdicts of repeated 'worldprobe run' folders (RUN/trials/*/result.json)
with expert labels, as GenXR-Bench's Table 2 does (docs/metrics.md): per run, accuracy,
precision and recall of the verdict pass against the label pass, shown as mean ± sample
standard deviation over the runs; Fleiss' κ with the runs as raters; flakiness, the
share of labelled pages whose verdict differs between runs; and Kendall's τ_b between
the labels and each page's mean V-Cov. One row per model that made the pages, and
one over all of them.

--labels FILE is CSV with the header task,candidate,pass (or a .yaml list of
{task, candidate, pass}); pass is true or false. A label's candidate is the trial's
candidate as the run names it ("solution" for --oracle, the fixture's name for
--fixtures, the task's slug for --candidates) or MODEL/CANDIDATE when several models
of a run have one. --labels-from-suite SUITE labels the suite's own pages by
construction: each task's reference ("solution") and blind alternates
("solutions/<style>") pass, its fixtures fail; suites/starter/labels.csv holds the
starter suite's.

A labelled page is measured when every RUN judged it (an infrastructure error is
no verdict); the others are listed and left out, as are trials without a label.
Give each repetition its own run folder ('run --repeat' samples the same page within
one folder: such a label matches several trials and is refused).

` + exitStatusHelp("the statistics were computed, whatever they are", ""),
		Example: `  for i in 1 2 3; do worldprobe run suites/starter --oracle --fixtures --out runs/rep$i; done
  worldprobe agreement --labels-from-suite suites/starter runs/rep1 runs/rep2 runs/rep3
  worldprobe agreement --labels suites/starter/labels.csv --json runs/rep*
  worldprobe agreement --labels experts.csv runs/gpt-1 runs/gpt-2 runs/gpt-3`,
		Args: func(cmd *cobra.Command, args []string) error {
			if len(args) == 0 {
				return usageErr("agreement needs at least one RUN folder")
			}
			return nil
		},
		RunE: func(cmd *cobra.Command, args []string) error {
			o.Runs = args
			return runAgreement(io, o)
		},
	}
	f := cmd.Flags()
	f.StringVar(&o.Labels, "labels", "", "expert labels: CSV with the header task,candidate,pass, or a .yaml list of {task, candidate, pass}")
	f.StringVar(&o.LabelsFromSuite, "labels-from-suite", "", "label a suite's own pages: references and alternates pass, fixtures fail")
	f.BoolVar(&o.JSON, "json", false, "print the statistics and every item as JSON")
	cmd.MarkFlagsMutuallyExclusive("labels", "labels-from-suite")
	cmd.MarkFlagsOneRequired("labels", "labels-from-suite")
	return cmd
}

// AgreementResult is what 'agreement --json' prints.
type AgreementResult struct {
	// Runs are the run folders, in the order the verdicts are.
	Runs []string `json:"runs"`
	// Labels counts the labels read; Missing lists those some run did not
	// judge ("task candidate: not in RUN, …"), left out.
	Labels  int      `json:"labels"`
	Missing []string `json:"missing,omitempty"`
	// Unlabelled counts the scored trials of the runs without a label.
	Unlabelled int `json:"unlabelled_trials"`
	metrics.AgreementReport
	Items []metrics.Item `json:"items"`
}

func runAgreement(io IO, o *AgreementOptions) error {
	var labels []metrics.Label
	if o.Labels != "" {
		var err error
		if labels, err = readLabels(o.Labels); err != nil {
			return usageErr("reading the labels: %w", err)
		}
	} else {
		tasks, err := task.Select([]string{o.LabelsFromSuite}, nil)
		if err != nil {
			return usageErr("loading %s: %w", o.LabelsFromSuite, err)
		}
		if labels, err = suiteLabels(tasks); err != nil {
			return usageErr("labelling %s: %w", o.LabelsFromSuite, err)
		}
	}
	runs := make([][]*result.Trial, len(o.Runs))
	for i, dir := range o.Runs {
		ts, err := run.ReadTrials(dir)
		if err != nil {
			return usageErr("%s is not a 'worldprobe run' folder: %w", dir, err)
		}
		runs[i] = ts
	}
	res, err := agreementOf(labels, o.Runs, runs)
	if err != nil {
		return usageErr("%w", err)
	}
	if o.JSON {
		b, err := json.MarshalIndent(res, "", "  ")
		if err != nil {
			return fmt.Errorf("encoding the result: %w", err)
		}
		_, err = fmt.Fprintf(io.Out, "%s\n", b)
		return err
	}
	writeAgreement(io.Out, res)
	return nil
}

// agreementOf matches the labels with the scored trials of each run (a
// label's candidate is a trial's candidate, or its MODEL/CANDIDATE) and
// measures the labels every run judged.
func agreementOf(labels []metrics.Label, names []string, runs [][]*result.Trial) (*AgreementResult, error) {
	res := &AgreementResult{Runs: names, Labels: len(labels)}
	matched := make([]map[int]*result.Trial, len(runs))
	for r, ts := range runs {
		byName := map[[2]string][]*result.Trial{}
		for _, t := range ts {
			if !t.Scored() {
				continue
			}
			byName[[2]string{t.Task, t.Candidate}] = append(byName[[2]string{t.Task, t.Candidate}], t)
			byName[[2]string{t.Task, t.Model + "/" + t.Candidate}] = append(byName[[2]string{t.Task, t.Model + "/" + t.Candidate}], t)
		}
		matched[r] = map[int]*result.Trial{}
		used := map[*result.Trial]bool{}
		for i, l := range labels {
			ms := byName[[2]string{l.Task, l.Candidate}]
			if len(ms) > 1 {
				var who []string
				for _, t := range ms {
					who = append(who, fmt.Sprintf("%s/%s sample %d", t.Model, t.Candidate, t.Sample))
				}
				return nil, fmt.Errorf("%s: %d trials match the label %s %s (%s): write its candidate as MODEL/CANDIDATE, and give each repetition its own run folder",
					names[r], len(ms), l.Task, l.Candidate, strings.Join(who, ", "))
			}
			if len(ms) == 1 {
				matched[r][i] = ms[0]
				used[ms[0]] = true
			}
		}
		for _, t := range ts {
			if t.Scored() && !used[t] {
				res.Unlabelled++
			}
		}
	}
	for i, l := range labels {
		it := metrics.Item{Label: l}
		var absent []string
		for r := range runs {
			t, ok := matched[r][i]
			if !ok {
				absent = append(absent, names[r])
				continue
			}
			if it.Group == "" {
				it.Group = t.Model
			}
			it.Verdicts = append(it.Verdicts, t.Pass)
			it.VCov = append(it.VCov, t.VCov)
		}
		if len(absent) > 0 {
			res.Missing = append(res.Missing, fmt.Sprintf("%s %s: not in %s", l.Task, l.Candidate, strings.Join(absent, ", ")))
			continue
		}
		res.Items = append(res.Items, it)
	}
	if len(res.Items) == 0 {
		return nil, fmt.Errorf("no labelled page was judged in every run (%d labels, %d runs; e.g. %s)", len(labels), len(runs), res.Missing[0])
	}
	sort.SliceStable(res.Items, func(i, j int) bool {
		if res.Items[i].Task != res.Items[j].Task {
			return res.Items[i].Task < res.Items[j].Task
		}
		return res.Items[i].Candidate < res.Items[j].Candidate
	})
	rep, err := metrics.Agreement(res.Items)
	if err != nil {
		return nil, err
	}
	res.AgreementReport = rep
	return res, nil
}

// writeAgreement prints the agreement table, then what was left out and
// which pages were flaky.
func writeAgreement(w io.Writer, res *AgreementResult) {
	fmt.Fprintf(w, "agreement of %d run(s) with %d expert label(s): %d labelled page(s) judged in every run\n\n",
		len(res.Runs), res.Labels, len(res.Items))
	fmt.Fprintf(w, "%-16s %5s  %-13s  %-13s  %-13s  %8s  %9s  %8s\n", "group", "items", "accuracy", "precision", "recall", "Fleiss κ", "flakiness", "τ_b V-Cov")
	row := func(name string, s metrics.AgreementStats) {
		fmt.Fprintf(w, "%-16s %5d  %-13s  %-13s  %-13s  %8s  %9s  %8s\n", abbreviate(name, 16), s.Items,
			meanSDText(s.Accuracy), meanSDText(s.Precision), meanSDText(s.Recall), optText(s.FleissKappa), optText(s.Flakiness), optText(s.TauB))
	}
	for _, g := range res.Groups {
		row(g.Group, g.AgreementStats)
	}
	row("overall", res.Overall)
	if len(res.Overall.Flaky) > 0 {
		fmt.Fprintf(w, "\nflaky (the verdict differs between runs): %s\n", strings.Join(res.Overall.Flaky, ", "))
	}
	if len(res.Missing) > 0 {
		const shown = 5
		more := ""
		if len(res.Missing) > shown {
			more = fmt.Sprintf(" … and %d more (--json lists them)", len(res.Missing)-shown)
		}
		fmt.Fprintf(w, "\n%d label(s) not judged in every run, left out: %s%s\n", len(res.Missing),
			strings.Join(res.Missing[:min(shown, len(res.Missing))], "; "), more)
	}
	if res.Unlabelled > 0 {
		fmt.Fprintf(w, "\n%d judged trial(s) without a label, left out\n", res.Unlabelled)
	}
}

func meanSDText(m metrics.MeanSD) string {
	switch {
	case m.Mean == nil:
		return "n/a"
	case m.SD == nil:
		return fmt.Sprintf("%.3f", *m.Mean)
	}
	return fmt.Sprintf("%.3f ± %.3f", *m.Mean, *m.SD)
}

func optText(x *float64) string {
	if x == nil {
		return "n/a"
	}
	return fmt.Sprintf("%.3f", *x)
}
