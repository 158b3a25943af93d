// Package capture looks at a world on the virtual clock, offline: it loads
// the page in worldprobe's session (vendored libraries, no network), samples
// it at many page times to find its day and night by lit-pixel luma, takes
// wide views around the scene with the page's own camera, and measures
// still-camera motion bursts — every frame saved as PNG, no real sleeps.
// What it sees is for the judge (internal/worldjudge) to grade; a page that
// fails is a named reason in the capture, never a Go error.
package capture

import (
	"bytes"
	"context"
	"crypto/sha256"
	_ "embed"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"image"
	"image/png"
	"log/slog"
	"math"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"time"

	"github.com/worldprobe/worldprobe/internal/browser"
	"github.com/worldprobe/worldprobe/internal/llm"
	"github.com/worldprobe/worldprobe/internal/pixel"
	"github.com/worldprobe/worldprobe/internal/resolve"
	"github.com/worldprobe/worldprobe/internal/session"
	"github.com/worldprobe/worldprobe/internal/target"
	"github.com/worldprobe/worldprobe/internal/worldjudge/measure"
	"github.com/worldprobe/worldprobe/internal/worldjudge/rubric"
)

// Hook is the prelude that lets the capture pose the page's camera.
//
//go:embed hook.js
var Hook string

// Options parametrise a capture.
type Options struct {
	// Width and Height are the viewport (1280×800).
	Width, Height int
	// FPS is the virtual frame rate: 20 steps the clock by 50 ms a frame,
	// the largest step that worlds clamping their delta time to 0.05 s
	// (most do) still follow exactly.
	FPS float64
	// Seed seeds the page's randomness.
	Seed uint32
	// Horizon is how much page time the day-cycle pass covers, in seconds,
	// and Samples how many drawn frames it takes, evenly spaced from the
	// first frame.
	Horizon float64
	Samples int
	// Pixels are the rubric's thresholds.
	Pixels rubric.Pixels
	// CallTimeout and GPUTimeout are the session's deadlines (0: defaults).
	CallTimeout, GPUTimeout time.Duration
	// Coverage collects V8 block coverage while the world is captured.
	Coverage bool
	// RealTime captures on the page's real clock, sleeping real time
	// wherever page time passes, as WorldBench's capture does: only for
	// measuring what the virtual clock saves (docs/PERFORMANCE.md); its
	// frames are not reproducible.
	RealTime bool
	// How the frames taken with the UI hidden are read. By default the
	// first calibrationFrames of them are taken in turn each way — drawn
	// and read back from WebGL in the task that drew them, or drawn and
	// taken as a screenshot of the canvas — with the CPU time of each
	// measured, and the way that took less reads the rest (Reads.Chosen;
	// docs/judge.md).
	// WebGLReads reads them all from WebGL; Screenshots takes them all as
	// screenshots; CheckReads takes both for every one and lists the
	// frames whose pixels differ (Capture.Reads).
	Screenshots, CheckReads, WebGLReads bool
	// Biomes, when set, turn on the legend framing: after the bursts the
	// page is reloaded to the day and each biome its legend names is
	// clicked and framed (legend.go).
	Biomes []rubric.Biome
	// Navigator, when set with Biomes, searches for each biome the legend
	// did not frame (navigator.go; the llm.Navigator role).
	Navigator llm.Model
	Logger    *slog.Logger
}

// DefaultOptions are the capture's defaults with the rubric's pixels.
func DefaultOptions(p rubric.Pixels) Options {
	w, h := 1280, 800
	if len(p.Viewport) == 2 {
		w, h = p.Viewport[0], p.Viewport[1]
	}
	return Options{Width: w, Height: h, FPS: 20, Seed: 1, Horizon: 120, Samples: 12, Pixels: p, Coverage: true}
}

// View is one saved frame.
type View struct {
	// Name is unique in the capture: time_00…, orbit_right, burst_near_0….
	Name string `json:"name"`
	// Kind is time, orbit, burst_near, burst_far or biome.
	Kind string `json:"kind"`
	// File is the PNG, relative to the capture's folder.
	File string `json:"file"`
	// Frame and PageMs are the page's frame and virtual time when drawn;
	// Document counts the loads (1 for the first, 2 after the reload).
	Frame    int     `json:"frame"`
	PageMs   float64 `json:"page_ms"`
	Document int     `json:"document"`
	// Luma is the lit-pixel luma (docs/judge.md).
	Luma float64 `json:"luma"`
	// Camera is where the page's camera was posed (orbits, and the frames of
	// a biome's bursts taken from its legend view).
	Camera []float64 `json:"camera,omitempty"`
	// Seasons are the season names the page's UI showed beyond its
	// constant text (time samples only).
	Seasons []string `json:"seasons,omitempty"`
	rgb     measure.RGB
}

// Alias names an existing view under another role (overview = the day
// sample, a season = the first sample the UI named it in).
type Alias struct {
	Name string `json:"name"`
	Of   string `json:"of"`
}

