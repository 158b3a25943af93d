package worldjudge

import (
	"bytes"
	"context"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"sync"
	"time"

	"github.com/worldprobe/worldprobe/internal/browser"
	"github.com/worldprobe/worldprobe/internal/contract"
	"github.com/worldprobe/worldprobe/internal/resolve"
	"github.com/worldprobe/worldprobe/internal/result"
	"github.com/worldprobe/worldprobe/internal/session"
	"github.com/worldprobe/worldprobe/internal/task"
	"github.com/worldprobe/worldprobe/internal/trial"
	"github.com/worldprobe/worldprobe/internal/worldjudge/capture"
	"github.com/worldprobe/worldprobe/internal/worldjudge/rubric"
)

// Files a world-judged trial writes into its folder (beside result.json
// and screenshot.png): the judgement, its page and the frames.
const (
	JSONFile   = "judge.json"
	ReportFile = "judge.html"
)

// TrialJudge is the world judge behind the trial seam (trial.Judge): a
// task judged against a rubric (task.yaml judge:) gets, after the load
// check, the capture and the grading of 'worldprobe judge' — judge.json,
// judge.html and frames/ written into the trial folder through its
// artifact store — and its score in the trial (result.World).
type TrialJudge struct {
	Browser  *browser.Browser
	Resolver *resolve.Resolver
	// Options are the judge's; the rubric is the task's when unset, the
	// capture's viewport, seed and deadline the task's.
	Options Options
}

// TrialJudges makes the world judge of each world-judged task, loading
// its rubric once per folder (a rubric's FILE:LINE problems are the
// error): the trial runner's World. Each of setups is a configuration the
// runner can judge with — the judge's options without a rubric (Offline,
// Look, Models, Judging, and the capture's horizon and samples) —, the
// first its own: a trial planned with another configuration (the
// runner's judging argument, Options.Name) gets the setup of that name,
// and none is an error wrapping ErrOtherJudging.
func TrialJudges(b *browser.Browser, res *resolve.Resolver, setups ...Options) func(t *task.Task, judging string) (trial.Judge, error) {
	rubrics := map[string]*rubric.Rubric{}
	var mu sync.Mutex
	return func(t *task.Task, judging string) (trial.Judge, error) {
		if len(setups) == 0 {
			return nil, errors.New("the world judge has no configuration")
		}
		o, ok := setups[0], judging == ""
		for _, s := range setups {
			if !ok && s.Name() == judging {
				o, ok = s, true
			}
		}
		if !ok {
			var have []string
			for _, s := range setups {
				have = append(have, fmt.Sprintf("%q", s.Name()))
			}
			return nil, fmt.Errorf("%w: the trial is judged %q, this runner judges %s", ErrOtherJudging, judging, strings.Join(have, " or "))
		}
		dir := t.RubricDir()
		mu.Lock()
		r, ok := rubrics[dir]
		mu.Unlock()
		if !ok {
			var err error
			if r, err = rubric.Load(dir); err != nil {
				return nil, err
			}
			mu.Lock()
			rubrics[dir] = r
			mu.Unlock()
		}
		o.Rubric = r
		return &TrialJudge{Browser: b, Resolver: res, Options: o}, nil
	}
}

// ErrOtherJudging: a trial was planned with a world judge configuration
// (offline, or other models) the runner does not have.
var ErrOtherJudging = errors.New("another world judge configuration than this runner's")

// Name is "world".
func (j *TrialJudge) Name() string { return "world" }

// Judge captures and grades env.Page. A world that breaks is a report
// with a reason (and, for a page that hung or crashed while captured, the
// verdict's Failure); the error is for infrastructure only.
func (j *TrialJudge) Judge(ctx context.Context, env *trial.Env) (*trial.Verdict, error) {
	t, o := env.Task, j.Options
	if o.Rubric == nil {
		return nil, errors.New("the world judge has no rubric")
	}
	if o.Capture.Width == 0 { // unset: the defaults, keeping the navigator and logger
		d := capture.DefaultOptions(o.Rubric.Pixels)
		d.Navigator, d.Logger = o.Capture.Navigator, o.Capture.Logger
		o.Capture = d
	}
	o.Capture.Width, o.Capture.Height = t.Viewport.Width, t.Viewport.Height
	o.Capture.Seed = t.Seed
	if js := t.Judge; js != nil && js.Horizon > 0 {
		o.Capture.Horizon = js.Horizon
	}
	if js := t.Judge; js != nil && js.Samples > 0 {
		o.Capture.Samples = js.Samples
	}
	if o.Capture.CallTimeout == 0 {
		o.Capture.CallTimeout = time.Duration(t.Timeout)
	}
	// The judge writes into a scratch folder of the trial's; every file
	// then goes into the artifact store (listed in the result).
	tmp, err := os.MkdirTemp(env.Artifacts.Path(""), ".world-")
	if err != nil {
		return nil, fmt.Errorf("the world judge's scratch folder: %w", err)
	}
	defer os.RemoveAll(tmp)
	rep, err := Judge(ctx, j.Browser, j.Resolver, env.Page, tmp, o)
	if err != nil {
		return nil, err
	}
	rep.Name = Name(env.Page)
	if err := adoptFrames(env.Artifacts, tmp); err != nil {
		return nil, err
	}
	js, err := json.MarshalIndent(rep, "", "  ")
	if err != nil {
		return nil, fmt.Errorf("encoding %s: %w", JSONFile, err)
	}
	if err := env.Artifacts.Write(JSONFile, append(js, '\n')); err != nil {
		return nil, err
	}
	var page bytes.Buffer
	if err := tmpl.Execute(&page, rep); err != nil {
		return nil, fmt.Errorf("rendering %s: %w", ReportFile, err)
	}
	if err := env.Artifacts.Write(ReportFile, page.Bytes()); err != nil {
		return nil, err
	}
	return Verdict(rep), nil
}

