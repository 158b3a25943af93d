// Package judgerun runs the comparison judges (package judges) on the
// candidates of a 'worldprobe run' folder, keeps each verdict beside its
// trial (RUN/trials/<trial>/judges/<judge>.json) so that running again
// judges only what is left, and compares the verdicts with the contract's:
// WorldCoder-Bench's table of evaluation paradigms, on the user's own run
// ('worldprobe compare-judges', docs/judges.md).
package judgerun

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"time"

	"github.com/worldprobe/worldprobe/internal/atomicfile"
	"github.com/worldprobe/worldprobe/internal/judges"
	"github.com/worldprobe/worldprobe/internal/pool"
	"github.com/worldprobe/worldprobe/internal/result"
	"github.com/worldprobe/worldprobe/internal/run"
	"github.com/worldprobe/worldprobe/internal/trial"
)

// VerdictDir is the folder of a trial's folder that holds the comparison
// judges' verdicts, one <judge>.json each.
const VerdictDir = "judges"

// Stored is a verdict as RUN/trials/<trial>/judges/<judge>.json holds it:
// the verdict and the key of the trial it judged.
type Stored struct {
	Trial string `json:"trial"`
	judges.Verdict
}

// Item is one candidate compared: a finished trial of the run with its
// page, the contract's verdict on it and the judges'.
type Item struct {
	Key   string `json:"key"`
	Task  string `json:"task"`
	Model string `json:"model"`
	// Repair is the trial's (result.Trial.Repair): "" for a model's first
	// answer, else how the page was repaired.
	Repair    string `json:"repair,omitempty"`
	Candidate string `json:"candidate"`
	Sample    int    `json:"sample"`
	// ContractPass, VCov and ContractWallMs are the trial's: the
	// reference verdict and what it took.
	ContractPass   bool    `json:"contract_pass"`
	VCov           float64 `json:"v_cov"`
	ContractWallMs float64 `json:"contract_wall_ms"`
	// ContractReason says why the contract failed the page ("" when it
	// passed): the crash, or the first assertion that did not pass.
	ContractReason string `json:"contract_reason,omitempty"`
	// Verdicts are the judges' verdicts, by judge name.
	Verdicts map[string]*judges.Verdict `json:"verdicts"`

	dir       string
	candidate judges.Candidate
}

// Source names who made the page: the model, and its repair when the
// page is a repaired one ("gpt (error-only)").
func (it *Item) Source() string {
	if it.Repair == "" {
		return it.Model
	}
	return it.Model + " (" + it.Repair + ")"
}

// Name is how messages name the candidate: task model/candidate, with
// the sample when it is not the first.
func (it *Item) Name() string {
	s := fmt.Sprintf("%s %s/%s", it.Task, it.Source(), it.Candidate)
	if it.Sample > 0 {
		s += fmt.Sprintf(" sample %d", it.Sample)
	}
	return s
}

// LeftOut is a finished trial that is not compared, and why.
type LeftOut struct {
	Key    string `json:"key"`
	Name   string `json:"name"`
	Reason string `json:"reason"`
}

// The reasons a trial is left out.
const (
	ReasonInfra   = "not scored (infra_error)"
	ReasonNoPage  = "the model produced no page"
	ReasonChanged = "its task or page changed since it was judged"
)

// Job is one verdict to reach: a judge on an item.
type Job struct {
	Item  *Item
	Judge judges.Judge
	// Again says why a stored verdict is judged again ("" for none
	// stored): "stale" (another config judged it) or "failed"
	// (RetryFailed).
	Again string
}

// Plan is what a comparison of a run folder holds and has left to do.
type Plan struct {
	Run string
	// Trials counts the run folder's finished trials; Items are those
	// compared, sorted by task, model, candidate and sample; LeftOut the
	// others.
	Trials  int
	Items   []*Item
	LeftOut []LeftOut
	// Judges are the judges compared, in order; Skipped those asked for
	// that cannot run.
	Judges  []judges.Judge
	Skipped []Skip
	// ToDo are the verdicts still to reach; Kept counts the stored ones
	// kept.
	ToDo []Job
	Kept int
	// Overloaded lists the verdicts Execute could not reach because the
	// machine was overloaded ("judge on candidate"): not stored, so the
	// next comparison judges them again.
	Overloaded []string
}

