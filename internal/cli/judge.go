package cli

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"time"

	"github.com/spf13/cobra"
	"github.com/spf13/pflag"

	"github.com/worldprobe/worldprobe/internal/pool"
	"github.com/worldprobe/worldprobe/internal/worldjudge"
	"github.com/worldprobe/worldprobe/internal/worldjudge/capture"
	"github.com/worldprobe/worldprobe/internal/worldjudge/rubric"
)

// JudgeOptions are the flags of 'worldprobe judge'.
type JudgeOptions struct {
	engineFlags
	Rubric     string
	Offline    bool
	ModelsFile string
	Out        string
	Horizon    float64
	FPS        float64
	Samples    int
	Seed       uint32
	NoCoverage bool
	// RealTime captures on the real clock, sleeping real time (the
	// comparison of docs/PERFORMANCE.md only).
	RealTime bool
	// Screenshots and CheckReads: how UI-hidden frames are read
	// (capture.Options).
	Screenshots, CheckReads, WebGLReads bool
	Timeout                             time.Duration
	Viewport                            string
	Worlds                              []string
}

// NewCmdJudge builds 'worldprobe judge'.
func NewCmdJudge(io IO) *cobra.Command {
	o := &JudgeOptions{}
	cmd := &cobra.Command{
		Use:   "judge WORLD... --rubric DIR (--models FILE | --offline)",
		Short: "Capture open-ended worlds on the virtual clock and grade them against a rubric (WorldBench)",
		Long: `Judge each WORLD (an HTML file, or a folder with index.html or world.html) against
the rubric in --rubric (suites/worldbench/island: WorldBench's floating voxel island,
WC001–WC005, 280 points). WorldBench grades a world twice — what the running world
shows and what its code says — and trusts neither alone; see docs/judge.md.

What runs (offline, no model):
  - the capture, on the virtual clock, with CDN libraries served from vendored
    packages and every other request refused: --samples drawn frames over
    --horizon seconds of page time find the day (brightest lit-pixel luma, the
    left 20% cropped for the HUD) and the night (darkest); light probes between
    the samples give the day's length; seasons are read from the page's own UI,
    and each season's view is taken at the day's time of day (day + k days)
    when the day's length was found (about 1.3 days within --horizon); four orbits pose the page's own camera around the scene's
    box; each element of the page's own UI that names a biome (a legend) is
    clicked, its camera flight given 3 s of page time, and the biome framed at
    the day with the camera posed where the flight came to rest, HUD hidden
    (frames/biome_<id>.png); still-camera bursts (4 frames 2 s apart, a wheel
    zoom-out, 3 more) with the HUD hidden, from each framed biome's view and
    from the page's own camera, give each a changed-pixel fraction and a red
    overlay;
  - the rubric's pixel measures (night dimming, light following the sun,
    dusk tint, the motion gate per biome);
  - V8 block coverage of the world's inline scripts while it is captured: which
    lines and functions ran (a code quote will earn its half only if its lines
    ran).

With --models FILE (docs/models.md), the model roles judge what needs a model:
  - looking: blind identification (blind_identifier: every frame taken with the
    UI hidden, shuffled, in one call, without the brief; a sighting counts only
    in a frame it confirms), the visual item judge (visual_judge: sight halves
    from confirmed frames, motion gated by the measured bursts) and WC001's
    bug-hunt; the navigator (navigator, optional) frames each biome the legend
    did not, in at most 8 tool calls;
  - reading: the code probe (code_probe) quotes the source for every item with
    a code half (one call per test and biome); each quote must be source text
    by WorldBench's rules, a failed one is repaired once (its fragments found
    in the source, else a model picks line numbers from a numbered window; it
    never writes code), and a verified quote earns its half only if its lines
    ran; the evidence agent (evidence_agent: read-only grep and read-lines
    over the source, at most 10 tool calls) looks again at items the frames
    show but whose code the probe did not find, with WC002's placement code as
    a location hint; WC002 (extract): classify finds each biome's placement and
    elevation code (quotes checked as above), extract reads the island's map
    (neighbours, elevation order); a biome is covered when blind-confirmed or
    its layout quote earns, placed when covered and its rules hold.
Refused quotes are listed with why in judge.json and report.html; the score
closes (280 points, per test and per biome, every lost point classed E1–E4)
when every half is judged.

With --offline, a half that needs a model is "unjudged", never 0 and never
full; the score stays open while any half is.

For each world, DIR/<name>/ (--out) gets judge.json (every item with its
halves, the frames, pixel measures, day/night times, the coverage summary),
report.html (the frames shown) and frames/*.png. A world that breaks (hangs,
crashes, no canvas, not a three.js page) gets a report with a named reason.

A world that misses a deadline while the machine is overloaded is captured again
with the deadline doubled (twice); if it still misses it and a blank page cannot run
promptly either, its report says machine_overloaded and the command exits 3.

` + exitStatusHelp("every world was captured to the end", "a world's capture stopped early or never started (its report names why)"),
		Example: `  worldprobe judge ../shared/corpus/worldbench/worlds/*/world.html --rubric suites/worldbench/island --offline
  worldprobe judge world.html --rubric suites/worldbench/island --models models.yaml
  worldprobe judge world.html --rubric suites/worldbench/island --offline --out judged --horizon 120 --samples 8`,
		Args: func(cmd *cobra.Command, args []string) error {
			if len(args) == 0 {
				return usageErr("judge needs at least one WORLD")
			}
			return nil
		},
		RunE: func(cmd *cobra.Command, args []string) error {
			o.Worlds = args
			return runJudge(cmd.Context(), io, o)
		},
	}
	f := cmd.Flags()
	o.engineFlags.register(f)
	f.StringVar(&o.Rubric, "rubric", "", "rubric folder (its rubric.yaml), e.g. suites/worldbench/island")
	f.BoolVar(&o.Offline, "offline", false, "judge without models: model halves stay unjudged")
	f.StringVar(&o.ModelsFile, "models", "", "models file giving the code_probe, evidence_agent, extract, blind_identifier and visual_judge roles (navigator optional; docs/models.md); without it, --offline")
	f.StringVar(&o.Out, "out", "judge", "output folder: OUT/<world>/judge.json, report.html, frames/")
	o.registerCapture(f)
	f.BoolVar(&o.NoCoverage, "no-coverage", false, "do not collect V8 block coverage")
	f.BoolVar(&o.RealTime, "real-time", false, "capture on the page's real clock, sleeping real time wherever page time passes, as WorldBench does: for measuring what the virtual clock saves only (frames not reproducible; docs/PERFORMANCE.md)")
	f.BoolVar(&o.Screenshots, "screenshots", false, "take every frame as a screenshot of the canvas, as before the WebGL read-back (for comparing CPU and pixels; docs/PERFORMANCE.md)")
	f.BoolVar(&o.WebGLReads, "webgl-reads", false, "read every UI-hidden frame back from WebGL, without measuring the first four each way to choose the cheaper (docs/judge.md)")
	f.BoolVar(&o.CheckReads, "check-reads", false, "read every UI-hidden frame both from WebGL and as a screenshot and list the frames whose pixels differ (capture.reads.differ in judge.json)")
	cmd.AddCommand(NewCmdJudgeMutate(io))
	return cmd
}

