package worldjudge

import (
	"context"
	"fmt"
	"maps"
	"path"
	"slices"
	"strings"

	"github.com/worldprobe/worldprobe/internal/llm"
	"github.com/worldprobe/worldprobe/internal/result"
	"github.com/worldprobe/worldprobe/internal/worldjudge/capture"
	"github.com/worldprobe/worldprobe/internal/worldjudge/look"
	"github.com/worldprobe/worldprobe/internal/worldjudge/rubric"
)

// LookModels are the looking side's models: the blind_identifier and
// visual_judge roles (llm.BlindIdentifier, llm.VisualJudge). With either
// nil, what it would judge stays unjudged.
type LookModels struct {
	Blind  llm.Model
	Visual llm.Model
}

// NewLookModels takes the looking roles from a model registry (the
// models.yaml of --models): blind_identifier and visual_judge. A role the
// file does not configure is an error naming it.
func NewLookModels(ctx context.Context, reg *llm.Registry) (LookModels, error) {
	var m LookModels
	var err error
	if m.Blind, err = reg.Role(ctx, llm.BlindIdentifier); err != nil {
		return LookModels{}, fmt.Errorf("the looking side needs the %s role: %w", llm.BlindIdentifier, err)
	}
	if m.Visual, err = reg.Role(ctx, llm.VisualJudge); err != nil {
		return LookModels{}, fmt.Errorf("the looking side needs the %s role: %w", llm.VisualJudge, err)
	}
	return m, nil
}

// Enabled tells whether any looking model is set.
func (m LookModels) Enabled() bool { return m.Blind != nil || m.Visual != nil }

// Looks are the looking side's verdicts.
type Looks struct {
	// Blind is blind identification over every frame taken with the UI
	// hidden (orbits, legend frames, the first frame of each burst).
	Blind *look.Blind `json:"blind,omitempty"`
	// Visual are the visual item judge's verdicts: one per biome with a
	// confirmed frame, and "cycles" for WC005's day-cycle items.
	Visual map[string]*look.Visual `json:"visual,omitempty"`
	// BugHunt is WC001's visual bug-hunt over the wide and biome frames.
	BugHunt *look.BugHunt `json:"bug_hunt,omitempty"`
	// Notes say what was not asked and why.
	Notes []string `json:"notes,omitempty"`
}

// CyclesSubject is the key of WC005's day-cycle verdict in Looks.Visual.
const CyclesSubject = "cycles"

// frameOf is a capture view as a frame for a model.
func frameOf(v capture.View, biome string) look.Frame {
	return look.Frame{View: v.Name, File: v.File, Biome: biome}
}

// blindFrames are the frames shown to blind identification: every frame
// saved with the UI hidden — the orbits, the legend's biome frames (each
// meant to show its biome) and the first frame of each burst.
func blindFrames(c *capture.Capture) []look.Frame {
	var out []look.Frame
	for _, v := range c.Views {
		switch {
		case v.Kind == "orbit":
			out = append(out, frameOf(v, ""))
		case v.Kind == "biome":
			out = append(out, frameOf(v, strings.TrimPrefix(v.Name, "biome_")))
		case strings.HasPrefix(v.Kind, "burst_") && strings.HasSuffix(v.Name, "_0"):
			out = append(out, frameOf(v, ""))
		}
	}
	return out
}

// wideFrames are the overview and the orbits (WorldBench's overview and
// four directions).
func wideFrames(c *capture.Capture) []look.Frame {
	var out []look.Frame
	for _, a := range c.Aliases {
		if a.Name == "overview" {
			if v := view(c, a.Of); v != nil {
				out = append(out, look.Frame{View: "overview", File: v.File})
			}
		}
	}
	for _, v := range c.Views {
		if v.Kind == "orbit" {
			out = append(out, frameOf(v, ""))
		}
	}
	return out
}

// itemKey is an item's id in a biome's visual call: WC003's and WC004's
// items share the call, so each is prefixed by its test.
func itemKey(test, id string) string { return test + "." + id }