// DayNight is the day-cycle pass's verdict.
type DayNight struct {
	// Day and Night name the brightest and darkest time samples.
	Day      string  `json:"day"`
	Night    string  `json:"night"`
	DayMs    float64 `json:"day_ms"`
	NightMs  float64 `json:"night_ms"`
	DayLuma  float64 `json:"day_luma"`
	NightLum float64 `json:"night_luma"`
	Gap      float64 `json:"gap"`
	// Pinned: the gap reaches the rubric's day_night_gap.
	Pinned bool `json:"pinned"`
	// LengthMs is the day's length fitted to the light probes taken
	// between the time samples (measure.DayLength), LengthFit the share of
	// their variance the fit explains and LengthRepeat how much the probes
	// differ from themselves one such length later (a share of their
	// range; -1 when less than about 1.3 of it was probed); LengthMs is 0
	// when no length was found (a fit under 0.5, a repeat over 0.1, or
	// the real-time capture).
	LengthMs     float64 `json:"length_ms,omitempty"`
	LengthFit    float64 `json:"length_fit,omitempty"`
	LengthRepeat float64 `json:"length_repeat,omitempty"`
}

// Burst is one still-camera motion burst.
type Burst struct {
	Name string `json:"name"`
	// Biome is the biome whose close view the burst watches (its legend
	// framing or its navigator view); empty for the page's own camera.
	Biome   string   `json:"biome,omitempty"`
	Frames  []string `json:"frames"`
	Overlay string   `json:"overlay"`
	GapMs   float64  `json:"gap_ms"`
	// Fraction φ is the changed-pixel share (measure.BurstMotion).
	Fraction float64 `json:"fraction"`
	Changed  int     `json:"changed"`
	Pixels   int     `json:"pixels"`
}

// Timing is where the capture's wall time went, in milliseconds.
type Timing struct {
	Load   int64 `json:"load_ms"`
	Times  int64 `json:"times_ms"`
	Reload int64 `json:"reload_ms"`
	Orbits int64 `json:"orbits_ms"`
	Bursts int64 `json:"bursts_ms"`
	Legend int64 `json:"legend_ms,omitempty"`
	// Seasons is the season pass: a reload and the walk through the
	// day's time of day (seasons.go).
	Seasons int64 `json:"seasons_ms,omitempty"`
	// Navigator is the navigator's episodes, a reload to the day included.
	Navigator int64 `json:"navigator_ms,omitempty"`
	Total     int64 `json:"total_ms"`
}

// Capture is everything seen of one world.
type Capture struct {
	World  string `json:"world"`
	SHA256 string `json:"sha256"`
	// Failure names why the capture stopped early, or is empty; what was
	// captured before it is kept.
	Failure string `json:"failure,omitempty"`
	// DeadlineMissed: the failure was a call into the page that missed its
	// deadline (a hang, or an overloaded machine: the judge tells which).
	DeadlineMissed bool `json:"deadline_missed,omitempty"`
	// Three is the three.js revision the page reported.
	Three    string    `json:"three,omitempty"`
	Views    []View    `json:"views"`
	Aliases  []Alias   `json:"aliases"`
	DayNight *DayNight `json:"day_night,omitempty"`
	// Seasons are the seasons the page's UI named as time went on;
	// SeasonsNote says how they were found or why there are none.
	Seasons     []string `json:"seasons"`
	SeasonsNote string   `json:"seasons_note"`
	// Orbit is how the wide views were posed.
	Orbit  string  `json:"orbit"`
	Bursts []Burst `json:"bursts"`
	// BurstsNote says how the bursts were taken (the zoom-out's effect).
	BurstsNote string `json:"bursts_note,omitempty"`
	// Legend is the framing of the biomes from the page's own legend
	// (nil when no biomes were asked for).
	Legend *Legend `json:"legend,omitempty"`
	// Navigation are the navigator's episodes, one per biome the legend
	// did not frame (none without a navigator model).
	Navigation []Episode `json:"navigation,omitempty"`
	// Coverage is the raw block coverage of every document, for the judge.
	Coverage []session.CoverageScript `json:"-"`
	// EntryURL is the page's URL in the session (its scripts' URL).
	EntryURL string `json:"-"`
	// Errors are the page's uncaught exceptions and console errors (first 20).
	Errors []string `json:"errors,omitempty"`
	// Blocked are requests refused offline (first 20, each once): assets
	// the world would have fetched, whether the interception refused them
	// or the page runtime did (window.open, a service worker, a worker's
	// request); what has no URL is named by its kind in parentheses.
	Blocked []string `json:"blocked,omitempty"`
	Timing  Timing   `json:"timing"`
	// Reads says how the frames were read.
	Reads Reads `json:"reads"`
}

