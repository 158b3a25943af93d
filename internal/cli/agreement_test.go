package cli

import (
	"encoding/json"
	"flag"
	"fmt"
	"math"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/worldprobe/worldprobe/internal/atomicfile"
	"github.com/worldprobe/worldprobe/internal/metrics"
	"github.com/worldprobe/worldprobe/internal/result"
	"github.com/worldprobe/worldprobe/internal/task"
	"github.com/worldprobe/worldprobe/internal/trial"
)

var update = flag.Bool("update", false, "rewrite the golden files: suites/starter/labels.csv (TestStarterLabels), testdata/compare-judges-small.md (TestCompareJudges) and compare-judges.md (TestCompareJudgesWithFixtures, slow), examples/demo-gen/recordings (TestDemoRecordings), testdata/starter-bench.golden (TestBenchModelsOverTheStarterSuite)")

// TestStarterLabels: suites/starter/labels.csv labels every reference and
// blind alternate of the starter suite pass and every fixture fail, and
// nothing else (go test ./internal/cli -run StarterLabels -update
// rewrites it after a task, alternate or fixture is added).
func TestStarterLabels(t *testing.T) {
	suite := filepath.Join("..", "..", "suites", "starter")
	tasks, err := task.LoadSuite(suite)
	require.NoError(t, err)
	want, err := suiteLabels(tasks)
	require.NoError(t, err)
	path := filepath.Join(suite, "labels.csv")
	if *update {
		require.NoError(t, os.WriteFile(path, labelsCSV(want), 0o644))
	}
	got, err := readLabels(path)
	require.NoError(t, err, "go test ./internal/cli -run StarterLabels -update writes it")
	require.Equal(t, want, got, "suites/starter/labels.csv is not the suite's folders: go test ./internal/cli -run StarterLabels -update")

	pass, fail, alternates := 0, 0, 0
	for _, l := range got {
		if l.Pass {
			pass++
		} else {
			fail++
		}
		if strings.HasPrefix(l.Candidate, "solutions/") {
			alternates++
		}
	}
	fixtures := 0
	for _, tk := range tasks {
		fx, err := tk.Fixtures()
		require.NoError(t, err)
		fixtures += len(fx)
		require.DirExists(t, filepath.Join(tk.Dir, task.CandidatesDir))
	}
	require.Equal(t, fixtures, fail, "every fixture is labelled fail")
	require.Equal(t, len(tasks)+alternates, pass, "every reference and alternate is labelled pass")
	require.GreaterOrEqual(t, alternates, 2*len(tasks))
}

func TestReadLabels(t *testing.T) {
	dir := t.TempDir()
	write := func(name, body string) string {
		p := filepath.Join(dir, name)
		require.NoError(t, os.WriteFile(p, []byte(body), 0o600))
		return p
	}
	want := []metrics.Label{{Task: "simulation/a", Candidate: "solution", Pass: true}, {Task: "simulation/a", Candidate: "gpt/a"},
		{Task: "rendering/b", Candidate: "x", Pass: true}, {Task: "rendering/b", Candidate: "y"}}
	got, err := readLabels(write("l.csv", "pass, task, candidate\ntrue,simulation/a,solution\nFALSE,simulation/a,gpt/a\n\npass,rendering/b,x\n0,rendering/b,y\n"))
	require.NoError(t, err)
	require.Equal(t, want, got, "columns in any order; true/false, pass/fail, 1/0; blank lines skipped")
	got, err = readLabels(write("l.yaml", "- {task: simulation/a, candidate: solution, pass: true}\n- {task: simulation/a, candidate: gpt/a, pass: false}\n"+
		"- task: rendering/b\n  candidate: x\n  pass: yes\n- {task: rendering/b, candidate: y, pass: no}\n"))
	require.NoError(t, err)
	require.Equal(t, want, got)

	for body, msg := range map[string]string{
		"":                      "l.csv: empty file (want a header task,candidate,pass)",
		"task,candidate\n":      `l.csv:1: the header has no column "pass" (want task,candidate,pass)`,
		"task,candidate,pass\n": "l.csv: no labels",
		"task,candidate,pass\na,b,maybe\n,b,true\na,,true\n": "l.csv:2: a b: pass is \"maybe\", want true or false\n" +
			filepath.Join(dir, "l.csv:3: missing task") + "\n" + filepath.Join(dir, "l.csv:4: a: missing candidate"),
		"task,candidate,pass\na,b,true\na,c,true\na,b,false\n": "l.csv:4: a b is labelled twice (also line 2)",
	} {
		_, err := readLabels(write("l.csv", body))
		require.EqualError(t, err, filepath.Join(dir, msg), "%q", body)
	}
	_, err = readLabels(write("l.yaml", "task: a\n"))
	require.EqualError(t, err, filepath.Join(dir, "l.yaml:1: want a list of {task, candidate, pass}"))
}