// Look asks the looking models about a capture saved in dir: blind
// identification of every UI-hidden frame, then the visual item judge per
// biome over its confirmed frames (the overview for context, the bursts
// for motion), WC005's day-cycle items over the time samples, and WC001's
// bug-hunt over the wide and biome frames. Calls run one after another.
func Look(ctx context.Context, m LookModels, r *rubric.Rubric, dir string, c *capture.Capture) *Looks {
	out := &Looks{Visual: map[string]*look.Visual{}}
	if len(c.Views) == 0 {
		out.Notes = append(out.Notes, "no frames were captured")
		return out
	}
	if m.Blind != nil {
		out.Blind = look.Identify(ctx, m.Blind, dir, blindFrames(c), r.Biomes, c.SHA256)
	} else {
		out.Notes = append(out.Notes, "no blind_identifier model: no sighting can be confirmed")
	}
	if m.Visual == nil {
		out.Notes = append(out.Notes, "no visual_judge model: sight halves, the bug-hunt and WC005's model-judged items stay unjudged")
		return out
	}
	var overview []look.Frame
	if w := wideFrames(c); len(w) > 0 && w[0].View == "overview" {
		overview = w[:1]
	}
	if out.Blind != nil && out.Blind.Status == look.Judged {
		bf := blindFrames(c)
		for _, b := range r.Biomes {
			sights := out.Blind.ConfirmedFrames(bf, b.ID)
			if len(sights) == 0 {
				continue
			}
			a := biomeAsk(r, b, sights, overview)
			if len(a.Moves) > 0 {
				// The biome's own bursts (its biome frame, already a
				// sight, is not shown twice), else the page camera's.
				for _, f := range motionFrames(c, b.ID) {
					if !slices.ContainsFunc(sights, func(s look.Frame) bool { return s.View == f.View }) {
						a.Motion = append(a.Motion, f)
					}
				}
			}
			out.Visual[b.ID] = look.JudgeVisual(ctx, m.Visual, dir, a)
		}
	}
	if a, ok := cyclesAsk(r, c); ok {
		out.Visual[CyclesSubject] = look.JudgeVisual(ctx, m.Visual, dir, a)
	}
	if t := r.Test("WC001"); t != nil {
		wide := map[string]bool{}
		frames := wideFrames(c)
		for _, f := range frames {
			wide[f.View] = true
		}
		for _, v := range c.Views {
			if v.Kind == "biome" {
				frames = append(frames, frameOf(v, ""))
			}
		}
		min := 2
		for _, g := range r.Gates {
			if g.ID == "ocean_void" && g.MinViews > 0 {
				min = g.MinViews
			}
		}
		pts := 0.0
		for _, p := range t.Parts {
			if p.ID == "visual_bughunt" {
				pts = p.Points
			}
		}
		out.BugHunt = look.HuntBugs(ctx, m.Visual, dir, frames, wide, pts, min)
	}
	return out
}

// biomeAsk is one biome's visual call: WC003's and WC004's sight items,
// their forbidden items as leaks, WC004's moving entities with a sight
// motion half, and for the delta the ocean-over-the-void question.
func biomeAsk(r *rubric.Rubric, b rubric.Biome, sights, overview []look.Frame) look.Ask {
	a := look.Ask{Subject: fmt.Sprintf("the %s region (%s) of the island", b.Label, b.ID), Sights: sights, Context: overview}
	for _, tid := range []string{"WC003", "WC004"} {
		t := r.Test(tid)
		if t == nil {
			continue
		}
		for _, it := range t.Items {
			if it.Biome != b.ID {
				continue
			}
			for _, h := range it.Halves {
				switch h {
				case rubric.HalfSight:
					a.Items = append(a.Items, look.Question{ID: itemKey(tid, it.ID), Label: it.Label})
				case rubric.HalfSightMotion:
					a.Moves = append(a.Moves, look.Question{ID: itemKey(tid, it.ID), Label: it.Label})
				}
			}
		}
		for _, f := range t.Forbidden {
			if f.Biome == b.ID {
				a.Leaks = append(a.Leaks, look.Question{ID: itemKey(tid, f.ID), Label: f.Label})
			}
		}
	}
	for _, g := range r.Gates {
		if g.ID == "delta_ocean_over_void" && g.Biome == b.ID {
			a.Questions = append(a.Questions, look.Question{ID: OceanOverVoid, Label: "Does ocean water extend out beyond the island as a flat sheet over the black void, with no blocks beneath or around it? Water visibly pouring off an edge as a waterfall does not count."})
		}
	}
	return a
}