// Reads counts how the frames taken with the UI hidden were read: back
// from WebGL in the task that drew them, or as screenshots of the canvas
// (the time samples, with the UI shown, always are), and why.
type Reads struct {
	WebGL       int      `json:"webgl"`
	Screenshots int      `json:"screenshots"`
	Why         []string `json:"why,omitempty"`
	// Differ are the frames whose WebGL read and screenshot differ
	// (with Options.CheckReads only).
	Differ []string `json:"differ,omitempty"`
	// Chosen is how the frames after the calibration were read:
	// "webgl" or "screenshots" (empty: forced by an option, or no frame
	// was taken with the UI hidden); ReadCPUMs and ShotCPUMs are the CPU
	// times (the browser's processes and the harness) the calibration
	// frames taken each way took, drawing included, which decided it;
	// ReadMs and ShotMs their wall times.
	Chosen    string  `json:"chosen,omitempty"`
	ReadCPUMs float64 `json:"read_cpu_ms,omitempty"`
	ShotCPUMs float64 `json:"shot_cpu_ms,omitempty"`
	ReadMs    float64 `json:"read_ms,omitempty"`
	ShotMs    float64 `json:"shot_ms,omitempty"`
	// Calibrated counts the calibration frames.
	Calibrated int `json:"calibrated,omitempty"`
}

// Frames counts the distinct frames saved.
func (c *Capture) Frames() int { return len(c.Views) }

// Structural is WorldBench's structural gate: a non-empty file naming
// three, canvas or webgl. It returns the reason it fails, or "".
func Structural(html []byte) string {
	if len(bytes.TrimSpace(html)) == 0 {
		return "structural: the file is empty"
	}
	low := strings.ToLower(string(html))
	for _, w := range []string{"three", "canvas", "webgl"} {
		if strings.Contains(low, w) {
			return ""
		}
	}
	return "structural: the file names none of three, canvas, webgl"
}

// Run captures the world at path into out (created), with its frames in
// out/frames. The error is for infrastructure only (the browser, the
// files); a page that fails gets a Capture with Failure set.
func Run(ctx context.Context, b *browser.Browser, res *resolve.Resolver, path, out string, o Options) (*Capture, error) {
	if o.Logger == nil {
		o.Logger = slog.Default()
	}
	html, err := os.ReadFile(path)
	if err != nil {
		return nil, fmt.Errorf("reading the world: %w", err)
	}
	sum := sha256.Sum256(html)
	c := &Capture{World: path, SHA256: hex.EncodeToString(sum[:]), Views: []View{}, Aliases: []Alias{}, Seasons: []string{}, Bursts: []Burst{}}
	if err := os.MkdirAll(filepath.Join(out, "frames"), 0o755); err != nil {
		return nil, fmt.Errorf("making the capture folder: %w", err)
	}
	if r := Structural(html); r != "" {
		c.Failure = r
		return c, nil
	}
	k := &capturer{c: c, o: o, out: out, doc: 1, b: b}
	start := time.Now()
	defer func() { c.Timing.Total = time.Since(start).Milliseconds() }()
	s, err := session.Open(ctx, b, res, path, session.Config{
		Seed: o.Seed, FPS: o.FPS, Width: o.Width, Height: o.Height, SkipDraw: true,
		CallTimeout: o.CallTimeout, GPUTimeout: o.GPUTimeout, Logger: o.Logger,
		Preludes: []string{Hook}, Coverage: o.Coverage, RealTime: o.RealTime,
	})
	if err != nil {
		return nil, err
	}
	defer s.Close()
	k.s = s
	c.EntryURL = s.EntryURL()
	c.Timing.Load = time.Since(start).Milliseconds()
	defer k.collectErrors(ctx)
	if err := s.LoadErr(); err != nil {
		c.Failure = "load: " + pageReason(err)
		c.DeadlineMissed = errors.Is(err, session.ErrUnresponsive)
		return c, nil
	}
	if !s.Loaded() {
		c.Failure = "load: the document failed: " + s.Log().MainDocFailure
		return c, nil
	}
	if err := k.run(ctx); err != nil {
		if ctx.Err() != nil {
			return nil, ctx.Err()
		}
		if errors.As(err, new(infraErr)) {
			return nil, err
		}
		c.Failure = err.Error()
		c.DeadlineMissed = errors.Is(err, session.ErrUnresponsive)
	}
	return c, nil
}

// pageErr is a page failure: it reads as pageReason and unwraps to the
// session's error (ErrUnresponsive, ErrCrashed).
type pageErr struct{ err error }

func (e pageErr) Error() string { return pageReason(e.err) }
func (e pageErr) Unwrap() error { return e.err }

// infraErr is a failure of the harness (a screenshot it cannot decode, a
// frame it cannot write): Run returns it as its error, never as the
// world's failure.
type infraErr struct{ err error }

func (e infraErr) Error() string { return e.err.Error() }
func (e infraErr) Unwrap() error { return e.err }

// pageReason names a page failure.
func pageReason(err error) string {
	switch {
	case errors.Is(err, session.ErrUnresponsive):
		return "the page stopped responding (" + err.Error() + ")"
	case errors.Is(err, session.ErrCrashed):
		return "the page's renderer crashed"
	}
	return err.Error()
}

