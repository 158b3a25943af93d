package cli

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"slices"
	"strings"
	"time"

	"github.com/spf13/cobra"

	"github.com/worldprobe/worldprobe/internal/inspect"
	"github.com/worldprobe/worldprobe/internal/pool"
	"github.com/worldprobe/worldprobe/internal/xr"
)

// InspectOptions are the flags of 'worldprobe inspect'.
type InspectOptions struct {
	engineFlags
	viewportFlag
	Frames     int
	FPS        float64
	Seed       uint32
	Timeout    time.Duration
	GPUTime    time.Duration
	Screenshot string
	JSON       bool
	NoSkip     bool
	XR         string
	XRBackend  string
	// Room, with XR, stands the headset in a room (xr.Options.Room).
	Room string
	// Video is the folder that receives each page's recording.
	Video      string
	VideoEvery int
	Pages      []string
}

// NewCmdInspect builds 'worldprobe inspect'.
func NewCmdInspect(io IO) *cobra.Command {
	o := &InspectOptions{}
	d := inspect.Defaults()
	cmd := &cobra.Command{
		Use:   "inspect PAGE...",
		Short: "Load pages offline, step their clock, and report outcome, state and scene",
		Long: `Load each PAGE (an HTML file, or a folder with index.html) in a fresh, isolated
browser context with no network: the page's own folder is served, CDN URLs of
three.js and other common libraries are answered from vendored npm packages, and
every other request is refused and recorded.

Before any page script runs, Math.random is seeded (--seed) and the clock is
virtual: performance.now, Date, requestAnimationFrame and timers advance only
when worldprobe steps a frame, by exactly 1000/--fps ms. The same page and seed
give the same state_hash on any machine, loaded or not.

Outcomes: ok, or crash with a kind: load_failed, js_exception, no_webgl,
webgl_context_lost, render_loop_dead, timeout, page_crashed (with cause "memory"
when the page's renderer held more than --page-memory MiB and was ended).

Chromium runs with its own sandbox (as the system user worldprobe-browser when
worldprobe is root) and none of worldprobe's environment; --unsafe-no-sandbox
turns the sandbox off where it cannot start, and the report says so.

--xr PROFILE gives each page an emulated XR headset (IWER, vendored; metaQuest3,
metaQuest2, metaQuestPro or oculusQuest1) installed before its scripts: the page's
WebXR path runs with no headset and no click, its XR frames on the virtual clock
(docs/xr.md). --xr-backend xrblocks runs an app written with XR Blocks in XR Blocks'
own simulator instead (automation mode, its rooms and hand models served offline).
(docs/xr.md). --room ROOM stands it in a room its session detects (planes, meshes,
hit tests): living_room, meeting_room, music_room, office_large, office_small (the
captures of @iwer/sem, vendored) or a .json room file.

--video DIR records every stepped frame (every n-th with --video-every) of each page's
canvas, drawn as the last frame is, into DIR/<name>.webm (VP9, Debian's ffmpeg; a
contact-sheet <name>.png without it); the JSON report names it under "video". Recording
changes no state or outcome, only the time taken.

Interrupted (Ctrl-C), inspect still prints the pages that finished (with --json, an
array of their reports) and names the pages it did not inspect.

` + exitStatusHelp("every page ends ok", "any does not (crash, timeout, ...)"),
		Example: `  worldprobe inspect world.html
  worldprobe inspect --frames 600 --seed 7 --json a.html b.html > report.json
  worldprobe inspect --screenshot shots/ examples/*/index.html
  worldprobe inspect --xr metaQuest3 --json vr-app.html
  worldprobe inspect --xr metaQuest3 --frames 120 --video clips/ vr-app.html
  worldprobe inspect --xr metaQuest3 --xr-backend xrblocks xrblocks-app.html`,
		Args: func(cmd *cobra.Command, args []string) error {
			if len(args) == 0 {
				return usageErr("inspect needs at least one PAGE")
			}
			return nil
		},
		RunE: func(cmd *cobra.Command, args []string) error {
			o.Pages = args
			return runInspect(cmd.Context(), io, o)
		},
	}
	f := cmd.Flags()
	o.engineFlags.register(f)
	o.viewportFlag.register(f)
	f.IntVar(&o.Frames, "frames", d.Frames, "frames to step after load")
	f.Float64Var(&o.FPS, "fps", d.FPS, "virtual frames per second (one frame = 1000/fps ms)")
	f.Uint32Var(&o.Seed, "seed", d.Seed, "seed of Math.random and crypto.getRandomValues")
	f.DurationVar(&o.Timeout, "timeout", d.Timeout, "longest a page may keep control in one call (loading, a chunk of frames); past it the page is 'timeout'")
	f.DurationVar(&o.GPUTime, "gpu-timeout", d.GPUTime, "extra allowance for drawing and capturing the observed frame")
	f.StringVar(&o.Screenshot, "screenshot", "", "write a PNG of each page's canvas into this folder")
	f.BoolVar(&o.JSON, "json", false, "print one JSON document (an array for several pages)")
	f.BoolVar(&o.NoSkip, "no-skip-draw", false, "draw every frame (for pages whose simulation needs the GPU)")
	f.StringVar(&o.Video, "video", "", "record each page's stepped frames into this folder: <name>.webm (a contact-sheet <name>.png without ffmpeg), named as --screenshot names its PNG")
	f.IntVar(&o.VideoEvery, "video-every", 1, "with --video, record every n-th stepped frame")
	f.StringVar(&o.XR, "xr", "", "emulate this XR headset for each page (metaQuest3, metaQuest2, metaQuestPro, oculusQuest1)")
	f.StringVar(&o.XRBackend, "xr-backend", "", "with --xr, how: iwer (default: any WebXR page) or xrblocks (an XR Blocks app in its own simulator, automation mode)")
	f.StringVar(&o.Room, "room", "", "with --xr, stand the headset in this room (living_room, meeting_room, music_room, office_large, office_small, or a .json room file)")
	return cmd
}

