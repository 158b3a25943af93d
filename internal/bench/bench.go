// Package bench measures worldprobe's page runtime side by side with the ways
// it replaces, in one run on one machine: stepping a virtual clock vs.
// waiting real seconds, the harness vs. plain Chromium drawing the same
// frames, draw skipping on vs. off, and inspection throughput.
package bench

import (
	"context"
	"fmt"
	"log/slog"
	"path/filepath"
	"runtime"
	"sort"
	"time"

	"github.com/worldprobe/worldprobe/internal/browser"
	"github.com/worldprobe/worldprobe/internal/inspect"
	"github.com/worldprobe/worldprobe/internal/pool"
	"github.com/worldprobe/worldprobe/internal/resolve"
	"github.com/worldprobe/worldprobe/internal/session"
)

// Options configure a benchmark run.
type Options struct {
	// Browser is how every browser of the run is launched (executable,
	// sandbox, memory caps); Jobs, Width and Height are set from the
	// fields below.
	Browser  browser.Options
	Resolver *resolve.Resolver
	Jobs     int
	// SmallPage is the small scene used for clock comparisons.
	SmallPage string
	// ThroughputPages are inspected Rounds times each with Jobs workers.
	ThroughputPages []string
	Rounds          int
	// Frames is the page time to simulate, in frames at 60 fps (600 = 10 s).
	Frames int
	// Worlds are heavier pages measured one by one (e.g. the corpus).
	Worlds      []string
	WorldFrames int
	Width       int
	Height      int
	// Suite, when set, is judged on the virtual and on the real clock.
	Suite string
	// SuiteTasks keeps only the suite's tasks whose ids match one of these
	// globs (task.Select); none keeps all.
	SuiteTasks []string
	// OnlySuite skips everything but the suite comparison.
	OnlySuite bool
	// ProbePages are measured for ProbeCost with ProbeRestarts restarts each.
	ProbePages    []string
	ProbeRestarts int
	// OnlyProbes skips everything but the probe costs.
	OnlyProbes bool
	Progress   func(msg string)
	Logger     *slog.Logger
}

// Results is what a run measured. Times are wall-clock milliseconds.
type Results struct {
	Date       string        `json:"date"`
	Chromium   string        `json:"chromium"`
	CPUs       int           `json:"cpus"`
	Throughput Throughput    `json:"throughput"`
	Clock      ClockCompare  `json:"clock"`
	Worlds     []WorldResult `json:"worlds"`
	Suite      *SuiteResult  `json:"suite,omitempty"`
	// Probes is where one probe's page time goes, page by page.
	Probes []ProbeCost `json:"probes,omitempty"`
}

// Throughput is pages inspected per minute.
type Throughput struct {
	Jobs          int     `json:"jobs"`
	Inspections   int     `json:"inspections"`
	WallMs        float64 `json:"wall_ms"`
	PagesPerMin   float64 `json:"pages_per_minute"`
	FramesPerPage int     `json:"frames_per_page"`
}

// ClockCompare compares ways to run Frames frames of the small page.
type ClockCompare struct {
	Page   string `json:"page"`
	Frames int    `json:"frames"`
	// VirtualSkipMs: worldprobe steps the frames, drawing only the last.
	VirtualSkipMs float64 `json:"virtual_skip_ms"`
	// VirtualDrawMs: worldprobe steps the frames, drawing every one.
	VirtualDrawMs float64 `json:"virtual_draw_ms"`
	// RealTimeMs: plain Chromium, waiting Frames/60 real seconds (the old way).
	RealTimeMs float64 `json:"real_time_ms"`
	// PlainUnthrottledMs: plain Chromium with the frame-rate limit lifted,
	// until the page has run Frames animation frames: the floor for drawing
	// every frame.
	PlainUnthrottledMs float64 `json:"plain_unthrottled_ms"`
	// Same reports whether two virtual runs gave the same state hash.
	SameStateHash bool `json:"same_state_hash"`
}

