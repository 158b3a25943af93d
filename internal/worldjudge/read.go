package worldjudge

import (
	"context"
	"fmt"
	"strings"

	"github.com/worldprobe/worldprobe/internal/llm"
	"github.com/worldprobe/worldprobe/internal/pool"
	"github.com/worldprobe/worldprobe/internal/result"
	"github.com/worldprobe/worldprobe/internal/worldjudge/coverage"
	"github.com/worldprobe/worldprobe/internal/worldjudge/measure"
	"github.com/worldprobe/worldprobe/internal/worldjudge/probe"
	"github.com/worldprobe/worldprobe/internal/worldjudge/quote"
	"github.com/worldprobe/worldprobe/internal/worldjudge/rubric"
)

// Models gives the judge its model roles; *llm.Registry is one.
type Models interface {
	Role(ctx context.Context, role llm.Role) (llm.Model, error)
}

// RefusedQuote is a quote a model gave that earned nothing.
type RefusedQuote struct {
	Test  string `json:"test"`
	Biome string `json:"biome,omitempty"`
	Item  string `json:"item"`
	Half  string `json:"half"`
	probe.Evidence
}

// ProbeJobs is how many code probe calls run at once.
const ProbeJobs = 4

// MaxHunts caps the evidence agent's runs per world.
const MaxHunts = 12

// ReadCode is the reading side with models: the code probe quotes the
// world's source for every item with a code half (one call per test and
// biome), each quote is checked (source text, repaired once by picked
// line numbers, then run), the code halves get their verdicts, WC002's
// classify and extract calls judge coverage and placement (place.go), the
// evidence agent (with WC002's placement code as its location hint) looks again at items whose sight half passed but whose
// code half failed, and the tallies are summed again (the score stays open
// while any half is unjudged). The error is for a fatal model error (a bad
// key, a spent budget is not one) or a cancelled context.
func ReadCode(ctx context.Context, rep *Report, r *rubric.Rubric, html string, models Models) error {
	pm, err := models.Role(ctx, llm.CodeProbe)
	if err != nil {
		return fmt.Errorf("the code_probe role: %w", err)
	}
	am, err := models.Role(ctx, llm.EvidenceAgent)
	if err != nil {
		return fmt.Errorf("the evidence_agent role: %w", err)
	}
	var cov *coverage.Report
	if rep.Coverage != nil {
		cov = rep.Coverage.Report
	}
	c := probe.NewChecker(html, cov, quote.Rules{MinChars: r.Quote.MinChars, MinMatchShare: r.Quote.MinMatchShare, MinPrefixShare: r.Quote.MinPrefixShare}, pm)
	groups := Groups(r)
	found := map[string]*probe.Finding{}
	err = pool.Map(ctx, ProbeJobs, len(groups), func(ctx context.Context, i int) (*probe.Result, error) {
		return probe.Probe(ctx, pm, c, groups[i])
	}, func(i int, res *probe.Result) error {
		for id, f := range res.Findings {
			found[findingKey(res.Group.Test, res.Group.Biome, id)] = f
		}
		return nil
	})
	if err != nil {
		return err
	}
	rep.Mode = "models"
	ApplyFindings(rep, r, found)
	if err := readPlacementWith(ctx, rep, r, c, models); err != nil {
		return err
	}
	if err := Recheck(ctx, rep, r, c, am); err != nil {
		return err
	}
	Aggregate(r, rep)
	return nil
}

// readWithModels runs ReadCode when the judgement has models and a
// capture to check quotes against: a world never captured, or captured
// without the coverage asked for, has no way to tell code that ran, so its
// code halves stay unjudged, saying why.
func readWithModels(ctx context.Context, rep *Report, o Options, html string) error {
	if o.Offline || o.Models == nil {
		return nil
	}
	rep.Mode = "models"
	why := ""
	switch {
	case rep.Status == NotCaptured || rep.Status == Overloaded:
		why = "the world was not captured, so no quote can be checked against what ran"
	case o.Capture.Coverage && rep.Coverage == nil:
		why = "coverage was asked for but none was collected, so no quote can be checked against what ran"
	}
	if why == "" {
		return ReadCode(ctx, rep, o.Rubric, html, o.Models)
	}
	for ti := range rep.Tests {
		for ii := range rep.Tests[ti].Items {
			for hi := range rep.Tests[ti].Items[ii].Halves {
				if h := &rep.Tests[ti].Items[ii].Halves[hi]; h.Half == rubric.HalfCode || h.Half == rubric.HalfCodeMotion {
					h.Reason = why
				}
			}
		}
	}
	return nil
}

func findingKey(test, biome, id string) string { return test + "/" + biome + "/" + id }

