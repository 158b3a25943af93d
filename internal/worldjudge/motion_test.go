package worldjudge

import (
	"reflect"
	"testing"

	"github.com/worldprobe/worldprobe/internal/worldjudge/capture"
	"github.com/worldprobe/worldprobe/internal/worldjudge/look"
	"github.com/worldprobe/worldprobe/internal/worldjudge/measure"
	"github.com/worldprobe/worldprobe/internal/worldjudge/rubric"
)

// grayFrames makes n 10×10 grey frames of level 100 and applies each
// change (frame index, pixel index, new level).
func grayFrames(n int, changes ...[3]int) []measure.Gray {
	out := make([]measure.Gray, n)
	for i := range out {
		out[i] = measure.Gray{W: 10, H: 10, Pix: make([]uint8, 100)}
		for p := range out[i].Pix {
			out[i].Pix[p] = 100
		}
	}
	for _, c := range changes {
		out[c[0]].Pix[c[1]] = uint8(c[2])
	}
	return out
}

func burstOf(name, biome string, frames []measure.Gray) capture.Burst {
	m := measure.BurstMotion(frames, 24) // the island rubric's change_threshold
	return capture.Burst{Name: name, Biome: biome, Fraction: m.Fraction, Changed: m.Changed, Pixels: m.Pixels}
}

// TestPerBiomeMotion: φ is WorldBench's changed-pixel share over a burst
// (|ΔY| > 24 between consecutive frames, the union over the pairs,
// rounded to 5 decimals); a biome's motion is the larger φ of its own
// near and far bursts, a biome without them falls back to the page
// camera's, and WC004's V_M gate is taken on the biome's own φ.
func TestPerBiomeMotion(t *testing.T) {
	c := &capture.Capture{Bursts: []capture.Burst{
		// The page camera: pixel 0 flickers in both pairs (counted once),
		// pixel 1 moves by exactly 24 (not counted): 1 of 100.
		burstOf("burst_near", "", grayFrames(4, [3]int{1, 0, 200}, [3]int{2, 0, 100}, [3]int{2, 1, 124})),
		burstOf("burst_far", "", grayFrames(3)),
		// The desert: still near; far, three pixels change in the first
		// pair and two others by 25 in the second: 5 of 100.
		burstOf("biome_desert_near", "desert", grayFrames(4)),
		burstOf("biome_desert_far", "desert", grayFrames(3, [3]int{1, 10, 0}, [3]int{1, 11, 0}, [3]int{1, 12, 0},
			[3]int{2, 10, 0}, [3]int{2, 11, 0}, [3]int{2, 12, 0}, [3]int{2, 20, 125}, [3]int{2, 21, 75})),
		// The volcano: one of 100 near (its last frame), none far.
		burstOf("biome_volcano_near", "volcano", grayFrames(4, [3]int{3, 99, 0})),
		burstOf("biome_volcano_far", "volcano", grayFrames(3)),
	}}
	var phis []float64
	for _, b := range c.Bursts {
		phis = append(phis, b.Fraction)
	}
	if want := []float64{0.01, 0, 0, 0.05, 0.01, 0}; !reflect.DeepEqual(phis, want) {
		t.Fatalf("φ %v, want %v", phis, want)
	}
	overall, gate, biomes := motionPixels(c, 0.02)
	if overall == nil || *overall != 0.01 || gate == nil || *gate {
		t.Fatalf("page camera %v %v", overall, gate)
	}
	f := func(v float64) *float64 { return &v }
	want := map[string]*BiomeMotion{
		"desert":  {Near: f(0), Far: f(0.05), Max: 0.05, Gate: true},
		"volcano": {Near: f(0.01), Far: f(0), Max: 0.01, Gate: false},
	}
	if !reflect.DeepEqual(biomes, want) {
		t.Fatalf("biome motion %+v", biomes)
	}
	p := Pixels{Motion: overall, MotionGate: gate, BiomeMotion: biomes}
	for biome, w := range map[string]struct {
		phi      float64
		gate, ok bool
		from     string
	}{
		"desert":  {0.05, true, true, "biome_desert"},
		"volcano": {0.01, false, true, "biome_volcano"},
		"swamp":   {0.01, false, true, "page_camera"},
	} {
		phi, g, ok, from := biomeMotion(p, biome)
		if phi != w.phi || g != w.gate || ok != w.ok || from != w.from {
			t.Errorf("%s: %v %v %v %q, want %+v", biome, phi, g, ok, from, w)
		}
	}
	if _, _, ok, _ := biomeMotion(Pixels{}, "desert"); ok {
		t.Errorf("no bursts: measured")
	}

	// V_M: the judge saw both move; the desert's own bursts pass the gate,
	// the volcano's do not, though the page camera's bursts elsewhere
	// would not decide it either way.
	l := &Looks{Visual: map[string]*look.Visual{}}
	for _, b := range []string{"desert", "volcano"} {
		l.Visual[b] = &look.Visual{Status: look.Judged,
			Items:  map[string]look.Sighting{"WC004.dust": {Visible: true, Counted: true}},
			Motion: map[string]look.Movement{"WC004.dust": {Moving: true, Axis: "blowing"}}}
	}
	noSight := func(string) (string, string) { return "", "" }
	for biome, w := range map[string][2]string{
		"desert":  {StatusPass, "seen moving (blowing), and the bursts changed 0.05000 of their pixels"},
		"volcano": {StatusFail, "the judge said it moves, but the bursts' changed pixels stay under the rubric's minimum"},
	} {
		h := &HalfReport{Half: rubric.HalfSightMotion}
		sightMotion(h, "WC004", &ItemReport{ID: "dust", Biome: biome}, rubric.Item{ID: "dust", Biome: biome, Axis: "blowing"}, l, p, noSight)
		if h.Status != w[0] || h.Reason != w[1] || h.Measure["bursts"] != "biome_"+biome {
			t.Errorf("%s: %s %q %v", biome, h.Status, h.Reason, h.Measure)
		}
	}
}

// TestMotionFramesAreTheBiomesOwn: the visual judge's motion frames for a
// biome are its own bursts' first frames and overlays, else the page
// camera's.
func TestMotionFramesAreTheBiomesOwn(t *testing.T) {
	c := &capture.Capture{
		Views: []capture.View{{Name: "burst_near_0", File: "frames/burst_near_0.png"}, {Name: "biome_desert", File: "frames/biome_desert.png"},
			{Name: "biome_desert_far_0", File: "frames/biome_desert_far_0.png"}},
		Bursts: []capture.Burst{
			{Name: "burst_near", Frames: []string{"burst_near_0"}, Overlay: "frames/burst_near_motion.png"},
			{Name: "biome_desert_near", Biome: "desert", Frames: []string{"biome_desert"}, Overlay: "frames/biome_desert_near_motion.png"},
			{Name: "biome_desert_far", Biome: "desert", Frames: []string{"biome_desert_far_0"}, Overlay: "frames/biome_desert_far_motion.png"},
		},
	}
	var got []string
	for _, f := range motionFrames(c, "desert") {
		got = append(got, f.View+"="+f.File)
	}
	want := []string{"biome_desert=frames/biome_desert.png", "biome_desert_near_motion=frames/biome_desert_near_motion.png",
		"biome_desert_far_0=frames/biome_desert_far_0.png", "biome_desert_far_motion=frames/biome_desert_far_motion.png"}
	if !reflect.DeepEqual(got, want) {
		t.Fatalf("desert: %v", got)
	}
	if got := overlays(c, "swamp"); !reflect.DeepEqual(got, []string{"frames/burst_near_motion.png"}) {
		t.Fatalf("swamp: %v", got)
	}
}
