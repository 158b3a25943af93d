package cli

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"time"

	"github.com/spf13/cobra"

	"github.com/worldprobe/worldprobe/internal/bench"
	"github.com/worldprobe/worldprobe/internal/resolve"
)

// BenchOptions are the flags of 'worldprobe bench'.
type BenchOptions struct {
	engineFlags
	viewportFlag
	Frames      int
	Rounds      int
	WorldFrames int
	Examples    string
	Corpus      string
	JSON        bool
	Out         string
	Suite       string
	SuiteTasks  []string
	OnlySuite   bool
	NoWorlds    bool
	Probes      []string
	Restarts    int
	OnlyProbes  bool
	// ChromiumFlags are extra Chromium switches (NAME or NAME=VALUE) for
	// experiments; they override worldprobe's own (browser.Flags).
	ChromiumFlags []string
}

// NewCmdBench builds 'worldprobe bench'.
func NewCmdBench(io IO) *cobra.Command {
	o := &BenchOptions{}
	cmd := &cobra.Command{
		Use:   "bench",
		Short: "Measure speed: virtual clock vs real time, draw skipping, throughput",
		Long: `Measure, side by side in one run:
  - throughput: bundled example pages inspected per minute with --jobs workers;
  - the small example scene run for --frames frames (600 = 10 s of page time):
    worldprobe stepping with draw skipping, stepping and drawing every frame,
    plain Chromium waiting the same time in real seconds, and plain Chromium
    drawing the same frames as fast as it can;
  - for each world in --corpus: load time, JavaScript time per frame, drawing
    time of the observed frame, with and without draw skipping, and whether
    skipping kept the state hash;
  - per-probe cost of --probes pages (default the small scene and two starter
    references): a new session, a restart in the same tab, the first frame
    after it (WebGL programs compiled) and one more frame, medians over
    --restarts restarts, the CPU time by process, and how many library
    files the browser's cache answered on the last restart.
Results go to docs/PERFORMANCE.md by hand; --out writes them as JSON.`,
		Example: `  worldprobe bench
  worldprobe bench --corpus ../shared/corpus/worldbench/worlds --out bench.json
  worldprobe bench --only-probes --restarts 9`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, args []string) error { return runBench(cmd.Context(), io, o) },
	}
	f := cmd.Flags()
	o.engineFlags.register(f)
	o.viewportFlag.register(f)
	f.IntVar(&o.Frames, "frames", 600, "frames of the small scene (at 60 fps)")
	f.IntVar(&o.Rounds, "rounds", 4, "times each example page is inspected for throughput")
	f.IntVar(&o.WorldFrames, "world-frames", 60, "frames stepped per corpus world")
	f.StringVar(&o.Examples, "examples", "examples", "folder of example pages (<name>/index.html)")
	f.StringVar(&o.Corpus, "corpus", "", "folder of heavier worlds (<name>/world.html); default ../shared/corpus/worldbench/worlds when present")
	f.StringVar(&o.Suite, "suite", "", "also judge the references and fixtures of this suite (or category, or task folder) on the virtual and on the real clock")
	registerTaskFlag(f, &o.SuiteTasks, "--suite tasks")
	f.BoolVar(&o.OnlySuite, "only-suite", false, "measure only the --suite comparison")
	f.BoolVar(&o.NoWorlds, "no-worlds", false, "skip the corpus worlds")
	f.StringSliceVar(&o.Probes, "probes", nil, "pages whose per-probe cost is measured (default the small scene and two starter references)")
	f.IntVar(&o.Restarts, "restarts", 5, "restarts per --probes page (the median is reported)")
	f.BoolVar(&o.OnlyProbes, "only-probes", false, "measure only the per-probe cost")
	f.StringArrayVar(&o.ChromiumFlags, "chromium-flag", nil, "an extra Chromium switch NAME or NAME=VALUE for an experiment (repeatable; overrides worldprobe's own; \"NAME=false\" drops one)")
	f.BoolVar(&o.JSON, "json", false, "print the results as JSON")
	f.StringVar(&o.Out, "out", "", "also write the JSON results to this file")
	return cmd
}