// Skip is a judge that was asked for and does not run, and why.
type Skip struct {
	Judge string `json:"judge"`
	Why   string `json:"why"`
}

// Options configure a comparison.
type Options struct {
	// Run is the run folder.
	Run     string
	Judges  []judges.Judge
	Skipped []Skip
	// RetryFailed judges again the stored verdicts that are judge
	// failures (no verdict).
	RetryFailed bool
	// Jobs is how many verdicts are reached at once.
	Jobs int
	// Progress receives a line per verdict; nil discards them.
	Progress io.Writer
}

// NewPlan reads the run folder: its finished trials, the page each
// judged (trials whose task or page changed since, infrastructure errors
// and trials without a page are left out) and the verdicts stored.
func NewPlan(o Options) (*Plan, error) {
	judged, err := run.ReadJudged(o.Run)
	if err != nil {
		return nil, err
	}
	p := &Plan{Run: o.Run, Trials: len(judged), Judges: o.Judges, Skipped: o.Skipped}
	for _, j := range judged {
		t := j.Trial
		name := (&Item{Task: t.Task, Model: t.Model, Repair: t.Repair, Candidate: t.Candidate, Sample: t.Sample}).Name()
		switch {
		case !t.Scored():
			p.LeftOut = append(p.LeftOut, LeftOut{Key: t.Key, Name: name, Reason: ReasonInfra})
			continue
		case t.CrashKind == result.CrashNoCandidate:
			p.LeftOut = append(p.LeftOut, LeftOut{Key: t.Key, Name: name, Reason: ReasonNoPage})
			continue
		case j.Planned == nil || j.Planned.Page == "":
			p.LeftOut = append(p.LeftOut, LeftOut{Key: t.Key, Name: name, Reason: ReasonChanged})
			continue
		}
		it := &Item{Key: t.Key, Task: t.Task, Model: t.Model, Repair: t.Repair, Candidate: t.Candidate, Sample: t.Sample,
			ContractPass: t.Pass, VCov: t.VCov, ContractWallMs: t.DurationMs, ContractReason: contractReason(t),
			Verdicts: map[string]*judges.Verdict{}, dir: j.Dir,
			candidate: judges.Candidate{Key: t.Key, Task: j.Planned.Task, Page: j.Planned.Page}}
		if shot := filepath.Join(j.Dir, trial.ScreenshotFile); fileExists(shot) {
			it.candidate.Screenshot = shot
		}
		p.Items = append(p.Items, it)
	}
	sort.Slice(p.Items, func(a, b int) bool {
		x, y := p.Items[a], p.Items[b]
		if x.Task != y.Task {
			return x.Task < y.Task
		}
		if x.Model != y.Model {
			return x.Model < y.Model
		}
		if x.Repair != y.Repair {
			return x.Repair < y.Repair
		}
		if x.Candidate != y.Candidate {
			return x.Candidate < y.Candidate
		}
		return x.Sample < y.Sample
	})
	sort.Slice(p.LeftOut, func(a, b int) bool { return p.LeftOut[a].Name < p.LeftOut[b].Name })
	for _, it := range p.Items {
		for _, jd := range o.Judges {
			s, err := readStored(verdictPath(it.dir, jd.Name()))
			if err != nil {
				return nil, err
			}
			switch {
			case s == nil || s.Trial != it.Key:
				p.ToDo = append(p.ToDo, Job{Item: it, Judge: jd})
			case s.Config != jd.Config():
				p.ToDo = append(p.ToDo, Job{Item: it, Judge: jd, Again: "stale"})
			case s.Failure != "" && o.RetryFailed:
				p.ToDo = append(p.ToDo, Job{Item: it, Judge: jd, Again: "failed"})
			default:
				v := s.Verdict
				it.Verdicts[jd.Name()] = &v
				p.Kept++
			}
		}
	}
	return p, nil
}

// JudgeCandidate is the page the item's trial judged, as the judges get it.
func (it *Item) JudgeCandidate() judges.Candidate { return it.candidate }