// Groups are the code probe's calls for a rubric: per biome for a test
// split by biome (WC003, WC004), else the whole test (WC001, WC005), each
// with the items that have a code half. An item wants a motion quote when
// it has a code_motion half or follows a clock (WC005).
func Groups(r *rubric.Rubric) []probe.Group {
	var out []probe.Group
	for ti := range r.Tests {
		t := &r.Tests[ti]
		prob := false
		for _, p := range t.Parts {
			prob = prob || p.ID == "source_judge"
		}
		byBiome := map[string]*probe.Group{}
		var order []string
		for _, it := range t.Items {
			if !hasCodeHalf(it) {
				continue
			}
			g := byBiome[it.Biome]
			if g == nil {
				g = &probe.Group{Test: t.ID, Title: t.Title, Biome: it.Biome, Aliases: aliases(r, it.Biome), Probability: prob}
				for _, b := range r.Biomes {
					if b.ID == it.Biome {
						g.BiomeLabel = b.Label
					}
				}
				byBiome[it.Biome] = g
				order = append(order, it.Biome)
			}
			g.Items = append(g.Items, probe.Ask{ID: it.ID, Label: it.Label, Motion: wantsMotion(it), Axis: expectedAxis(it)})
		}
		for _, f := range t.Forbidden {
			g := byBiome[f.Biome]
			if g == nil {
				// A forbidden item of a biome no item of the test names.
				g = &probe.Group{Test: t.ID, Title: t.Title, Biome: f.Biome, Aliases: aliases(r, f.Biome), Probability: prob}
				byBiome[f.Biome] = g
				order = append(order, f.Biome)
			}
			g.Items = append(g.Items, probe.Ask{ID: f.ID, Label: f.Label, Forbidden: true})
		}
		for _, b := range order {
			out = append(out, *byBiome[b])
		}
	}
	return out
}

func hasCodeHalf(it rubric.Item) bool {
	for _, h := range it.Halves {
		if h == rubric.HalfCode || h == rubric.HalfCodeMotion {
			return true
		}
	}
	return false
}

func wantsMotion(it rubric.Item) bool {
	for _, h := range it.Halves {
		if h == rubric.HalfCodeMotion {
			return true
		}
	}
	return it.Clock != ""
}

// expectedAxis is an item's expected motion: its axis (WC004), else
// "cyclic" for an item following a clock (WC005, as WorldBench's
// templates say of every one).
func expectedAxis(it rubric.Item) string {
	if it.Axis == "" && it.Clock != "" {
		return "cyclic"
	}
	return it.Axis
}

// aliases are the names a world may give a biome (any test's scope
// aliases).
func aliases(r *rubric.Rubric, biome string) []string {
	if biome == "" {
		return nil
	}
	for _, t := range r.Tests {
		if a := t.Scope[biome]; len(a) > 0 {
			return a
		}
	}
	return nil
}

// ApplyFindings gives the code halves their verdicts from the probe's
// findings (keyed test/biome/item):
//   - code: the look quote is source text that ran; WC005's code half
//     needs its motion quote too (a cycle is built and advanced); WC001's
//     source judge earns points × the model's probability, and passes at
//     a probability of 0.5 or more;
//   - code_motion: the motion quote is source text that ran, and is not
//     the look quote.
//
// A finding without a verdict (the call failed, the reply could not be
// read) leaves its halves unjudged, saying why.
func ApplyFindings(rep *Report, r *rubric.Rubric, found map[string]*probe.Finding) {
	onceInBiome(rep, found)
	for ti := range rep.Tests {
		tr := &rep.Tests[ti]
		for fi := range tr.Forbidden {
			fr := &tr.Forbidden[fi]
			f := found[findingKey(tr.ID, fr.Biome, fr.ID)]
			for hi := range fr.Halves {
				if h := &fr.Halves[hi]; h.Half == rubric.HalfCode && f != nil {
					forbiddenCode(h, f)
					if h.Status == StatusPass {
						for _, ev := range h.Evidence {
							if ev.Quote != "" {
								rep.RefusedQuotes = append(rep.RefusedQuotes, RefusedQuote{Test: tr.ID, Biome: fr.Biome, Item: fr.ID, Half: h.Half, Evidence: ev})
							}
						}
					}
				}
			}
		}
		for ii := range tr.Items {
			ir := &tr.Items[ii]
			f := found[findingKey(tr.ID, ir.Biome, ir.ID)]
			if f == nil {
				continue
			}
			for hi := range ir.Halves {
				hr := &ir.Halves[hi]
				if hr.Half != rubric.HalfCode && hr.Half != rubric.HalfCodeMotion {
					continue
				}
				codeHalf(hr, tr.ID, ir, f)
				for _, ev := range hr.Evidence {
					if !ev.OK && ev.Quote != "" {
						rep.RefusedQuotes = append(rep.RefusedQuotes, RefusedQuote{Test: tr.ID, Biome: ir.Biome, Item: ir.ID, Half: hr.Half, Evidence: ev})
					}
				}
			}
		}
	}
}

