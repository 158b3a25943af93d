package judgerun

import (
	"bytes"
	"context"
	"errors"
	"flag"
	"fmt"
	"math"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/worldprobe/worldprobe/internal/atomicfile"
	"github.com/worldprobe/worldprobe/internal/judges"
	"github.com/worldprobe/worldprobe/internal/metrics"
	"github.com/worldprobe/worldprobe/internal/result"
	"github.com/worldprobe/worldprobe/internal/run"
	"github.com/worldprobe/worldprobe/internal/task"
	"github.com/worldprobe/worldprobe/internal/trial"
)

var update = flag.Bool("update", false, "rewrite the golden files in testdata")

// contractVerdicts are the stub contract's verdicts on counter-panel's
// reference and fixtures: (pass, V-Cov), or infra for an infrastructure
// error.
var contractVerdicts = map[string]struct {
	pass  bool
	vcov  float64
	infra bool
}{
	"solution":         {pass: true, vcov: 1},
	"bar-not-lifted":   {vcov: 0.9},
	"click-anywhere":   {vcov: 0.8},
	"count-text-stale": {vcov: 0.8},
	"dec-below-zero":   {vcov: 0.5},
	"panel-flag-only":  {infra: true},
}

// stubContract writes each trial's result.json with the verdicts above,
// each trial taking 2 s: the browser is not what is tested here.
type stubContract struct{}

func (stubContract) Execute(ctx context.Context, runDir string, specs []trial.Spec, done func(trial.Spec, *result.Trial) error) error {
	for _, s := range specs {
		t := &result.Trial{Key: s.Key, Task: s.Task, Model: s.Model, Candidate: s.Candidate, Sample: s.Sample,
			Outcome: result.OutcomeOK, DurationMs: 2000, Assertions: []result.Assertion{}}
		c := contractVerdicts[s.Candidate]
		switch {
		case s.Page == "":
			t.Outcome, t.CrashKind, t.CrashMessage = result.OutcomeCrash, result.CrashNoCandidate, "the model produced no page for this task"
		case c.infra:
			t.Outcome = result.OutcomeInfra
		default:
			t.Pass, t.VCov = c.pass, c.vcov
			if !c.pass {
				t.Assertions = []result.Assertion{{Probe: "counter_range", Level: "state", Status: "fail", Message: "s.count >= 0 was false"}}
			}
		}
		if err := os.MkdirAll(filepath.Join(runDir, s.Dir), 0o755); err != nil {
			return err
		}
		if err := atomicfile.WriteJSON(filepath.Join(runDir, s.Dir, trial.ResultFile), t); err != nil {
			return err
		}
		if err := done(s, t); err != nil {
			return err
		}
	}
	return nil
}

// fakeJudge gives scripted verdicts by candidate page folder name.
type fakeJudge struct {
	name, config string
	verdicts     map[string]judges.Verdict
	failOn       string
	overloadOn   string
	calls        []string
}

func (f *fakeJudge) Name() string   { return f.name }
func (f *fakeJudge) Config() string { return f.config }

func (f *fakeJudge) Judge(ctx context.Context, c judges.Candidate) (*judges.Verdict, error) {
	name := filepath.Base(filepath.Dir(c.Page))
	f.calls = append(f.calls, name)
	if name == f.failOn {
		return nil, errors.New("the provider refused for good")
	}
	if name == f.overloadOn {
		return nil, fmt.Errorf("%w: it missed its 2s deadline 3 times", judges.ErrOverloaded)
	}
	v, ok := f.verdicts[name]
	if !ok {
		return nil, errors.New("no scripted verdict for " + name)
	}
	return &v, nil
}

// domFake passes every page but dec-below-zero; visualFake's verdicts
// are below, click-anywhere's a judge failure. Each visual call costs
// $0.003.
func domFake() *fakeJudge {
	pass := judges.Verdict{Pass: true, Score: 1, Reason: "all 8 checks passed"}
	return &fakeJudge{name: "dom", config: "dom v1, 30 frames", verdicts: map[string]judges.Verdict{
		"solution": pass, "bar-not-lifted": pass, "click-anywhere": pass, "count-text-stale": pass,
		"dec-below-zero": {Score: 0.75, Reason: "2 of 8 checks failed: #dec: no element matches"},
	}}
}

