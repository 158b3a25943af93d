package worldjudge

import (
	"sort"
	"strings"

	"github.com/worldprobe/worldprobe/internal/result"
	"github.com/worldprobe/worldprobe/internal/worldjudge/measure"
	"github.com/worldprobe/worldprobe/internal/worldjudge/rubric"
)

// Error classes of lost points (WorldBench's E1–E4, by the state of an
// item's code and frames channels), plus penalties and gates.
const (
	// ClassE1: no verified quote, not seen (absent).
	ClassE1 = "E1"
	// ClassE2: a verified quote, not seen (unobserved).
	ClassE2 = "E2"
	// ClassE3: no verified quote, seen (unattributed).
	ClassE3 = "E3"
	// ClassE4: both channels positive, points lost anyway (WC004's motion).
	ClassE4 = "E4"
	// ClassPenalty: a forbidden item's penalty.
	ClassPenalty = "penalty"
	// ClassGate: points a gate took (ocean over the void, the island gate).
	ClassGate = "gate"
)

// BiomeTally is one biome's score in a per-biome test.
type BiomeTally struct {
	Biome  string  `json:"biome"`
	Points float64 `json:"points"`
	Tally
	// Leaks are the forbidden items known to leak; Gated names the gate
	// that zeroed the biome, or the gate still open.
	Leaks []string `json:"leaks,omitempty"`
	Gated string   `json:"gated,omitempty"`
}

// BiomeReport is the per-biome breakdown across the tests.
type BiomeReport struct {
	ID    string `json:"id"`
	Label string `json:"label"`
	// Frames are the frames blind identification confirmed as the biome;
	// Legend is the frame the legend framing took for it.
	Frames []string `json:"frames"`
	Legend string   `json:"legend,omitempty"`
	// Tests are its score in each test that scores biomes.
	Tests map[string]Tally `json:"tests"`
}

// Lost is every lost point, classed. WorldBench's classes cover WC003 and
// WC004; the other tests' lost points are counted in Other.
type Lost struct {
	E1        float64 `json:"E1"`
	E2        float64 `json:"E2"`
	E3        float64 `json:"E3"`
	E4        float64 `json:"E4"`
	Penalties float64 `json:"penalties"`
	Gates     float64 `json:"gates"`
	// Open is points lost on items whose other channel is not judged yet:
	// lost for sure, but not classed.
	Open float64 `json:"open"`
	// Other is what WC001, WC002 and WC005 lost.
	Other float64    `json:"other"`
	Items []LostItem `json:"items"`
}

// LostItem is one item's lost points.
type LostItem struct {
	Test   string  `json:"test"`
	Biome  string  `json:"biome,omitempty"`
	ID     string  `json:"id"`
	Points float64 `json:"points"`
	Class  string  `json:"class"`
}

// halfPoints is a half's worth: the item's points times its share, 2
// decimals (WorldBench rounds each g).
func halfPoints(it *ItemReport, h HalfReport) float64 { return measure.Round(it.Points*h.Share, 2) }

func judged(status string) bool { return status == StatusPass || status == StatusFail }

// leakPenalty is a forbidden item's penalty: its own, else its biome's
// unit (round(per_biome / Σ weights, 2), WorldBench's round(u·w_l, 2)).
func leakPenalty(r *rubric.Rubric, t *rubric.Test, f rubric.Forbidden) float64 {
	if f.Penalty > 0 || f.Biome == "" {
		return f.Penalty
	}
	sum := 0.0
	for _, it := range t.Items {
		if it.Biome == f.Biome {
			sum += max(it.Weight, 0)
		}
	}
	if sum == 0 {
		return 0
	}
	return measure.Round(t.PerBiomePoints()/sum, 2)
}

// gateState is what the gates decided for the scores: the biomes each
// per-biome test must score 0 ("" when not), and the ones still open.
type gateState struct {
	zero map[string]map[string]string // test → biome → gate id
	open map[string]map[string]string
}

func (g gateState) set(m map[string]map[string]string, test, biome, id string) {
	if m[test] == nil {
		m[test] = map[string]string{}
	}
	m[test][biome] = id
}