type capturer struct {
	c   *Capture
	o   Options
	s   *session.Session
	out string
	doc int
	// refused is what the runtime of the documents before the current
	// one refused (read before each reload).
	refused []session.Blocked
	// legendMatch maps biomes to legend elements (legendFlights).
	legendMatch map[string]int
	// rtFrames counts the frames of page time slept in the current
	// document with Options.RealTime.
	rtFrames int
	// hidden: the page's UI is hidden (hud), so a frame is the canvas
	// alone and may be read back from WebGL (readAt).
	hidden bool
	// seasonLeast is, per season, how often the time sample naming it
	// least named it (the UI's constant text); dayFrames the day's length
	// in frames (0: unknown).
	seasonLeast map[string]int
	dayFrames   int
	// b is the browser, for the CPU time of the reads' calibration.
	b *browser.Browser
}

// frame is the current document's frame: the virtual clock's, or with
// Options.RealTime the frames of page time slept since it loaded.
func (k *capturer) frame() int {
	if k.o.RealTime {
		return k.rtFrames
	}
	return k.s.Frame()
}

// advance lets n frames of page time pass, drawing the last when draw:
// on the virtual clock n stepped frames; with Options.RealTime (the
// comparison of docs/PERFORMANCE.md only) a real sleep of n frames'
// time, as WorldBench's capture waits, then one real frame.
func (k *capturer) advance(ctx context.Context, n int, draw bool) (session.StepResult, error) {
	if !k.o.RealTime {
		return k.s.Step(ctx, n, draw)
	}
	k.rtFrames += n
	select {
	case <-ctx.Done():
		return session.StepResult{}, ctx.Err()
	case <-time.After(time.Duration(float64(n) / k.o.FPS * float64(time.Second))):
	}
	return k.s.Step(ctx, 1, draw)
}

// collectErrors lists the page's errors and the requests refused: the
// interception's, then the page runtime's (of every document; the current
// one is read unless it stopped responding), each once.
func (k *capturer) collectErrors(ctx context.Context) {
	l := k.s.Log()
	for _, e := range l.Errors {
		if len(k.c.Errors) < 20 {
			k.c.Errors = append(k.c.Errors, fmt.Sprintf("line %d: %s", e.Line, e.Message))
		}
	}
	if !k.c.DeadlineMissed {
		k.readRefused(ctx)
	}
	for _, b := range append(l.Requests.Blocked, k.refused...) {
		what := b.URL
		if what == "" {
			what = "(" + b.Type + ")"
		}
		if len(k.c.Blocked) < 20 && !slices.Contains(k.c.Blocked, what) {
			k.c.Blocked = append(k.c.Blocked, what)
		}
	}
}

// readRefused keeps what the current document's runtime refused.
func (k *capturer) readRefused(ctx context.Context) {
	if st, err := k.s.ReadStatus(ctx); err == nil {
		k.refused = append(k.refused, st.Blocked...)
	}
}

