// Package trial judges one candidate page against one task: it inspects
// the page (outcome, screenshot), then runs the task's hidden contract, each
// probe in a fresh page, and scores the verdicts.
package trial

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"log/slog"
	"os"
	"path/filepath"
	"runtime"
	"sync"
	"time"

	"github.com/worldprobe/worldprobe/internal/browser"
	"github.com/worldprobe/worldprobe/internal/contract"
	"github.com/worldprobe/worldprobe/internal/inspect"
	"github.com/worldprobe/worldprobe/internal/navmesh"
	"github.com/worldprobe/worldprobe/internal/resolve"
	"github.com/worldprobe/worldprobe/internal/result"
	"github.com/worldprobe/worldprobe/internal/session"
	"github.com/worldprobe/worldprobe/internal/task"
	"github.com/worldprobe/worldprobe/internal/xr"
)

// CrashRuntimeError is the crash kind of a page that failed during a probe
// in a way that is neither a timeout nor a renderer crash (e.g. it broke the
// harness's access to it).
const CrashRuntimeError = result.CrashRuntimeError

// Runner runs trials with one browser and one resolver: the load check,
// then each of the trial's judges.
type Runner struct {
	Browser  *browser.Browser
	Resolver *resolve.Resolver
	Logger   *slog.Logger
	// SkipDraw skips draw calls on unobserved frames.
	SkipDraw bool
	// RealTime runs probes on the real clock (benchmarks only: verdicts may
	// vary between runs).
	RealTime bool
	// Retries is how many times a trial whose page missed a harness
	// deadline while the machine was overloaded is judged again, each time
	// with the deadline doubled; 0 means DefaultRetries, < 0 none.
	Retries int
	// Load reports the machine's load: the 1-minute load average per core.
	// nil reads /proc/loadavg.
	Load func() float64
	// Video says which trials record a video of each probe's page
	// (video.go); the zero value records none.
	Video Video
	// Healthy reports whether the harness can run a page promptly right
	// now, within the given time; nil probes the browser with a blank page
	// (see Run). It is asked only when a page's last attempt missed its
	// deadline under overload.
	Healthy func(ctx context.Context, within time.Duration) bool
	// Design, when set, rates the recorded frames of every XR trial that
	// records video on the XR design heuristics (run --design): the
	// trial's Design, apart from its verdict.
	Design DesignRater
	// Looker judges the look steps of the trials' contracts (scoped visual
	// assertions, the visual_judge role); nil leaves them unjudged.
	Looker contract.Looker
	// Actor drives the act steps of the trials' contracts (the xr_actor
	// role); nil leaves the assertions after them unjudged.
	Actor contract.Actor
	// World makes the judge of a task judged against a rubric (task.yaml
	// judge:; worldjudge.TrialJudges), configured as judging names
	// (Input.WorldJudge: "offline", or the models of its roles; "" for the
	// runner's own). A configuration the runner cannot judge with is an
	// error, never another verdict. nil makes such a trial an error.
	World func(t *task.Task, judging string) (Judge, error)
}

// DefaultRetries is how many times a trial that missed a deadline under
// overload is judged again by default.
const DefaultRetries = 2

// OverloadPerCore is the load average per core above which a missed
// deadline is taken for the machine's fault, not the page's: the trial is
// retried, and if it still misses under that load it is an infrastructure
// error, never a timeout scored against the page.
const OverloadPerCore = 1.5