// WorldResult is the cost profile of one heavier page.
type WorldResult struct {
	Page             string  `json:"page"`
	Outcome          string  `json:"outcome"`
	LoadMs           float64 `json:"load_ms"`
	JSPerFrameMs     float64 `json:"js_per_frame_ms"`
	DrawObservedMs   float64 `json:"draw_observed_ms"`
	NoSkipPerFrameMs float64 `json:"noskip_per_frame_ms"`
	NoSkipDrawMs     float64 `json:"noskip_draw_observed_ms"`
	NoSkipOutcome    string  `json:"noskip_outcome"`
	SameStateHash    bool    `json:"same_state_hash_skip_vs_noskip"`
}

// Run performs the benchmark.
func Run(ctx context.Context, o Options) (*Results, error) {
	if o.Logger == nil {
		o.Logger = slog.Default()
	}
	if o.Progress == nil {
		o.Progress = func(string) {}
	}
	bo := o.Browser
	bo.Jobs, bo.Width, bo.Height = o.Jobs, o.Width, o.Height
	b, err := browser.Launch(ctx, bo)
	if err != nil {
		return nil, err
	}
	defer b.Close()
	res := &Results{Date: time.Now().UTC().Format(time.DateOnly), Chromium: b.Version(), CPUs: runtime.NumCPU()}

	if o.OnlySuite {
		if o.Suite == "" {
			return nil, fmt.Errorf("only the suite was asked for, but no suite was given")
		}
		res.Suite, err = Suite(ctx, b, o.Resolver, o.Suite, o.SuiteTasks, o.Progress)
		if err != nil {
			return nil, fmt.Errorf("suite %s: %w", o.Suite, err)
		}
		return res, nil
	}
	for _, p := range o.ProbePages {
		o.Progress("probe cost " + p)
		pc, err := probeCost(ctx, b, o.Resolver, p, max(1, o.ProbeRestarts))
		if err != nil {
			return nil, fmt.Errorf("probe cost: %w", err)
		}
		res.Probes = append(res.Probes, pc)
	}
	if o.OnlyProbes {
		return res, nil
	}
	o.Progress("throughput")
	if res.Throughput, err = throughput(ctx, b, o); err != nil {
		return nil, fmt.Errorf("throughput: %w", err)
	}
	o.Progress("virtual clock vs real time")
	if res.Clock, err = clockCompare(ctx, b, o); err != nil {
		return nil, fmt.Errorf("clock comparison: %w", err)
	}
	for _, w := range o.Worlds {
		o.Progress("world " + w)
		wr, err := world(ctx, b, o, w)
		if err != nil {
			return nil, fmt.Errorf("world %s: %w", w, err)
		}
		res.Worlds = append(res.Worlds, wr)
	}
	if o.Suite != "" {
		if res.Suite, err = Suite(ctx, b, o.Resolver, o.Suite, o.SuiteTasks, o.Progress); err != nil {
			return nil, fmt.Errorf("suite %s: %w", o.Suite, err)
		}
	}
	return res, nil
}

func (o Options) inspector(b *browser.Browser, frames int, skip bool) *inspect.Inspector {
	opts := inspect.Defaults()
	opts.Frames, opts.SkipDraw, opts.Width, opts.Height, opts.Logger = frames, skip, o.Width, o.Height, o.Logger
	opts.Timeout = 60 * time.Second
	return &inspect.Inspector{Browser: b, Resolver: o.Resolver, Options: opts}
}

func throughput(ctx context.Context, b *browser.Browser, o Options) (Throughput, error) {
	var pages []string
	for r := 0; r < max(1, o.Rounds); r++ {
		pages = append(pages, o.ThroughputPages...)
	}
	in := o.inspector(b, 60, true)
	start := time.Now()
	if err := pool.Each(ctx, o.Jobs, len(pages), func(ctx context.Context, i int) error {
		_, err := in.Inspect(ctx, pages[i])
		return err
	}); err != nil {
		return Throughput{}, err
	}
	wall := time.Since(start)
	return Throughput{Jobs: o.Jobs, Inspections: len(pages), WallMs: ms(wall),
		PagesPerMin: float64(len(pages)) / wall.Minutes(), FramesPerPage: 60}, nil
}

