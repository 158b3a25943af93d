package worldjudge

import (
	"context"
	"fmt"
	"strings"

	"github.com/worldprobe/worldprobe/internal/llm"
	"github.com/worldprobe/worldprobe/internal/result"
	"github.com/worldprobe/worldprobe/internal/worldjudge/look"
	"github.com/worldprobe/worldprobe/internal/worldjudge/probe"
	"github.com/worldprobe/worldprobe/internal/worldjudge/rubric"
)

// Placement is WC002's reading of the code: classify (is each biome built,
// and which code places it and sets its height) and extract (the island's
// map: neighbours and the elevation order), both by the extract role.
type Placement struct {
	Classify *probe.Classification `json:"classify"`
	Map      *probe.Map            `json:"map"`
}

// ReadPlacement asks the extract role's model for WC002's classify and
// extract calls over the world's source, checks classify's quotes with c
// (source text that ran, as every quote), keeps both on the report, and
// sets WC002's parts (ApplyPlacement). The error is for a fatal model
// error or a cancelled context.
func ReadPlacement(ctx context.Context, rep *Report, r *rubric.Rubric, c *probe.Checker, m llm.Model) error {
	t := r.Test("WC002")
	if t == nil {
		return nil
	}
	var regions []probe.Region
	for _, b := range r.Biomes {
		regions = append(regions, probe.Region{ID: b.ID, Label: b.Label, Aliases: aliases(r, b.ID)})
	}
	cl, err := probe.Classify(ctx, m, c, regions)
	if err != nil {
		return err
	}
	mp, err := probe.Extract(ctx, m, c.Src, regions)
	if err != nil {
		return err
	}
	rep.Placement = &Placement{Classify: cl, Map: mp}
	ApplyPlacement(r, rep)
	return nil
}

// readPlacementWith runs ReadPlacement with the extract role's model when
// the rubric has WC002.
func readPlacementWith(ctx context.Context, rep *Report, r *rubric.Rubric, c *probe.Checker, models Models) error {
	if r.Test("WC002") == nil {
		return nil
	}
	m, err := models.Role(ctx, llm.Extract)
	if err != nil {
		return fmt.Errorf("the extract role: %w", err)
	}
	return ReadPlacement(ctx, rep, r, c, m)
}

// ApplyPlacement sets WC002's parts from blind identification and the
// placement calls: per biome, covered (1 point) when blind identification
// confirmed it or classify found it present with a layout quote that
// earns; placed (1 point) when it is covered and all its rules hold —
// rules naming an uncovered biome are skipped, adjacency is symmetric,
// higher_than needs both ranks. An uncovered biome scores 0. A verdict
// that depends on a call that failed stays unjudged, never 0.
func ApplyPlacement(r *rubric.Rubric, rep *Report) {
	t := r.Test("WC002")
	if t == nil || rep.Placement == nil {
		return
	}
	var pb map[string]float64
	_ = t.PerBiome.Decode(&pb)
	cov := biomeCoverage(r, rep)
	mp := rep.Placement.Map
	var parts []PartReport
	for _, b := range r.Biomes {
		c := cov[b.ID]
		parts = append(parts, PartReport{ID: "covered", Biome: b.ID, Points: pb["covered"], Status: c.status, Reason: c.reason, Frames: c.frames})
		pl := PartReport{ID: "placed", Biome: b.ID, Points: pb["placed"]}
		pl.Status, pl.Reason = placed(t.Relations[b.ID], b.ID, cov, mp)
		parts = append(parts, pl)
	}
	for ti := range rep.Tests {
		if rep.Tests[ti].ID == t.ID {
			rep.Tests[ti].Parts = parts
		}
	}
}

// covState is whether a biome is covered, and why.
type covState struct {
	status, reason string
	frames         []string
}

// biomeCoverage is covered(b) for every biome: blind-confirmed, or present in
// classify with a layout quote that earns.
func biomeCoverage(r *rubric.Rubric, rep *Report) map[string]covState {
	var blind *look.Blind
	if rep.Looks != nil {
		blind = rep.Looks.Blind
	}
	cl := rep.Placement.Classify
	out := map[string]covState{}
	for _, b := range r.Biomes {
		var frames []string
		if blind != nil && blind.Status == look.Judged {
			for _, f := range blind.Frames {
				if f.Confirmed && f.ConfirmedBiome == b.ID {
					frames = append(frames, f.File)
				}
			}
		}
		var l *probe.Layout
		if cl.Status == probe.Judged {
			l = cl.Biomes[b.ID]
		}
		var s covState
		switch {
		case len(frames) > 0:
			s = covState{StatusPass, "blind identification confirmed it", frames}
		case l.Covered():
			s = covState{status: StatusPass, reason: "classify: present, " + layoutNote(l)}
		case blind == nil || blind.Status != look.Judged:
			s = covState{status: result.StatusUnjudged, reason: "classify found no layout code that ran, and blind identification did not judge the frames"}
			if blind != nil && blind.Reason != "" {
				s.reason += ": " + blind.Reason
			}
		case cl.Status != probe.Judged:
			s = covState{status: result.StatusUnjudged, reason: "not blind-confirmed, and " + cl.Reason}
		case l == nil:
			s = covState{status: result.StatusUnjudged, reason: "not blind-confirmed, and the classify reply left this biome out"}
		case !l.Present:
			s = covState{status: StatusFail, reason: "not blind-confirmed, and classify: not present"}
			if l.Reason != "" {
				s.reason += " (" + l.Reason + ")"
			}
		default:
			s = covState{status: StatusFail, reason: "not blind-confirmed, and classify: present but " + layoutNote(l)}
		}
		out[b.ID] = s
	}
	return out
}