// Run judges one trial. The error is for infrastructure problems only.
//
// A page that misses a deadline (crash kind timeout) while the machine is
// overloaded is judged again with the deadline doubled, up to Retries
// times. When the last attempt still misses it under overload, the
// harness checks itself: a blank page must load and step within a
// twentieth of the missed deadline (at least HealthWithin). If it does,
// the machine could run pages and the timeout is the page's — a page that
// loops forever loads the machine itself, and that load must not excuse
// it. Only if the blank page is slow too is the trial an infrastructure
// error (result.OutcomeInfra), not scored. On a machine that is not
// overloaded a missed deadline is the page's: a timeout, at once.
func (j *Runner) Run(ctx context.Context, in Input) (*result.Trial, error) {
	start := time.Now()
	var (
		last     *result.Trial
		deadline time.Duration
		reasons  []string
	)
	m := Machine{Retries: j.Retries, Load: j.Load, Healthy: j.healthy}
	tr, own, err := RetryUnderLoad(ctx, m, j.Browser, j.Resolver, time.Duration(in.Task.Timeout), errOverloaded,
		func(d time.Duration) (*result.Trial, bool, error) {
			tr, err := j.attempt(ctx, in, d)
			if err != nil {
				return nil, false, err
			}
			last, deadline = tr, d
			return tr, tr.Outcome == result.OutcomeCrash && tr.CrashKind == inspect.CrashTimeout, nil
		},
		func(missed time.Duration, l float64) error {
			reasons = append(reasons, fmt.Sprintf("attempt %d missed its %s deadline with the machine overloaded (load %.1f per core): %s",
				len(reasons)+1, missed, l, last.CrashMessage))
			return nil
		})
	switch {
	case errors.Is(err, errOverloaded):
		tr = last
		tr.Outcome, tr.CrashKind = result.OutcomeInfra, ""
		tr.CrashMessage = fmt.Sprintf("attempt %d missed its %s deadline: %s; %v; not scored (run again with --rerun infra on a quieter machine)",
			len(reasons)+1, deadline, tr.CrashMessage, err)
		tr.Pass, tr.VCov, tr.ACov, tr.SCov, tr.TCov, tr.Attribution = false, 0, 0, 0, 0, "infra"
	case err != nil:
		return nil, err
	case own != nil && own.Within > 0:
		tr.CrashMessage += fmt.Sprintf(" (the machine was loaded, %.1f per core, but a blank page loaded and ran within %s: the page's own timeout)", own.Load, own.Within)
	}
	return finish(tr, start, reasons), nil
}

// errOverloaded is the machine's fault that Run turns into an
// infrastructure trial.
var errOverloaded = errors.New("the machine was overloaded")

// HealthWithin is the least time the harness's health probe is given.
const HealthWithin = 10 * time.Second

// healthy asks j.Healthy, or probes the browser: a blank page must load
// and step 10 frames within within.
func (j *Runner) healthy(ctx context.Context, within time.Duration) bool {
	if j.Healthy != nil {
		return j.Healthy(ctx, within)
	}
	return ProbeHealth(ctx, j.Browser, j.Resolver, within)
}

// ProbeHealth reports whether a blank page loads and steps 10 frames in b
// within the given time.
func ProbeHealth(ctx context.Context, b *browser.Browser, res *resolve.Resolver, within time.Duration) bool {
	dir, err := os.MkdirTemp("", "worldprobe-health-")
	if err != nil {
		return false
	}
	defer os.RemoveAll(dir)
	page := filepath.Join(dir, "index.html")
	if err := os.WriteFile(page, []byte("<!doctype html><title>health</title><canvas></canvas><script>let n = 0; (function f() { n++; requestAnimationFrame(f); })();</script>"), 0o644); err != nil {
		return false
	}
	hctx, cancel := context.WithTimeout(ctx, within)
	defer cancel()
	s, err := session.Open(hctx, b, res, page, session.Config{Seed: 1, FPS: 60, SkipDraw: true, CallTimeout: within})
	if err != nil {
		return false
	}
	defer s.Close()
	if s.LoadErr() != nil || !s.Loaded() {
		return false
	}
	_, err = s.Step(hctx, 10, true)
	return err == nil && hctx.Err() == nil
}

// finish stamps a trial with its retries and whole duration.
func finish(tr *result.Trial, start time.Time, reasons []string) *result.Trial {
	tr.Retries, tr.RetryReasons = len(reasons), reasons
	tr.StartedAt = start.UTC()
	tr.DurationMs = float64(time.Since(start).Microseconds()) / 1000
	return tr
}

// LoadPerCore is the machine's 1-minute load average divided by its
// cores, from /proc/loadavg; 0 where it cannot be read.
func LoadPerCore() float64 {
	b, err := os.ReadFile("/proc/loadavg")
	if err != nil {
		return 0
	}
	var l float64
	if _, err := fmt.Sscanf(string(b), "%f", &l); err != nil {
		return 0
	}
	return l / float64(runtime.NumCPU())
}

// Input is one trial to judge.
type Input struct {
	Key      string
	Task     *task.Task
	Contract *contract.Contract
	Page     string
	Params   map[string]any
	Model    string
	// Repair is how the page was made when it is not the model's first
	// answer (result.Repairs); the trial records it.
	Repair    string
	Candidate string
	Variant   string
	Sample    int
	// Dir receives artifacts (screenshot.png, trace.jsonl); created if needed.
	Dir string
	// Fingerprint also reads scene and pixels at the end of every probe
	// into the state hash (mutation testing: is a mutant equivalent?).
	Fingerprint bool
	// StopAtFirstFailure ends the contract at the first assertion that
	// does not pass (mutation testing: one failure kills a mutant).
	StopAtFirstFailure bool
	// Judges judge the page after the load check, in order; nil means the
	// contract alone (a ContractJudge with Fingerprint and
	// StopAtFirstFailure).
	Judges []Judge
	// SkipInspect skips the load check (outcome classification and
	// screenshot) and goes straight to the contract, where a page that
	// fails to load fails its first probe. For mutation testing, where
	// only killed-or-not matters.
	SkipInspect bool
	// WorldJudge is how the world judge of a task judged against a rubric
	// judges, as the run planned it (Spec.WorldJudge); "" for the runner's
	// own configuration.
	WorldJudge string
}