// registerCapture registers the flags that say how a world is captured,
// shared by judge and judge mutate.
func (o *JudgeOptions) registerCapture(f *pflag.FlagSet) {
	f.Float64Var(&o.Horizon, "horizon", 120, "seconds of page time the day-cycle pass samples")
	f.Float64Var(&o.FPS, "fps", 20, "virtual frames per second while capturing: 20 steps 50 ms a frame, which worlds clamping their delta time to 0.05 s follow exactly; fewer frames are cheaper but such worlds then run slower than page time")
	f.IntVar(&o.Samples, "samples", 12, "drawn time samples over the horizon (at least 2)")
	f.Uint32Var(&o.Seed, "seed", 1, "seed of Math.random and crypto.getRandomValues")
	f.StringVar(&o.Viewport, "viewport", "", "viewport WIDTHxHEIGHT in CSS pixels (default: the rubric's, 1280x800 for WorldBench)")
	f.DurationVar(&o.Timeout, "timeout", 30*time.Second, "longest a world may keep control in one call (loading, a chunk of frames); past it its capture stops with a reason")
}

// checkCapture checks --rubric and the capture flags of command and loads
// the rubric; every error is a usage error.
func (o *JudgeOptions) checkCapture(command string) (*rubric.Rubric, error) {
	if o.Rubric == "" {
		return nil, usageErr("%s needs --rubric DIR (e.g. suites/worldbench/island)", command)
	}
	if o.FPS <= 0 || o.FPS > 1000 {
		return nil, usageErr("--fps must be in (0, 1000]")
	}
	if o.Horizon <= 0 || o.Samples < 2 {
		return nil, usageErr("--horizon must be positive and --samples at least 2")
	}
	if o.Timeout <= 0 {
		return nil, usageErr("--timeout must be positive")
	}
	r, err := rubric.Load(o.Rubric)
	if err != nil {
		return nil, usageErr("%v", err)
	}
	return r, nil
}