// writeRun writes trials as a run folder's trials/<key>/result.json.
func writeRun(t *testing.T, dir string, trials []*result.Trial) {
	t.Helper()
	for _, tr := range trials {
		d := filepath.Join(dir, "trials", tr.Key)
		require.NoError(t, os.MkdirAll(d, 0o755))
		require.NoError(t, atomicfile.WriteJSON(filepath.Join(d, trial.ResultFile), tr))
	}
	require.NoError(t, os.MkdirAll(filepath.Join(dir, "trials", "unfinished"), 0o755)) // killed midway: no result.json
}

// agreementRuns writes three run folders of synthetic trials, by hand:
//
//	label                        verdicts  V-Cov             model
//	simulation/a solution  pass  P P P     1 1 1             oracle
//	simulation/a energy-gain fail F F F    .5 .5 .5          fixtures
//	simulation/b solution  pass  P F P     1 .75 1           oracle
//	simulation/b hud-stale fail  F F F     .25 .25 .25       fixtures
//	simulation/d gpt/d     fail  P P P     1 1 1             gpt
//	simulation/c gpt/c     pass  P infra P                   gpt (left out: no verdict in run 2)
//	simulation/b solutions/classic-loop pass  in no run      (left out)
//	simulation/e (gpt)     no label, in every run            (3 trials left out)
func agreementRuns(t *testing.T) (labels string, runs []string) {
	root := t.TempDir()
	labels = filepath.Join(root, "labels.csv")
	require.NoError(t, os.WriteFile(labels, []byte("task,candidate,pass\n"+
		"simulation/a,solution,true\nsimulation/a,energy-gain,false\nsimulation/b,solution,true\nsimulation/b,hud-stale,false\n"+
		"simulation/b,solutions/classic-loop,true\nsimulation/c,gpt/c,true\nsimulation/d,gpt/d,false\n"), 0o600))
	for r := range 3 {
		tr := func(taskID, model, candidate string, pass bool, v float64) *result.Trial {
			return &result.Trial{Key: fmt.Sprintf("%s-%s-%s", strings.ReplaceAll(taskID, "/", "_"), model, candidate), Task: taskID,
				Category: "simulation", Difficulty: "D2", Model: model, Candidate: candidate, Outcome: result.OutcomeOK, Pass: pass, VCov: v}
		}
		c := tr("simulation/c", "gpt", "c", true, 1)
		if r == 1 {
			c.Outcome, c.Pass, c.VCov = result.OutcomeInfra, false, 0
		}
		dir := filepath.Join(root, fmt.Sprintf("r%d", r+1))
		writeRun(t, dir, []*result.Trial{
			tr("simulation/a", "oracle", "solution", true, 1),
			tr("simulation/a", "fixtures", "energy-gain", false, 0.5),
			tr("simulation/b", "oracle", "solution", r != 1, []float64{1, 0.75, 1}[r]),
			tr("simulation/b", "fixtures", "hud-stale", false, 0.25),
			tr("simulation/d", "gpt", "d", true, 1),
			c,
			tr("simulation/e", "gpt", "e", true, 1),
		})
		runs = append(runs, dir)
	}
	return labels, runs
}

