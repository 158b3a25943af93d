package worldjudge

import (
	"bytes"
	"context"
	"encoding/json"
	"image"
	"image/color"
	"image/png"
	"io"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"sync"
	"testing"

	"github.com/worldprobe/worldprobe/internal/llm"
	"github.com/worldprobe/worldprobe/internal/result"
	"github.com/worldprobe/worldprobe/internal/worldjudge/capture"
	"github.com/worldprobe/worldprobe/internal/worldjudge/look"
	"github.com/worldprobe/worldprobe/internal/worldjudge/rubric"
)

// tinyRubric has two biomes and every kind of item, part, leak and gate
// of the island's rubric, with the island's pixel thresholds.
func tinyRubric(t *testing.T) *rubric.Rubric {
	t.Helper()
	island, err := os.ReadFile(filepath.Join("..", "..", "suites", "worldbench", "island", "rubric.yaml"))
	if err != nil {
		t.Fatal(err)
	}
	s := string(island)
	px := s[strings.Index(s, "\npixels:"):strings.Index(s, "\n# Cross-test rules.")]
	y := `name: tiny
prompt: {file: prompt.md, summary: "a tiny island"}
total_points: 52
biomes:
  - {id: volcano, label: "Volcano"}
  - {id: delta, label: "Coastal Delta / Ocean"}
tests:
  - id: WC001
    title: Voxel island
    points: 4
    parts:
      - {id: source_judge, points: 2, rule: "quotes"}
      - {id: visual_bughunt, points: 2, rule: "frames"}
    items:
      - {id: cube_primitive, points: 2, halves: [code], label: "cubes"}
  - id: WC002
    title: Coverage
    points: 4
    per_biome: {covered: 1, placed: 1}
  - id: WC003
    title: Micro-contents
    points: 20
    per_biome: 10
    items:
      - {id: cone, biome: volcano, weight: 1, halves: [code, sight], label: "volcano cone"}
      - {id: lava_pool, biome: volcano, weight: 1, halves: [code, sight], label: "lava pool"}
      - {id: beach, biome: delta, weight: 1, halves: [code, sight], label: "sand beach"}
    forbidden:
      - {id: snow_volcano, biome: volcano, label: "snow on the volcano"}
  - id: WC004
    title: Physics
    points: 20
    per_biome: 10
    items:
      - {id: ash_plume, biome: volcano, weight: 1, kind: weather, axis: rising, motion: true, halves: [code, sight, code_motion, sight_motion], label: "ash rising"}
      - {id: basalt, biome: volcano, weight: 1, kind: terrain, axis: "n/a", motion: false, halves: [code, sight], label: "black basalt"}
      - {id: waves, biome: delta, weight: 1, kind: water, axis: flowing, motion: true, halves: [code, sight, code_motion, sight_motion], label: "waves"}
  - id: WC005
    title: Temporal cycles
    points: 4
    items:
      - {id: night_dimming, points: 2, clock: day, sight: pixel, measure: night_dimming, halves: [code, sight], label: "night"}
      - {id: sky_or_fog_day_cycle, points: 2, clock: day, sight: vlm, halves: [code, sight], label: "sky follows the day"}
    forbidden:
      - {id: stars_or_atmosphere_dome, penalty: 2, label: "stars or a sky dome"}
quote: {min_chars: 8, min_match_share: 0.8, min_prefix_share: 0.85}` + px + `
gates:
  - {id: structural, rule: "a page"}
  - {id: blind_identification, rule: "blind"}
  - {id: ocean_void, rule: "water over the void in 2 wide views", min_views: 2}
  - {id: island_gate, rule: "WC004 loses the delta", when: ocean_void, test: WC004, biome: delta}
  - {id: delta_ocean_over_void, rule: "WC003's delta is 0", test: WC003, biome: delta}
  - {id: clock_patch, rule: "none", test: WC005}
`
	r, err := rubric.Parse(filepath.Join(t.TempDir(), "rubric.yaml"), []byte(y))
	if err != nil {
		t.Fatal(err)
	}
	return r
}