func runInspect(ctx context.Context, io IO, o *InspectOptions) error {
	if o.Frames < 0 {
		return usageErr("--frames must be 0 or more")
	}
	if o.FPS <= 0 || o.FPS > 1000 {
		return usageErr("--fps must be in (0, 1000]")
	}
	if o.Timeout <= 0 {
		return usageErr("--timeout must be positive")
	}
	if o.VideoEvery < 1 {
		return usageErr("--video-every must be at least 1")
	}
	if o.XRBackend != "" && (o.XR == "" || !slices.Contains(xr.Backends, o.XRBackend)) {
		return usageErr("--xr-backend %q: want --xr and one of %s", o.XRBackend, strings.Join(xr.Backends, ", "))
	}
	if o.XR != "" && !slices.Contains(xr.Profiles, o.XR) {
		return usageErr("--xr %q: no such headset (one of %s)", o.XR, strings.Join(xr.Profiles, ", "))
	}
	if o.Room != "" && o.XR == "" {
		return usageErr("--room needs --xr")
	}
	if o.Room != "" && !xr.IsRoomName(o.Room) && !xr.RoomFile(o.Room) {
		return usageErr("--room %q: no such room (one of %s, or a .json file)", o.Room, strings.Join(xr.Rooms, ", "))
	}
	w, h, err := o.size()
	if err != nil {
		return err
	}
	b, res, err := o.start(ctx, io, w, h)
	if err != nil {
		return err
	}
	defer b.Close()
	var preludes []string
	if o.XR != "" {
		p, err := xr.Prelude(res, xr.Options{Profile: o.XR, Backend: o.XRBackend, Room: o.Room})
		if err != nil {
			return err
		}
		preludes = append(preludes, p)
	}
	in := &inspect.Inspector{Browser: b, Resolver: res, Options: inspect.Options{
		Frames: o.Frames, FPS: o.FPS, Seed: o.Seed, Timeout: o.Timeout, GPUTime: o.GPUTime,
		SkipDraw: !o.NoSkip, Width: w, Height: h, ScreenshotDir: o.Screenshot, Preludes: preludes,
		VideoDir: o.Video, VideoEvery: o.VideoEvery,
	}}
	reports, err := inspectAll(ctx, in.Inspect, o.Pages, b.Jobs(), func(i int, r *inspect.Report) {
		if len(o.Pages) > 1 {
			fmt.Fprintf(io.ErrOut, "[%d/%d] %s: %s\n", i+1, len(o.Pages), r.Page, outcomeText(r))
		}
	})
	return printInspected(ctx, io, o, reports, err)
}

// printInspected prints the reports of the pages that finished (nil for
// the others) in the order given, as JSON or summaries. When the pages
// did not all finish (err: interrupted, or the browser failed) it says
// which were not inspected and ends with the infrastructure code; else
// with ExitFailed when a page did not end ok.
func printInspected(ctx context.Context, io IO, o *InspectOptions, reports []*inspect.Report, err error) error {
	var finished []*inspect.Report
	var missed []string
	for i, r := range reports {
		if r != nil {
			finished = append(finished, r)
		} else {
			missed = append(missed, o.Pages[i])
		}
	}
	if o.JSON && (len(o.Pages) > 1 || len(finished) == 1) {
		enc := json.NewEncoder(io.Out)
		enc.SetIndent("", "  ")
		enc.SetEscapeHTML(false)
		var v any = finished
		switch {
		case len(o.Pages) == 1:
			v = finished[0]
		case finished == nil:
			v = []*inspect.Report{}
		}
		if err := enc.Encode(v); err != nil {
			return runtimeErr(fmt.Errorf("writing JSON: %w", err))
		}
	} else if !o.JSON {
		for _, r := range finished {
			printSummary(io.Out, r)
		}
	}
	if err != nil {
		stopped := "inspect stopped: " + err.Error()
		if ctx.Err() != nil {
			stopped = fmt.Sprintf("inspect interrupted (%v)", ctx.Err())
		}
		fmt.Fprintf(io.ErrOut, "%s: %d of %d pages finished and printed; not inspected: %s\n",
			stopped, len(finished), len(o.Pages), strings.Join(missed, ", "))
		return silentExit(ExitInfrastructure)
	}
	for _, r := range finished {
		if r.Outcome != inspect.OutcomeOK {
			return silentExit(ExitFailed)
		}
	}
	return nil
}