// TraceFile is the trial artifact that lists, one JSON object per line,
// every state the contract read (contract.Observation).
const TraceFile = "trace.jsonl"

// ScreenshotFile is the trial artifact that shows the page after the load check.
const ScreenshotFile = "screenshot.png"

// judges are the trial's judges: Judges when set, else the world judge
// for a task judged against a rubric, else the contract.
func (j *Runner) judges(in Input) ([]Judge, error) {
	if len(in.Judges) > 0 {
		return in.Judges, nil
	}
	if in.Task.WorldJudged() {
		if j.World == nil {
			return nil, fmt.Errorf("task %s is judged against a rubric (judge:), and this runner has no world judge", in.Task.ID)
		}
		w, err := j.World(in.Task, in.WorldJudge)
		if err != nil {
			return nil, fmt.Errorf("task %s: %w", in.Task.ID, err)
		}
		return []Judge{w}, nil
	}
	return []Judge{&ContractJudge{Contract: in.Contract, Fingerprint: in.Fingerprint, StopAtFirstFailure: in.StopAtFirstFailure, Looker: j.Looker, Actor: j.Actor}}, nil
}

// InspectFrames is how many frames the load check steps before the contract runs.
const InspectFrames = 30

// attempt judges one trial once with the given deadline per call: the
// load check, then each judge in order.
func (j *Runner) attempt(ctx context.Context, in Input, timeout time.Duration) (*result.Trial, error) {
	start := time.Now()
	t := in.Task
	tr := &result.Trial{Key: in.Key, Task: t.ID, Category: t.Category, Subdomain: t.Subdomain, Difficulty: t.Difficulty,
		Variant: in.Variant, VariantOf: t.VariantOf, Model: in.Model, Repair: in.Repair, Candidate: in.Candidate, Sample: in.Sample, StartedAt: start.UTC(),
		Outcome: result.OutcomeOK}
	art, err := NewArtifacts(in.Dir)
	if err != nil {
		return nil, err
	}
	logger := j.Logger
	if logger == nil {
		logger = slog.Default()
	}
	scenes := roomScenes(func(src string) ([]byte, error) { return xr.RoomScene(j.Resolver, src) })
	preludesFor := xrPreludes(j.Resolver, t, scenes)
	roomsFor := xrRooms(t, scenes)
	preludes, err := preludesFor("")
	if err != nil {
		return nil, fmt.Errorf("trial %s: %w", in.Key, err)
	}
	rep := &inspect.Report{Outcome: inspect.OutcomeOK}
	var loadTab *session.Session
	if !in.SkipInspect {
		opts := inspect.Options{Frames: InspectFrames, FPS: t.FPS, Seed: t.Seed, Timeout: timeout, GPUTime: session.DefaultGPUTimeout,
			SkipDraw: j.SkipDraw, Width: t.Viewport.Width, Height: t.Viewport.Height, ScreenshotDir: in.Dir, Logger: logger, Preludes: preludes}
		if !j.RealTime && len(t.Interface()) > 0 {
			// The interface probe's read, made on the way when it leaves
			// the page untouched, spares the probe a page of its own.
			opts.StateAt = contract.DefaultInterfaceFrames
		}
		insp := &inspect.Inspector{Browser: j.Browser, Resolver: j.Resolver, Options: opts}
		var r *inspect.Report
		var err error
		if j.RealTime || t.WorldJudged() {
			// The world judge opens its own sessions: a tab kept open
			// here would hold a browser slot while the judge waits for
			// one (with --jobs 1, or as many world trials as jobs, for
			// ever).
			r, err = insp.Inspect(ctx, in.Page)
		} else {
			// The load check's tab serves the probes too: the first
			// restarts it, as every later one does, instead of opening
			// another tab and loading the page once more.
			r, loadTab, err = insp.InspectKeep(ctx, in.Page)
		}
		if err != nil {
			return nil, fmt.Errorf("inspecting %s: %w", in.Page, err)
		}
		rep = r
		if rep.Screenshot != "" && art.Adopt(ScreenshotFile, rep.Screenshot) == nil {
			tr.Screenshot = art.Path(ScreenshotFile)
		}
	}

	var open contract.Opener
	reused := loadTab
	if rep.Outcome != inspect.OutcomeOK {
		tr.Outcome, tr.CrashKind, tr.CrashMessage = result.OutcomeCrash, rep.Crash.Kind, rep.Crash.Message
		tr.CrashCause = rep.Crash.Cause
		crash := fmt.Errorf("not run: the page crashed at load (%s)", rep.Crash.Kind)
		open = func(context.Context, float64) (contract.Page, error) { return nil, crash }
	} else {
		// One tab serves every probe of every judge: each page restarts it
		// with a fresh document, clock and storage.
		defer func() {
			if reused != nil {
				reused.Close()
			}
		}()
		open = func(ctx context.Context, fps float64) (contract.Page, error) {
			// A probe replayed per room (rooms:) stands in its own room.
			preludes, err := preludesFor(contract.RoomOf(ctx))
			if err != nil {
				return nil, contract.Infra(err)
			}
			if reused != nil {
				reused.SetPreludes(preludes)
				if err := reused.Restart(ctx, fps); err != nil {
					return nil, mapErr(err)
				}
				if !reused.Loaded() {
					return nil, errors.New("the page did not load")
				}
				return &page{s: reused, fps: fps, backend: t.XRBackend, room: roomsFor(contract.RoomOf(ctx)), dir: t.Dir}, nil
			}
			s, err := session.Open(ctx, j.Browser, j.Resolver, in.Page, session.Config{
				Seed: t.Seed, FPS: fps, Width: t.Viewport.Width, Height: t.Viewport.Height, SkipDraw: j.SkipDraw,
				CallTimeout: timeout, Logger: logger, RealTime: j.RealTime, Preludes: preludes,
			})
			if err != nil {
				if ctx.Err() != nil {
					return nil, contract.Infra(ctx.Err())
				}
				return nil, contract.Infra(err)
			}
			if err := s.LoadErr(); err != nil {
				s.Close()
				return nil, mapErr(err)
			}
			if !s.Loaded() {
				s.Close()
				return nil, errors.New("the page did not load")
			}
			reused = s
			return &page{s: s, fps: fps, backend: t.XRBackend, room: roomsFor(contract.RoomOf(ctx)), dir: t.Dir}, nil
		}
	}
	var rec *recorder
	if rep.Outcome == inspect.OutcomeOK {
		open, rec = j.recording(t, logger, open) // video.go
	}
	if rec != nil {
		defer rec.close()
	}
	judges, err := j.judges(in)
	if err != nil {
		return nil, err
	}
	env := &Env{Task: t, Page: in.Page, Params: in.Params, Open: open, Artifacts: art}
	if rep.Outcome == inspect.OutcomeOK && rep.Early != nil {
		st, err := stateValue(rep.Early.State)
		if err != nil {
			return nil, fmt.Errorf("trial %s: %w", in.Key, err)
		}
		env.InterfaceRead = &contract.InterfaceRead{Frame: rep.Early.Frame, FPS: rep.Early.FPS, State: st}
		logger.Debug("the load check read the interface probe's state", "trial", in.Key, "frame", rep.Early.Frame)
	}
	var verdicts []*Verdict
	for _, jd := range judges {
		v, err := jd.Judge(ctx, env)
		if err != nil {
			return nil, err
		}
		verdicts = append(verdicts, v)
		if f := v.Failure; f != nil && tr.Outcome == result.OutcomeOK {
			tr.Outcome, tr.CrashMessage = result.OutcomeCrash, f.Error()
			switch {
			case errors.Is(f.Err, session.ErrUnresponsive):
				tr.CrashKind = inspect.CrashTimeout
			case errors.Is(f.Err, session.ErrCrashed):
				tr.CrashKind = inspect.CrashPageCrashed
				if reused != nil {
					var msg string
					tr.CrashCause, msg = reused.CrashCause()
					tr.CrashMessage += ": " + msg
				}
			default:
				tr.CrashKind = CrashRuntimeError
			}
		}
	}
	score(tr, verdicts)
	if rec != nil && j.Design != nil && t.XR != "" && tr.Outcome == result.OutcomeOK {
		if tr.Design, err = rec.design(ctx, art, j.Design); err != nil {
			return nil, fmt.Errorf("trial %s: %w", in.Key, err)
		}
	}
	if rec != nil {
		if tr.Videos, err = rec.write(ctx, art); err != nil {
			return nil, err
		}
	}
	tr.Artifacts = art.Names()
	tr.DurationMs = float64(time.Since(start).Microseconds()) / 1000
	return tr, nil
}

