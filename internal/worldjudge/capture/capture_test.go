package capture

import (
	"context"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"

	"github.com/worldprobe/worldprobe/internal/testenv"
	"github.com/worldprobe/worldprobe/internal/worldjudge/coverage"
	"github.com/worldprobe/worldprobe/internal/worldjudge/measure"
	"github.com/worldprobe/worldprobe/internal/worldjudge/rubric"
)

var h testenv.Harness

func TestMain(m *testing.M) { testenv.RunMain(m, 1, &h) }

func islandPixels(t *testing.T) rubric.Pixels {
	t.Helper()
	r, err := rubric.Load(filepath.Join("..", "..", "..", "suites", "worldbench", "island"))
	if err != nil {
		t.Fatal(err)
	}
	return r.Pixels
}

// TestCaptureOfASmallWorld captures a tiny isle of our own (a 60 s day,
// 10 s seasons named in its HUD, a spinning windmill, OrbitControls) on
// the virtual clock and checks what was found.
func TestCaptureOfASmallWorld(t *testing.T) {
	o := DefaultOptions(islandPixels(t))
	o.Width, o.Height = 640, 400
	o.Horizon, o.Samples = 60, 8 // samples at 0.05, 7.55, …, 52.55 s
	out := t.TempDir()
	world := filepath.Join("testdata", "isle", "world.html")
	c, err := Run(context.Background(), h.Browser, h.Resolver, world, out, o)
	if err != nil {
		t.Fatal(err)
	}
	if c.Failure != "" {
		t.Fatalf("failure: %s (errors %v)", c.Failure, c.Errors)
	}
	var names []string
	for _, v := range c.Views {
		names = append(names, v.Name)
		if _, err := os.Stat(filepath.Join(out, v.File)); err != nil {
			t.Errorf("view %s: %v", v.Name, err)
		}
	}
	want := []string{"time_00", "time_01", "time_02", "time_03", "time_04", "time_05", "time_06", "time_07",
		"orbit_right", "orbit_back", "orbit_left", "orbit_top",
		"burst_near_0", "burst_near_1", "burst_near_2", "burst_near_3", "burst_far_0", "burst_far_1", "burst_far_2"}
	if !reflect.DeepEqual(names, want) {
		t.Fatalf("views %v", names)
	}
	// Frames 1, 151, …: page times 50 ms, 7.55 s, …; the orbits continue
	// the day in a second document.
	t.Logf("timing %+v, lumas %v", c.Timing, lumas(c))
	if v := c.Views[1]; v.Frame != 151 || v.PageMs != 7550 || v.Document != 1 {
		t.Fatalf("time_01: %+v", v)
	}
	dn := c.DayNight
	// Noon is at 15 s (time_02); from sunset at 30 s (time_04) the nights
	// differ only by the faint sun's direction.
	if dn == nil || !dn.Pinned || dn.Day != "time_02" || dn.Night != "time_04" || dn.DayMs != 15050 {
		t.Fatalf("day/night %+v, lumas %v", dn, lumas(c))
	}
	if o := c.Views[8]; o.Document != 2 || o.Frame != 301 {
		t.Fatalf("orbit_right at frame %d of document %d, the day is frame 301", o.Frame, o.Document)
	}
	if !reflect.DeepEqual(c.Seasons, []string{"spring", "summer", "autumn", "winter"}) {
		t.Fatalf("seasons %v (%s)", c.Seasons, c.SeasonsNote)
	}
	// One day sampled (60 s): no day length, so the season views stay
	// the first time samples naming them, and the note says why.
	if dn.LengthMs != 0 || dn.LengthRepeat != -1 || !strings.Contains(c.SeasonsNote, "; not at the day's time of day: no day length was found in the light probes") {
		t.Fatalf("day length %v (repeat %v), note %q", dn.LengthMs, dn.LengthRepeat, c.SeasonsNote)
	}
	wantAliases := []Alias{{"overview", dn.Day}, {"season_spring", "time_00"}, {"season_summer", "time_02"}, {"season_autumn", "time_03"}, {"season_winter", "time_04"}}
	if !reflect.DeepEqual(c.Aliases, wantAliases) {
		t.Fatalf("aliases %v", c.Aliases)
	}
	// The orbits see the isle from other sides.
	if d := measure.FrameDiff(c.Views[8].RGB(), c.Views[10].RGB(), 0); d <= 1 {
		t.Fatalf("orbit right vs left differ by %v", d)
	}
	// The windmill turns in both bursts; the wheel moved the camera.
	if len(c.Bursts) != 2 || c.Bursts[0].Fraction <= 0 || c.Bursts[1].Fraction <= 0 || c.Bursts[0].Pixels != 640*400 {
		t.Fatalf("bursts %+v", c.Bursts)
	}
	if c.Bursts[0].GapMs != 2000 || !strings.Contains(c.BurstsNote, "wheel steps out") || strings.Contains(c.BurstsNote, "moved 0.00") {
		t.Fatalf("burst note %q, gap %v", c.BurstsNote, c.Bursts[0].GapMs)
	}
	for _, b := range c.Bursts {
		if _, err := os.Stat(filepath.Join(out, b.Overlay)); err != nil {
			t.Errorf("overlay: %v", err)
		}
	}
	// Coverage: the isle was built, the volcano never.
	html, _ := os.ReadFile(world)
	r := coverage.Map(string(html), c.EntryURL, c.Coverage)
	lines := strings.Split(string(html), "\n")
	lineOf := func(s string) int {
		for i, l := range lines {
			if strings.Contains(l, s) {
				return i + 1
			}
		}
		t.Fatalf("no line %q", s)
		return 0
	}
	if got := r.Line(lineOf("const m = new THREE.Mesh(box, grass);")); got != coverage.Ran {
		t.Errorf("buildIsle's body: %v", got)
	}
	if got := r.Line(lineOf("lava.position.set(2.5, 1, 2.5);")); got != coverage.NotRun {
		t.Errorf("buildVolcano's body: %v", got)
	}
	if !reflect.DeepEqual(r.NeverCalled, []string{"buildVolcano"}) {
		t.Errorf("never called: %v", r.NeverCalled)
	}
}

