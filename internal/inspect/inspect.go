// Package inspect answers the first question of every evaluation: did the
// page load, does it render, and what is its state after N frames? It drives
// a session through load → step → present → observe and turns what it saw
// into an outcome: ok, or a crash of a named kind.
package inspect

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"log/slog"
	"os"
	"path/filepath"
	"strings"
	"time"

	"github.com/worldprobe/worldprobe/internal/browser"
	"github.com/worldprobe/worldprobe/internal/pixel"
	"github.com/worldprobe/worldprobe/internal/resolve"
	"github.com/worldprobe/worldprobe/internal/result"
	"github.com/worldprobe/worldprobe/internal/session"
)

// Outcome values.
const (
	OutcomeOK    = result.OutcomeOK
	OutcomeCrash = result.OutcomeCrash
)

// Crash kinds an inspection can give (the vocabulary is result's).
const (
	CrashLoadFailed       = result.CrashLoadFailed
	CrashJSException      = result.CrashJSException
	CrashNoWebGL          = result.CrashNoWebGL
	CrashWebGLContextLost = result.CrashWebGLContextLost
	CrashRenderLoopDead   = result.CrashRenderLoopDead
	CrashTimeout          = result.CrashTimeout
	CrashPageCrashed      = result.CrashPageCrashed
)

// Options configure one inspection.
type Options struct {
	Frames   int
	FPS      float64
	Seed     uint32
	Timeout  time.Duration // longest the page may keep control in one call (load, a chunk of frames)
	GPUTime  time.Duration // extra allowance for drawing and presenting observed frames
	SkipDraw bool
	Width    int
	Height   int
	// ScreenshotDir, when set, receives <name>.png for each page.
	ScreenshotDir string
	Logger        *slog.Logger
	// Preludes are injected before each page's scripts (session.Config):
	// an emulated XR headset (internal/xr).
	Preludes []string
	// VideoDir, when set, receives a recording of each page's stepped
	// frames, <name>.webm (video.go); VideoEvery records every n-th.
	VideoDir   string
	VideoEvery int
	// StateAt, when between 0 and Frames, also reads the state after that
	// many frames, on the way, without changing the page
	// (session.ReadStateUntouched): Report.Early. A trial's interface
	// probe then needs no page of its own. Whether or not the read could
	// be made so, the report is the one an inspection without it gives.
	StateAt int
}

// Early is the state read after Options.StateAt frames, undrawn, without
// changing the page.
type Early struct {
	Frame int
	FPS   float64
	State session.State
}

// Defaults returns the documented defaults.
func Defaults() Options {
	return Options{Frames: 60, FPS: 60, Seed: 1, Timeout: session.DefaultCallTimeout, GPUTime: session.DefaultGPUTimeout,
		SkipDraw: true, Width: 1280, Height: 800}
}

// Crash describes why a page crashed.
type Crash struct {
	Kind string `json:"kind"`
	// Cause refines a page_crashed: "memory" when the page was ended for
	// using more memory than its share.
	Cause   string `json:"cause,omitempty"`
	Message string `json:"message"`
	Line    int    `json:"line,omitempty"`
	Column  int    `json:"column,omitempty"`
}

// Canvas describes the page's largest canvas.
type Canvas struct {
	Width  int  `json:"width"`
	Height int  `json:"height"`
	Blank  bool `json:"blank"`
}