func visualFake(config string) *fakeJudge {
	paid := judges.Cost{Calls: 1, InputTokens: 1200, OutputTokens: 80, USD: 0.003}
	return &fakeJudge{name: "visual", config: config, verdicts: map[string]judges.Verdict{
		"solution":         {Pass: true, Score: 0.9, Reason: "the button, the bar and the panel are there", Cost: paid},
		"bar-not-lifted":   {Score: 0.3, Reason: "the bar sinks into the floor", Cost: paid},
		"click-anywhere":   {Failure: `the model declined: "I can't judge this."`, Cost: paid},
		"count-text-stale": {Pass: true, Score: 0.7, Reason: "looks right", Cost: paid},
		"dec-below-zero":   {Score: 0.2, Reason: "the panel lacks a minus button", Cost: paid},
	}}
}

// runFolder makes a run folder of counter-panel's reference and fixtures
// and of a model with no page, judged by the stub contract.
func runFolder(t *testing.T) string {
	t.Helper()
	suite := filepath.Join(t.TempDir(), "suite")
	dst := filepath.Join(suite, "application", "counter-panel")
	require.NoError(t, os.CopyFS(dst, os.DirFS(filepath.Join("..", "..", "suites", "starter", "application", "counter-panel"))))
	tk, err := task.Load(dst)
	require.NoError(t, err)
	sources := []run.Source{{Model: "oracle", Oracle: true}, {Model: "fixtures", Fixtures: true}, {Model: "absent", Dir: t.TempDir()}}
	plan, err := run.Plan([]*task.Task{tk}, sources, 1)
	require.NoError(t, err)
	out := filepath.Join(t.TempDir(), "run")
	_, err = run.Execute(context.Background(), run.Options{Out: out, Plan: plan, Executor: stubContract{},
		Config: run.Config{Suite: suite, Tasks: []string{tk.ID}, Sources: sources, Repeat: 1}})
	require.NoError(t, err)
	return out
}

// maskTimes replaces the wall-time cells of the paradigm table (wall per
// candidate, relative cost), which vary from run to run, with "…".
func maskTimes(md string) string {
	lines := strings.Split(md, "\n")
	row := regexp.MustCompile(`^\| [a-z]+ \| \d+ \|`)
	for i, l := range lines {
		if !row.MatchString(l) {
			continue
		}
		cells := strings.Split(l, " | ")
		if len(cells) == 11 {
			cells[8], cells[9] = "…", "…"
			lines[i] = strings.Join(cells, " | ")
		}
	}
	return strings.Join(lines, "\n")
}

