package rubric

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

func loadIsland(t *testing.T) *Rubric {
	t.Helper()
	r, err := Load(filepath.Join("..", "..", "..", "suites", "worldbench", "island"))
	if err != nil {
		t.Fatal(err)
	}
	return r
}

func TestIslandRubricLoads(t *testing.T) {
	r := loadIsland(t)
	if r.Name != "worldbench/island" || r.TotalPoints != 280 || len(r.Biomes) != 10 || len(r.Tests) != 5 {
		t.Fatalf("got %s, %g points, %d biomes, %d tests", r.Name, r.TotalPoints, len(r.Biomes), len(r.Tests))
	}
	counts := map[string]int{}
	for _, tt := range r.Tests {
		counts[tt.ID] = len(tt.Items)
	}
	want := map[string]int{"WC001": 11, "WC002": 0, "WC003": 73, "WC004": 100, "WC005": 10}
	for id, n := range want {
		if counts[id] != n {
			t.Errorf("%s: %d items, want %d", id, counts[id], n)
		}
	}
	wc3 := r.Test("WC003")
	// mountains has 6 required items: 10/6 = 1.67 each (WorldBench rounds).
	for _, it := range wc3.Items {
		if it.Biome == "mountains" {
			if got := r.ItemPoints(wc3, it); got != 1.67 {
				t.Fatalf("mountains item %s worth %g, want 1.67", it.ID, got)
			}
			break
		}
	}
	if p, err := os.Stat(filepath.Join(r.Dir, r.Prompt.File)); err == nil && p.Size() == 0 {
		t.Errorf("prompt file %s is empty", r.Prompt.File)
	}
}

func TestRubricErrorsNameFileAndLine(t *testing.T) {
	base, err := os.ReadFile(filepath.Join("..", "..", "..", "suites", "worldbench", "island", FileName))
	if err != nil {
		t.Fatal(err)
	}
	cases := []struct {
		name, old, new, want string
	}{
		{"unknown biome", "{id: high_relief_peaks, biome: mountains", "{id: high_relief_peaks, biome: moon", "test WC003: item high_relief_peaks names unknown biome \"moon\""},
		{"unknown half", "{id: cube_primitive, points: 1, halves: [code]", "{id: cube_primitive, points: 1, halves: [smell]", "test WC001: item cube_primitive: unknown half \"smell\""},
		{"points do not add up", "{id: water_bed, points: 5", "{id: water_bed, points: 4", "test WC001: its items add up to 19 points, not 20"},
		{"total", "total_points: 280", "total_points: 281", "total_points is 281 but the tests add up to 280"},
		{"gate test", "    test: WC004\n    biome: delta", "    test: WC009\n    biome: delta", "gate island_gate names unknown test \"WC009\""},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			src := string(base)
			if !strings.Contains(src, c.old) {
				t.Fatalf("the rubric no longer contains %q", c.old)
			}
			src = strings.Replace(src, c.old, c.new, 1)
			_, err := Parse("island/rubric.yaml", []byte(src))
			if err == nil {
				t.Fatal("no error")
			}
			msg := err.Error()
			if !strings.Contains(msg, c.want) {
				t.Fatalf("error %q does not say %q", msg, c.want)
			}
			// The line is the item's (or the top's): find it in the text.
			line := 1
			if i := strings.Index(src, c.new); i >= 0 && !strings.HasPrefix(c.want, "total_points") {
				line = strings.Count(src[:i], "\n") + 1
				if strings.HasPrefix(c.want, "test WC001: its items") {
					line = strings.Count(src[:strings.Index(src, "  - id: WC001")], "\n") + 1
				}
				if strings.HasPrefix(c.want, "gate") {
					line = strings.Count(src[:strings.Index(src, "  - id: island_gate")], "\n") + 1
				}
			}
			if want := "island/rubric.yaml:" + itoa(line) + ": " + c.want; !strings.Contains(msg, want) {
				t.Fatalf("error %q lacks %q", msg, want)
			}
		})
	}
	// Decoding errors name FILE:LINE too: an unknown field, a value of the
	// wrong type, a syntax error.
	for _, c := range []struct{ src, want string }{
		{"name: x\nbogus: 1\n", "x.yaml:2: unknown field \"bogus\""},
		{"name: x\ntotal_points: lots\n", "x.yaml:2: \"lots\" is not a number"},
		{"name: x\ntests:\n  - id: WC001\n    points: [1\n", "x.yaml:3: did not find expected ',' or ']'"},
		{"name: x\n\tbiomes: []\n", "x.yaml:2: found a tab character that violates indentation"},
	} {
		_, err := Parse("x.yaml", []byte(c.src))
		if err == nil || err.Error() != c.want {
			t.Errorf("Parse(%q) = %v, want %q", c.src, err, c.want)
		}
	}
}