// Report is the result of inspecting one page. Its JSON form is documented
// in docs/schemas.md.
type Report struct {
	Page      string                   `json:"page"`
	Outcome   string                   `json:"outcome"`
	Crash     *Crash                   `json:"crash"`
	Frames    int                      `json:"frames"`
	VirtualMs float64                  `json:"virtual_ms"`
	Seed      uint32                   `json:"seed"`
	FPS       float64                  `json:"fps"`
	Errors    []session.PageError      `json:"errors"`
	Console   []session.ConsoleMessage `json:"console"`
	// ConsoleDropped counts console messages past the first 500.
	ConsoleDropped int `json:"console_dropped,omitempty"`
	// consoleDroppedInPage are the console calls the page's runtime
	// counted but did not pass on (past 500 a document).
	consoleDroppedInPage int
	// Events are what the page runtime recorded of the page's excesses,
	// e.g. {"kind": "timer_flood", "frame": 12}: a frame that ran more
	// timers than the runtime allows.
	Events       []any                `json:"events,omitempty"`
	Dialogs      []session.Dialog     `json:"dialogs"`
	Requests     session.Requests     `json:"requests"`
	ThreeVersion string               `json:"three_version"`
	State        json.RawMessage      `json:"state"`
	StateHash    string               `json:"state_hash"`
	StateIssues  *session.StateIssues `json:"state_issues,omitempty"`
	Scene        *session.Scene       `json:"scene"`
	Canvas       *Canvas              `json:"canvas"`
	Screenshot   string               `json:"screenshot,omitempty"`
	Video        *Video               `json:"video,omitempty"`
	WebGL        *session.GLStatus    `json:"webgl,omitempty"`
	Loop         *Loop                `json:"loop,omitempty"`
	Timing       Timing               `json:"timing"`
	// Sandbox is how the browser was confined.
	Sandbox *browser.Sandbox `json:"sandbox,omitempty"`
	// Early is the state read after Options.StateAt frames when that read
	// left the page untouched; nil otherwise.
	Early *Early `json:"-"`
}

// Loop counts the page's frame activity over the stepped frames.
type Loop struct {
	FramesWithCallbacks int `json:"frames_with_callbacks"`
	FramesWithDraws     int `json:"frames_with_draws"`
	Draws               int `json:"draws"`
	// FramesWithClears counts frames that cleared a WebGL framebuffer: a
	// page whose objects are all outside the view (an XR user looking
	// away) makes no draw call but is rendering.
	FramesWithClears int `json:"-"`
}

// Timing is wall-clock time spent per phase, in milliseconds. It varies
// between runs and machines; nothing else in a report does.
type Timing struct {
	LoadMs    float64 `json:"load_ms"`
	StepMs    float64 `json:"step_ms"`
	PresentMs float64 `json:"present_ms"`
	ObserveMs float64 `json:"observe_ms"`
}

// Inspector inspects pages with one browser and one resolver.
type Inspector struct {
	Browser  *browser.Browser
	Resolver *resolve.Resolver
	Options  Options
}

// Inspect runs one page. The error is for infrastructure failures only; a
// broken page gives a report with outcome "crash".
func (in *Inspector) Inspect(ctx context.Context, path string) (*Report, error) {
	rep, s, err := in.inspect(ctx, path, false)
	if s != nil {
		s.Close()
	}
	return rep, err
}

// InspectKeep is Inspect that, when the outcome is ok, hands over the live
// session instead of closing it, for the caller to Restart and go on in
// the same tab (a trial's probes); the caller closes it. A page that did
// not end ok has no session.
func (in *Inspector) InspectKeep(ctx context.Context, path string) (*Report, *session.Session, error) {
	return in.inspect(ctx, path, true)
}

// inspect runs one page; with keep, an ok page's session is returned open.
func (in *Inspector) inspect(ctx context.Context, path string, keep bool) (rep *Report, kept *session.Session, err error) {
	done := func(s *session.Session, r *Report) {
		if keep && r != nil && r.Outcome == OutcomeOK {
			kept = s
			return
		}
		s.Close()
	}
	rep, err = in.run(ctx, path, in.Options, done)
	if errors.Is(err, errEarlyRead) {
		// The early read failed (the page hung or crashed in a getter):
		// inspect it again in a fresh tab as if it had never been asked.
		o := in.Options
		o.StateAt = 0
		rep, err = in.run(ctx, path, o, done)
	}
	return rep, kept, err
}

// errEarlyRead is run's error when the read after Options.StateAt frames
// failed: the session is closed and the inspection must start again
// without it.
var errEarlyRead = errors.New("the early state read failed")