func (k *capturer) run(ctx context.Context) error {
	c, o := k.c, k.o
	if sc, err := k.s.ReadScene(ctx); err == nil {
		c.Three = sc.ThreeRevision
	}
	// 1. The day cycle: drawn samples evenly over the horizon.
	t := time.Now()
	n := max(2, o.Samples)
	frames := make([]int, n)
	for i := range frames {
		frames[i] = int(math.Round(float64(i)*o.Horizon*o.FPS/float64(n))) + 1
	}
	var lumas []float64
	counts := make([]map[string]int, 0, n)
	var probeFrames []int
	var probeLumas []float64
	for i, f := range frames {
		if i > 0 && !o.RealTime {
			// Light probes between the samples, for the day's length.
			for q := 1; q < lightProbes; q++ {
				pf := frames[i-1] + (f-frames[i-1])*q/lightProbes
				if pf <= k.frame() {
					continue
				}
				l, err := k.lightAt(ctx, pf)
				if err != nil {
					return fmt.Errorf("light probe at %.2f s: %w", float64(pf)/o.FPS, pageErr{err})
				}
				if l >= 0 {
					probeFrames, probeLumas = append(probeFrames, pf), append(probeLumas, l)
				}
			}
		}
		name := fmt.Sprintf("time_%02d", i)
		var v View
		var err error
		if o.RealTime {
			v, err = k.frameAt(ctx, f, name, "time")
		} else {
			// The sample is a light probe too (drawn anyway).
			var l float64
			if l, err = k.lightAt(ctx, f); err == nil {
				if l >= 0 {
					probeFrames, probeLumas = append(probeFrames, f), append(probeLumas, l)
				}
				v, err = k.shot(ctx, name, "time")
			}
		}
		if err != nil {
			return fmt.Errorf("time sample %d (%.0f s): %w", i, float64(f)/o.FPS, pageErr{err})
		}
		lumas = append(lumas, v.Luma)
		counts = append(counts, k.seasonWords(ctx))
	}
	c.Timing.Times = time.Since(t).Milliseconds()
	dn := measure.PickDayNight(lumas, o.Pixels.DayNightGap)
	day, night := c.Views[dn.Day], c.Views[dn.Night]
	c.DayNight = &DayNight{Day: day.Name, Night: night.Name, DayMs: day.PageMs, NightMs: night.PageMs, DayLuma: day.Luma, NightLum: night.Luma, Gap: dn.Gap, Pinned: dn.Pinned}
	c.Aliases = append(c.Aliases, Alias{Name: "overview", Of: day.Name})
	k.dayLength(probeFrames, probeLumas)
	k.seasons(counts)
	// 2. The legend's camera flights, in this document (no frames drawn):
	// where the page's camera comes to rest after each biome's click.
	if len(o.Biomes) > 0 {
		t = time.Now()
		if err := k.legendFlights(ctx); err != nil {
			return err
		}
		c.Timing.Legend = time.Since(t).Milliseconds()
	}
	// 3. Back to the day: a fresh document stepped to the day's frame.
	if err := k.takeCoverage(ctx); err != nil {
		return fmt.Errorf("coverage: %w", pageErr{err})
	}
	k.readRefused(ctx)
	t = time.Now()
	if err := k.toDay(ctx, day); err != nil {
		return err
	}
	c.Timing.Reload = time.Since(t).Milliseconds()
	// 4. Four orbits of the page's own camera around the scene's box.
	t = time.Now()
	if err := k.orbits(ctx); err != nil {
		return err
	}
	c.Timing.Orbits = time.Since(t).Milliseconds()
	// 5. Still-camera bursts with the HUD hidden, at the day: one per biome
	// its legend framed (the camera posed where the legend's flight came
	// to rest; the first frame is the biome frame) and one with the page's
	// own camera, their frames interleaved (bursts.go).
	t = time.Now()
	if err := k.bursts(ctx); err != nil {
		return err
	}
	c.Timing.Bursts = time.Since(t).Milliseconds()
	if err := k.takeCoverage(ctx); err != nil {
		return fmt.Errorf("coverage: %w", pageErr{err})
	}
	// 6. The seasons at the day's time of day, in a fresh document
	// (seasons.go).
	t = time.Now()
	if err := k.seasonViews(ctx, day); err != nil {
		return err
	}
	c.Timing.Seasons = time.Since(t).Milliseconds()
	if len(o.Biomes) == 0 || o.Navigator == nil {
		return nil
	}
	// 7. The navigator, for the biomes the legend did not frame, at the
	// day again.
	t = time.Now()
	defer func() { c.Timing.Navigator = time.Since(t).Milliseconds() }()
	if err := k.toDay(ctx, day); err != nil {
		return err
	}
	if err := k.navigate(ctx); err != nil {
		return err
	}
	return k.takeCoverage(ctx)
}

// toDay reloads the page (a fresh document and clock) and steps it to the
// frame before the day sample's.
func (k *capturer) toDay(ctx context.Context, day View) error {
	if err := k.s.Reload(ctx); err != nil {
		return fmt.Errorf("reload: %w", pageErr{err})
	}
	k.doc++
	k.rtFrames = 0
	if !k.s.Loaded() {
		return fmt.Errorf("reload: the document failed: %s", k.s.Log().MainDocFailure)
	}
	if _, err := k.advance(ctx, max(1, day.Frame-1), false); err != nil {
		return fmt.Errorf("stepping to the day (%.0f s): %w", day.PageMs/1000, pageErr{err})
	}
	return nil
}

// pageGone: the page stopped answering or crashed.
func pageGone(err error) bool {
	return errors.Is(err, session.ErrUnresponsive) || errors.Is(err, session.ErrCrashed)
}

func (k *capturer) takeCoverage(ctx context.Context) error {
	if !k.o.Coverage {
		return nil
	}
	cov, err := k.s.TakeCoverage(ctx)
	if err != nil {
		return err
	}
	for _, sc := range cov {
		if sc.URL == k.c.EntryURL {
			k.c.Coverage = append(k.c.Coverage, sc)
		}
	}
	return nil
}

// hud hides the page's UI (WorldBench's style: everything but canvases
// invisible) or shows it again.
func (k *capturer) hud(ctx context.Context, show bool) error {
	js := hideHUD
	if show {
		js = showHUD
	}
	if err := k.s.Eval(ctx, k.limit(), js, nil); err != nil {
		return err
	}
	k.hidden = !show
	return nil
}

