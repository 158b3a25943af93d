package capture

import (
	"context"
	"encoding/json"
	"fmt"
	"math"
	"path/filepath"

	"github.com/worldprobe/worldprobe/internal/target"
	"github.com/worldprobe/worldprobe/internal/worldjudge/measure"
)

// subject is what one pair of bursts watches: the page's own camera (pose
// nil) or a camera pose held for every frame of it (a biome's legend
// view: position, then a point looked at).
type subject struct {
	// biome is the biome of a close view, "" for the page's own camera.
	biome string
	pose  []float64
}

// frameName names frame i of a subject's near or far burst, and its kind:
// the page camera's are burst_near_<i> and burst_far_<i>; a biome's near
// burst starts with its biome frame (biome_<id>, WorldBench's "that frame
// + 3 more") and goes on with biome_<id>_near_<i>, its far burst is
// biome_<id>_far_<i>.
func (s subject) frameName(which string, i int) (name, kind string) {
	if s.biome == "" {
		return fmt.Sprintf("burst_%s_%d", which, i), "burst_" + which
	}
	if which == "near" && i == 0 {
		return "biome_" + s.biome, "biome"
	}
	return fmt.Sprintf("biome_%s_%s_%d", s.biome, which, i), "biome_burst"
}

// burstName names a subject's near or far burst.
func (s subject) burstName(which string) string {
	if s.biome == "" {
		return "burst_" + which
	}
	return "biome_" + s.biome + "_" + which
}

// backOff is a pose moved back along its line of sight by d (the looked-at
// point too, so the direction stays).
func backOff(pose []float64, d float64) []float64 {
	f := []float64{pose[3] - pose[0], pose[4] - pose[1], pose[5] - pose[2]}
	n := math.Sqrt(f[0]*f[0] + f[1]*f[1] + f[2]*f[2])
	out := append([]float64{}, pose...)
	if n < 1e-12 || d == 0 {
		return out
	}
	for i := 0; i < 3; i++ {
		out[i] = measure.Round(pose[i]-f[i]/n*d, 4)
		out[3+i] = measure.Round(pose[3+i]-f[i]/n*d, 4)
	}
	return out
}

// legendSubjects are the biomes whose legend flight came to rest, in
// rubric order, each posed where its flight left the camera.
func (k *capturer) legendSubjects() []subject {
	lg := k.c.Legend
	if lg == nil || len(k.legendMatch) == 0 {
		return nil
	}
	var out []subject
	for _, b := range k.o.Biomes {
		if i, ok := k.legendMatch[b.ID]; ok && lg.Buttons[i].Pose != nil {
			out = append(out, subject{biome: b.ID, pose: lg.Buttons[i].Pose})
		}
	}
	return out
}

// bursts takes the still-camera bursts of the document stepped to the
// day, HUD hidden: one pair per biome its legend framed, from the biome's
// close view, and one pair with the page's own camera.
func (k *capturer) bursts(ctx context.Context) error {
	subs := append(k.legendSubjects(), subject{})
	if err := k.hud(ctx, false); err != nil {
		return fmt.Errorf("hiding the HUD: %w", pageErr{err})
	}
	moved, err := k.burstSet(ctx, subs)
	if err != nil {
		return err
	}
	if lg := k.c.Legend; lg != nil && len(k.legendMatch) > 0 {
		lg.Note = fmt.Sprintf("%d of %d biomes framed from the page's own legend (%d clickable elements): each element clicked after the time samples and its camera flight given %.0f s of page time; each frame then taken at the day, the page's camera posed where its flight came to rest, HUD hidden, and the first frame of that biome's motion bursts", len(lg.Framed), len(k.o.Biomes), len(lg.Buttons), LegendSettleSeconds)
	}
	b := k.o.Pixels.Bursts
	if moved >= 0 {
		k.c.BurstsNote = fmt.Sprintf("near burst with the page's own camera at the day; %d wheel steps out (deltaY +120, the page's own controls), the camera moved %.2f", b.ZoomOutSteps, moved)
		if n := len(subs) - 1; n > 0 {
			k.c.BurstsNote += fmt.Sprintf("; %d biome bursts from each biome's legend view, their frames interleaved with the page camera's one frame apart, the far ones posed %.2f further back along the line of sight (what the wheel did to the page's camera)", n, moved)
		}
	}
	if err := k.hud(ctx, true); err != nil {
		return fmt.Errorf("showing the HUD: %w", pageErr{err})
	}
	return nil
}