// run inspects one page; done receives the session, if one was opened,
// with the final report, and closes or keeps it.
func (in *Inspector) run(ctx context.Context, path string, o Options, done func(*session.Session, *Report)) (rep *Report, err error) {
	if o.Logger == nil {
		o.Logger = slog.Default()
	}
	rep = &Report{Page: path, Seed: o.Seed, FPS: o.FPS, Outcome: OutcomeOK}
	if in.Browser != nil {
		sb := in.Browser.Sandbox()
		rep.Sandbox = &sb
	}
	if _, err := os.Stat(path); err != nil {
		rep.fail(CrashLoadFailed, fmt.Sprintf("page not found: %v", err), 0, 0)
		return rep, nil
	}
	t0 := time.Now()
	s, err := session.Open(ctx, in.Browser, in.Resolver, path, session.Config{
		Seed: o.Seed, FPS: o.FPS, Width: o.Width, Height: o.Height, SkipDraw: o.SkipDraw, Logger: o.Logger,
		CallTimeout: o.Timeout, GPUTimeout: o.GPUTime, Preludes: o.Preludes,
	})
	rep.Timing.LoadMs = ms(time.Since(t0))
	if err != nil {
		if ctx.Err() != nil {
			return nil, ctx.Err()
		}
		return nil, err
	}
	defer func() {
		if err != nil {
			if errors.Is(err, errEarlyRead) {
				s.Close()
				return
			}
			done(s, nil)
			return
		}
		done(s, rep)
	}()
	if err := s.LoadErr(); err != nil {
		in.finishBroken(ctx, s, rep, err)
		return rep, nil
	}
	if !s.Loaded() {
		log := s.Log()
		msg := log.MainDocFailure
		if msg == "" {
			msg = fmt.Sprintf("the page answered HTTP %d", log.MainDocStatus)
		}
		rep.fill(log)
		rep.fail(CrashLoadFailed, msg, 0, 0)
		return rep, nil
	}

	t1 := time.Now()
	var stepped session.StepResult
	// With a video, record every (n-th) frame, drawn; written at the end.
	if o.VideoDir != "" && o.Frames > 0 {
		clip, failed, verr := in.startVideo(s) // video.go
		if verr != nil {
			return nil, verr
		}
		defer clip.Close()
		defer func() {
			if rep.Frames > 0 && ctx.Err() == nil {
				rep.Video = in.writeVideo(ctx, s, clip, *failed, rep.Page)
			}
		}()
	}
	// Step all frames but the last with drawing skipped, then draw the last.
	if o.Frames > 0 {
		first := 0
		if o.StateAt > 0 && o.StateAt < o.Frames {
			first = o.StateAt
			stepped, err = s.Step(ctx, first, false)
			if err == nil {
				if rep.Early, err = early(ctx, s, o.FPS); err != nil {
					if ctx.Err() != nil {
						return nil, ctx.Err()
					}
					o.Logger.Debug("the early state read failed; inspecting again without it", "page", path, "err", err)
					return nil, errEarlyRead
				}
			}
		}
		if err == nil {
			var rest session.StepResult
			rest, err = s.Step(ctx, o.Frames-first, true)
			stepped = joinSteps(stepped, rest)
		}
	}
	rep.Timing.StepMs = ms(time.Since(t1))
	rep.Frames, rep.VirtualMs = stepped.Frames, stepped.VirtualMs
	if err != nil {
		in.finishBroken(ctx, s, rep, err)
		return rep, nil
	}

	// Wait for the GPU; this time is not the page's.
	t2 := time.Now()
	if err := s.Present(ctx); err != nil {
		in.finishBrokenAfterDraw(ctx, s, rep, err, "drawing its last frame")
		return rep, nil
	}
	rep.Timing.PresentMs = ms(time.Since(t2))

	t3 := time.Now()
	// The state read in it is the page's call (its getters run), with the
	// page's own timeout; the rest is the GPU's allowance.
	obsCtx, obsCancel := context.WithTimeout(ctx, o.GPUTime+o.Timeout)
	defer obsCancel()
	if err := in.observe(obsCtx, s, rep); err != nil {
		in.finishBrokenAfterDraw(ctx, s, rep, err, "being observed (state, scene, pixels)")
		return rep, nil
	}
	rep.Timing.ObserveMs = ms(time.Since(t3))
	rep.Loop = loopOf(stepped)
	rep.fill(s.Log())
	classify(rep, stepped)
	return rep, nil
}

// early reads the state without changing the page; nil when that could
// not be ruled out. The error is the read's: the page hung or crashed.
func early(ctx context.Context, s *session.Session, fps float64) (*Early, error) {
	st, untouched, err := s.ReadStateUntouched(ctx)
	if err != nil || !untouched {
		return nil, err
	}
	return &Early{Frame: s.Frame(), FPS: fps, State: st}, nil
}