// frameAt steps to frame f (at least one frame), draws it and saves it.
// With the UI hidden the drawn frame is read back from WebGL in the task
// that drew it (readGL), unless a screenshot could show other pixels; else
// it is a screenshot of the canvas.
func (k *capturer) frameAt(ctx context.Context, f int, name, kind string) (View, error) {
	steps := max(1, f-k.frame())
	if k.hidden && !k.o.RealTime && !k.o.Screenshots {
		if k.calibrating() {
			return k.calibrationFrame(ctx, steps, name, kind)
		}
		if k.c.Reads.Chosen != readShots {
			return k.readAt(ctx, steps, name, kind)
		}
		k.c.Reads.Screenshots++
	}
	if _, err := k.advance(ctx, steps, true); err != nil {
		return View{}, err
	}
	return k.shot(ctx, name, kind)
}

// readAt steps n frames, the last drawn with a read armed (capture/hook.js:
// each render to the screen reads the drawing buffer back right after
// drawing), and saves that read; when the hook declines it (another
// element over the canvas, a canvas not opaque, a CSS effect, another
// size than its box: see takeRead) the frame is a screenshot, as without
// the UI hidden. With Options.CheckReads both are taken and compared.
func (k *capturer) readAt(ctx context.Context, n int, name, kind string) (View, error) {
	if n > 1 {
		if _, err := k.advance(ctx, n-1, false); err != nil {
			return View{}, err
		}
	}
	var armed bool
	if err := k.s.Eval(ctx, k.limit(), `window.__wj ? window.__wj.armRead() : false`, &armed); err != nil {
		return View{}, err
	}
	if _, err := k.advance(ctx, 1, true); err != nil {
		return View{}, err
	}
	var raw string
	if armed {
		if err := k.s.Eval(ctx, k.limit()+k.gpuLimit(), `window.__wj.takeRead()`, &raw); err != nil {
			return View{}, err
		}
	}
	var r struct {
		W, H   int
		RGB    []byte
		Reason string
	}
	if !armed {
		r.Reason = "the capture's hook is not in the page"
	} else if err := json.Unmarshal([]byte(raw), &r); err != nil || (r.Reason == "" && len(r.RGB) != 3*r.W*r.H) {
		return View{}, infraErr{fmt.Errorf("the WebGL read of %s: %d bytes for %d×%d (%v)", name, len(r.RGB), r.W, r.H, err)}
	}
	if r.Reason != "" {
		k.c.Reads.Screenshots++
		if len(k.c.Reads.Why) < 5 && !slices.Contains(k.c.Reads.Why, r.Reason) {
			k.c.Reads.Why = append(k.c.Reads.Why, r.Reason)
		}
		return k.shot(ctx, name, kind)
	}
	k.c.Reads.WebGL++
	rgb := measure.RGB{W: r.W, H: r.H, Pix: r.RGB}
	if k.o.CheckReads {
		v, err := k.shot(ctx, name, kind)
		if err != nil {
			return View{}, err
		}
		k.c.Views = k.c.Views[:len(k.c.Views)-1]
		if !bytes.Equal(v.rgb.Pix, rgb.Pix) || v.rgb.W != rgb.W {
			k.c.Reads.Differ = append(k.c.Reads.Differ, name)
		}
	}
	file := filepath.Join("frames", name+".png")
	if err := writePNG(filepath.Join(k.out, file), rgbImage(rgb)); err != nil {
		return View{}, infraErr{err}
	}
	return k.keep(name, kind, file, k.s.Frame(), rgb), nil
}

// gpuLimit is the session's GPU allowance (0: its default).
func (k *capturer) gpuLimit() time.Duration {
	if k.o.GPUTimeout > 0 {
		return k.o.GPUTimeout
	}
	return session.DefaultGPUTimeout
}

// rgbImage is m as an opaque image for PNG.
func rgbImage(m measure.RGB) *image.NRGBA {
	img := image.NewNRGBA(image.Rect(0, 0, m.W, m.H))
	for i := 0; i < m.W*m.H; i++ {
		img.Pix[4*i], img.Pix[4*i+1], img.Pix[4*i+2], img.Pix[4*i+3] = m.Pix[3*i], m.Pix[3*i+1], m.Pix[3*i+2], 255
	}
	return img
}

// shot saves the current, drawn frame from a screenshot of the canvas.
func (k *capturer) shot(ctx context.Context, name, kind string) (View, error) {
	px, err := k.s.CanvasPixels(ctx)
	if err != nil {
		if errors.Is(err, target.ErrNotFound) {
			return View{}, errors.New("the page has no canvas")
		}
		return View{}, err
	}
	img, err := pixel.DecodePNG(px.PNG)
	if err != nil {
		return View{}, infraErr{fmt.Errorf("the screenshot of %s: %w", name, err)}
	}
	file := filepath.Join("frames", name+".png")
	if err := os.WriteFile(filepath.Join(k.out, file), px.PNG, 0o644); err != nil {
		return View{}, infraErr{fmt.Errorf("writing %s: %w", file, err)}
	}
	return k.keep(name, kind, file, px.Frame, measure.ToRGB(img)), nil
}