// Execute reaches the plan's verdicts, at most o.Jobs at once, each
// stored beside its trial the moment it is reached. A verdict the machine
// was too overloaded to reach (judges.ErrOverloaded) is listed in
// p.Overloaded and the others go on. When a judge stops
// (the context ended, a provider refused for good, a budget ran out) the
// verdicts reached are kept and the error is returned.
func Execute(ctx context.Context, o Options, p *Plan) error {
	w := o.Progress
	if w == nil {
		w = io.Discard
	}
	start := time.Now()
	n := 0
	return pool.Map(ctx, o.Jobs, len(p.ToDo), func(ctx context.Context, i int) (*judges.Verdict, error) {
		job := p.ToDo[i]
		v, err := judges.Run(ctx, job.Judge, job.Item.candidate)
		switch {
		case errors.Is(err, judges.ErrOverloaded) && ctx.Err() == nil:
			fmt.Fprintf(w, "%s %s: not judged: %v\n", job.Item.Name(), job.Judge.Name(), err)
			return nil, nil
		case err != nil:
			return nil, fmt.Errorf("%s on %s: %w", job.Judge.Name(), job.Item.Name(), err)
		}
		return v, nil
	}, func(i int, v *judges.Verdict) error {
		job := p.ToDo[i]
		if v == nil {
			p.Overloaded = append(p.Overloaded, job.Judge.Name()+" on "+job.Item.Name())
			return nil
		}
		path := verdictPath(job.Item.dir, v.Judge)
		if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
			return fmt.Errorf("storing the %s verdict on %s: %w", v.Judge, job.Item.Name(), err)
		}
		if err := atomicfile.WriteJSON(path, Stored{Trial: job.Item.Key, Verdict: *v}); err != nil {
			return fmt.Errorf("storing the %s verdict on %s: %w", v.Judge, job.Item.Name(), err)
		}
		job.Item.Verdicts[v.Judge] = v
		n++
		eta := ""
		if n < len(p.ToDo) {
			eta = fmt.Sprintf(" eta %s", (time.Since(start) / time.Duration(n) * time.Duration(len(p.ToDo)-n)).Round(time.Second))
		}
		fmt.Fprintf(w, "[%d/%d] %s %s: %s (%.1fs)%s\n", n, len(p.ToDo), job.Item.Name(), v.Judge, Summary(v), v.Cost.WallMs/1000, eta)
		return nil
	})
}

// Summary is a verdict in a few words: "pass 1.000", "fail 0.750: …" or
// "no verdict: …".
func Summary(v *judges.Verdict) string {
	switch {
	case v.Failure != "":
		return "no verdict: " + clip(v.Failure, 100)
	case v.Pass:
		return fmt.Sprintf("pass %.3f", v.Score)
	}
	return fmt.Sprintf("fail %.3f: %s", v.Score, clip(v.Reason, 100))
}

// Missing counts the verdicts the plan still lacks.
func (p *Plan) Missing() int {
	n := 0
	for _, it := range p.Items {
		for _, j := range p.Judges {
			if it.Verdicts[j.Name()] == nil {
				n++
			}
		}
	}
	return n
}

func verdictPath(dir, judge string) string { return filepath.Join(dir, VerdictDir, judge+".json") }

// readStored reads a stored verdict; nil when there is none.
func readStored(path string) (*Stored, error) {
	b, err := os.ReadFile(path)
	if errors.Is(err, os.ErrNotExist) {
		return nil, nil
	}
	if err != nil {
		return nil, fmt.Errorf("reading %s: %w", path, err)
	}
	s := &Stored{}
	if err := json.Unmarshal(b, s); err != nil {
		// A verdict file that cannot be read is judged again.
		return nil, nil
	}
	return s, nil
}

// contractReason says why the contract failed the trial.
func contractReason(t *result.Trial) string {
	switch {
	case t.Pass:
		return ""
	case t.Outcome == result.OutcomeCrash:
		return fmt.Sprintf("crash (%s): %s", t.CrashKind, clip(t.CrashMessage, 160))
	}
	if f := t.Failed(); len(f) > 0 {
		return fmt.Sprintf("%s: %s", f[0].Probe, clip(f[0].Message, 160))
	}
	return "failed"
}

func fileExists(path string) bool {
	st, err := os.Stat(path)
	return err == nil && !st.IsDir()
}

func clip(s string, n int) string {
	s = strings.Join(strings.Fields(s), " ")
	if r := []rune(s); len(r) > n {
		return string(r[:n]) + "…"
	}
	return s
}