// joinSteps is a then b, stepped one after the other.
func joinSteps(a, b session.StepResult) session.StepResult {
	if b.Frames == 0 {
		b.Frame, b.VirtualMs = a.Frame, a.VirtualMs
	}
	b.Frames += a.Frames
	b.Callbacks = append(a.Callbacks, b.Callbacks...)
	b.Draws = append(a.Draws, b.Draws...)
	b.Clears = append(a.Clears, b.Clears...)
	return b
}

// observe reads state, scene, runtime status and pixels into rep.
func (in *Inspector) observe(ctx context.Context, s *session.Session, rep *Report) error {
	st, err := s.ReadState(ctx)
	if err != nil {
		return err
	}
	rep.State, rep.StateHash = st.JSON, st.Hash
	if len(st.Issues.NonFinite)+len(st.Issues.Cycles)+len(st.Issues.Errors) > 0 || st.Issues.Truncated {
		issues := st.Issues
		rep.StateIssues = &issues
	}
	sc, err := s.ReadScene(ctx)
	if err != nil {
		return err
	}
	rep.Scene = &sc
	status, err := s.ReadStatus(ctx)
	if err != nil {
		return err
	}
	gl := status.GL
	rep.WebGL = &gl
	rep.Dialogs = append(rep.Dialogs, status.Dialogs...)
	rep.Requests.Blocked = append(rep.Requests.Blocked, status.Blocked...)
	rep.Events = status.Events
	rep.consoleDroppedInPage = status.ConsoleDropped
	box, err := s.LargestCanvas(ctx)
	if err != nil {
		return err
	}
	if box == nil {
		return nil
	}
	png, err := s.Screenshot(ctx, box, in.Options.GPUTime)
	if err != nil {
		return err
	}
	img, err := pixel.DecodePNG(png)
	if err != nil {
		return err
	}
	rep.Canvas = &Canvas{Width: box.PixelWidth, Height: box.PixelHeight, Blank: pixel.Measure(img).Blank()}
	if dir := in.Options.ScreenshotDir; dir != "" {
		if err := os.MkdirAll(dir, 0o755); err != nil {
			return fmt.Errorf("creating the screenshot folder: %w", err)
		}
		file := filepath.Join(dir, screenshotName(rep.Page))
		if err := os.WriteFile(file, png, 0o644); err != nil {
			return fmt.Errorf("writing the screenshot: %w", err)
		}
		rep.Screenshot = file
	}
	return nil
}

// finishBrokenAfterDraw is finishBroken for the phases after the frames
// were stepped, which run under the GPU allowance (--gpu-timeout), not the
// page's call timeout: a page that does not answer then is reported with
// that allowance and the phase, and keeps the frames it completed.
func (in *Inspector) finishBrokenAfterDraw(ctx context.Context, s *session.Session, rep *Report, err error, phase string) {
	if !errors.Is(err, session.ErrUnresponsive) {
		in.finishBroken(ctx, s, rep, err)
		return
	}
	_ = s.Interrupt()
	rep.fill(s.Log())
	var read *session.StateReadTimeout
	if errors.As(err, &read) {
		// The page's own code (a getter, trap or state function) kept
		// control: that is its call timeout, not the GPU's allowance.
		rep.fail(CrashTimeout, fmt.Sprintf("%s (a getter, Proxy trap or state function that does not return), after %d frames",
			read.Error(), rep.Frames), 0, 0)
		return
	}
	rep.fail(CrashTimeout, fmt.Sprintf("the page did not return control within the GPU allowance of %s while %s, after %d frames",
		in.Options.GPUTime, phase, rep.Frames), 0, 0)
}

// finishBroken records a timeout or crash, after regaining control of the
// page and salvaging what can still be read.
func (in *Inspector) finishBroken(ctx context.Context, s *session.Session, rep *Report, err error) {
	switch {
	case errors.Is(err, session.ErrCrashed):
		rep.fill(s.Log())
		cause, msg := s.CrashCause()
		rep.fail(CrashPageCrashed, msg, 0, 0)
		rep.Crash.Cause = cause
	case errors.Is(err, session.ErrUnresponsive):
		_ = s.Interrupt()
		// With the page's script stopped, the runtime can still say how far it got.
		sctx, cancel := context.WithTimeout(ctx, 3*time.Second)
		defer cancel()
		frames := s.Frame()
		if st, err := s.ReadStatus(sctx); err == nil && st.Frame > 0 {
			frames = st.Frame - 1 // the frame that hung did not complete
			rep.VirtualMs = st.VirtualMs
		}
		rep.fill(s.Log())
		rep.Frames = frames
		rep.fail(CrashTimeout, fmt.Sprintf("the page did not return control within %s (hung in frame %d)", in.Options.Timeout, frames+1), 0, 0)
	default:
		rep.fill(s.Log())
		rep.fail(CrashLoadFailed, err.Error(), 0, 0)
	}
}