// inspectAll runs inspectOne over pages on up to jobs workers and returns
// the reports in input order; done sees each report as it finishes. When
// it stops early (interrupted, or an error) the reports of the pages that
// finished are still returned, nil for the others, with the error.
func inspectAll(ctx context.Context, inspectOne func(context.Context, string) (*inspect.Report, error), pages []string, jobs int,
	done func(int, *inspect.Report)) ([]*inspect.Report, error) {
	reports := make([]*inspect.Report, len(pages))
	finished := 0
	err := pool.Map(ctx, jobs, len(pages), func(ctx context.Context, i int) (*inspect.Report, error) {
		r, err := inspectOne(ctx, pages[i])
		if err != nil {
			return nil, fmt.Errorf("inspecting %s: %w", pages[i], err)
		}
		return r, nil
	}, func(i int, r *inspect.Report) error {
		reports[i] = r
		done(finished, r)
		finished++
		return nil
	})
	return reports, err
}

func outcomeText(r *inspect.Report) string {
	if r.Crash != nil {
		return "crash (" + r.Crash.Kind + ")"
	}
	return r.Outcome
}

// printSummary writes the readable form of a report.
func printSummary(w io.Writer, r *inspect.Report) {
	fmt.Fprintf(w, "%s\n  outcome:   %s\n", r.Page, outcomeText(r))
	if r.Crash != nil {
		loc := ""
		if r.Crash.Line > 0 {
			loc = fmt.Sprintf(" (line %d, column %d)", r.Crash.Line, r.Crash.Column)
		}
		fmt.Fprintf(w, "  reason:    %s%s\n", r.Crash.Message, loc)
	}
	fmt.Fprintf(w, "  frames:    %d (%.1f virtual ms at %g fps, seed %d)\n", r.Frames, r.VirtualMs, r.FPS, r.Seed)
	if r.Sandbox != nil && !r.Sandbox.On {
		fmt.Fprintf(w, "  sandbox:   %s\n", r.Sandbox)
	}
	if r.ThreeVersion != "" {
		fmt.Fprintf(w, "  three.js:  %s\n", r.ThreeVersion)
	}
	if sc := r.Scene; sc != nil && sc.Scenes > 0 {
		fmt.Fprintf(w, "  scene:     %d objects, %d meshes, %d lights, %d triangles\n", sc.Objects, sc.Meshes, sc.Lights, sc.Triangles)
	}
	if c := r.Canvas; c != nil {
		blank := ""
		if c.Blank {
			blank = ", BLANK"
		}
		fmt.Fprintf(w, "  canvas:    %dx%d%s\n", c.Width, c.Height, blank)
	}
	if r.StateHash != "" {
		fmt.Fprintf(w, "  state:     %s (sha256 %s)\n", abbreviate(string(r.State), 70), r.StateHash[:16])
	}
	fmt.Fprintf(w, "  requests:  %d served, %d substituted, %d blocked\n", len(r.Requests.Served), len(r.Requests.Substituted), len(r.Requests.Blocked))
	for _, s := range r.Requests.Substituted {
		fmt.Fprintf(w, "    substituted %s → %s\n", s.URL, s.ServedAs)
	}
	for _, b := range r.Requests.Blocked {
		fmt.Fprintf(w, "    blocked %s %s (%s)\n", b.Type, abbreviate(b.URL, 80), b.Reason)
	}
	if len(r.Errors) > 0 {
		fmt.Fprintf(w, "  errors:    %d, first: %s (line %d)\n", len(r.Errors), abbreviate(r.Errors[0].Message, 100), r.Errors[0].Line)
	}
	if len(r.Dialogs) > 0 {
		fmt.Fprintf(w, "  dialogs:   %d dismissed\n", len(r.Dialogs))
	}
	if r.Screenshot != "" {
		fmt.Fprintf(w, "  screenshot: %s\n", r.Screenshot)
	}
	fmt.Fprintf(w, "  time:      load %.0f ms, step %.0f ms, draw %.0f ms\n", r.Timing.LoadMs, r.Timing.StepMs, r.Timing.PresentMs+r.Timing.ObserveMs)
}

func abbreviate(s string, n int) string {
	s = strings.ReplaceAll(s, "\n", " ")
	if len(s) <= n {
		return s
	}
	return s[:n-1] + "…"
}