// OceanOverVoid is the delta's yes/no question (WC003's gate).
const OceanOverVoid = "ocean_over_void"

// cyclesAsk is WC005's call: its model-judged sight items and its
// forbidden items over the time samples and the season views.
func cyclesAsk(r *rubric.Rubric, c *capture.Capture) (look.Ask, bool) {
	t := r.Test("WC005")
	if t == nil {
		return look.Ask{}, false
	}
	a := look.Ask{Subject: "the whole world at evenly spaced times of its day cycle (time_00 first), and the views the page's own UI named as seasons"}
	for _, v := range c.Views {
		if v.Kind == "time" {
			a.Sights = append(a.Sights, frameOf(v, ""))
		}
	}
	for _, al := range c.Aliases {
		if strings.HasPrefix(al.Name, "season_") {
			if v := view(c, al.Of); v != nil {
				a.Context = append(a.Context, look.Frame{View: al.Name, File: v.File})
			}
		}
	}
	for _, it := range t.Items {
		if it.Sight != "vlm" {
			continue
		}
		if it.ID == "season_cycle" && len(c.Seasons) < 2 {
			continue // judged without a model: no season views
		}
		a.Items = append(a.Items, look.Question{ID: it.ID, Label: it.Label + " (it holds when the pictures show it changing over time)"})
	}
	for _, f := range t.Forbidden {
		a.Leaks = append(a.Leaks, look.Question{ID: f.ID, Label: f.Label})
	}
	return a, len(a.Items)+len(a.Leaks) > 0 && len(a.Sights) > 0
}

