package capture

import (
	"context"
	"path/filepath"
	"reflect"
	"strings"
	"testing"
)

// TestBackOff: a pose moved back along its line of sight keeps its
// direction.
func TestBackOff(t *testing.T) {
	got := backOff([]float64{0, 12, -54, 0, 11.1056, -54.4472}, 6)
	// forward (0, -0.8944, -0.4472) normalised: back by 6 is (0, +5.3666, +2.6833).
	want := []float64{0, 17.3666, -51.3167, 0, 16.4722, -51.7639}
	if !reflect.DeepEqual(got, want) {
		t.Fatalf("backOff %v, want %v", got, want)
	}
	if got := backOff([]float64{1, 2, 3, 1, 2, 2}, 0); !reflect.DeepEqual(got, []float64{1, 2, 3, 1, 2, 2}) {
		t.Fatalf("backOff by 0: %v", got)
	}
}

// TestPerBiomeBurstsAndPan captures a world of three islets (testdata/motion)
// with a legend naming two: the still desert and the volcano, whose blob
// slides; the swamp, which the legend does not name, is found by the
// navigator (recorded OpenAI tool calls: pan with the right button, save),
// whose bubble bobs. Each biome gets a near and a far burst from its close
// view, the desert's changing no pixel, the volcano's and the swamp's
// changing some; the page camera keeps its own pair.
func TestPerBiomeBurstsAndPan(t *testing.T) {
	o := DefaultOptions(islandPixels(t))
	o.Width, o.Height, o.Coverage = 320, 200, false
	o.Horizon, o.Samples = 2, 2
	for _, b := range islandBiomes(t) {
		if b.ID == "swamp" || b.ID == "desert" || b.ID == "volcano" {
			o.Biomes = append(o.Biomes, b)
		}
	}
	nav, _ := navigatorModel(t, "4_pan.json", "5_save.json")
	o.Navigator = nav
	c, err := Run(context.Background(), h.Browser, h.Resolver, filepath.Join("testdata", "motion", "world.html"), t.TempDir(), o)
	if err != nil {
		t.Fatal(err)
	}
	if c.Failure != "" {
		t.Fatalf("failure: %s (errors %v)", c.Failure, c.Errors)
	}
	if !reflect.DeepEqual(c.Legend.Framed, []string{"desert", "volcano"}) {
		t.Fatalf("legend %+v", c.Legend)
	}
	type burst struct {
		name, biome string
		frames      []string
	}
	var got []burst
	for _, b := range c.Bursts {
		got = append(got, burst{b.Name, b.Biome, b.Frames})
	}
	want := []burst{
		{"burst_near", "", []string{"burst_near_0", "burst_near_1", "burst_near_2", "burst_near_3"}},
		{"burst_far", "", []string{"burst_far_0", "burst_far_1", "burst_far_2"}},
		{"biome_desert_near", "desert", []string{"biome_desert", "biome_desert_near_1", "biome_desert_near_2", "biome_desert_near_3"}},
		{"biome_desert_far", "desert", []string{"biome_desert_far_0", "biome_desert_far_1", "biome_desert_far_2"}},
		{"biome_volcano_near", "volcano", []string{"biome_volcano", "biome_volcano_near_1", "biome_volcano_near_2", "biome_volcano_near_3"}},
		{"biome_volcano_far", "volcano", []string{"biome_volcano_far_0", "biome_volcano_far_1", "biome_volcano_far_2"}},
		{"biome_swamp_near", "swamp", []string{"biome_swamp", "biome_swamp_near_1", "biome_swamp_near_2", "biome_swamp_near_3"}},
		{"biome_swamp_far", "swamp", []string{"biome_swamp_far_0", "biome_swamp_far_1", "biome_swamp_far_2"}},
	}
	if !reflect.DeepEqual(got, want) {
		t.Fatalf("bursts\n%+v\nwant\n%+v", got, want)
	}
	// Every burst's frames are 2 s (40 frames) apart in page time; the
	// legend biomes' frames are interleaved with the page camera's: the
	// desert one frame before the volcano, the volcano one before the page
	// camera in the near bursts; the page camera first in the far ones.
	frame := func(name string) int { return view(t, c, name).Frame }
	for _, b := range c.Bursts {
		for i := 1; i < len(b.Frames); i++ {
			if d := frame(b.Frames[i]) - frame(b.Frames[i-1]); d != 40 {
				t.Errorf("%s: %s and %s are %d frames apart", b.Name, b.Frames[i-1], b.Frames[i], d)
			}
		}
		if b.GapMs != 2000 {
			t.Errorf("%s: gap %v ms", b.Name, b.GapMs)
		}
	}
	if a, b, p := frame("biome_desert"), frame("biome_volcano"), frame("burst_near_0"); b != a+1 || p != b+1 {
		t.Errorf("near frames %d, %d, %d", a, b, p)
	}
	if p, a, b := frame("burst_far_0"), frame("biome_desert_far_0"), frame("biome_volcano_far_0"); a != p+1 || b != a+1 {
		t.Errorf("far frames %d, %d, %d", p, a, b)
	}
	// The still desert changes no pixel; the sliding blob and the bobbing
	// bubble do.
	phi := map[string]float64{}
	for _, b := range c.Bursts {
		phi[b.Name] = b.Fraction
		if b.Pixels != 320*200 {
			t.Errorf("%s: %d pixels", b.Name, b.Pixels)
		}
	}
	t.Logf("φ %v", phi)
	if phi["biome_desert_near"] != 0 || phi["biome_desert_far"] != 0 {
		t.Errorf("desert φ %v / %v, want 0", phi["biome_desert_near"], phi["biome_desert_far"])
	}
	for _, n := range []string{"biome_volcano_near", "biome_volcano_far", "biome_swamp_near", "biome_swamp_far"} {
		if phi[n] <= 0 {
			t.Errorf("%s: φ %v, want > 0", n, phi[n])
		}
	}
	// The wheel moved the page's camera 2 units a step; the desert's far
	// frames are posed 6 units further back along its line of sight.
	if !strings.Contains(c.BurstsNote, "the camera moved 6.00") || !strings.Contains(c.BurstsNote, "2 biome bursts") {
		t.Errorf("bursts note %q", c.BurstsNote)
	}
	if cam := view(t, c, "biome_desert_far_1").Camera; !reflect.DeepEqual(cam, []float64{0, 17.3666, -51.3167}) {
		t.Errorf("desert far camera %v", cam)
	}
	if cam := view(t, c, "biome_desert_near_2").Camera; !reflect.DeepEqual(cam, []float64{0, 12, -54}) {
		t.Errorf("desert near camera %v", cam)
	}
	// Each biome frame is its islet at the centre; the navigator's pan
	// brought the page's camera over the swamp.
	// (Pixels off the blob's and the bubble's paths.)
	for name, want := range map[string][3]uint8{"biome_desert": {255, 208, 0}, "biome_desert_far_2": {255, 208, 0}, "biome_volcano": {255, 0, 0}, "biome_volcano_far_1": {255, 0, 0}} {
		if p := pixelAt(view(t, c, name).RGB(), 160, 60); p != want {
			t.Errorf("%s: pixel %v, want %v", name, p, want)
		}
	}
	for name, want := range map[string][3]uint8{"biome_swamp": {0, 255, 0}, "biome_swamp_near_3": {0, 255, 0}} {
		if p := pixelAt(view(t, c, name).RGB(), 200, 100); p != want {
			t.Errorf("%s: pixel %v, want %v", name, p, want)
		}
	}
	if len(c.Navigation) != 1 {
		t.Fatalf("navigation %+v", c.Navigation)
	}
	ep := c.Navigation[0]
	var tools []string
	for _, s := range ep.Steps {
		tools = append(tools, s.Tool+": "+s.Result)
	}
	if ep.Biome != "swamp" || ep.Status != "found" || ep.View != "biome_swamp" || !reflect.DeepEqual(tools, []string{"pan: panned", "save: saved"}) {
		t.Fatalf("episode %+v, tools %q", ep, tools)
	}
	if v := view(t, c, "biome_swamp_far_0"); v.Document != 3 || v.Kind != "biome_burst" {
		t.Errorf("swamp far frame: %+v", v)
	}
}