// tinyCapture is a capture of our own with its frames on disk: a day and a
// night sample, two orbits, two bursts (φ 0.02 and 0.01) and the legend's
// volcano and delta frames.
func tinyCapture(t *testing.T, dir string) *capture.Capture {
	t.Helper()
	if err := os.MkdirAll(filepath.Join(dir, "frames"), 0o755); err != nil {
		t.Fatal(err)
	}
	c := &capture.Capture{SHA256: "294a6acc6723afbacd14ffae8519a7982cfebfa7a1a682446290d45319576556",
		DayNight: &capture.DayNight{Day: "time_00", Night: "time_01", Gap: 170, Pinned: true}, SeasonsNote: "no season views"}
	add := func(name, kind string, grey uint8) {
		img := image.NewRGBA(image.Rect(0, 0, 10, 10))
		for p := 0; p < 100; p++ {
			img.Set(p%10, p/10, color.RGBA{grey, grey, grey, 255})
		}
		var buf bytes.Buffer
		if err := png.Encode(&buf, img); err != nil {
			t.Fatal(err)
		}
		file := "frames/" + name + ".png"
		if err := os.WriteFile(filepath.Join(dir, file), buf.Bytes(), 0o644); err != nil {
			t.Fatal(err)
		}
		c.Views = append(c.Views, capture.WithRGB(capture.View{Name: name, Kind: kind, File: file, Luma: float64(grey)}, fill(grey3(grey))))
	}
	add("time_00", "time", 200)
	add("time_01", "time", 30)
	add("orbit_right", "orbit", 150)
	add("orbit_back", "orbit", 140)
	for _, b := range []string{"burst_near", "burst_far"} {
		add(b+"_0", b, 120)
		add(b+"_1", b, 121)
		add(b+"_motion", "overlay", 60)
		c.Views = c.Views[:len(c.Views)-1]
	}
	c.Bursts = []capture.Burst{{Name: "burst_near", Frames: []string{"burst_near_0", "burst_near_1"}, Overlay: "frames/burst_near_motion.png", Fraction: 0.02},
		{Name: "burst_far", Frames: []string{"burst_far_0", "burst_far_1"}, Overlay: "frames/burst_far_motion.png", Fraction: 0.01}}
	add("biome_volcano", "biome", 90)
	add("biome_delta", "biome", 100)
	c.Aliases = []capture.Alias{{Name: "overview", Of: "time_00"}}
	c.Legend = &capture.Legend{Buttons: []capture.LegendButton{{Text: "Volcano", Biome: "volcano", View: "biome_volcano"}, {Text: "Coast", Biome: "delta", View: "biome_delta"}},
		Framed: []string{"volcano", "delta"}}
	return c
}

// fakeProviders answers with recorded replies in order: blind_* on the
// Anthropic messages path, the rest on OpenAI's chat completions.
func fakeProviders(t *testing.T, replies ...string) (LookModels, func() int) {
	t.Helper()
	var mu sync.Mutex
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		_, _ = io.Copy(io.Discard, r.Body)
		mu.Lock()
		if len(replies) == 0 {
			mu.Unlock()
			t.Errorf("unexpected call to %s", r.URL.Path)
			http.Error(w, `{"error":{"message":"unexpected"}}`, http.StatusTeapot)
			return
		}
		name := replies[0]
		replies = replies[1:]
		mu.Unlock()
		if want := map[bool]string{true: "/v1/messages", false: "/v1/chat/completions"}[strings.HasPrefix(name, "blind")]; r.URL.Path != want {
			t.Errorf("%s asked on %s", name, r.URL.Path)
		}
		b, err := os.ReadFile(filepath.Join("testdata", "replies", name))
		if err != nil {
			t.Error(err)
		}
		w.Header().Set("Content-Type", "application/json")
		_, _ = w.Write(b)
	}))
	t.Cleanup(srv.Close)
	cfg, err := llm.ParseConfig([]byte("pricing:\n  test-vlm: {input: 2.00, output: 8.00}\n  test-claude: {input: 3.00, output: 15.00}\nroles:\n" +
		"  visual_judge:\n    provider: openai\n    model: test-vlm\n    max_retries: 0\n    base_url: " + srv.URL + "/v1\n    key_env: TEST_VLM_KEY\n" +
		"  blind_identifier:\n    provider: anthropic\n    model: test-claude\n    max_retries: 0\n    base_url: " + srv.URL + "/\n    key_env: TEST_CLAUDE_KEY\n"))
	if err != nil {
		t.Fatal(err)
	}
	reg, err := llm.New(cfg, func(k string) string { return map[string]string{"TEST_VLM_KEY": "sk-v", "TEST_CLAUDE_KEY": "sk-c"}[k] })
	if err != nil {
		t.Fatal(err)
	}
	m, err := NewLookModels(context.Background(), reg)
	if err != nil {
		t.Fatal(err)
	}
	return m, func() int { mu.Lock(); defer mu.Unlock(); return len(replies) }
}