// layoutNote says what classify's quotes came to.
func layoutNote(l *probe.Layout) string {
	var parts []string
	for _, q := range []struct {
		name string
		ev   *probe.Evidence
	}{{"placement", l.Placement}, {"elevation", l.Elevation}} {
		switch {
		case q.ev == nil:
			parts = append(parts, "no "+q.name+" code")
		case q.ev.OK:
			parts = append(parts, q.name+" code at HTML lines "+spans(q.ev.Lines))
		default:
			parts = append(parts, q.name+" code refused ("+q.ev.Refused+")")
		}
	}
	return strings.Join(parts, ", ")
}

// placed judges a biome's rules on the extracted map.
func placed(rel rubric.Relations, b string, cov map[string]covState, mp *probe.Map) (string, string) {
	switch cov[b].status {
	case StatusFail:
		return StatusFail, "not covered: scores 0"
	case result.StatusUnjudged:
		return result.StatusUnjudged, "follows covered, which is not judged"
	}
	// Every biome a rule names must have a known coverage first.
	var open []string
	for _, x := range relNames(rel) {
		if cov[x].status == result.StatusUnjudged {
			open = append(open, x)
		}
	}
	if len(open) > 0 {
		return result.StatusUnjudged, "its rules name " + strings.Join(open, ", ") + ", whose coverage is not judged"
	}
	if mp.Status != probe.Judged {
		return result.StatusUnjudged, mp.Reason
	}
	failed, skipped := RuleFailures(rel, b, func(x string) bool { return cov[x].status == StatusPass }, mp)
	note := ""
	if len(skipped) > 0 {
		note = "; skipped (not covered): " + strings.Join(skipped, ", ")
	}
	if len(failed) > 0 {
		return StatusFail, "rules broken: " + strings.Join(failed, "; ") + note
	}
	return StatusPass, "every rule holds on the extracted map" + note
}

func relNames(rel rubric.Relations) []string {
	var out []string
	for _, l := range [][]string{rel.MustConnect, rel.MustConnectAny, rel.MustNotConnect, rel.HigherThan} {
		out = append(out, l...)
	}
	return out
}

// RuleFailures checks biome b's rules on the map: the broken rules, and
// the rules skipped because they name a biome that is not covered. A
// must_connect_any rule is skipped only when none of its biomes is
// covered; higher_than needs both ranks.
func RuleFailures(rel rubric.Relations, b string, covered func(string) bool, mp *probe.Map) (failed, skipped []string) {
	for _, x := range rel.MustConnect {
		switch {
		case !covered(x):
			skipped = append(skipped, "must connect "+x)
		case !mp.Adjacent(b, x):
			failed = append(failed, "does not touch "+x)
		}
	}
	if len(rel.MustConnectAny) > 0 {
		var cand []string
		hit := false
		for _, x := range rel.MustConnectAny {
			if covered(x) {
				cand = append(cand, x)
				hit = hit || mp.Adjacent(b, x)
			}
		}
		switch {
		case len(cand) == 0:
			skipped = append(skipped, "must connect one of "+strings.Join(rel.MustConnectAny, ", "))
		case !hit:
			failed = append(failed, "touches none of "+strings.Join(cand, ", "))
		}
	}
	for _, x := range rel.MustNotConnect {
		switch {
		case !covered(x):
			skipped = append(skipped, "must not connect "+x)
		case mp.Adjacent(b, x):
			failed = append(failed, "touches "+x)
		}
	}
	rb, okb := mp.Rank(b)
	for _, x := range rel.HigherThan {
		rx, okx := mp.Rank(x)
		switch {
		case !covered(x):
			skipped = append(skipped, "higher than "+x)
		case !okb || !okx:
			failed = append(failed, fmt.Sprintf("higher than %s: not both in the elevation order", x))
		case rb >= rx:
			failed = append(failed, "not higher than "+x)
		}
	}
	return failed, skipped
}

// locationHint is WC002's placement code for a biome, for the evidence
// agent: where the world puts it (a lead, not proof); "" when classify
// gave none that earned.
func locationHint(rep *Report, biome string) string {
	if rep.Placement == nil || rep.Placement.Classify == nil || biome == "" {
		return ""
	}
	l := rep.Placement.Classify.Biomes[biome]
	if l == nil {
		return ""
	}
	for _, ev := range []*probe.Evidence{l.Placement, l.Elevation} {
		if ev != nil && ev.OK {
			return fmt.Sprintf("the code that places this biome (HTML lines %s):\n%s", spans(ev.Lines), ev.Quote)
		}
	}
	return ""
}