// captureSmallIsle captures testdata/isle at 320×200 without coverage,
// with 2 time samples over 60 s; checkReads takes every UI-hidden frame
// both ways (Options.CheckReads).
func captureSmallIsle(t *testing.T, checkReads bool) *Capture {
	t.Helper()
	o := DefaultOptions(islandPixels(t))
	o.Width, o.Height, o.Coverage, o.CheckReads = 320, 200, false, checkReads
	o.Horizon, o.Samples = 60, 2
	c, err := Run(context.Background(), h.Browser, h.Resolver, filepath.Join("testdata", "isle", "world.html"), t.TempDir(), o)
	if err != nil {
		t.Fatal(err)
	}
	if c.Failure != "" {
		t.Fatalf("failure: %s (errors %v)", c.Failure, c.Errors)
	}
	return c
}

// TestWebGLReadsAreTheScreenshots: every frame taken with the UI hidden is
// read back from WebGL, pixel for pixel what a screenshot of the canvas
// shows (both taken, CheckReads); a frame with the UI shown (the time
// samples) is a screenshot.
func TestWebGLReadsAreTheScreenshots(t *testing.T) {
	c := captureSmallIsle(t, true)
	// 4 orbits and 7 burst frames read back; 2 time samples are screenshots.
	if r := c.Reads; r.WebGL != 11 || r.Screenshots != 0 || len(r.Differ) != 0 {
		t.Fatalf("reads %+v", r)
	}
}

// TestReadsChooseTheCheaperWay: by default the four orbits, the first
// frames taken with the UI hidden, are taken in turn each way (read back
// from WebGL, screenshot, read, screenshot) with the CPU time of each
// measured, drawing included; the cheaper way takes the seven burst
// frames, and judge.json says which, with the times that decided it.
func TestReadsChooseTheCheaperWay(t *testing.T) {
	c := captureSmallIsle(t, false)
	r := c.Reads
	t.Logf("reads %+v", r)
	if r.Calibrated != 4 || r.ReadMs <= 0 || r.ShotMs <= 0 || len(r.Differ) != 0 {
		t.Fatalf("calibration %+v", r)
	}
	switch r.Chosen {
	case "webgl":
		if r.ShotCPUMs < r.ReadCPUMs || r.WebGL != 9 || r.Screenshots != 2 {
			t.Fatalf("reads %+v", r)
		}
	case "screenshots":
		if r.ShotCPUMs >= r.ReadCPUMs || r.WebGL != 2 || r.Screenshots != 9 {
			t.Fatalf("reads %+v", r)
		}
	default:
		t.Fatalf("chosen %q", r.Chosen)
	}
	if len(c.Views) != 13 {
		t.Fatalf("%d views", len(c.Views))
	}
}