// keep records a saved frame as a view, with its lit luma.
func (k *capturer) keep(name, kind, file string, frame int, rgb measure.RGB) View {
	if k.o.RealTime {
		frame = k.rtFrames
	}
	pageMs := measure.Round(float64(frame)*1000/k.o.FPS, 3)
	v := View{Name: name, Kind: kind, File: filepath.ToSlash(file), Frame: frame, PageMs: pageMs, Document: k.doc, rgb: rgb}
	l := k.o.Pixels.LitLuma
	if len(l.Resize) == 2 {
		v.Luma = measure.LitLuma(rgb, measure.LitLumaConfig{CropLeft: l.CropLeft, Width: l.Resize[0], Height: l.Resize[1], VoidMax: uint8(l.VoidMax)})
	}
	k.c.Views = append(k.c.Views, v)
	return v
}

var seasonRe = regexp.MustCompile(`(?i)\b(spring|summer|autumn|fall|winter)\b`)

// seasonWords counts the season names in the page's visible text.
func (k *capturer) seasonWords(ctx context.Context) map[string]int {
	var text string
	_ = k.s.Eval(ctx, k.limit(), `(() => { try { return String(document.body ? document.body.innerText : '').slice(0, 20000); } catch (e) { return ''; } })()`, &text)
	out := map[string]int{}
	for _, m := range seasonRe.FindAllString(text, -1) {
		w := strings.ToLower(m)
		if w == "fall" {
			w = "autumn"
		}
		out[w]++
	}
	return out
}

var seasonOrder = []string{"spring", "summer", "autumn", "winter"}

// seasons finds the seasons the UI named beyond its constant text: a
// season is shown in a sample when it is named there more often than in
// the sample naming it least (a legend's fixed "winter storms" does not
// count). Its view is the first sample showing it.
func (k *capturer) seasons(counts []map[string]int) {
	first := map[string]int{}
	k.seasonLeast = map[string]int{}
	for _, s := range seasonOrder {
		least := math.MaxInt
		for _, m := range counts {
			least = min(least, m[s])
		}
		k.seasonLeast[s] = least
		for i, m := range counts {
			if m[s] > least {
				k.c.Views[i].Seasons = append(k.c.Views[i].Seasons, s)
				if _, ok := first[s]; !ok {
					first[s] = i
				}
			}
		}
	}
	for _, s := range seasonOrder {
		if i, ok := first[s]; ok {
			k.c.Seasons = append(k.c.Seasons, s)
			k.c.Aliases = append(k.c.Aliases, Alias{Name: "season_" + s, Of: k.c.Views[i].Name})
		}
	}
	switch {
	case len(k.c.Seasons) >= 2:
		k.c.SeasonsNote = fmt.Sprintf("the page's UI named %d seasons as its clock ran (%.0f s sampled); each season view is the first time sample naming it, at whatever time of day that was", len(k.c.Seasons), k.o.Horizon)
	default:
		k.c.Seasons = k.c.Seasons[:0]
		k.c.Aliases = k.c.Aliases[:1]
		k.c.SeasonsNote = fmt.Sprintf("no season views: the page's UI did not name two seasons in turn within the %.0f s sampled", k.o.Horizon)
	}
}

type camInfo struct {
	Position []float64 `json:"position"`
	Forward  []float64 `json:"forward"`
}

