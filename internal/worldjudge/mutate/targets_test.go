package mutate

import (
	"os"
	"path/filepath"
	"reflect"
	"testing"

	jsmutate "github.com/worldprobe/worldprobe/internal/mutate"
	"github.com/worldprobe/worldprobe/internal/worldjudge"
	"github.com/worldprobe/worldprobe/internal/worldjudge/probe"
	"github.com/worldprobe/worldprobe/internal/worldjudge/quote"
	"github.com/worldprobe/worldprobe/internal/worldjudge/rubric"
)

func TestNameWords(t *testing.T) {
	for in, want := range map[string][]string{
		"jungleTree":        {"jungle", "tree"},
		"buildVolcano2":     {"build", "volcano"},
		"snow_mountain":     {"snow", "mountain"},
		"Coast / Ocean":     {"coast", "ocean"},
		"makePS":            {"make", "ps"},
		"HIGHLANDS":         {"highlands"},
		"cacti_on_flats":    {"cacti", "on", "flats"},
		"addPalmTreesNear2": {"add", "palm", "trees", "near"},
	} {
		if got := nameWords(in); !reflect.DeepEqual(got, want) {
			t.Errorf("nameWords(%q) = %v, want %v", in, got, want)
		}
	}
}

// TestTargetsFromKeywords: on a page of our own, the island rubric's
// hints pick the builders whose names match a biome (cactus: desert's
// cacti_on_flats; conifer: a forest alias; erupt: none, lava: volcano);
// the render loop never.
func TestTargetsFromKeywords(t *testing.T) {
	r, err := rubric.Load(filepath.Join("..", "..", "..", "suites", "worldbench", "island"))
	if err != nil {
		t.Fatal(err)
	}
	page := `<script>
function conifer(x) { scene.add(x); }
function cactus(x) { scene.add(x); }
function erupt() { lavaBurst(); }
function lavaPool() { pool(); }
function helper() {}
function animate() { requestAnimationFrame(animate); }
conifer(1); cactus(2); erupt(); lavaPool(); helper(); animate();
</script>`
	bs, _ := jsmutate.Builders([]byte(page))
	var got []string
	for _, tg := range byKeywords(bs, r, page) {
		got = append(got, tg.Function+": "+tg.Why)
	}
	want := []string{
		`conifer: its name matches "conifer", a scope alias of forest`,
		`cactus: its name matches "cactus", an item word of desert`,
		`erupt: its name matches "eruption", an item word of volcano`,
		`lavaPool: its name matches "lava", a scope alias of volcano`,
	}
	if !reflect.DeepEqual(got, want) {
		t.Fatalf("targets\n%q\nwant\n%q", got, want)
	}
}

// TestCorpusKeywordTargets logs the targets the hints pick on each corpus
// world (read in place; skipped without it) and checks kimi-k-3's.
func TestCorpusKeywordTargets(t *testing.T) {
	worlds, _ := filepath.Glob(filepath.Join("..", "..", "..", "..", "shared", "corpus", "worldbench", "worlds", "*", "world.html"))
	if len(worlds) == 0 {
		t.Skip("../shared/corpus/worldbench/worlds not present beside the project")
	}
	r, err := rubric.Load(filepath.Join("..", "..", "..", "suites", "worldbench", "island"))
	if err != nil {
		t.Fatal(err)
	}
	for _, w := range worlds {
		b, err := os.ReadFile(w)
		if err != nil {
			t.Fatal(err)
		}
		bs, _ := jsmutate.Builders(b)
		var got []string
		for _, tg := range byKeywords(bs, r, string(b)) {
			got = append(got, tg.Function+"→"+tg.Biomes[0])
		}
		name := filepath.Base(filepath.Dir(w))
		t.Logf("%s: %v", name, got)
		if want := []string{"nearOceanCell→delta", "conifer→forest", "jungleTree→jungle", "cherry→grove", "mangrove→swamp", "palm→delta", "cactus→desert", "makeBird→jungle", "erupt→volcano"}; name == "kimi-k-3" && !reflect.DeepEqual(got, want) {
			t.Errorf("kimi-k-3: %v, want %v", got, want)
		}
	}
}

