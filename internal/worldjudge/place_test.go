package worldjudge

import (
	"reflect"
	"testing"

	"github.com/worldprobe/worldprobe/internal/result"
	"github.com/worldprobe/worldprobe/internal/worldjudge/capture"
	"github.com/worldprobe/worldprobe/internal/worldjudge/look"
	"github.com/worldprobe/worldprobe/internal/worldjudge/probe"
	"github.com/worldprobe/worldprobe/internal/worldjudge/quote"
	"github.com/worldprobe/worldprobe/internal/worldjudge/rubric"
)

// TestRuleFailures: adjacency either way, must_connect_any over the
// covered biomes only, rules naming an uncovered biome skipped,
// higher_than needing both ranks.
func TestRuleFailures(t *testing.T) {
	mp := &probe.Map{Status: probe.Judged, Neighbours: map[string][]string{"forest": {"jungle"}, "grove": {"highlands"}}, Elevation: []string{"forest", "jungle"}}
	cov := func(b string) bool { return b != "swamp" }
	rel := rubric.Relations{MustConnect: []string{"forest", "swamp", "grove"}, MustConnectAny: []string{"highlands", "swamp"}, MustNotConnect: []string{"forest", "swamp"}, HigherThan: []string{"forest", "desert", "swamp"}}
	failed, skipped := RuleFailures(rel, "jungle", cov, mp)
	wantF := []string{"does not touch grove", "touches none of highlands", "touches forest", "not higher than forest", "higher than desert: not both in the elevation order"}
	wantS := []string{"must connect swamp", "must not connect swamp", "higher than swamp"}
	if !reflect.DeepEqual(failed, wantF) || !reflect.DeepEqual(skipped, wantS) {
		t.Fatalf("failed %q\nskipped %q", failed, skipped)
	}
	// No covered biome among must_connect_any: skipped, not failed.
	failed, skipped = RuleFailures(rubric.Relations{MustConnectAny: []string{"swamp"}}, "grove", cov, mp)
	if len(failed) != 0 || !reflect.DeepEqual(skipped, []string{"must connect one of swamp"}) {
		t.Fatalf("failed %q skipped %q", failed, skipped)
	}
}

// placeReport is a report on the island rubric whose blind identification
// confirmed mountains and forest, with classify and extract as given.
func placeReport(t *testing.T, blindStatus string, cl *probe.Classification, mp *probe.Map) (*rubric.Rubric, *Report) {
	t.Helper()
	r := island(t)
	c := &capture.Capture{SHA256: "x", Views: []capture.View{{Name: "orbit_top", Kind: "orbit"}}}
	rep := Grade(r, "worlds/a/world.html", "<script>x()</script>", c)
	blind := &look.Blind{Status: blindStatus, Reason: "the blind_identifier's reply could not be read"}
	if blindStatus == look.Judged {
		blind.Reason = ""
		blind.Frames = []look.BlindFrame{
			{Frame: look.Frame{View: "biome_mountains", File: "frames/biome_mountains.png", Biome: "mountains"}, Confirmed: true, ConfirmedBiome: "mountains"},
			{Frame: look.Frame{View: "orbit_top", File: "frames/orbit_top.png"}, Confirmed: true, ConfirmedBiome: "forest"},
			{Frame: look.Frame{View: "biome_desert", File: "frames/biome_desert.png", Biome: "desert"}, IdentifiedAs: "volcano"},
		}
	}
	rep.Looks = &Looks{Blind: blind}
	rep.Placement = &Placement{Classify: cl, Map: mp}
	ApplyPlacement(r, rep)
	Aggregate(r, rep)
	return r, rep
}

func ok(lines ...int) *probe.Evidence {
	tr := true
	return &probe.Evidence{OK: true, Ran: &tr, Quote: "placeBiome(cells)", Lines: []quote.Span{{From: lines[0], To: lines[0]}}}
}