// xrPreludes returns the preludes of the task's pages by room: the
// task's own ("", task.yaml room:) or a probe's (rooms:, a capture's name
// or a file relative to the task folder). Each room's prelude is built
// once per trial. A task without xr: has none, and a probe with rooms:
// in it is the task's mistake.
func xrPreludes(res *resolve.Resolver, t *task.Task, scenes func(src string) ([]byte, error)) func(room string) ([]string, error) {
	cache := map[string][]string{}
	return func(room string) ([]string, error) {
		if t.XR == "" {
			if room != "" {
				return nil, fmt.Errorf("the probe's room %s needs a headset: set xr: in the task's task.yaml (docs/xr.md)", room)
			}
			return nil, nil
		}
		if p, ok := cache[room]; ok {
			return p, nil
		}
		o := xr.Options{Profile: t.XR, Backend: t.XRBackend, Room: roomSource(t, room)}
		if o.Room != "" && o.Backend != xr.BackendXRBlocks {
			scene, err := scenes(o.Room)
			if err != nil {
				return nil, err
			}
			o.Scene = scene
		}
		p, err := xr.Prelude(res, o)
		if err != nil {
			return nil, err
		}
		cache[room] = []string{p}
		return cache[room], nil
	}
}

// roomSource is the room a page stands in as xr.Options.Room takes it:
// the task's own (room "", task.yaml room:) or a probe's (rooms:, a
// capture's name or a file relative to the task folder).
func roomSource(t *task.Task, room string) string {
	switch {
	case room == "":
		return t.RoomSource()
	case xr.RoomFile(room):
		return filepath.Join(t.Dir, room)
	}
	return room
}