// TestColumnsScoreEachJudge: exact points for one WC004 mover (four
// quarter halves) and one WC003 item, from their halves' verdicts.
func TestColumnsScoreEachJudge(t *testing.T) {
	src := quote.Verdict{Verified: true, How: "whole"}
	ran := probe.Evidence{Kind: "look", Verdict: src, OK: true}
	notRun := probe.Evidence{Kind: "look", Verdict: src, Refused: probe.RefusedNotRun}
	gone := probe.Evidence{Kind: "look", Verdict: quote.Verdict{Reason: "not_in_source"}, Refused: "not_in_source"}
	rep := &worldjudge.Report{Tests: []worldjudge.TestReport{
		{ID: "WC003", Items: []worldjudge.ItemReport{
			{ID: "dead_bush", Biome: "desert", Points: 1.43, Halves: []worldjudge.HalfReport{
				{Half: rubric.HalfCode, Share: 0.5, Status: "fail", Evidence: []probe.Evidence{notRun}},
				{Half: rubric.HalfSight, Share: 0.5, Status: "unjudged"}}},
			{ID: "cacti", Biome: "desert", Points: 1.43, Halves: []worldjudge.HalfReport{
				{Half: rubric.HalfCode, Share: 0.5, Status: "fail", Evidence: []probe.Evidence{gone}},
				{Half: rubric.HalfSight, Share: 0.5, Status: "fail"}}},
		}},
		{ID: "WC004", Items: []worldjudge.ItemReport{
			{ID: "sandstorm", Biome: "desert", Points: 1, Halves: []worldjudge.HalfReport{
				{Half: rubric.HalfCode, Share: 0.25, Status: "pass", Evidence: []probe.Evidence{ran}},
				{Half: rubric.HalfSight, Share: 0.25, Status: "pass"},
				{Half: rubric.HalfCodeMotion, Share: 0.25, Status: "fail", Evidence: []probe.Evidence{notRun}},
				{Half: rubric.HalfSightMotion, Share: 0.25, Status: "unjudged"}}},
		}},
	}}
	items := []ItemRef{{Test: "WC003", Biome: "desert", Item: "dead_bush"}, {Test: "WC003", Biome: "desert", Item: "cacti"}, {Test: "WC004", Biome: "desert", Item: "sandstorm"}}
	got := columns(rep, items)
	want := Columns{Items: 3, Points: 3.86,
		// dead_bush 1.43 (its code is source text), cacti 0, sandstorm 1
		CodeOnly: Cell{Kept: 2.43},
		// dead_bush unjudged, cacti 0, sandstorm: one sight half of two passed, one open
		SnapshotOnly: Cell{Kept: 0.5, Unjudged: 1.93},
		// dead_bush 0.72 (rounded from 0.715) + 0.72 open; sandstorm 0.75 + 0.25 open
		Full: Cell{Kept: 1.47, Unjudged: 0.97},
		// coverage refuses dead_bush's code and sandstorm's motion code
		FullCoverage: Cell{Kept: 0.5, Unjudged: 0.97},
	}
	if got != want {
		t.Fatalf("columns %+v\nwant    %+v", got, want)
	}
}

// TestTargetsFromQuotes: the isle's verified look quotes in buildIsle()
// make it the target of their items; a quote in the render loop, a
// motion quote, a hint and a refused quote point at nothing.
func TestTargetsFromQuotes(t *testing.T) {
	b, err := os.ReadFile(filepath.Join("..", "capture", "testdata", "isle", "world.html"))
	if err != nil {
		t.Fatal(err)
	}
	html := string(b)
	bs, _ := jsmutate.Builders(b)
	at := func(kind string, line int, refused string, verified bool) probe.Evidence {
		return probe.Evidence{Kind: kind, Verdict: quote.Verdict{Verified: verified}, Lines: []quote.Span{{From: line, To: line}}, Refused: refused}
	}
	code := func(evs ...probe.Evidence) []worldjudge.HalfReport {
		return []worldjudge.HalfReport{{Half: rubric.HalfCode, Evidence: evs}}
	}
	rep := &worldjudge.Report{Tests: []worldjudge.TestReport{
		{ID: "WC001", Items: []worldjudge.ItemReport{{ID: "cube_primitive", Halves: code(at("look", 39, "", true))}}},
		{ID: "WC003", Items: []worldjudge.ItemReport{
			{ID: "grass", Biome: "grassland", Points: 5, Halves: code(at("look", 40, "", true))},
			{ID: "peak", Biome: "mountains", Points: 5, Halves: code(at("look", 45, probe.RefusedNotRun, true))},
			{ID: "lava", Biome: "volcano", Points: 5, Halves: code(at("look", 51, "hint_comment", true))},
			{ID: "ash", Biome: "volcano", Points: 5, Halves: code(at("look", 50, "not_in_source", false))},
		}},
		{ID: "WC004", Items: []worldjudge.ItemReport{
			{ID: "mill", Biome: "grassland", Points: 2, Halves: code(at("look", 77, "", true), at("motion", 41, "", true))},
		}},
	}}
	got := byQuotes(bs, rep, html)
	if len(got) != 1 || got[0].Function != "buildIsle" || got[0].Why != "WC003 grass quote at line 40; WC003 peak quote at line 45" ||
		!reflect.DeepEqual(got[0].Items, []ItemRef{{"WC003", "grassland", "grass", 5}, {"WC003", "mountains", "peak", 5}}) ||
		!reflect.DeepEqual(got[0].Biomes, []string{"grassland", "mountains"}) {
		t.Fatalf("targets %+v", got)
	}
}