// TestApplyPlacement: five biomes covered (two blind-confirmed, three by
// classify's layout quotes that ran); jungle breaks higher_than delta;
// desert's quote never ran and volcano is absent; every rule naming an
// uncovered biome is skipped. WC002 closes at 5 + 4 = 9.
func TestApplyPlacement(t *testing.T) {
	notRun := &probe.Evidence{Quote: "buildDesert()", Refused: probe.RefusedNotRun}
	cl := &probe.Classification{Status: probe.Judged, Biomes: map[string]*probe.Layout{
		"highlands": {Biome: "highlands", Present: true, Elevation: ok(40)},
		"jungle":    {Biome: "jungle", Present: true, Placement: ok(41)},
		"delta":     {Biome: "delta", Present: true, Placement: ok(42), Elevation: notRun},
		"desert":    {Biome: "desert", Present: true, Placement: notRun},
		"volcano":   {Biome: "volcano", Present: false, Reason: "only in the legend"},
		"swamp":     {Biome: "swamp"}, "grove": {Biome: "grove"}, "grassland": {Biome: "grassland"},
	}}
	mp := &probe.Map{Status: probe.Judged, Neighbours: map[string][]string{
		"mountains": {"forest"}, "forest": {"highlands"}, "highlands": {"jungle"}, "jungle": {"delta"}, "delta": {"desert"},
	}, Elevation: []string{"mountains", "forest", "highlands", "delta", "jungle"}}
	_, rep := placeReport(t, look.Judged, cl, mp)
	got := map[string]string{}
	for _, p := range testOf(rep, "WC002").Parts {
		got[p.Biome+"/"+p.ID] = p.Status + ": " + p.Reason
	}
	want := map[string]string{
		"mountains/covered": "pass: blind identification confirmed it",
		"mountains/placed":  "pass: every rule holds on the extracted map; skipped (not covered): higher than grassland",
		"forest/covered":    "pass: blind identification confirmed it",
		"forest/placed":     "pass: every rule holds on the extracted map; skipped (not covered): higher than grassland",
		"highlands/covered": "pass: classify: present, no placement code, elevation code at HTML lines 40",
		"highlands/placed":  "pass: every rule holds on the extracted map; skipped (not covered): higher than grassland",
		"jungle/covered":    "pass: classify: present, placement code at HTML lines 41, no elevation code",
		"jungle/placed":     "fail: rules broken: not higher than delta; skipped (not covered): must connect grassland, must connect swamp, higher than grassland",
		"swamp/covered":     "fail: not blind-confirmed, and classify: not present",
		"swamp/placed":      "fail: not covered: scores 0",
		"grove/covered":     "fail: not blind-confirmed, and classify: not present",
		"grove/placed":      "fail: not covered: scores 0",
		"grassland/covered": "fail: not blind-confirmed, and classify: not present",
		"grassland/placed":  "fail: not covered: scores 0",
		"delta/covered":     "pass: classify: present, placement code at HTML lines 42, elevation code refused (not_run)",
		"delta/placed":      "pass: every rule holds on the extracted map; skipped (not covered): must connect grassland",
		"desert/covered":    "fail: not blind-confirmed, and classify: present but placement code refused (not_run), no elevation code",
		"desert/placed":     "fail: not covered: scores 0",
		"volcano/covered":   "fail: not blind-confirmed, and classify: not present (only in the legend)",
		"volcano/placed":    "fail: not covered: scores 0",
	}
	for k, v := range want {
		if got[k] != v {
			t.Errorf("%s: %q\nwant %q", k, got[k], v)
		}
	}
	wc2 := testOf(rep, "WC002")
	if wc2.Earned == nil || *wc2.Earned != 9 || wc2.Judged != 20 {
		t.Fatalf("WC002 %+v", wc2.Tally)
	}
	for _, b := range rep.Biomes {
		if w := map[string]float64{"mountains": 2, "jungle": 1, "desert": 0}[b.ID]; (b.ID == "mountains" || b.ID == "jungle" || b.ID == "desert") && *b.Tests["WC002"].Earned != w {
			t.Errorf("%s WC002 %v, want %v", b.ID, *b.Tests["WC002"].Earned, w)
		}
	}
	if rep.Lost.Other != 12 {
		t.Errorf("lost other %v: WC002 lost 11, WC005 1 (the season tint, no season views)", rep.Lost.Other)
	}

	// Blind identification unjudged: a biome classify did not find stays
	// open, and so does every biome whose rules name it; classify's own
	// finds still count.
	_, rep = placeReport(t, result.StatusUnjudged, cl, mp)
	got = map[string]string{}
	for _, p := range testOf(rep, "WC002").Parts {
		got[p.Biome+"/"+p.ID] = p.Status
	}
	for k, v := range map[string]string{"mountains/covered": result.StatusUnjudged, "jungle/covered": StatusPass, "jungle/placed": result.StatusUnjudged, "delta/placed": result.StatusUnjudged, "volcano/covered": result.StatusUnjudged} {
		if got[k] != v {
			t.Errorf("blind unjudged: %s %s, want %s", k, got[k], v)
		}
	}
	if testOf(rep, "WC002").Earned != nil {
		t.Fatal("WC002 closed with blind identification unjudged")
	}

	// Extract unreadable: covered stands, placed stays open.
	_, rep = placeReport(t, look.Judged, cl, &probe.Map{Status: probe.Unjudged, Reason: "the extract reply could not be read"})
	for _, p := range testOf(rep, "WC002").Parts {
		if p.ID == "placed" && p.Status == StatusPass {
			t.Errorf("%s placed passes without a map", p.Biome)
		}
		if p.Biome == "forest" && p.ID == "placed" && (p.Status != result.StatusUnjudged || p.Reason != "the extract reply could not be read") {
			t.Errorf("forest placed %s %q", p.Status, p.Reason)
		}
	}
}