func lumas(c *Capture) []float64 {
	var out []float64
	for _, v := range c.Views {
		out = append(out, v.Luma)
	}
	return out
}

func TestStructuralGate(t *testing.T) {
	cases := map[string]string{
		"":                     "structural: the file is empty",
		"  \n":                 "structural: the file is empty",
		"<p>hello</p>":         "structural: the file names none of three, canvas, webgl",
		"<canvas></canvas>":    "",
		"import * as THREE":    "",
		"getContext('WEBGL2')": "",
	}
	for in, want := range cases {
		if got := Structural([]byte(in)); got != want {
			t.Errorf("%q: %q, want %q", in, got, want)
		}
	}
}

// TestAFrameTheHarnessCannotWriteIsNotTheWorlds: a frame that cannot be
// written (a folder in its place) stops the capture with an error, not
// with a failure of the world.
func TestAFrameTheHarnessCannotWriteIsNotTheWorlds(t *testing.T) {
	o := DefaultOptions(islandPixels(t))
	o.Width, o.Height, o.Coverage = 320, 200, false
	out := t.TempDir()
	if err := os.MkdirAll(filepath.Join(out, "frames", "time_00.png"), 0o755); err != nil {
		t.Fatal(err)
	}
	c, err := Run(context.Background(), h.Browser, h.Resolver, filepath.Join("testdata", "isle", "world.html"), out, o)
	if err == nil || c != nil || !strings.Contains(err.Error(), "time sample 0 (0 s): writing frames/time_00.png") {
		t.Fatalf("capture %+v, error %v", c, err)
	}
}

// TestBlockedListsWhatTheRuntimeRefusedToo: capture.blocked names the
// requests the interception refused and what the page runtime itself
// refused (window.open, a service worker), each once however often the
// world tried it.
func TestBlockedListsWhatTheRuntimeRefusedToo(t *testing.T) {
	dir := t.TempDir()
	world := filepath.Join(dir, "world.html")
	page := `<!doctype html><canvas id=c width=64 height=64></canvas><script>
const gl = document.getElementById('c').getContext('webgl');
let n = 0;
(function frame() { n++; gl.clearColor(0, n % 2, 1, 1); gl.clear(gl.COLOR_BUFFER_BIT); requestAnimationFrame(frame); })();
for (let i = 0; i < 2; i++) {
  window.open('https://example.com/popup');
  new Image().src = 'https://example.com/sprite.png?' + i % 1;
}
navigator.serviceWorker.register('sw.js').catch(() => {});
</script>`
	if err := os.WriteFile(world, []byte(page), 0o644); err != nil {
		t.Fatal(err)
	}
	o := DefaultOptions(islandPixels(t))
	o.Width, o.Height, o.Coverage = 160, 100, false
	o.Horizon, o.Samples = 1, 2
	c, err := Run(context.Background(), h.Browser, h.Resolver, world, t.TempDir(), o)
	if err != nil {
		t.Fatal(err)
	}
	want := []string{"https://example.com/sprite.png?0", "https://example.com/popup", "sw.js"}
	if !reflect.DeepEqual(c.Blocked, want) {
		t.Fatalf("blocked %q, want %q (failure %q)", c.Blocked, want, c.Failure)
	}
}