// gateEffects reads the gates' statuses: delta_ocean_over_void zeroes its
// biome in its test when it fails; island_gate zeroes its biome in its
// test when ocean_void fails; an unjudged gate leaves the biome open.
func gateEffects(r *rubric.Rubric, gates []GateReport) gateState {
	st := map[string]string{}
	for _, g := range gates {
		st[g.ID] = g.Status
	}
	out := gateState{zero: map[string]map[string]string{}, open: map[string]map[string]string{}}
	for _, g := range r.Gates {
		if g.Test == "" || g.Biome == "" {
			continue
		}
		s := st[g.ID]
		if g.When != "" {
			s = st[g.When]
		}
		switch s {
		case StatusFail:
			out.set(out.zero, g.Test, g.Biome, g.ID)
		case StatusPass, StatusNotApplicable:
		default:
			out.set(out.open, g.Test, g.Biome, g.ID)
		}
	}
	return out
}

// Aggregate recomputes every item's earned points, each test's and
// biome's tallies, the ladder's score and the classes of lost points from
// the halves' statuses, the parts and the gates (WorldBench's formulas:
// a per-biome test's biome scores max(0, Σg − leaks), a zeroing gate
// takes its biome's score, WC005 loses its penalty per leak). It is
// idempotent, so whoever judges a half can call it again.
func Aggregate(r *rubric.Rubric, rep *Report) {
	gs := gateEffects(r, rep.Gates)
	lost := &Lost{Items: []LostItem{}}
	biomeTallies := map[string]map[string]Tally{}
	rep.Score = Score{Max: r.TotalPoints}
	scoreOpen := false
	for ti := range rep.Tests {
		tr := &rep.Tests[ti]
		t := r.Test(tr.ID)
		if t == nil {
			continue
		}
		tr.Tally, tr.Biomes = Tally{}, nil
		open := false
		for _, p := range tr.Parts {
			switch p.Status {
			case StatusPass, StatusFail:
				e := 0.0
				switch {
				case p.Earned != nil:
					e = *p.Earned
				case p.Status == StatusPass:
					e = p.Points
				}
				tr.Judged += p.Points
				tr.EarnedOfJudged += e
				if tr.ID != "WC003" && tr.ID != "WC004" && e < p.Points {
					lost.Other += p.Points - e
				}
				if p.Biome != "" {
					addTally(biomeTallies, p.Biome, tr.ID, Tally{Judged: p.Points, EarnedOfJudged: e})
				}
			default:
				tr.Unjudged += p.Points
				open = true
				if p.Biome != "" {
					addTally(biomeTallies, p.Biome, tr.ID, Tally{Unjudged: p.Points})
				}
			}
		}
		groups, order := groupItems(tr)
		perBiome := t.PerBiomePoints() > 0 && len(t.Items) > 0
		for _, b := range order {
			g := scoreGroup(r, t, tr, groups[b], b, gs, lost)
			if perBiome {
				g.Points = t.PerBiomePoints()
				if g.Unjudged > 0 || g.Earned == nil {
					g.Unjudged = measure.Round(max(0, g.Points-g.Judged), 2)
				}
				tr.Biomes = append(tr.Biomes, g)
				addTally(biomeTallies, b, tr.ID, g.Tally)
			}
			tr.Judged += g.Judged
			tr.EarnedOfJudged += g.EarnedOfJudged
			open = open || g.Earned == nil
		}
		if open {
			tr.Unjudged = measure.Round(t.Points-measure.Round(tr.Judged, 2), 2)
		}
		tr.round(open)
		rep.Score.Judged += tr.Judged
		rep.Score.EarnedOfJudged += tr.EarnedOfJudged
		rep.Score.Unjudged += tr.Unjudged
		scoreOpen = scoreOpen || open
	}
	rep.Score.round(scoreOpen)
	for _, v := range []*float64{&lost.E1, &lost.E2, &lost.E3, &lost.E4, &lost.Penalties, &lost.Gates, &lost.Open, &lost.Other} {
		*v = measure.Round(*v, 2)
	}
	rep.Lost = lost
	rep.Biomes = biomeReports(r, rep, biomeTallies)
}