// The comparison of a run folder with two judges: the candidates, those
// left out, each verdict stored beside its trial, the numbers (worked out
// by hand below) and judges.md (golden: go test ./internal/judgerun
// -update); then resuming keeps every verdict, a judge of another config
// judges again, --retry-failed retries the no-verdicts, and a judge that
// stops keeps what was reached.
//
// By candidate (bar-not-lifted, click-anywhere, count-text-stale,
// dec-below-zero, solution):
//
//	contract  fail 0.9  fail 0.8  fail 0.8  fail 0.5  pass 1.0
//	dom       pass 1    pass 1    pass 1    fail 0.75 pass 1
//	visual    fail 0.3  none (0)  pass 0.7  fail 0.2  pass 0.9
//
// dom: TP 1, FP 3, TN 1, FN 0: pass rate 4/5, FPR 3/4, FNR 0/1, agreement
// 2/5. τ_b: 6 pairs tied in x (the four 1s), 1 tied in y (0.8, 0.8; tied
// in x too), the 4 pairs with dec-below-zero concordant, none discordant:
// 4 / √((10 − 6)(10 − 1)) = 4/6.
//
// visual: TP 1, FP 1 (count-text-stale), TN 3 (the no-verdict among
// them), FN 0: pass rate 2/5, FPR 1/4, agreement 4/5. τ_b: concordant 7
// (solution with the four others, bar–click, bar–dec, count–dec),
// discordant 2 (bar–count, click–dec), tied in y only click–count:
// 5 / √(10 × 9) = 5/√90. Five calls at $0.003: $0.003 a candidate.
func TestCompareRunFolder(t *testing.T) {
	out := runFolder(t)
	dom, visual := domFake(), visualFake("visual v1, openai/test-vlm")
	skip := []Skip{{Judge: "agent", Why: "not built"}}
	o := Options{Run: out, Judges: []judges.Judge{dom, visual}, Skipped: skip, Jobs: 2}
	p, err := NewPlan(o)
	require.NoError(t, err)
	require.Equal(t, 7, p.Trials)
	require.Len(t, p.Items, 5)
	require.Equal(t, []LeftOut{
		{Key: p.LeftOut[0].Key, Name: "application/counter-panel absent/counter-panel", Reason: ReasonNoPage},
		{Key: p.LeftOut[1].Key, Name: "application/counter-panel fixtures/panel-flag-only", Reason: ReasonInfra},
	}, p.LeftOut)
	require.Len(t, p.ToDo, 10)
	require.Zero(t, p.Kept)
	require.Equal(t, filepath.Join(p.Items[0].dir, trial.ScreenshotFile), filepath.Join(p.Items[0].dir, "screenshot.png"))
	require.Empty(t, p.Items[0].JudgeCandidate().Screenshot, "the stub contract took no screenshot")

	var progress bytes.Buffer
	o.Progress = &progress
	require.NoError(t, Execute(context.Background(), o, p))
	require.Zero(t, p.Missing())
	require.Contains(t, progress.String(), "] application/counter-panel fixtures/click-anywhere visual: no verdict: the model declined: \"I can't judge this.\" (")
	require.Contains(t, progress.String(), "] application/counter-panel fixtures/dec-below-zero dom: fail 0.750: 2 of 8 checks failed: #dec: no element matches (")
	require.Contains(t, progress.String(), "[10/10] ")
	for _, it := range p.Items {
		for _, j := range []string{"dom", "visual"} {
			s, err := readStored(filepath.Join(it.dir, "judges", j+".json"))
			require.NoError(t, err)
			require.Equal(t, it.Key, s.Trial)
			require.Equal(t, *it.Verdicts[j], s.Verdict)
		}
	}

	r := NewReport(p)
	require.Equal(t, "dom", r.RelativeTo)
	require.Len(t, r.Rows, 3)
	d, v, c := r.Rows[0], r.Rows[1], r.Rows[2]
	require.Equal(t, metrics.Confusion{TP: 1, FP: 3, TN: 1}, d.Confusion)
	require.InDelta(t, 0.8, *d.PassRate, 1e-12)
	require.InDelta(t, 0.75, *d.FPR, 1e-12)
	require.Equal(t, 0.0, *d.FNR)
	require.InDelta(t, 0.4, *d.Agreement, 1e-12)
	require.InDelta(t, 4.0/6, *d.TauB, 1e-12)
	require.Equal(t, 0.0, *d.USDPerCandidate)
	require.Equal(t, 1.0, *d.RelativeCost)
	require.Equal(t, metrics.Confusion{TP: 1, FP: 1, TN: 3}, v.Confusion)
	require.Equal(t, 1, v.NoVerdict)
	require.InDelta(t, 0.4, *v.PassRate, 1e-12)
	require.InDelta(t, 0.25, *v.FPR, 1e-12)
	require.InDelta(t, 0.8, *v.Agreement, 1e-12)
	require.InDelta(t, 5/math.Sqrt(90), *v.TauB, 1e-12)
	require.InDelta(t, 0.003, *v.USDPerCandidate, 1e-12)
	require.Equal(t, "contract", c.Judge)
	require.InDelta(t, 0.2, *c.PassRate, 1e-12)
	require.Equal(t, 1.0, *c.TauB)
	require.Equal(t, 0.0, *c.FPR)
	require.Equal(t, 2000.0, *c.WallMsPerCandidate)

	md := maskTimes(strings.ReplaceAll(r.Markdown(), out, "RUN"))
	golden := filepath.Join("testdata", "judges.md")
	if *update {
		require.NoError(t, os.WriteFile(golden, []byte(md), 0o644))
	}
	want, err := os.ReadFile(golden)
	require.NoError(t, err, "run go test ./internal/judgerun -update to create it")
	require.Equal(t, string(want), md)
	jsonPath, err := r.Write(filepath.Join(out, "judges.md"))
	require.NoError(t, err)
	require.Equal(t, filepath.Join(out, "judges.json"), jsonPath)
	require.FileExists(t, jsonPath)

	// Resuming keeps every verdict.
	dom.calls, visual.calls = nil, nil
	p, err = NewPlan(o)
	require.NoError(t, err)
	require.Equal(t, 10, p.Kept)
	require.Empty(t, p.ToDo)
	require.Equal(t, r.Rows[:2], NewReport(p).Rows[:2], "the same numbers from the stored verdicts")

	// --retry-failed judges the no-verdict again.
	o.RetryFailed = true
	p, err = NewPlan(o)
	require.NoError(t, err)
	require.Len(t, p.ToDo, 1)
	require.Equal(t, Job{Item: p.ToDo[0].Item, Judge: visual, Again: "failed"}, p.ToDo[0])
	require.Equal(t, "click-anywhere", p.ToDo[0].Item.Candidate)

	// Another visual model: its verdicts are stale; one that stops keeps
	// the verdicts reached before it.
	other := visualFake("visual v1, anthropic/test-claude")
	other.failOn = "count-text-stale"
	o = Options{Run: out, Judges: []judges.Judge{dom, other}, Jobs: 1}
	p, err = NewPlan(o)
	require.NoError(t, err)
	require.Len(t, p.ToDo, 5)
	for _, j := range p.ToDo {
		require.Equal(t, "stale", j.Again)
	}
	err = Execute(context.Background(), o, p)
	require.EqualError(t, err, "visual on application/counter-panel fixtures/count-text-stale: the provider refused for good")
	require.Equal(t, []string{"bar-not-lifted", "click-anywhere", "count-text-stale"}, other.calls)
	p, err = NewPlan(o)
	require.NoError(t, err)
	require.Len(t, p.ToDo, 3, "two were stored before it stopped")
}