// TestAgreementCommand over the runs of agreementRuns. By hand, overall:
// run 1 TP 2, FP 1, TN 2 (accuracy 4/5, precision 2/3, recall 1); run 2 TP
// 1, FP 1, TN 2, FN 1 (3/5, 1/2, 1/2); run 3 as run 1. Accuracy 11/15 ±
// √(3/225); precision 11/18 ± √(3/324); recall 5/6 ± √(1/12). Fleiss' κ
// over [3 0] [0 3] [2 1] [0 3] [3 0]: P̄ = 13/15, p = 8/15, 7/15, P̄_e =
// 113/225, κ = 82/112 ≈ 0.732. Flaky: b's solution, 1/5. τ_b between
// labels 1 0 1 0 0 and mean V-Cov 1, .5, 11/12, .25, 1: n_c 4, n_d 1, 4
// pairs tied in the labels, 1 in V-Cov: 3/√54 ≈ 0.408. Oracle alone:
// κ over [3 0] [2 1] = (2/3 − 13/18) / (5/18) = −0.2.
func TestAgreementCommand(t *testing.T) {
	labels, runs := agreementRuns(t)
	code, out, errOut := execute(t, append([]string{"agreement", "--labels", labels}, runs...)...)
	require.Equal(t, ExitOK, code, errOut)
	require.Empty(t, errOut)
	require.Equal(t, "agreement of 3 run(s) with 7 expert label(s): 5 labelled page(s) judged in every run\n\n"+
		"group            items  accuracy       precision      recall         Fleiss κ  flakiness  τ_b V-Cov\n"+
		"fixtures             2  1.000 ± 0.000  n/a            n/a                 n/a      0.000       n/a\n"+
		"gpt                  1  0.000 ± 0.000  0.000 ± 0.000  n/a                 n/a      0.000       n/a\n"+
		"oracle               2  0.833 ± 0.289  1.000 ± 0.000  0.833 ± 0.289    -0.200      0.500       n/a\n"+
		"overall              5  0.733 ± 0.115  0.611 ± 0.096  0.833 ± 0.289     0.732      0.200     0.408\n"+
		"\nflaky (the verdict differs between runs): simulation/b solution\n"+
		"\n2 label(s) not judged in every run, left out: simulation/b solutions/classic-loop: not in "+strings.Join(runs, ", ")+
		"; simulation/c gpt/c: not in "+runs[1]+"\n"+
		"\n3 judged trial(s) without a label, left out\n", out)

	code, out, errOut = execute(t, append([]string{"agreement", "--labels", labels, "--json"}, runs...)...)
	require.Equal(t, ExitOK, code, errOut)
	var res AgreementResult
	require.NoError(t, json.Unmarshal([]byte(out), &res))
	require.Equal(t, runs, res.Runs)
	require.Equal(t, 7, res.Labels)
	require.Equal(t, 3, res.Unlabelled)
	require.Len(t, res.Items, 5)
	require.Equal(t, metrics.Item{Label: metrics.Label{Task: "simulation/b", Candidate: "solution", Pass: true}, Group: "oracle",
		Verdicts: []bool{true, false, true}, VCov: []float64{1, 0.75, 1}}, res.Items[3], "items sorted by task and candidate")
	o := res.Overall
	require.Equal(t, []metrics.Confusion{{TP: 2, FP: 1, TN: 2}, {TP: 1, FP: 1, TN: 2, FN: 1}, {TP: 2, FP: 1, TN: 2}}, o.PerRun)
	require.InDelta(t, 11.0/15, *o.Accuracy.Mean, 1e-12)
	require.InDelta(t, 82.0/112, *o.FleissKappa, 1e-12)
	require.InDelta(t, 3/math.Sqrt(54), *o.TauB, 1e-12)
	require.Nil(t, res.Groups[0].FleissKappa, "fixtures: every verdict fail, κ undefined")
	require.Contains(t, out, `"fleiss_kappa": null`)
}