func addTally(m map[string]map[string]Tally, biome, test string, t Tally) {
	if m[biome] == nil {
		m[biome] = map[string]Tally{}
	}
	cur := m[biome][test]
	cur.Judged += t.Judged
	cur.EarnedOfJudged += t.EarnedOfJudged
	cur.Unjudged += t.Unjudged
	m[biome][test] = cur
}

type group struct {
	items     []*ItemReport
	forbidden []*ItemReport
}

// groupItems groups a test's items and forbidden items by biome ("" for
// none), in the order they come.
func groupItems(tr *TestReport) (map[string]*group, []string) {
	out := map[string]*group{}
	var order []string
	get := func(b string) *group {
		if out[b] == nil {
			out[b] = &group{}
			order = append(order, b)
		}
		return out[b]
	}
	for i := range tr.Items {
		g := get(tr.Items[i].Biome)
		g.items = append(g.items, &tr.Items[i])
	}
	for i := range tr.Forbidden {
		g := get(tr.Forbidden[i].Biome)
		g.forbidden = append(g.forbidden, &tr.Forbidden[i])
	}
	return out, order
}

// scoreGroup scores one biome's (or a test's) items and leaks.
func scoreGroup(r *rubric.Rubric, t *rubric.Test, tr *TestReport, g *group, biome string, gs gateState, lost *Lost) BiomeTally {
	bt := BiomeTally{Biome: biome}
	sum, judgedPts, open := 0.0, 0.0, false
	classed := tr.ID == "WC003" || tr.ID == "WC004"
	gate := gs.zero[tr.ID][biome]
	var itemLost []LostItem
	for _, it := range g.items {
		earned, all := 0.0, true
		code, sight := "", ""
		failed := 0.0
		for _, h := range it.Halves {
			pts := halfPoints(it, h)
			switch h.Status {
			case StatusPass:
				got := pts
				if h.Earned != nil { // WC001: the points times the probability
					got = *h.Earned
				}
				earned += got
				judgedPts += pts
				failed += pts - got
			case StatusFail:
				judgedPts += pts
				if h.Earned != nil {
					earned += *h.Earned
					failed -= *h.Earned
				}
				failed += pts
			default:
				all = false
			}
			ch := &sight
			if h.Half == rubric.HalfCode || h.Half == rubric.HalfCodeMotion {
				ch = &code
			}
			switch {
			case h.Status == StatusPass:
				*ch = StatusPass
			case h.Status == StatusFail && *ch == "":
				*ch = StatusFail
			case !judged(h.Status) && *ch != StatusPass:
				*ch = result.StatusUnjudged
			}
		}
		earned = measure.Round(earned, 2)
		sum += earned
		it.Earned, it.Lost, it.Class = nil, 0, ""
		if all {
			e := earned
			it.Earned = &e
		} else {
			open = true
		}
		l := measure.Round(failed, 2)
		if l <= 0 {
			continue
		}
		class := ""
		switch {
		case !classed:
			lost.Other += l
			continue
		case judged(code) && judged(sight):
			class = map[[2]bool]string{{false, false}: ClassE1, {true, false}: ClassE2, {false, true}: ClassE3, {true, true}: ClassE4}[[2]bool{code == StatusPass, sight == StatusPass}]
		}
		it.Lost, it.Class = l, class
		itemLost = append(itemLost, LostItem{Test: tr.ID, Biome: biome, ID: it.ID, Points: l, Class: class})
	}
	penalty := 0.0
	for _, f := range g.forbidden {
		rf := forbiddenOf(t, f.ID, biome)
		p := leakPenalty(r, t, rf)
		f.Points = -p
		leak, clean := false, true
		for _, h := range f.Halves {
			leak = leak || h.Status == StatusFail
			clean = clean && h.Status == StatusPass
		}
		f.Earned = nil
		switch {
		case leak:
			penalty += p
			bt.Leaks = append(bt.Leaks, f.ID)
			e := -p
			f.Earned = &e
		case clean:
			z := 0.0
			f.Earned = &z
		default:
			open = true
		}
	}
	bt.Judged = measure.Round(judgedPts, 2)
	earned := measure.Round(max(0, sum-penalty), 2)
	switch {
	case gate != "":
		// A zeroing gate: the biome's score is 0 whatever else is judged.
		bt.Gated = gate
		bt.Judged = groupPoints(t, g)
		bt.EarnedOfJudged, bt.Unjudged = 0, 0
		e := 0.0
		bt.Earned = &e
		if gl := measure.Round(sum-penalty, 2); gl > 0 {
			lost.Gates += gl
			lost.Items = append(lost.Items, LostItem{Test: tr.ID, Biome: biome, ID: "(" + gate + ")", Points: gl, Class: ClassGate})
		}
	default:
		if g := gs.open[tr.ID][biome]; g != "" {
			bt.Gated = g + " (not judged yet)"
			open = true
		}
		bt.EarnedOfJudged = earned
		if open {
			bt.Unjudged = measure.Round(max(0, groupPoints(t, g)-bt.Judged), 2)
		} else {
			e := earned
			bt.Earned = &e
		}
	}
	if gate == "" {
		for _, li := range itemLost {
			switch li.Class {
			case ClassE1:
				lost.E1 += li.Points
			case ClassE2:
				lost.E2 += li.Points
			case ClassE3:
				lost.E3 += li.Points
			case ClassE4:
				lost.E4 += li.Points
			default:
				lost.Open += li.Points
			}
			lost.Items = append(lost.Items, li)
		}
		if penalty > 0 {
			// A penalty costs what it took off the score (the floor at 0
			// may keep some of it).
			took := measure.Round(min(penalty, sum), 2)
			if classed {
				lost.Penalties += took
			} else {
				lost.Other += took
			}
			lost.Items = append(lost.Items, LostItem{Test: tr.ID, Biome: biome, ID: strings.Join(bt.Leaks, ", "), Points: took, Class: ClassPenalty})
		}
	}
	return bt
}