// applyLooks turns the looking verdicts into the sight halves, WC001's
// bug-hunt part, WC002's covered parts and the gates that need a model.
func applyLooks(r *rubric.Rubric, rep *Report, l *Looks, p Pixels) {
	c := rep.Capture
	blindOK := l.Blind != nil && l.Blind.Status == look.Judged
	confirmed := map[string][]string{}
	if blindOK {
		for _, f := range l.Blind.Frames {
			if f.Confirmed {
				confirmed[f.ConfirmedBiome] = append(confirmed[f.ConfirmedBiome], f.File)
			}
		}
	}
	// why a biome's sight half has no sighting to rest on, or "".
	noSight := func(biome string) (status, reason string) {
		switch {
		case l.Blind == nil:
			return result.StatusUnjudged, "no blind_identifier model: no sighting can be confirmed"
		case !blindOK:
			return result.StatusUnjudged, l.Blind.Reason
		case len(confirmed[biome]) == 0:
			return StatusFail, "not seen: no frame was blind-confirmed as " + biome + legendNote(c, biome)
		}
		v := l.Visual[biome]
		if v == nil {
			return result.StatusUnjudged, "no visual_judge model"
		}
		if v.Status != look.Judged {
			return result.StatusUnjudged, v.Reason
		}
		return "", ""
	}
	for ti := range rep.Tests {
		tr := &rep.Tests[ti]
		t := r.Test(tr.ID)
		switch tr.ID {
		case "WC003", "WC004":
			for ii := range tr.Items {
				it := &tr.Items[ii]
				ri := itemOf(t, it.ID, it.Biome)
				for hi := range it.Halves {
					h := &it.Halves[hi]
					switch h.Half {
					case rubric.HalfSight:
						if s, why := noSight(it.Biome); s != "" {
							h.Status, h.Reason = s, why
							continue
						}
						sg := l.Visual[it.Biome].Items[itemKey(tr.ID, it.ID)]
						h.Status, h.Reason, h.Frames = StatusFail, sg.Reason, sg.Files
						if sg.Counted {
							h.Status = StatusPass
						}
						if sg.Seen != "" {
							h.Reason += ` ("` + sg.Seen + `")`
						}
					case rubric.HalfSightMotion:
						sightMotion(h, tr.ID, it, ri, l, p, noSight)
					}
				}
			}
			for fi := range tr.Forbidden {
				f := &tr.Forbidden[fi]
				h := &f.Halves[1]
				if s, why := noSight(f.Biome); s != "" {
					h.Status, h.Reason = s, why
					if s == StatusFail {
						h.Status, h.Reason = StatusPass, "not seen: no frame of the biome to see it in"
					}
					continue
				}
				sg := l.Visual[f.Biome].Leaks[itemKey(tr.ID, f.ID)]
				h.Status, h.Reason, h.Frames = StatusPass, "not seen in the biome's confirmed frames", nil
				if sg.Counted {
					h.Status, h.Reason, h.Frames = StatusFail, "leak "+sg.Reason, sg.Files
				}
			}
		case "WC005":
			cyc := l.Visual[CyclesSubject]
			for ii := range tr.Items {
				it := &tr.Items[ii]
				ri := itemOf(t, it.ID, "")
				if ri.Sight != "vlm" {
					continue
				}
				for hi := range it.Halves {
					h := &it.Halves[hi]
					if h.Half != rubric.HalfSight {
						continue
					}
					switch {
					case it.ID == "season_cycle" && len(c.Seasons) < 2:
						h.Status, h.Reason = StatusFail, "no season views: "+c.SeasonsNote
					case cyc == nil:
						h.Status, h.Reason = result.StatusUnjudged, "no visual_judge model"
					case cyc.Status != look.Judged:
						h.Status, h.Reason = result.StatusUnjudged, cyc.Reason
					default:
						sg := cyc.Items[it.ID]
						h.Status, h.Reason, h.Frames = StatusFail, sg.Reason, sg.Files
						if sg.Counted {
							h.Status = StatusPass
						}
					}
				}
			}
			for fi := range tr.Forbidden {
				h := &tr.Forbidden[fi].Halves[1]
				switch {
				case cyc == nil:
				case cyc.Status != look.Judged:
					h.Reason = cyc.Reason
				default:
					sg := cyc.Leaks[tr.Forbidden[fi].ID]
					h.Status, h.Reason = StatusPass, "not seen in the time samples"
					if sg.Counted {
						h.Status, h.Reason, h.Frames = StatusFail, "leak "+sg.Reason, sg.Files
					}
				}
			}
		case "WC001":
			for pi := range tr.Parts {
				pr := &tr.Parts[pi]
				if pr.ID != "visual_bughunt" || l.BugHunt == nil {
					continue
				}
				bh := l.BugHunt
				pr.Frames = nil
				for _, f := range bh.Frames {
					pr.Frames = append(pr.Frames, f.File)
				}
				pr.Reason = bh.Reason
				if bh.Status != look.Judged {
					continue
				}
				e := bh.Score
				pr.Earned = &e
				pr.Status = StatusPass
				if e < pr.Points {
					pr.Status = StatusFail
				}
			}
		case "WC002":
			if !blindOK {
				continue
			}
			var pb map[string]float64
			_ = t.PerBiome.Decode(&pb)
			covered, placed := pb["covered"], pb["placed"]
			var parts []PartReport
			for _, b := range r.Biomes {
				cov := PartReport{ID: "covered", Biome: b.ID, Points: covered, Status: result.StatusUnjudged,
					Reason: "not blind-confirmed: needs the classify model's verified layout quote"}
				if fs := confirmed[b.ID]; len(fs) > 0 {
					cov.Status, cov.Reason, cov.Frames = StatusPass, "blind identification confirmed it", fs
				}
				parts = append(parts, cov, PartReport{ID: "placed", Biome: b.ID, Points: placed, Status: result.StatusUnjudged,
					Reason: "needs the extract model (neighbours and heights from the code)"})
			}
			tr.Parts = parts
		}
	}
	for gi := range rep.Gates {
		g := &rep.Gates[gi]
		switch g.ID {
		case "blind_identification":
			switch {
			case l.Blind == nil:
				g.Reason = "no blind_identifier model"
			case !blindOK:
				g.Reason = l.Blind.Reason
			default:
				n := 0
				for _, f := range l.Blind.Frames {
					if f.Confirmed {
						n++
					}
				}
				g.Status, g.Reason = StatusPass, fmt.Sprintf("%d of %d UI-hidden frames confirmed (biomes: %s)", n, len(l.Blind.Frames), strings.Join(slices.Sorted(maps.Keys(confirmed)), ", "))
			}
		case "ocean_void", "island_gate":
			bh := l.BugHunt
			switch {
			case bh == nil:
				g.Reason = "no visual_judge model"
			case bh.Status != look.Judged:
				g.Reason = bh.Reason
			case bh.OceanVoid:
				g.Status, g.Reason = StatusFail, "water over the void confirmed in "+strings.Join(bh.OceanVoidViews, ", ")
			default:
				g.Status, g.Reason = StatusPass, fmt.Sprintf("water over the void confirmed in %d wide views (fewer than the rule's minimum)", len(bh.OceanVoidViews))
			}
			if g.ID == "island_gate" && judged(g.Status) {
				g.Reason = "follows ocean_void: " + g.Reason
			}
		case "delta_ocean_over_void":
			gr := r.Gates[gi]
			s, why := noSight(gr.Biome)
			switch s {
			case StatusFail:
				g.Status, g.Reason = StatusPass, "no confirmed frame of the biome shows anything: "+why
			case "":
				if l.Visual[gr.Biome].Questions[OceanOverVoid] {
					g.Status, g.Reason = StatusFail, "the visual judge saw ocean over the void in the biome's frames"
				} else {
					g.Status, g.Reason = StatusPass, "the visual judge saw no ocean over the void"
				}
			default:
				g.Reason = why
			}
		}
	}
}