func runBench(ctx context.Context, io IO, o *BenchOptions) error {
	if o.Frames < 1 || o.Rounds < 1 || o.WorldFrames < 1 || o.Restarts < 1 {
		return usageErr("--frames, --rounds, --world-frames and --restarts must be at least 1")
	}
	if o.OnlySuite && o.Suite == "" {
		return usageErr("--only-suite needs --suite SUITE")
	}
	w, h, err := o.size()
	if err != nil {
		return err
	}
	bo, err := o.browserOptions(w, h)
	if err != nil {
		return err
	}
	if bo.ExtraFlags, err = parseChromiumFlags(o.ChromiumFlags); err != nil {
		return err
	}
	pages, _ := filepath.Glob(filepath.Join(o.Examples, "*", "index.html"))
	if len(pages) == 0 {
		return usageErr("no example pages in %s (want <name>/index.html)", o.Examples)
	}
	small := filepath.Join(o.Examples, "spinning-cube", "index.html")
	if _, err := os.Stat(small); err != nil {
		small = pages[0]
	}
	corpus := o.Corpus
	if corpus == "" {
		if st, err := os.Stat(filepath.Join("..", "shared", "corpus", "worldbench", "worlds")); err == nil && st.IsDir() {
			corpus = filepath.Join("..", "shared", "corpus", "worldbench", "worlds")
		}
	}
	probes := o.Probes
	if len(probes) == 0 {
		probes = []string{small}
		for _, id := range []string{"simulation/bouncing-ball", "application/undo-editor"} {
			p := filepath.Join("suites", "starter", filepath.FromSlash(id), "solution", "index.html")
			if _, err := os.Stat(p); err == nil {
				probes = append(probes, p)
			}
		}
	}
	var worlds []string
	if corpus != "" && !o.NoWorlds && !o.OnlyProbes {
		worlds, _ = filepath.Glob(filepath.Join(corpus, "*", "world.html"))
	}
	nm, err := o.nodeModules(io)
	if err != nil {
		return runtimeErr(err)
	}
	res, err := resolve.New(nm)
	if err != nil {
		return runtimeErr(err)
	}
	start := time.Now()
	r, err := bench.Run(ctx, bench.Options{
		Browser: bo, Resolver: res, Jobs: o.Jobs, SmallPage: small, ThroughputPages: pages,
		Rounds: o.Rounds, Frames: o.Frames, Worlds: worlds, WorldFrames: o.WorldFrames, Width: w, Height: h, Suite: o.Suite, SuiteTasks: o.SuiteTasks, OnlySuite: o.OnlySuite,
		ProbePages: probes, ProbeRestarts: o.Restarts, OnlyProbes: o.OnlyProbes,
		Progress: func(msg string) {
			fmt.Fprintf(io.ErrOut, "bench [%5.1fs] %s\n", time.Since(start).Seconds(), msg)
		},
	})
	if err != nil {
		return runtimeErr(err)
	}
	if o.Out != "" {
		b, _ := json.MarshalIndent(r, "", "  ")
		if err := os.WriteFile(o.Out, append(b, '\n'), 0o644); err != nil {
			return runtimeErr(fmt.Errorf("writing %s: %w", o.Out, err))
		}
	}
	if o.JSON {
		enc := json.NewEncoder(io.Out)
		enc.SetIndent("", "  ")
		return enc.Encode(r)
	}
	printBench(io.Out, r)
	return nil
}

// parseChromiumFlags turns --chromium-flag values into browser.Options'
// ExtraFlags: NAME is a bare switch, NAME=false leaves one out, NAME=VALUE
// gives it a value.
func parseChromiumFlags(specs []string) (map[string]any, error) {
	if len(specs) == 0 {
		return nil, nil
	}
	out := map[string]any{}
	for _, spec := range specs {
		name, value, hasValue := strings.Cut(strings.TrimLeft(spec, "-"), "=")
		switch {
		case name == "":
			return nil, usageErr("--chromium-flag %q: no switch name", spec)
		case !hasValue:
			out[name] = true
		case value == "false":
			out[name] = false
		default:
			out[name] = value
		}
	}
	return out, nil
}