func itoa(n int) string { b, _ := json.Marshal(n); return string(b) }

// TestRubricMatchesTheSharedCorpus checks the project's rubric, item by
// item, against the WorldBench rubric data in ../shared, read in place.
func TestRubricMatchesTheSharedCorpus(t *testing.T) {
	dir := filepath.Join("..", "..", "..", "..", "shared", "corpus", "worldbench", "rubric")
	if _, err := os.Stat(dir); err != nil {
		t.Skip("../shared/corpus/worldbench/rubric not present beside the project")
	}
	r := loadIsland(t)
	read := func(name string, v any) {
		t.Helper()
		b, err := os.ReadFile(filepath.Join(dir, name))
		if err != nil {
			t.Fatal(err)
		}
		if err := json.Unmarshal(b, v); err != nil {
			t.Fatalf("%s: %v", name, err)
		}
	}
	type idLabel struct{ ID, Label string }
	var wc2 struct{ Biomes []idLabel }
	read("WC002.json", &wc2)
	if len(wc2.Biomes) != len(r.Biomes) {
		t.Fatalf("%d biomes, the corpus has %d", len(r.Biomes), len(wc2.Biomes))
	}
	for i, b := range wc2.Biomes {
		if r.Biomes[i].ID != b.ID || r.Biomes[i].Label != b.Label {
			t.Errorf("biome %d: %+v, corpus %+v", i, r.Biomes[i], b)
		}
	}
	var wc1 struct {
		MaxPoints float64 `json:"max_points"`
		Checks    []struct {
			Check     string
			MaxPoints float64 `json:"max_points"`
			Items     []struct {
				ID     string
				Points float64
				Label  string
			}
			Defects []struct {
				ID      string
				PerView bool `json:"per_view"`
			}
		}
	}
	read("WC001.json", &wc1)
	w1 := r.Test("WC001")
	if w1.Points != wc1.MaxPoints || len(w1.Items) != len(wc1.Checks[0].Items) || len(w1.Defects) != len(wc1.Checks[1].Defects) {
		t.Fatalf("WC001 differs: %g points, %d items, %d defects", w1.Points, len(w1.Items), len(w1.Defects))
	}
	for i, it := range wc1.Checks[0].Items {
		got := w1.Items[i]
		if got.ID != it.ID || got.Points != it.Points || got.Label != it.Label {
			t.Errorf("WC001 item %d: %s %g, corpus %s %g", i, got.ID, got.Points, it.ID, it.Points)
		}
	}
	for i, d := range wc1.Checks[1].Defects {
		if w1.Defects[i].ID != d.ID || w1.Defects[i].PerView != d.PerView {
			t.Errorf("WC001 defect %d: %+v, corpus %+v", i, w1.Defects[i], d)
		}
	}
	type kw struct{ ID, Label string }
	w3, w4 := r.Test("WC003"), r.Test("WC004")
	var i3, f3, i4, f4 int
	for _, b := range wc2.Biomes {
		var req struct {
			ScopeAliases   []string `json:"scope_aliases"`
			MustPresent    []kw     `json:"must_present"`
			MustNotPresent []kw     `json:"must_not_present"`
		}
		read(filepath.Join("WC003", b.ID+".json"), &req)
		for _, it := range req.MustPresent {
			got := w3.Items[i3]
			if got.Biome != b.ID || got.ID != it.ID || got.Label != it.Label || got.Weight != 1 {
				t.Errorf("WC003 item %d: %s/%s, corpus %s/%s", i3, got.Biome, got.ID, b.ID, it.ID)
			}
			i3++
		}
		for _, it := range req.MustNotPresent {
			if got := w3.Forbidden[f3]; got.Biome != b.ID || got.ID != it.ID {
				t.Errorf("WC003 forbidden %d: %s/%s, corpus %s/%s", f3, got.Biome, got.ID, b.ID, it.ID)
			}
			f3++
		}
		if strings.Join(w3.Scope[b.ID], "|") != strings.Join(req.ScopeAliases, "|") {
			t.Errorf("WC003 %s scope aliases %v, corpus %v", b.ID, w3.Scope[b.ID], req.ScopeAliases)
		}
		var tpl struct {
			Entities []struct {
				ID, Label, Kind string
				Axis            string `json:"expected_axis"`
				Motion          bool   `json:"requires_motion"`
			}
			MustNotPresent []kw `json:"must_not_present"`
		}
		read(filepath.Join("WC004", b.ID+".json"), &tpl)
		for _, e := range tpl.Entities {
			got := w4.Items[i4]
			if got.Biome != b.ID || got.ID != e.ID || got.Kind != e.Kind || got.Axis != e.Axis || got.Motion != e.Motion || got.Label != e.Label {
				t.Errorf("WC004 entity %d: %+v, corpus %+v", i4, got, e)
			}
			i4++
		}
		for _, it := range tpl.MustNotPresent {
			if got := w4.Forbidden[f4]; got.Biome != b.ID || got.ID != it.ID {
				t.Errorf("WC004 forbidden %d: %s/%s, corpus %s/%s", f4, got.Biome, got.ID, b.ID, it.ID)
			}
			f4++
		}
	}
	if i3 != len(w3.Items) || f3 != len(w3.Forbidden) || i4 != len(w4.Items) || f4 != len(w4.Forbidden) {
		t.Errorf("counts: WC003 %d/%d items %d/%d forbidden, WC004 %d/%d entities %d/%d forbidden",
			i3, len(w3.Items), f3, len(w3.Forbidden), i4, len(w4.Items), f4, len(w4.Forbidden))
	}
	var wc5 struct {
		Items []struct {
			ID     string
			Points float64
			Clock  string
			VV     struct{ Type string } `json:"visual_verdict"`
		}
		MustNotPresent []struct {
			ID      string
			Penalty float64 `json:"penalty_points"`
		} `json:"must_not_present"`
	}
	read("WC005.json", &wc5)
	w5 := r.Test("WC005")
	for i, it := range wc5.Items {
		got := w5.Items[i]
		sight := it.VV.Type
		if got.ID != it.ID || got.Points != it.Points || got.Clock != it.Clock || got.Sight != sight {
			t.Errorf("WC005 item %d: %+v, corpus %+v", i, got, it)
		}
	}
	if len(w5.Forbidden) != 1 || w5.Forbidden[0].ID != wc5.MustNotPresent[0].ID || w5.Forbidden[0].Penalty != wc5.MustNotPresent[0].Penalty {
		t.Errorf("WC005 forbidden %+v, corpus %+v", w5.Forbidden, wc5.MustNotPresent)
	}
	var gates struct {
		Shared struct {
			Quote struct {
				MinChars       int     `json:"MIN_LINE_CHARS"`
				MinMatchShare  float64 `json:"MIN_MATCH_SHARE"`
				MinPrefixShare float64 `json:"MIN_PREFIX_SHARE"`
			} `json:"quote_check"`
		} `json:"shared_rules"`
	}
	read("gates.json", &gates)
	if q := gates.Shared.Quote; q.MinChars != r.Quote.MinChars || q.MinMatchShare != r.Quote.MinMatchShare || q.MinPrefixShare != r.Quote.MinPrefixShare {
		t.Errorf("quote rules %+v, corpus %+v", r.Quote, q)
	}
	var px struct {
		Measures []struct {
			ID        string
			Constants map[string]any
		}
	}
	read("pixels.json", &px)
	consts := map[string]map[string]any{}
	for _, m := range px.Measures {
		consts[m.ID] = m.Constants
	}
	p := r.Pixels
	checks := []struct {
		what      string
		got, want any
	}{
		{"lit_luma crop", p.LitLuma.CropLeft, consts["lit_luma"]["LUMA_HUD_CROP"]},
		{"lit_luma void", float64(p.LitLuma.VoidMax), consts["lit_luma"]["LUMA_VOID_MAX"]},
		{"day/night gap", p.DayNightGap, consts["day_night_pick"]["MIN_DAY_NIGHT_GAP"]},
		{"change threshold", float64(p.ChangeThreshold), consts["changed_pixel"]["CHANGE_THRESHOLD"]},
		{"motion min", p.MotionMin, consts["motion_gate"]["MIN_MOTION_FRACTION"]},
		{"light change", p.FrameDiff.LightChange, consts["light_follows_sun"]["LIGHT_CHANGE_DIFF"]},
		{"dusk shift", p.Chroma.DuskShift, consts["dusk_dawn_tint"]["DUSK_CHROMA_SHIFT"]},
		{"season shift", p.Chroma.SeasonShift, consts["season_world_tint"]["SEASON_CHROMA_SHIFT"]},
		{"chroma min sum", float64(p.Chroma.MinRGBSum), consts["land_chromaticity"]["min_rgb_sum_exclusive"]},
	}
	for _, c := range checks {
		if c.got != c.want {
			t.Errorf("%s: %v, corpus %v", c.what, c.got, c.want)
		}
	}
}