// orbits poses the page's camera at four points around a pivot — the
// point of its line of sight nearest the centre of the scene's box — at
// its own distance from the pivot: a quarter turn right, a half turn, a
// quarter turn left (keeping the camera's elevation) and from 80° above,
// each looking at the pivot.
func (k *capturer) orbits(ctx context.Context) error {
	cam, err := k.camera(ctx)
	if err != nil {
		return fmt.Errorf("reading the camera: %w", pageErr{err})
	}
	sc, err := k.s.ReadScene(ctx)
	if err != nil {
		return fmt.Errorf("reading the scene: %w", pageErr{err})
	}
	if cam == nil {
		k.c.Orbit = "no orbits: the page rendered with no camera the harness could see"
		return nil
	}
	centre := []float64{0, 0, 0}
	how := "the scene's origin"
	if sc.Bounds != nil && len(sc.Bounds.Min) == 3 {
		for i := range centre {
			centre[i] = (sc.Bounds.Min[i] + sc.Bounds.Max[i]) / 2
		}
		how = "the centre of the scene's box"
	}
	// The pivot is the point of the camera's line of sight nearest the
	// box's centre: the page's own framing is kept (a sun or a particle
	// cloud far above the island pulls the box's centre off it).
	if f := cam.Forward; len(f) == 3 {
		n := math.Sqrt(f[0]*f[0] + f[1]*f[1] + f[2]*f[2])
		along := ((centre[0]-cam.Position[0])*f[0] + (centre[1]-cam.Position[1])*f[1] + (centre[2]-cam.Position[2])*f[2]) / max(n, 1e-12)
		if n > 1e-9 && along > 1e-6 {
			for i := range centre {
				centre[i] = measure.Round(cam.Position[i]+f[i]/n*along, 3)
			}
			how = "the point of its line of sight nearest " + how
		}
	}
	dx, dy, dz := cam.Position[0]-centre[0], cam.Position[1]-centre[1], cam.Position[2]-centre[2]
	d := math.Sqrt(dx*dx + dy*dy + dz*dz)
	if d < 1e-6 {
		k.c.Orbit = "no orbits: the camera sits at the scene's centre"
		return nil
	}
	el := math.Asin(dy / d)
	az := math.Atan2(dx, dz)
	k.c.Orbit = fmt.Sprintf("the page's own camera, posed for one rendered frame each at its distance (%.1f) from %s, looking at it; the page's controls never see the pose", d, how)
	poses := []struct {
		name   string
		az, el float64
	}{
		{"orbit_right", az + math.Pi/2, el},
		{"orbit_back", az + math.Pi, el},
		{"orbit_left", az - math.Pi/2, el},
		{"orbit_top", az, 80 * math.Pi / 180},
	}
	// The wide views are taken with the page's UI hidden, as every frame
	// shown to blind identification is.
	if err := k.hud(ctx, false); err != nil {
		return fmt.Errorf("hiding the HUD: %w", pageErr{err})
	}
	for _, p := range poses {
		pos := []float64{
			centre[0] + d*math.Cos(p.el)*math.Sin(p.az),
			centre[1] + d*math.Sin(p.el),
			centre[2] + d*math.Cos(p.el)*math.Cos(p.az),
		}
		for i := range pos {
			pos[i] = measure.Round(pos[i], 3)
		}
		arg, _ := json.Marshal(append(append([]float64{}, pos...), centre...))
		var ok bool
		if err := k.s.Eval(ctx, k.limit(), "window.__wj.setPose("+string(arg)+")", &ok); err != nil {
			return fmt.Errorf("posing the camera: %w", pageErr{err})
		}
		if _, err := k.frameAt(ctx, k.frame()+1, p.name, "orbit"); err != nil {
			return fmt.Errorf("%s: %w", p.name, pageErr{err})
		}
		k.c.Views[len(k.c.Views)-1].Camera = pos
	}
	if err := k.s.Eval(ctx, k.limit(), "window.__wj.clearPose()", nil); err != nil {
		return fmt.Errorf("clearing the pose: %w", pageErr{err})
	}
	if err := k.hud(ctx, true); err != nil {
		return fmt.Errorf("showing the HUD: %w", pageErr{err})
	}
	return nil
}

// hideHUD is WorldBench's HUD hiding: everything but canvases invisible,
// the markup kept so page scripts that touch it still work.
const hideHUD = `(() => { const s = document.createElement('style'); s.id = '__wj_hide'; s.textContent = 'body *{visibility:hidden !important} canvas{visibility:visible !important}'; (document.head || document.documentElement).appendChild(s); return true; })()`

// camera reads the camera the page last rendered to the screen with
// (capture/hook.js), or nil when the harness saw none.
func (k *capturer) camera(ctx context.Context) (*camInfo, error) {
	var raw string
	if err := k.s.Eval(ctx, k.limit(), `window.__wj ? window.__wj.camera() : 'null'`, &raw); err != nil {
		return nil, err
	}
	var cam *camInfo
	if json.Unmarshal([]byte(raw), &cam) != nil || cam == nil || len(cam.Position) != 3 {
		return nil, nil
	}
	return cam, nil
}

// cameraPos is the camera's position, or nil.
func (k *capturer) cameraPos(ctx context.Context) []float64 {
	if cam, err := k.camera(ctx); err == nil && cam != nil {
		return cam.Position
	}
	return nil
}

// limit bounds the capture's own calls into the page (reading the camera
// and the text, posing, hiding the HUD) by the world's call deadline, so
// that --timeout and its doubling under load apply to them too.
func (k *capturer) limit() time.Duration {
	if k.o.CallTimeout > 0 {
		return k.o.CallTimeout
	}
	return session.DefaultCallTimeout
}

func dist(a, b []float64) float64 {
	s := 0.0
	for i := range a {
		s += (a[i] - b[i]) * (a[i] - b[i])
	}
	return math.Sqrt(s)
}

// RGB returns a view's pixels (kept in memory while the judge runs).
func (v View) RGB() measure.RGB { return v.rgb }

func writePNG(path string, img image.Image) error {
	var buf bytes.Buffer
	enc := png.Encoder{CompressionLevel: png.BestSpeed}
	if err := enc.Encode(&buf, img); err != nil {
		return fmt.Errorf("encoding %s: %w", path, err)
	}
	if err := os.WriteFile(path, buf.Bytes(), 0o644); err != nil {
		return fmt.Errorf("writing %s: %w", path, err)
	}
	return nil
}

// WithRGB returns v holding the pixels m (for graders' tests: a capture's
// views carry their pixels in memory).
func WithRGB(v View, m measure.RGB) View {
	v.rgb = m
	return v
}