// roomScenes returns a trial's reader of room scenes by source
// (roomSource), reading each with read (xr.RoomScene) once per trial: its
// prelude and its walkable area both take that one copy.
func roomScenes(read func(src string) ([]byte, error)) func(src string) ([]byte, error) {
	var mu sync.Mutex
	cache := map[string]func() ([]byte, error){}
	return func(src string) ([]byte, error) {
		mu.Lock()
		once, ok := cache[src]
		if !ok {
			once = sync.OnceValues(func() ([]byte, error) { return read(src) })
			cache[src] = once
		}
		mu.Unlock()
		return once()
	}
}

// xrRooms returns the room of the task's pages by room (as xrPreludes
// takes it), its scene read through scenes (once per trial, shared with
// the prelude) and parsed at most once per trial, when a navigateTo first
// needs its walkable area; nil without a headset or a room.
func xrRooms(t *task.Task, scenes func(src string) ([]byte, error)) func(room string) *pageRoom {
	cache := map[string]*pageRoom{}
	return func(room string) *pageRoom {
		src := roomSource(t, room)
		if t.XR == "" || src == "" {
			return nil
		}
		if r, ok := cache[src]; ok {
			return r
		}
		r := &pageRoom{label: contract.RoomLabel(src), load: sync.OnceValues(func() (*navmesh.Room, error) {
			scene, err := scenes(src)
			if err != nil {
				return nil, err
			}
			return navmesh.ParseRoom(scene)
		})}
		cache[src] = r
		return r
	}
}

// score puts the judges' verdicts into the trial. The first judge is the
// trial's primary one: its coverages, attribution and state hash are the
// trial's. The trial passes when every judge passes (each over its judged
// assertions; Unjudged sums the unjudged ones); the assertions are
// all the judges', in order; with more than one judge the state hash
// digests every judge's hash.
func score(tr *result.Trial, verdicts []*Verdict) {
	tr.Assertions = nil
	if len(verdicts) == 0 {
		return
	}
	first := verdicts[0]
	tr.Pass, tr.VCov, tr.ACov, tr.SCov, tr.TCov = first.Pass, first.VCov, first.ACov, first.SCov, first.TCov
	tr.Attribution, tr.StateHash = first.Attribution, first.StateHash
	h := sha256.New()
	tr.Unjudged = 0
	for _, v := range verdicts {
		if v.World != nil {
			tr.World = v.World
		}
		tr.Pass = tr.Pass && v.Pass
		tr.Unjudged += v.Unjudged
		tr.Assertions = append(tr.Assertions, v.Assertions...)
		fmt.Fprintf(h, "%s\n", v.StateHash)
	}
	if len(verdicts) > 1 {
		tr.StateHash = hex.EncodeToString(h.Sum(nil))
	}
}