func runJudge(ctx context.Context, io IO, o *JudgeOptions) error {
	r, err := o.checkCapture("judge")
	if err != nil {
		return err
	}
	models, err := judgeModels(ctx, io, o)
	if err != nil {
		return err
	}
	look, navigator, err := worldRoles(ctx, models, o.ModelsFile)
	if err != nil {
		return err
	}
	worlds := make([]string, len(o.Worlds))
	names := make([]string, len(o.Worlds))
	used := map[string]int{}
	for i, w := range o.Worlds {
		p, err := worldFile(w)
		if err != nil {
			return usageErr("%v", err)
		}
		worlds[i] = p
		n := worldjudge.Name(p)
		used[n]++
		if used[n] > 1 {
			n = fmt.Sprintf("%s-%d", n, used[n])
		}
		names[i] = n
	}
	copts := capture.DefaultOptions(r.Pixels)
	copts.Horizon, copts.Samples, copts.Seed, copts.Coverage, copts.FPS = o.Horizon, o.Samples, o.Seed, !o.NoCoverage, o.FPS
	copts.CallTimeout, copts.RealTime = o.Timeout, o.RealTime
	copts.Screenshots, copts.CheckReads, copts.WebGLReads = o.Screenshots, o.CheckReads, o.WebGLReads
	copts.Navigator = navigator
	if o.Viewport != "" {
		w, h, err := (&viewportFlag{Viewport: o.Viewport}).size()
		if err != nil {
			return err
		}
		copts.Width, copts.Height = w, h
	}
	b, res, err := o.start(ctx, io, copts.Width, copts.Height)
	if err != nil {
		return err
	}
	defer b.Close()
	defer b.WriteCPULedger(io.ErrOut) // only with WORLDPROBE_CPU_LEDGER set
	jo := worldjudge.Options{Rubric: r, Capture: copts, Offline: models == nil, Look: look}
	if models != nil { // never a typed nil in the interface
		jo.Models = models
	}
	failed, overloaded := 0, 0
	err = pool.Map(ctx, b.Jobs(), len(worlds), func(ctx context.Context, i int) (*worldjudge.Report, error) {
		dir := filepath.Join(o.Out, names[i])
		if err := os.MkdirAll(dir, 0o755); err != nil {
			return nil, fmt.Errorf("making %s: %w", dir, err)
		}
		rep, err := worldjudge.Judge(ctx, b, res, worlds[i], dir, jo)
		if err != nil {
			return nil, fmt.Errorf("judging %s: %w", worlds[i], err)
		}
		rep.Name = names[i]
		if err := worldjudge.Write(dir, rep); err != nil {
			return nil, err
		}
		return rep, nil
	}, func(i int, rep *worldjudge.Report) error {
		switch rep.Status {
		case worldjudge.Complete:
		case worldjudge.Overloaded:
			overloaded++
		default:
			failed++
		}
		fmt.Fprintf(io.Out, "%s\n", judgeLine(rep, filepath.Join(o.Out, names[i])))
		return nil
	})
	if err != nil {
		return runtimeErr(err)
	}
	if overloaded > 0 {
		return runtimeErr(fmt.Errorf("%d of %d worlds could not be captured: the machine was too overloaded (judge them again on a quieter machine)", overloaded, len(worlds)))
	}
	if failed > 0 {
		return silentExit(ExitFailed)
	}
	return nil
}

// worldFile finds a world's HTML file: the file, or a folder's index.html
// or world.html.
func worldFile(w string) (string, error) {
	st, err := os.Stat(w)
	if err != nil {
		return "", fmt.Errorf("world %s: %w", w, err)
	}
	if !st.IsDir() {
		return w, nil
	}
	for _, n := range []string{"index.html", "world.html"} {
		if _, err := os.Stat(filepath.Join(w, n)); err == nil {
			return filepath.Join(w, n), nil
		}
	}
	return "", fmt.Errorf("world %s: a folder with neither index.html nor world.html", w)
}

// judgeLine is a world's one-line summary.
func judgeLine(rep *worldjudge.Report, dir string) string {
	c := rep.Capture
	s := fmt.Sprintf("%s: %s", rep.Name, rep.Status)
	if rep.Reason != "" {
		s += " (" + rep.Reason + ")"
	}
	if c != nil {
		s += fmt.Sprintf(", %d frames", len(c.Views))
		if dn := c.DayNight; dn != nil {
			night := "no night"
			if dn.Pinned {
				night = "night"
			}
			s += fmt.Sprintf(", day %.1f s / %s %.1f s (luma %.1f / %.1f)", dn.DayMs/1000, night, dn.NightMs/1000, dn.DayLuma, dn.NightLum)
		}
		biomeBursts := 0
		for _, b := range c.Bursts {
			if b.Biome != "" {
				biomeBursts++
				continue
			}
			s += fmt.Sprintf(", %s φ %.5f", b.Name, b.Fraction)
		}
		if biomeBursts > 0 {
			s += fmt.Sprintf(", %d biome bursts", biomeBursts)
		}
		if c.Legend != nil {
			s += fmt.Sprintf(", %d biomes framed by the legend", len(c.Legend.Framed))
		}
		s += fmt.Sprintf(", capture %.1f s", float64(c.Timing.Total)/1000)
	}
	if cv := rep.Coverage; cv != nil {
		s += fmt.Sprintf(", %d/%d functions ran", cv.FunctionsRun, cv.Functions)
	}
	if e := rep.Score.Earned; e != nil {
		return s + fmt.Sprintf(", score %g of %g", *e, rep.Score.Max) + " → " + filepath.Join(dir, "report.html")
	}
	return s + ", score open: " + fmt.Sprintf("%g judged (earned %g), %g unjudged", rep.Score.Judged, rep.Score.EarnedOfJudged, rep.Score.Unjudged) + " → " + filepath.Join(dir, "report.html")
}