// adoptFrames moves the scratch folder's frames into the artifact store.
func adoptFrames(a *trial.Artifacts, tmp string) error {
	entries, err := os.ReadDir(filepath.Join(tmp, "frames"))
	if err != nil {
		if os.IsNotExist(err) {
			return nil
		}
		return fmt.Errorf("listing the frames: %w", err)
	}
	names := make([]string, 0, len(entries))
	for _, e := range entries {
		if e.Type().IsRegular() {
			names = append(names, e.Name())
		}
	}
	sort.Strings(names)
	for _, n := range names {
		if err := a.Adopt("frames/"+n, filepath.Join(tmp, "frames", n)); err != nil {
			return err
		}
	}
	return nil
}

// Verdict is a judgement in the trial's vocabulary: one assertion per
// test (pass with every point, fail with any lost, unjudged while open),
// the coverages over the judged points (earned of judged), the score as
// result.World, and a Failure when the world hung or crashed while
// captured (the runner retries a hang under load, as for any trial).
func Verdict(rep *Report) *trial.Verdict {
	w := &result.World{Rubric: rep.Rubric, Mode: rep.Mode, Status: rep.Status, Reason: rep.Reason,
		WorldScore: score(rep.Score.Max, rep.Score.Tally), Tests: []result.WorldTest{}, Report: ReportFile, JSON: JSONFile}
	v := &trial.Verdict{World: w}
	for _, tr := range rep.Tests {
		w.Tests = append(w.Tests, result.WorldTest{ID: tr.ID, WorldScore: score(tr.Points, tr.Tally)})
		a := result.Assertion{Probe: tr.ID, Level: "world", Kind: "world", Expr: tr.Title}
		switch {
		case tr.Earned == nil:
			a.Status = result.StatusUnjudged
			a.Message = fmt.Sprintf("%s: open — %g of %g judged points earned, %g unjudged (of %g)", tr.ID, tr.EarnedOfJudged, tr.Judged, tr.Unjudged, tr.Points)
			v.Unjudged++
		case *tr.Earned >= tr.Points:
			a.Status = result.StatusPass
			a.Message = fmt.Sprintf("%s: %g of %g points", tr.ID, *tr.Earned, tr.Points)
		default:
			a.Status = result.StatusFail
			a.Message = fmt.Sprintf("%s: %g of %g points", tr.ID, *tr.Earned, tr.Points)
		}
		v.Assertions = append(v.Assertions, a)
	}
	if j := rep.Score.Judged; j > 0 {
		cov := rep.Score.EarnedOfJudged / j
		v.VCov, v.ACov, v.SCov, v.TCov = cov, cov, cov, cov
	}
	v.Pass = rep.Score.Earned != nil && *rep.Score.Earned >= rep.Score.Max
	v.Attribution = "world"
	v.StateHash = observed(rep)
	switch {
	case rep.Status == Overloaded:
		v.Failure = &contract.PageFailure{Probe: "world", Step: "capture", Message: rep.Reason, Err: session.ErrUnresponsive}
	case rep.Capture != nil && rep.Capture.Failure != "":
		f := &contract.PageFailure{Probe: "world", Step: "capture", Message: rep.Capture.Failure}
		if rep.Capture.DeadlineMissed {
			f.Err = session.ErrUnresponsive
		}
		v.Failure = f
	}
	if v.Failure != nil {
		v.Attribution = "crash"
	}
	return v
}

func score(max float64, t Tally) result.WorldScore {
	return result.WorldScore{Max: max, Earned: t.Earned, Judged: t.Judged, EarnedOfJudged: t.EarnedOfJudged, Unjudged: t.Unjudged}
}

// observed digests what the judge saw of the world — every view's name,
// frame and lit luma, every burst's changed-pixel fraction, the status
// and the score — so that the same world, seed and rubric give the same
// state hash (judge.json also holds wall times, which differ).
func observed(rep *Report) string {
	h := sha256.New()
	fmt.Fprintf(h, "%s\n%s\n%s\n", rep.SHA256, rep.Status, rep.Reason)
	if c := rep.Capture; c != nil {
		for _, v := range c.Views {
			fmt.Fprintf(h, "view %s %d %g\n", v.Name, v.Frame, v.Luma)
		}
		for _, b := range c.Bursts {
			fmt.Fprintf(h, "burst %s %g\n", b.Name, b.Fraction)
		}
	}
	js, _ := json.Marshal(rep.Score)
	h.Write(js)
	return hex.EncodeToString(h.Sum(nil))
}