func (r *Report) fail(kind, msg string, line, col int) {
	r.Outcome = OutcomeCrash
	r.Crash = &Crash{Kind: kind, Message: msg, Line: line, Column: col}
}

// fill copies the session log into the report.
func (r *Report) fill(l session.Log) {
	r.Errors = nonNil(l.Errors)
	r.Console = nonNil(l.Console)
	r.ConsoleDropped = l.ConsoleDropped + r.consoleDroppedInPage
	r.Dialogs = append(nonNil(l.Dialogs), r.Dialogs...)
	blocked := r.Requests.Blocked
	r.Requests = l.Requests
	r.Requests.Blocked = append(nonNil(r.Requests.Blocked), blocked...)
	r.ThreeVersion = strings.Join(l.ThreeRequested, ",")
	if l.NavigatedAway != "" {
		r.Requests.Blocked = append(r.Requests.Blocked, session.Blocked{URL: l.NavigatedAway, Type: "navigation", Reason: "the page navigated away"})
	}
}

func nonNil[T any](s []T) []T {
	if s == nil {
		return []T{}
	}
	return s
}

func loopOf(st session.StepResult) *Loop {
	l := &Loop{}
	for i := range st.Callbacks {
		if st.Callbacks[i] > 0 {
			l.FramesWithCallbacks++
		}
		if st.Draws[i] > 0 {
			l.FramesWithDraws++
		}
		if i < len(st.Clears) && st.Clears[i] > 0 {
			l.FramesWithClears++
		}
		l.Draws += st.Draws[i]
	}
	return l
}

// classify decides the outcome of a page that loaded and was stepped.
func classify(r *Report, st session.StepResult) {
	if r.Scene != nil && r.Scene.ThreeRevision != "" && r.ThreeVersion == "" {
		r.ThreeVersion = r.Scene.ThreeRevision
	}
	if r.Outcome != OutcomeOK {
		return
	}
	gl := r.WebGL
	if gl != nil && gl.Failed > 0 && gl.Contexts == 0 {
		r.fail(CrashNoWebGL, "the page could not create a WebGL context", 0, 0)
		return
	}
	if gl != nil && gl.Lost > gl.Restored {
		r.fail(CrashWebGLContextLost, "the page's WebGL context was lost and not restored", 0, 0)
		return
	}
	if st.Frames == 0 {
		return
	}
	loop := loopOf(st)
	dead := loop.FramesWithCallbacks == 0 || (loop.FramesWithDraws == 0 && loop.FramesWithClears == 0)
	// A loop that stopped after an uncaught error also counts as dead.
	window := max(1, min(10, st.Frames/4))
	tailAlive := false
	for i := st.Frames - window; i < st.Frames; i++ {
		if i >= 0 && st.Callbacks[i] > 0 {
			tailAlive = true
		}
	}
	if len(r.Errors) > 0 && (dead || !tailAlive) {
		e := r.Errors[0]
		r.fail(CrashJSException, e.Message, e.Line, e.Column)
		return
	}
	if dead {
		what := "no animation-frame callback ran"
		if loop.FramesWithCallbacks > 0 {
			what = "nothing was rendered (no WebGL draw or clear call)"
		}
		r.fail(CrashRenderLoopDead, fmt.Sprintf("%s over %d stepped frames", what, st.Frames), 0, 0)
	}
}

func screenshotName(page string) string {
	base := strings.TrimSuffix(filepath.Base(page), filepath.Ext(page))
	dir := filepath.Base(filepath.Dir(page))
	name := base
	if base == "index" || base == "world" {
		name = dir + "-" + base
	}
	return strings.Map(func(r rune) rune {
		if r == '/' || r == '\\' || r == ' ' {
			return '_'
		}
		return r
	}, name) + ".png"
}

func ms(d time.Duration) float64 { return float64(d.Microseconds()) / 1000 }