// burstSet takes a near and a far burst of every subject (WorldBench's
// capture_bursts: 4 frames GapSeconds apart, a zoom out by ZoomOutSteps
// wheel steps and 1 s, 3 frames), with the HUD already hidden. The
// subjects' bursts run together: frame i of subject j of the near bursts
// is drawn at base + 1 + j + i·G page frames (G the gap in frames, at
// least the number of subjects), so every subject's frames are exactly
// the gap apart and the last subject's (the page's own camera, when it is
// one) fall where a burst of its own would; the far bursts take the page
// camera first. The wheel turns the page's own camera; a posed subject's
// far pose is moved back along its line of sight by the distance the
// wheel moved the page's camera (not at all when the page ignores the
// wheel). It returns that distance, -1 when no camera was seen.
func (k *capturer) burstSet(ctx context.Context, subs []subject) (float64, error) {
	b := k.o.Pixels.Bursts
	gap := max(1, int(math.Round(b.GapSeconds*k.o.FPS)), len(subs))
	near, err := k.burstRounds(ctx, subs, "near", b.NearFrames, gap)
	if err != nil {
		return -1, err
	}
	before := k.cameraPos(ctx)
	if r, err := k.s.Canvas(ctx); err == nil {
		at := target.Target{At: []float64{r.Width / 2, r.Height / 2}}
		for i := 0; i < b.ZoomOutSteps; i++ {
			if err := k.s.Wheel(ctx, at, 0, 120); err != nil {
				return -1, fmt.Errorf("zooming out: %w", pageErr{err})
			}
		}
	}
	if _, err := k.advance(ctx, int(math.Round(k.o.FPS)), false); err != nil {
		return -1, fmt.Errorf("after the zoom-out: %w", pageErr{err})
	}
	after := k.cameraPos(ctx)
	moved := -1.0
	if before != nil && after != nil {
		moved = dist(before, after)
	}
	// The far bursts: the page's camera first, then the posed subjects
	// moved back.
	var far []subject
	for _, s := range subs {
		if s.pose == nil {
			far = append(far, s)
		}
	}
	for _, s := range subs {
		if s.pose != nil {
			far = append(far, subject{biome: s.biome, pose: backOff(s.pose, max(0, moved))})
		}
	}
	farB, err := k.burstRounds(ctx, far, "far", b.FarFrames, gap)
	if err != nil {
		return -1, err
	}
	// Each subject's pair in subs' order, the page camera's first.
	byName := map[string]Burst{}
	for _, br := range append(near, farB...) {
		byName[br.Name] = br
	}
	for _, pass := range []bool{true, false} {
		for _, s := range subs {
			if (s.pose == nil && s.biome == "") != pass {
				continue
			}
			for _, which := range []string{"near", "far"} {
				if br, ok := byName[s.burstName(which)]; ok {
					k.c.Bursts = append(k.c.Bursts, br)
				}
			}
		}
	}
	return moved, nil
}

// burstRounds takes n frames of each subject, round by round (see
// burstSet), and measures each subject's burst: its changed-pixel
// fraction φ and its overlay.
func (k *capturer) burstRounds(ctx context.Context, subs []subject, which string, n, gap int) ([]Burst, error) {
	frames := make([][]measure.Gray, len(subs))
	firsts := make([]measure.RGB, len(subs))
	out := make([]Burst, len(subs))
	for j, s := range subs {
		out[j] = Burst{Name: s.burstName(which), Biome: s.biome, GapMs: float64(gap) * 1000 / k.o.FPS}
	}
	base := k.frame()
	posed := false
	for i := 0; i < n; i++ {
		for j, s := range subs {
			if s.pose != nil {
				arg, _ := json.Marshal(s.pose)
				var ok bool
				if err := k.s.Eval(ctx, k.limit(), "window.__wj.setPose("+string(arg)+")", &ok); err != nil {
					return nil, fmt.Errorf("posing the camera for %s: %w", s.biome, pageErr{err})
				}
				posed = true
			} else if posed {
				if err := k.s.Eval(ctx, k.limit(), "window.__wj.clearPose()", nil); err != nil {
					return nil, fmt.Errorf("clearing the pose: %w", pageErr{err})
				}
				posed = false
			}
			name, kind := s.frameName(which, i)
			v, err := k.frameAt(ctx, base+1+j+i*gap, name, kind)
			if err != nil {
				return nil, fmt.Errorf("%s: %w", name, pageErr{err})
			}
			if i == 0 {
				firsts[j] = v.rgb
				if kind == "biome" {
					k.framed(s.biome, name)
				}
			}
			if s.pose != nil {
				k.c.Views[len(k.c.Views)-1].Camera = s.pose[:3]
			}
			frames[j] = append(frames[j], v.rgb.Gray())
			out[j].Frames = append(out[j].Frames, v.Name)
		}
	}
	if posed {
		if err := k.s.Eval(ctx, k.limit(), "window.__wj.clearPose()", nil); err != nil {
			return nil, fmt.Errorf("clearing the pose: %w", pageErr{err})
		}
	}
	for j := range subs {
		m := measure.BurstMotion(frames[j], k.o.Pixels.ChangeThreshold)
		br := &out[j]
		br.Fraction, br.Changed, br.Pixels = m.Fraction, m.Changed, m.Pixels
		br.Overlay = filepath.ToSlash(filepath.Join("frames", br.Name+"_motion.png"))
		if err := writePNG(filepath.Join(k.out, br.Overlay), measure.Overlay(firsts[j], m.Mask)); err != nil {
			return nil, infraErr{err}
		}
	}
	return out, nil
}

// framed records a legend biome's frame (the first of its near burst).
func (k *capturer) framed(biome, view string) {
	lg := k.c.Legend
	if lg == nil {
		return
	}
	if i, ok := k.legendMatch[biome]; ok && lg.Buttons[i].Pose != nil && lg.Buttons[i].View == "" {
		lg.Buttons[i].View = view
		lg.Framed = append(lg.Framed, biome)
	}
}