func printBench(w io.Writer, r *bench.Results) {
	fmt.Fprintf(w, "worldprobe bench — %s, %s, %d CPUs\n\n", r.Date, r.Chromium, r.CPUs)
	if len(r.Probes) > 0 {
		fmt.Fprintf(w, "Per-probe cost (median of restarts in one tab; ms):\n")
		fmt.Fprintf(w, "  %-44s %6s %8s %6s %6s %6s %9s %6s %9s\n", "page", "open", "restart", "setup", "doc", "idle", "1st frame", "frame", "per probe")
		for _, p := range r.Probes {
			fmt.Fprintf(w, "  %-44s %6.0f %8.0f %6.0f %6.0f %6.0f %9.0f %6.1f %9.0f\n", abbreviate(p.Page, 44), p.OpenMs, p.RestartMs,
				p.SetupMs, p.DocumentMs, p.IdleMs, p.FirstFrameMs, p.FrameMs, p.PerProbeMs)
		}
		fmt.Fprintf(w, "  (restart = setup: runtime and storage reset + doc: navigation to the load event + idle: wait for quiet)\n")
		fmt.Fprintf(w, "CPU time of one restart and its two frames, by process (mean; ms):\n")
		for _, p := range r.Probes {
			fmt.Fprintf(w, "  %-44s %s\n", abbreviate(p.Page, 44), formatCPU(p.CPUMs))
		}
		fmt.Fprintf(w, "The same, first restart alone / mean of the later ones (ms):\n")
		for _, p := range r.Probes {
			fmt.Fprintf(w, "  %-44s %s\n  %-44s %s\n", abbreviate(p.Page, 44), formatCPU(p.CPUFirstMs), "", formatCPU(p.CPULaterMs))
		}
		fmt.Fprintf(w, "Library files loaded on the last restart, and how many the browser's cache answered:\n")
		for _, p := range r.Probes {
			fmt.Fprintf(w, "  %-44s %d, %d from the cache\n", abbreviate(p.Page, 44), p.Libraries, p.LibrariesFromCache)
		}
		fmt.Fprintln(w)
	}
	if t, c := r.Throughput, r.Clock; t.Inspections > 0 {
		fmt.Fprintf(w, "Throughput: %d inspections (60 frames each) with --jobs %d in %.1f s = %.1f pages/minute\n\n",
			t.Inspections, t.Jobs, t.WallMs/1000, t.PagesPerMin)
		fmt.Fprintf(w, "%d frames (%.0f s of page time) of %s:\n", c.Frames, float64(c.Frames)/60, c.Page)
		fmt.Fprintf(w, "  %-46s %9.0f ms\n", "worldprobe, virtual clock, draw skipping", c.VirtualSkipMs)
		fmt.Fprintf(w, "  %-46s %9.0f ms\n", "worldprobe, virtual clock, every frame drawn", c.VirtualDrawMs)
		fmt.Fprintf(w, "  %-46s %9.0f ms\n", "plain Chromium, waiting in real time", c.RealTimeMs)
		fmt.Fprintf(w, "  %-46s %9.0f ms\n", "plain Chromium, unthrottled, every frame drawn", c.PlainUnthrottledMs)
		fmt.Fprintf(w, "  same state hash over repeated runs: %t\n", c.SameStateHash)
	}
	if s := r.Suite; s != nil {
		fmt.Fprintf(w, "\nSuite %s: %d trials (references and fixtures) with --jobs %d, mean load average %.1f\n", s.Suite, s.Trials, s.Jobs, s.LoadAverage)
		fmt.Fprintf(w, "  %-30s %9.0f ms  %6.1f trials/minute  oracle V-Cov %.1f%%\n", "virtual clock", s.VirtualMs, s.VirtualPerMinute, 100*s.OracleVCovVirtual)
		fmt.Fprintf(w, "  %-30s %9.0f ms  %6.1f trials/minute  oracle V-Cov %.1f%%\n", "real clock (waiting)", s.RealTimeMs, s.RealTimePerMinute, 100*s.OracleVCovRealTime)
		fmt.Fprintf(w, "  same verdicts on %d of %d trials; virtual clock %.1fx faster\n", s.SameVerdictTrials, s.Trials, s.RealTimeMs/max(1, s.VirtualMs))
		for _, k := range s.DifferentVerdicts {
			fmt.Fprintf(w, "  verdicts differ: %s\n", k)
		}
	}
	if len(r.Worlds) > 0 {
		fmt.Fprintf(w, "\n%-28s %-8s %8s %10s %10s %12s %12s %-10s %6s\n", "world", "outcome", "load ms", "js ms/fr", "draw ms", "noskip ms/fr", "noskip draw", "noskip", "hash=")
		for _, wr := range r.Sorted() {
			fmt.Fprintf(w, "%-28s %-8s %8.0f %10.1f %10.0f %12.1f %12.0f %-10s %6t\n", abbreviate(filepath.Base(filepath.Dir(wr.Page)), 28), wr.Outcome,
				wr.LoadMs, wr.JSPerFrameMs, wr.DrawObservedMs, wr.NoSkipPerFrameMs, wr.NoSkipDrawMs, wr.NoSkipOutcome, wr.SameStateHash)
		}
	}
}

// formatCPU lists CPU milliseconds by process kind, largest first, with
// their total: "total 1480: gpu-process 700, renderer 420, …".
func formatCPU(cpu map[string]float64) string {
	if len(cpu) == 0 {
		return "not measured"
	}
	kinds := make([]string, 0, len(cpu))
	var total float64
	for k, v := range cpu {
		kinds = append(kinds, k)
		total += v
	}
	sort.Slice(kinds, func(i, j int) bool {
		if cpu[kinds[i]] != cpu[kinds[j]] {
			return cpu[kinds[i]] > cpu[kinds[j]]
		}
		return kinds[i] < kinds[j]
	})
	parts := make([]string, len(kinds))
	for i, k := range kinds {
		parts[i] = fmt.Sprintf("%s %.0f", k, cpu[k])
	}
	return fmt.Sprintf("total %.0f: %s", total, strings.Join(parts, ", "))
}