func halfOf(t *testing.T, rep *Report, test, biome, id, half string) *HalfReport {
	t.Helper()
	for ti := range rep.Tests {
		if rep.Tests[ti].ID != test {
			continue
		}
		for _, list := range [][]ItemReport{rep.Tests[ti].Items, rep.Tests[ti].Forbidden} {
			for ii := range list {
				if list[ii].ID == id && list[ii].Biome == biome {
					for hi := range list[ii].Halves {
						if list[ii].Halves[hi].Half == half {
							return &list[ii].Halves[hi]
						}
					}
				}
			}
		}
	}
	t.Fatalf("no %s %s/%s %s half", test, biome, id, half)
	return nil
}

func testOf(rep *Report, id string) *TestReport {
	for i := range rep.Tests {
		if rep.Tests[i].ID == id {
			return &rep.Tests[i]
		}
	}
	return nil
}

// TestGradeWithLooks judges a capture of our own with recorded replies —
// blind identification (Anthropic), the visual judge per confirmed biome
// and for the day cycle, and the bug-hunt's votes (OpenAI) — and checks
// every sight verdict; then it plays the reading side, setting the code
// halves and WC002's placement, and checks the closed 52-point score,
// the biome scores, the gates and the E1–E4 classes to the hundredth.
func TestGradeWithLooks(t *testing.T) {
	r := tinyRubric(t)
	dir := t.TempDir()
	c := tinyCapture(t, dir)
	m, left := fakeProviders(t, "blind.json", "visual_volcano.json", "visual_delta.json", "visual_cycles.json",
		"bug_water.json", "bug_water.json", "bug_water.json", // overview: water over the void, 3 of 3
		"bug_water.json", "bug_water.json", "bug_clean.json", // orbit_right: 2 of 3
		"bug_clean.json",                                           // orbit_back
		"bug_clean.json",                                           // biome_volcano
		"bug_floating.json", "bug_floating.json", "bug_clean.json", // biome_delta: floating blocks, 2 of 3
	)
	looks := Look(context.Background(), m, r, dir, c)
	if n := left(); n != 0 {
		t.Fatalf("%d replies unused", n)
	}
	rep := GradeWith(r, "worlds/tiny/world.html", "", c, looks)
	if rep.Mode != "models" {
		t.Fatalf("mode %s", rep.Mode)
	}
	type verdict struct{ status, reason string }
	check := func(test, biome, id, half, status, reason string, frames ...string) {
		t.Helper()
		h := halfOf(t, rep, test, biome, id, half)
		if h.Status != status || h.Reason != reason || !reflect.DeepEqual(h.Frames, frames) && len(frames) > 0 {
			t.Errorf("%s %s/%s %s: %s %q %v\nwant %s %q %v", test, biome, id, half, h.Status, h.Reason, h.Frames, status, reason, frames)
		}
	}
	check("WC003", "volcano", "cone", "sight", "pass", `seen in biome_volcano ("dark cone")`, "frames/biome_volcano.png")
	check("WC003", "volcano", "lava_pool", "sight", "fail", `seen only in overview, none of them a frame blind identification confirmed ("orange dot far away")`)
	check("WC003", "volcano", "snow_volcano", "sight", "pass", "not seen in the biome's confirmed frames")
	check("WC003", "delta", "beach", "sight", "pass", `seen in biome_delta ("pale sand")`, "frames/biome_delta.png")
	check("WC004", "volcano", "ash_plume", "sight_motion", "pass", "seen moving (up), and the bursts changed 0.02000 of their pixels", "frames/biome_volcano.png", "frames/burst_near_motion.png")
	check("WC004", "volcano", "basalt", "sight", "fail", "the visual judge did not see it")
	check("WC004", "delta", "waves", "sight_motion", "pass", "seen moving (flowing), and the bursts changed 0.02000 of their pixels")
	check("WC005", "", "sky_or_fog_day_cycle", "sight", "pass", "seen in time_00, time_01", "frames/time_00.png", "frames/time_01.png")
	check("WC005", "", "night_dimming", "sight", "pass", "lit luma of the brightest and darkest time samples")
	check("WC005", "", "stars_or_atmosphere_dome", "sight", "fail", "leak seen in time_01", "frames/time_01.png")
	check("WC004", "volcano", "ash_plume", "code", result.StatusUnjudged, reasonCode)
	gates := map[string]string{}
	for _, g := range rep.Gates {
		gates[g.ID] = g.Status + ": " + g.Reason
	}
	wantGates := map[string]string{
		"structural":            "pass: non-empty and names three, canvas or webgl",
		"blind_identification":  "pass: 2 of 6 UI-hidden frames confirmed (biomes: delta, volcano)",
		"ocean_void":            "fail: water over the void confirmed in overview, orbit_right",
		"island_gate":           "fail: follows ocean_void: water over the void confirmed in overview, orbit_right",
		"delta_ocean_over_void": "pass: the visual judge saw no ocean over the void",
		"clock_patch":           "not_applicable: worldprobe drives the world's clock itself (virtual time); no model patches the world",
	}
	if !reflect.DeepEqual(gates, wantGates) {
		t.Fatalf("gates %v", gates)
	}
	bug := testOf(rep, "WC001").Parts[0]
	if bug.Status != StatusFail || *bug.Earned != 1.6 || bug.Reason != "1 of 5 judged frames buggy" || len(bug.Frames) != 5 {
		t.Fatalf("bug-hunt %+v", bug)
	}
	// Only the code halves (the reading side) keep the score open.
	if rep.Score.Earned != nil || rep.Lost.Open != 5 || rep.Lost.Gates != 5 {
		t.Fatalf("score %+v, lost %+v", rep.Score, rep.Lost)
	}
	if s := testOf(rep, "WC004").Biomes[1]; s.Gated != "island_gate" || *s.Earned != 0 || s.Judged != 10 {
		t.Fatalf("WC004 delta %+v", s)
	}

	// The reading side's verdicts, then the closed score.
	set := func(test, biome, id, half, status string) { halfOf(t, rep, test, biome, id, half).Status = status }
	set("WC001", "", "cube_primitive", "code", StatusPass)
	set("WC003", "volcano", "cone", "code", StatusPass)
	set("WC003", "volcano", "lava_pool", "code", StatusPass)
	set("WC003", "volcano", "snow_volcano", "code", StatusPass)
	set("WC003", "delta", "beach", "code", StatusFail)
	set("WC004", "volcano", "ash_plume", "code", StatusPass)
	set("WC004", "volcano", "ash_plume", "code_motion", StatusFail)
	set("WC004", "volcano", "basalt", "code", StatusFail)
	set("WC004", "delta", "waves", "code", StatusPass)
	set("WC004", "delta", "waves", "code_motion", StatusPass)
	set("WC005", "", "night_dimming", "code", StatusPass)
	set("WC005", "", "sky_or_fog_day_cycle", "code", StatusPass)
	set("WC005", "", "stars_or_atmosphere_dome", "code", StatusPass)
	for i, p := range testOf(rep, "WC002").Parts {
		if p.ID == "placed" {
			testOf(rep, "WC002").Parts[i].Status = map[string]string{"volcano": StatusPass, "delta": StatusFail}[p.Biome]
		}
	}
	Aggregate(r, rep)
	earned := map[string]float64{}
	for _, tr := range rep.Tests {
		if tr.Earned == nil {
			t.Fatalf("%s still open: %+v", tr.ID, tr.Tally)
		}
		earned[tr.ID] = *tr.Earned
	}
	// WC001 2 + 1.6; WC002 1 + 1 + 1 + 0; WC003 volcano 5 + 2.5, delta
	// 5; WC004 volcano 1.25 · 3 (ash) + 0 (basalt), delta gated to 0;
	// WC005 2 + 2 − 2 for the stars.
	if want := map[string]float64{"WC001": 3.6, "WC002": 3, "WC003": 12.5, "WC004": 3.75, "WC005": 2}; !reflect.DeepEqual(earned, want) {
		t.Fatalf("earned %v, want %v", earned, want)
	}
	if rep.Score.Earned == nil || *rep.Score.Earned != 24.85 || rep.Score.Max != 52 || rep.Score.Unjudged != 0 {
		t.Fatalf("score %+v", rep.Score)
	}
	l := rep.Lost
	if l.E1 != 5 || l.E2 != 2.5 || l.E3 != 5 || l.E4 != 1.25 || l.Gates != 10 || l.Penalties != 0 || l.Open != 0 || l.Other != 3.4 {
		t.Fatalf("lost %+v", l)
	}
	classes := map[string]string{}
	for _, li := range l.Items {
		classes[li.Test+" "+li.Biome+"/"+li.ID] = li.Class
	}
	if want := map[string]string{"WC003 volcano/lava_pool": "E2", "WC003 delta/beach": "E3", "WC004 volcano/ash_plume": "E4", "WC004 volcano/basalt": "E1", "WC004 delta/(island_gate)": "gate", "WC005 /stars_or_atmosphere_dome": "penalty"}; !reflect.DeepEqual(classes, want) {
		t.Fatalf("classes %v", classes)
	}
	var biomes []string
	for _, b := range rep.Biomes {
		biomes = append(biomes, b.ID+" "+strings.Join(b.Frames, ",")+" "+b.Legend+" "+fmtTally(b.Tests))
	}
	want := []string{
		"volcano frames/biome_volcano.png frames/biome_volcano.png WC002=2 WC003=7.5 WC004=3.75",
		"delta frames/biome_delta.png frames/biome_delta.png WC002=1 WC003=5 WC004=0",
	}
	if !reflect.DeepEqual(biomes, want) {
		t.Fatalf("biomes %q", biomes)
	}
	// Aggregating again changes nothing.
	before, _ := json.Marshal(rep)
	Aggregate(r, rep)
	if after, _ := json.Marshal(rep); !bytes.Equal(before, after) {
		t.Fatal("Aggregate is not idempotent")
	}
	if err := Write(dir, rep); err != nil {
		t.Fatal(err)
	}
	html, _ := os.ReadFile(filepath.Join(dir, "report.html"))
	for _, s := range []string{`<img src="frames/biome_volcano.png"`, "E4", "island_gate", "24.85"} {
		if !strings.Contains(string(html), s) {
			t.Errorf("report.html lacks %q", s)
		}
	}
}