// OnceInBiome are the tests where one quote earns for one item of a biome
// only (WorldBench's evidence hash, probe.CodeHash; WC004 and WC005): a
// generic line such as scene.add(mesh) cannot stand for ten items.
var OnceInBiome = map[string]bool{"WC004": true, "WC005": true}

// onceInBiome refuses (probe.RefusedReused) a verdict's quotes when one of
// their evidence hashes already earned for an earlier item of the same
// test and biome, in rubric order. It runs after every other check (the
// quote check, coverage, the motion rules), so only a verdict that passes
// them all takes its hashes: WC004's look verdict (C_L) its look quote's,
// its motion verdict (C_M) its motion quote's; WC005's one code verdict
// (C) both, the motion quote's only when it differs from the look
// quote.
func onceInBiome(rep *Report, found map[string]*probe.Finding) {
	for _, tr := range rep.Tests {
		if !OnceInBiome[tr.ID] {
			continue
		}
		used := map[string]string{}
		for _, it := range tr.Items {
			f := found[findingKey(tr.ID, it.Biome, it.ID)]
			if f == nil {
				continue
			}
			units := [][]*probe.Evidence{{f.Look}, {f.Motion}}
			if f.Motion != nil && !hasHalf(&it, rubric.HalfCodeMotion) {
				units = [][]*probe.Evidence{{f.Look, f.Motion}} // a cycle: built and advanced
			}
			for _, u := range units {
				keys, ok := []string{}, true
				for _, ev := range u {
					ok = ok && ev != nil && ev.OK
				}
				if !ok {
					continue
				}
				var reused *probe.Evidence
				first := ""
				for _, ev := range u {
					k := it.Biome + "/" + probe.CodeHash(ev.Quote)
					if by, ok := used[k]; ok && by != it.ID {
						reused, first = ev, by
						break
					}
					keys = append(keys, k)
				}
				if reused != nil {
					reused.OK, reused.Refused = false, probe.RefusedReused
					reused.Detail = fmt.Sprintf("evidence hash %s: the same code already earned for %s", probe.CodeHash(reused.Quote), first)
					continue
				}
				for _, k := range keys {
					used[k] = it.ID
				}
			}
		}
	}
}

// forbiddenCode judges a forbidden item's code half: "fail" (it leaks)
// when its quote is source text that ran, else "pass".
func forbiddenCode(hr *HalfReport, f *probe.Finding) {
	hr.Evidence = nil
	switch {
	case f.Unjudged != "":
		hr.Status, hr.Reason = result.StatusUnjudged, f.Unjudged
	case !f.Found:
		hr.Status, hr.Reason = StatusPass, "the code probe found no code building it"
	case f.Look == nil:
		hr.Status, hr.Reason = StatusPass, "the code probe claimed it without a quote"
	default:
		hr.Evidence = []probe.Evidence{*f.Look}
		hr.Status, hr.Reason = StatusPass, "no leak proven: the "+describe(f.Look)
		if f.Look.OK {
			hr.Status, hr.Reason = StatusFail, "it leaks: the "+describe(f.Look)
		}
	}
}

func codeHalf(hr *HalfReport, test string, ir *ItemReport, f *probe.Finding) {
	hr.Evidence = nil
	if f.Unjudged != "" {
		hr.Status, hr.Reason = result.StatusUnjudged, f.Unjudged
		return
	}
	if !f.Found {
		hr.Status, hr.Reason = StatusFail, "the code probe found no code for it"
		if f.Reason != "" {
			hr.Reason += ": " + f.Reason
		}
		return
	}
	var need []*probe.Evidence
	switch {
	case hr.Half == rubric.HalfCodeMotion:
		need = []*probe.Evidence{f.Motion}
	case f.Motion != nil && hr.Half == rubric.HalfCode && !hasHalf(ir, rubric.HalfCodeMotion):
		// A cycle (WC005): built and advanced.
		need = []*probe.Evidence{f.Look, f.Motion}
	default:
		need = []*probe.Evidence{f.Look}
	}
	ok := true
	var why []string
	for _, ev := range need {
		if ev == nil {
			ok = false
			why = append(why, "no quote")
			continue
		}
		hr.Evidence = append(hr.Evidence, *ev)
		ok = ok && ev.OK
		why = append(why, describe(ev))
	}
	hr.Status, hr.Reason = StatusFail, strings.Join(why, "; ")
	if ok {
		hr.Status = StatusPass
	}
	if test == "WC001" && hr.Half == rubric.HalfCode {
		e := 0.0
		if ok {
			e = measure.Round(ir.Points*hr.Share*f.Probability, 2)
		}
		hr.Earned = &e
		if ok && f.Probability < 0.5 {
			hr.Status = StatusFail
		}
		hr.Reason += fmt.Sprintf(" (probability %g)", f.Probability)
	}
}