// --labels-from-suite labels a suite's pages by construction, and they
// match what 'run --oracle --fixtures' names its trials.
func TestAgreementLabelsFromSuite(t *testing.T) {
	suite := stubSuite(t, "simulation/bouncing-ball")
	tasks, err := task.LoadSuite(suite)
	require.NoError(t, err)
	labels, err := suiteLabels(tasks)
	require.NoError(t, err)
	var trials []*result.Trial
	for _, l := range labels {
		model := "fixtures"
		switch {
		case l.Candidate == referenceCandidate:
			model = "oracle"
		case strings.HasPrefix(l.Candidate, alternatePrefix):
			continue // 'run' does not judge alternates
		}
		trials = append(trials, &result.Trial{Key: model + "-" + l.Candidate, Task: l.Task, Model: model, Candidate: l.Candidate,
			Outcome: result.OutcomeOK, Pass: l.Pass, VCov: map[bool]float64{true: 1, false: 0.5}[l.Pass]})
	}
	run1, run2 := filepath.Join(t.TempDir(), "r1"), filepath.Join(t.TempDir(), "r2")
	writeRun(t, run1, trials)
	writeRun(t, run2, trials)
	code, out, errOut := execute(t, "agreement", "--labels-from-suite", suite, run1, run2)
	require.Equal(t, ExitOK, code, errOut)
	n := len(trials)
	require.Contains(t, out, fmt.Sprintf("agreement of 2 run(s) with %d expert label(s): %d labelled page(s) judged in every run\n", len(labels), n))
	require.Contains(t, out, fmt.Sprintf("overall          %5d  1.000 ± 0.000  1.000 ± 0.000  1.000 ± 0.000     1.000      0.000     1.000\n", n))
	require.Contains(t, out, "3 label(s) not judged in every run, left out: simulation/bouncing-ball solutions/accumulator: not in "+run1+", "+run2+
		"; simulation/bouncing-ball solutions/classic-loop: not in "+run1+", "+run2+
		"; simulation/bouncing-ball solutions/module-handlers: not in "+run1+", "+run2+"\n")
}

func TestAgreementUsageErrors(t *testing.T) {
	labels, runs := agreementRuns(t)
	// Two models with candidate "solution" in one run: ambiguous.
	amb := filepath.Join(t.TempDir(), "amb")
	writeRun(t, amb, []*result.Trial{
		{Key: "k1", Task: "simulation/a", Model: "oracle", Candidate: "solution", Outcome: result.OutcomeOK, Pass: true},
		{Key: "k2", Task: "simulation/a", Model: "other", Candidate: "solution", Sample: 1, Outcome: result.OutcomeOK, Pass: true},
	})
	empty := filepath.Join(t.TempDir(), "empty")
	writeRun(t, empty, nil)
	for _, c := range []struct {
		args []string
		msg  string
	}{
		{[]string{"agreement", "--labels", labels}, "agreement needs at least one RUN folder"},
		{[]string{"agreement", runs[0]}, "at least one of the flags in the group [labels labels-from-suite] is required"},
		{[]string{"agreement", "--labels", labels, "--labels-from-suite", "x", runs[0]}, "if any flags in the group [labels labels-from-suite] are set none of the others can be"},
		{[]string{"agreement", "--labels", labels, filepath.Join(runs[0], "trials")}, "is not a 'worldprobe run' folder"},
		{[]string{"agreement", "--labels", filepath.Join(t.TempDir(), "none.csv"), runs[0]}, "reading the labels: open "},
		{[]string{"agreement", "--labels-from-suite", t.TempDir(), runs[0]}, "loading "},
		{[]string{"agreement", "--labels", labels, amb}, amb + ": 2 trials match the label simulation/a solution (oracle/solution sample 0, other/solution sample 1): write its candidate as MODEL/CANDIDATE"},
		{[]string{"agreement", "--labels", labels, empty}, "no labelled page was judged in every run (7 labels, 1 runs; e.g. simulation/a solution: not in " + empty + ")"},
	} {
		code, out, errOut := execute(t, c.args...)
		require.Equal(t, ExitUsage, code, "%v: %s", c.args, errOut)
		require.Empty(t, out)
		require.Contains(t, errOut, c.msg, "%v", c.args)
	}
}