func clockCompare(ctx context.Context, b *browser.Browser, o Options) (ClockCompare, error) {
	c := ClockCompare{Page: o.SmallPage, Frames: o.Frames}
	var hashes []string
	for _, skip := range []bool{true, false, true} {
		r, err := o.inspector(b, o.Frames, skip).Inspect(ctx, o.SmallPage)
		if err != nil {
			return c, err
		}
		if r.Outcome != inspect.OutcomeOK {
			return c, fmt.Errorf("%s: %s", o.SmallPage, r.Crash.Message)
		}
		took := r.Timing.StepMs + r.Timing.PresentMs
		if skip {
			c.VirtualSkipMs = took
		} else {
			c.VirtualDrawMs = took
		}
		hashes = append(hashes, r.StateHash)
	}
	c.SameStateHash = hashes[0] == hashes[1] && hashes[1] == hashes[2]

	// The old way: plain page, real clock, wait the page time in real seconds.
	s, err := session.Open(ctx, b, o.Resolver, o.SmallPage, session.Config{Plain: true, Width: o.Width, Height: o.Height})
	if err != nil {
		return c, err
	}
	start := time.Now()
	select {
	case <-time.After(time.Duration(o.Frames) * time.Second / 60):
	case <-ctx.Done():
		s.Close()
		return c, ctx.Err()
	}
	c.RealTimeMs = ms(time.Since(start))
	s.Close()

	// Plain Chromium as fast as it can draw the same frames.
	fo := o.Browser
	fo.Jobs, fo.Width, fo.Height = 1, o.Width, o.Height
	fo.ExtraFlags = map[string]any{"disable-frame-rate-limit": true, "disable-gpu-vsync": true}
	fast, err := browser.Launch(ctx, fo)
	if err != nil {
		return c, err
	}
	defer fast.Close()
	ps, err := session.Open(ctx, fast, o.Resolver, o.SmallPage, session.Config{Plain: true, Script: frameCounter, Width: o.Width, Height: o.Height})
	if err != nil {
		return c, err
	}
	defer ps.Close()
	var frames int
	if err := ps.Eval(ctx, 5*time.Second, "window.__wpFrames", &frames); err != nil {
		return c, err
	}
	start = time.Now()
	expr := fmt.Sprintf("new Promise(r => { const t = window.__wpFrames + %d; const w = () => window.__wpFrames >= t ? r(true) : setTimeout(w, 1); w(); })", o.Frames)
	if err := ps.Eval(ctx, 5*time.Minute, expr, nil); err != nil {
		return c, err
	}
	c.PlainUnthrottledMs = ms(time.Since(start))
	return c, nil
}

// frameCounter counts animation frames in a plain page.
const frameCounter = `(() => {
  let last = -1; window.__wpFrames = 0;
  const raf = window.requestAnimationFrame.bind(window);
  window.requestAnimationFrame = (cb) => raf((t) => { if (t !== last) { last = t; window.__wpFrames++; } cb(t); });
})();`

func world(ctx context.Context, b *browser.Browser, o Options, page string) (WorldResult, error) {
	wr := WorldResult{Page: filepath.ToSlash(page)}
	skip, err := o.inspector(b, o.WorldFrames, true).Inspect(ctx, page)
	if err != nil {
		return wr, err
	}
	wr.Outcome = skip.Outcome
	if skip.Crash != nil {
		wr.Outcome += " (" + skip.Crash.Kind + ")"
		return wr, nil
	}
	draw, err := o.inspector(b, o.WorldFrames, false).Inspect(ctx, page)
	if err != nil {
		return wr, err
	}
	wr.NoSkipOutcome = draw.Outcome
	if draw.Crash != nil {
		wr.NoSkipOutcome += " (" + draw.Crash.Kind + ")"
	}
	n := float64(max(1, o.WorldFrames))
	wr.LoadMs = skip.Timing.LoadMs
	wr.JSPerFrameMs = skip.Timing.StepMs / n
	wr.DrawObservedMs = skip.Timing.PresentMs + skip.Timing.ObserveMs
	wr.NoSkipPerFrameMs = draw.Timing.StepMs / n
	wr.NoSkipDrawMs = draw.Timing.PresentMs + draw.Timing.ObserveMs
	wr.SameStateHash = skip.StateHash == draw.StateHash
	return wr, nil
}

func ms(d time.Duration) float64 { return float64(d.Microseconds()) / 1000 }

// Sorted returns worlds sorted by page for stable output.
func (r *Results) Sorted() []WorldResult {
	out := append([]WorldResult(nil), r.Worlds...)
	sort.Slice(out, func(i, j int) bool { return out[i].Page < out[j].Page })
	return out
}