// sightMotion judges a sight-motion half (WC004's V_M): the item is seen,
// the judge's axis agrees with the expected one, and it moves with the
// bursts' changed-pixel fraction at the rubric's minimum (not needed for
// still, n/a and grounded entities) — the biome's own bursts, from its
// close view, when the capture took them (biomeMotion).
func sightMotion(h *HalfReport, test string, it *ItemReport, ri rubric.Item, l *Looks, p Pixels, noSight func(string) (string, string)) {
	if s, why := noSight(it.Biome); s != "" {
		h.Status, h.Reason = s, why
		return
	}
	v := l.Visual[it.Biome]
	sg := v.Items[itemKey(test, it.ID)]
	mv := v.Motion[itemKey(test, it.ID)]
	h.Frames = append(append([]string{}, sg.Files...), mv.Files...)
	h.Measure = map[string]any{"moving": mv.Moving, "axis": mv.Axis, "expected_axis": ri.Axis}
	phi, gate, measured, from := biomeMotion(p, it.Biome)
	if measured {
		h.Measure["max_fraction"], h.Measure["gate"], h.Measure["bursts"] = phi, gate, from
	}
	still := map[string]bool{"still": true, "n/a": true, "grounded": true}[rubric.WC004Axes.Norm(ri.Axis)]
	h.Status = StatusFail
	switch {
	case !sg.Counted:
		h.Reason = "not seen in a confirmed frame"
	case !rubric.WC004Axes.OK(ri.Axis, mv.Axis):
		h.Reason = fmt.Sprintf("the judge's axis %q is not the expected %q", mv.Axis, ri.Axis)
	case still:
		h.Status, h.Reason = StatusPass, "seen, and its expected axis needs no motion"
	case !mv.Moving:
		h.Reason = "the judge saw it still"
	case !gate:
		h.Reason = "the judge said it moves, but the bursts' changed pixels stay under the rubric's minimum"
	default:
		h.Status, h.Reason = StatusPass, fmt.Sprintf("seen moving (%s), and the bursts changed %.5f of their pixels", mv.Axis, phi)
	}
}

func itemOf(t *rubric.Test, id, biome string) rubric.Item {
	for _, it := range t.Items {
		if it.ID == id && it.Biome == biome {
			return it
		}
	}
	return rubric.Item{ID: id, Biome: biome}
}

func legendNote(c *capture.Capture, biome string) string {
	if c == nil || c.Legend == nil {
		return " (no legend framing)"
	}
	for _, b := range c.Legend.Buttons {
		if b.Biome == biome && b.View != "" {
			return " (its legend frame " + path.Base(b.View) + " was not confirmed)"
		}
	}
	return " (the page's legend offers no element naming it)"
}
