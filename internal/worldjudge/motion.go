package worldjudge

import (
	"github.com/worldprobe/worldprobe/internal/worldjudge/capture"
	"github.com/worldprobe/worldprobe/internal/worldjudge/look"
)

// BiomeMotion is one biome's motion measure from the bursts taken from its
// close view (its legend framing or its navigator view): WorldBench's
// max(φ_near, φ_far) of that biome, and the gate on it.
type BiomeMotion struct {
	Near *float64 `json:"near,omitempty"`
	Far  *float64 `json:"far,omitempty"`
	// Max is the larger of the two; Gate holds when it reaches the
	// rubric's motion_min.
	Max  float64 `json:"max"`
	Gate bool    `json:"gate"`
}

// motionPixels measures the bursts: the page camera's larger φ (the
// overview's bursts) and its gate, and each biome's own pair.
func motionPixels(c *capture.Capture, minFraction float64) (overall *float64, gate *bool, biomes map[string]*BiomeMotion) {
	seen := false
	m := 0.0
	for _, b := range c.Bursts {
		f := b.Fraction
		if b.Biome == "" {
			m, seen = max(m, f), true
			continue
		}
		if biomes == nil {
			biomes = map[string]*BiomeMotion{}
		}
		bm := biomes[b.Biome]
		if bm == nil {
			bm = &BiomeMotion{}
			biomes[b.Biome] = bm
		}
		switch {
		case b.Name == "biome_"+b.Biome+"_near":
			bm.Near = &f
		case b.Name == "biome_"+b.Biome+"_far":
			bm.Far = &f
		}
		bm.Max = max(bm.Max, f)
		bm.Gate = bm.Max >= minFraction
	}
	if seen {
		g := m >= minFraction
		overall, gate = &m, &g
	}
	return overall, gate, biomes
}

// biomeMotion is the motion measure a biome's sight-motion half rests on:
// its own bursts' larger φ when the capture took bursts from its close
// view, else the page camera's (a biome only an orbit or the overview's
// burst showed); ok is false when there are no bursts at all. from says
// which.
func biomeMotion(p Pixels, biome string) (phi float64, gate, ok bool, from string) {
	if bm := p.BiomeMotion[biome]; bm != nil {
		return bm.Max, bm.Gate, true, "biome_" + biome
	}
	if p.Motion != nil && p.MotionGate != nil {
		return *p.Motion, *p.MotionGate, true, "page_camera"
	}
	return 0, false, false, ""
}

// burstsOf are a biome's own bursts, or the page camera's when it has none.
func burstsOf(c *capture.Capture, biome string) []capture.Burst {
	var own, page []capture.Burst
	for _, b := range c.Bursts {
		switch b.Biome {
		case biome:
			if biome != "" {
				own = append(own, b)
			} else {
				page = append(page, b)
			}
		case "":
			page = append(page, b)
		}
	}
	if len(own) > 0 {
		return own
	}
	return page
}

// overlays are a biome's bursts' overlay files (burstsOf).
func overlays(c *capture.Capture, biome string) []string {
	var out []string
	for _, b := range burstsOf(c, biome) {
		out = append(out, b.Overlay)
	}
	return out
}

// motionFrames are the first frames and overlays of a biome's bursts
// (burstsOf), for the visual judge's motion questions.
func motionFrames(c *capture.Capture, biome string) []look.Frame {
	var out []look.Frame
	for _, b := range burstsOf(c, biome) {
		if len(b.Frames) > 0 {
			if v := view(c, b.Frames[0]); v != nil {
				out = append(out, frameOf(*v, ""))
			}
		}
		out = append(out, look.Frame{View: b.Name + "_motion", File: b.Overlay})
	}
	return out
}