// A verdict the machine was too overloaded to reach is not stored and not
// scored; the others go on, the table warns, and the next comparison
// judges it again.
func TestCompareOverloadedMachine(t *testing.T) {
	out := runFolder(t)
	dom := domFake()
	dom.overloadOn = "click-anywhere"
	o := Options{Run: out, Judges: []judges.Judge{dom}, Jobs: 2}
	p, err := NewPlan(o)
	require.NoError(t, err)
	var progress bytes.Buffer
	o.Progress = &progress
	require.NoError(t, Execute(context.Background(), o, p))
	require.Equal(t, []string{"dom on application/counter-panel fixtures/click-anywhere"}, p.Overloaded)
	require.Contains(t, progress.String(), "application/counter-panel fixtures/click-anywhere dom: not judged: the machine was too overloaded to judge the page: it missed its 2s deadline 3 times\n")
	r := NewReport(p)
	require.Equal(t, 4, r.Rows[0].Candidates)
	require.Contains(t, r.Table(), "\nWARNING: 1 verdict not reached, the machine being too overloaded (not scored; run the same command again on a quieter machine): dom on application/counter-panel fixtures/click-anywhere\n")

	dom.overloadOn = ""
	p, err = NewPlan(o)
	require.NoError(t, err)
	require.Equal(t, 4, p.Kept)
	require.Len(t, p.ToDo, 1)
	require.Equal(t, "click-anywhere", p.ToDo[0].Item.Candidate)
}

// A repaired page is named apart from the model's first answer, as the
// leaderboard names its rows.
func TestItemNames(t *testing.T) {
	first := &Item{Task: "simulation/pendulum", Model: "gpt", Candidate: "pendulum"}
	repaired := &Item{Task: "simulation/pendulum", Model: "gpt", Repair: result.RepairErrorOnly, Candidate: "pendulum", Sample: 2}
	require.Equal(t, "simulation/pendulum gpt/pendulum", first.Name())
	require.Equal(t, "simulation/pendulum gpt (error-only)/pendulum sample 2", repaired.Name())
	require.Equal(t, "gpt (error-only)", repaired.Source())
}