func fmtTally(m map[string]Tally) string {
	var out []string
	for _, k := range []string{"WC002", "WC003", "WC004"} {
		if t, ok := m[k]; ok && t.Earned != nil {
			out = append(out, k+"="+strings.TrimRight(strings.TrimRight(jsonNum(*t.Earned), "0"), "."))
		} else {
			out = append(out, k+"=open")
		}
	}
	return strings.Join(out, " ")
}

func jsonNum(v float64) string {
	b, _ := json.Marshal(v)
	s := string(b)
	if !strings.Contains(s, ".") {
		s += ".0"
	}
	return s
}

// TestUnreadableReplyLeavesHalvesUnjudged: a biome whose visual reply
// could not be read keeps its sight halves (and its leaks' sight halves)
// unjudged with the reason — never 0 — and its biome scores stay open,
// while a biome blind identification did not confirm fails its sight
// halves; a failed blind call leaves every sight half unjudged.
func TestUnreadableReplyLeavesHalvesUnjudged(t *testing.T) {
	r := tinyRubric(t)
	c := tinyCapture(t, t.TempDir())
	blind := &look.Blind{Status: look.Judged, Frames: []look.BlindFrame{
		{Frame: look.Frame{View: "biome_volcano", File: "frames/biome_volcano.png", Biome: "volcano"}, Label: "frame_1", IdentifiedAs: "volcano", Confirmed: true, ConfirmedBiome: "volcano"},
		{Frame: look.Frame{View: "biome_delta", File: "frames/biome_delta.png", Biome: "delta"}, Label: "frame_2", IdentifiedAs: "none"},
	}}
	bad := "the visual judge: no JSON object in the reply (the reply was cut at the token limit)"
	looks := &Looks{Blind: blind, Visual: map[string]*look.Visual{"volcano": {Status: look.Unjudged, Reason: bad}}}
	rep := GradeWith(r, "w.html", "", c, looks)
	for _, h := range []*HalfReport{halfOf(t, rep, "WC003", "volcano", "cone", "sight"), halfOf(t, rep, "WC004", "volcano", "ash_plume", "sight_motion"), halfOf(t, rep, "WC003", "volcano", "snow_volcano", "sight")} {
		if h.Status != result.StatusUnjudged || h.Reason != bad {
			t.Errorf("volcano half %s: %s %q", h.Half, h.Status, h.Reason)
		}
	}
	if h := halfOf(t, rep, "WC003", "delta", "beach", "sight"); h.Status != StatusFail || h.Reason != "not seen: no frame was blind-confirmed as delta (its legend frame biome_delta was not confirmed)" {
		t.Errorf("delta beach sight: %s %q", h.Status, h.Reason)
	}
	if b := testOf(rep, "WC003").Biomes[0]; b.Earned != nil || b.Judged != 0 || b.Unjudged != 10 {
		t.Errorf("WC003 volcano %+v", b)
	}
	looks.Blind = &look.Blind{Status: look.Unjudged, Reason: "blind identification: the reply leaves out frame_2"}
	rep = GradeWith(r, "w.html", "", c, looks)
	if h := halfOf(t, rep, "WC003", "delta", "beach", "sight"); h.Status != result.StatusUnjudged || h.Reason != looks.Blind.Reason {
		t.Errorf("with the blind call unread: %s %q", h.Status, h.Reason)
	}
	for _, g := range rep.Gates {
		if g.ID == "blind_identification" && (g.Status != result.StatusUnjudged || g.Reason != looks.Blind.Reason) {
			t.Errorf("gate %+v", g)
		}
	}
}