func groupPoints(t *rubric.Test, g *group) float64 {
	if pb := t.PerBiomePoints(); pb > 0 {
		return pb
	}
	s := 0.0
	for _, it := range g.items {
		s += it.Points
	}
	return measure.Round(s, 2)
}

func forbiddenOf(t *rubric.Test, id, biome string) rubric.Forbidden {
	for _, f := range t.Forbidden {
		if f.ID == id && f.Biome == biome {
			return f
		}
	}
	return rubric.Forbidden{ID: id, Biome: biome}
}

// biomeReports is the per-biome breakdown.
func biomeReports(r *rubric.Rubric, rep *Report, tallies map[string]map[string]Tally) []BiomeReport {
	var out []BiomeReport
	for _, b := range r.Biomes {
		br := BiomeReport{ID: b.ID, Label: b.Label, Frames: []string{}, Tests: map[string]Tally{}}
		for test, t := range tallies[b.ID] {
			t.Judged, t.EarnedOfJudged, t.Unjudged = measure.Round(t.Judged, 2), measure.Round(t.EarnedOfJudged, 2), measure.Round(t.Unjudged, 2)
			if t.Unjudged == 0 {
				e := t.EarnedOfJudged
				t.Earned = &e
			}
			br.Tests[test] = t
		}
		for _, tr := range rep.Tests {
			for _, bt := range tr.Biomes {
				if bt.Biome == b.ID {
					br.Tests[tr.ID] = bt.Tally
				}
			}
		}
		if c := rep.Capture; c != nil && c.Legend != nil {
			for _, btn := range c.Legend.Buttons {
				if btn.Biome == b.ID && btn.View != "" {
					br.Legend = "frames/" + btn.View + ".png"
				}
			}
		}
		if l := rep.Looks; l != nil && l.Blind != nil {
			for _, f := range l.Blind.Frames {
				if f.Confirmed && f.ConfirmedBiome == b.ID {
					br.Frames = append(br.Frames, f.File)
				}
			}
			sort.Strings(br.Frames)
		}
		out = append(out, br)
	}
	return out
}