func hasHalf(ir *ItemReport, half string) bool {
	for _, h := range ir.Halves {
		if h.Half == half {
			return true
		}
	}
	return false
}

// describe says in a few words what the check of a quote found.
func describe(ev *probe.Evidence) string {
	s := ev.Kind + " quote"
	if ev.By == probe.ByAgent {
		s += " (evidence agent)"
	}
	if ev.Repair == probe.RepairMechanical || ev.Repair == probe.RepairModel {
		s += " repaired (" + ev.Repair + ")"
	}
	switch ev.Refused {
	case "":
		s += " verified (" + ev.Verdict.How + ") at HTML lines " + spans(ev.Lines)
		if ev.Ran != nil {
			s += ", ran"
		} else {
			s += ", coverage not collected"
		}
	case probe.RefusedNotRun:
		s += " is source text at HTML lines " + spans(ev.Lines) + " that never ran: refused"
	default:
		s += " refused: " + ev.Refused
	}
	if ev.Detail != "" {
		s += " (" + ev.Detail + ")"
	}
	return s
}

func spans(ss []quote.Span) string {
	var out []string
	for _, s := range ss {
		if s.From == s.To {
			out = append(out, fmt.Sprint(s.From))
		} else {
			out = append(out, fmt.Sprintf("%d–%d", s.From, s.To))
		}
	}
	return strings.Join(out, ", ")
}

// Recheck runs the evidence agent (at most MaxHunts times) for every item
// whose sight half passed but whose code half failed: the frames show it,
// the probe did not find its code. A hunt whose quote is source text that
// ran gives the code half its pass; any other hunt is kept on the half as
// evidence of the search.
func Recheck(ctx context.Context, rep *Report, r *rubric.Rubric, c *probe.Checker, m llm.Model) error {
	hunts := 0
	for ti := range rep.Tests {
		tr := &rep.Tests[ti]
		for ii := range tr.Items {
			ir := &tr.Items[ii]
			in, hr := HuntFor(r, tr.ID, ir)
			if hr == nil {
				continue
			}
			if hunts >= MaxHunts {
				hr.Reason += fmt.Sprintf("; not rechecked (at most %d evidence agent runs per world)", MaxHunts)
				continue
			}
			hunts++
			in.LocationHint = locationHint(rep, ir.Biome)
			h, err := probe.HuntEvidence(ctx, m, c, in)
			if err != nil {
				return err
			}
			ApplyHunt(rep, tr.ID, ir, hr, h)
		}
	}
	return nil
}

// HuntFor is the evidence agent's input for an item, and its code half,
// when the item's sight half passed and its code half failed; else a nil
// half.
func HuntFor(r *rubric.Rubric, test string, ir *ItemReport) (probe.HuntInput, *HalfReport) {
	var code *HalfReport
	seen := false
	var frames []string
	for hi := range ir.Halves {
		h := &ir.Halves[hi]
		switch h.Half {
		case rubric.HalfCode:
			code = h
		case rubric.HalfSight:
			seen = h.Status == StatusPass
			frames = h.Frames
		}
	}
	if code == nil || !seen || code.Status != StatusFail {
		return probe.HuntInput{}, nil
	}
	in := probe.HuntInput{Test: test, Biome: ir.Biome, Aliases: aliases(r, ir.Biome), Item: probe.Ask{ID: ir.ID, Label: ir.Label}}
	for _, b := range r.Biomes {
		if b.ID == ir.Biome {
			in.BiomeLabel = b.Label
		}
	}
	in.VisualHint = "the frames show it"
	if len(frames) > 0 {
		in.VisualHint += " (" + strings.Join(frames, ", ") + ")"
	}
	return in, code
}

// ApplyHunt puts a hunt on an item's code half: a pass when its quote
// is source text that ran.
func ApplyHunt(rep *Report, test string, ir *ItemReport, hr *HalfReport, h *probe.Hunt) {
	hr.Hunt = h
	switch {
	case h.Unjudged != "":
		hr.Reason += "; the evidence agent gave no verdict: " + h.Unjudged
	case h.Evidence == nil:
		hr.Reason += "; the evidence agent found no code either"
	case h.Evidence.OK:
		hr.Status, hr.Reason = StatusPass, describe(h.Evidence)
		hr.Evidence = append(hr.Evidence, *h.Evidence)
		if hr.Earned != nil {
			e := measure.Round(ir.Points*hr.Share, 2)
			hr.Earned = &e
		}
	default:
		hr.Reason += "; the evidence agent's " + describe(h.Evidence)
		rep.RefusedQuotes = append(rep.RefusedQuotes, RefusedQuote{Test: test, Biome: ir.Biome, Item: ir.ID, Half: hr.Half, Evidence: *h.Evidence})
	}
}
