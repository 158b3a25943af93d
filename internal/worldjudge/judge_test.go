package worldjudge

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/worldprobe/worldprobe/internal/result"
	"github.com/worldprobe/worldprobe/internal/worldjudge/capture"
	"github.com/worldprobe/worldprobe/internal/worldjudge/coverage"
	"github.com/worldprobe/worldprobe/internal/worldjudge/measure"
	"github.com/worldprobe/worldprobe/internal/worldjudge/rubric"
)

func island(t *testing.T) *rubric.Rubric {
	t.Helper()
	r, err := rubric.Load(filepath.Join("..", "..", "suites", "worldbench", "island"))
	if err != nil {
		t.Fatal(err)
	}
	return r
}

func fill(c [3]uint8) measure.RGB {
	m := measure.RGB{W: 10, H: 10, Pix: make([]uint8, 300)}
	for i := 0; i < 100; i++ {
		copy(m.Pix[3*i:], c[:])
	}
	return m
}

// TestGradeOfflineLeavesModelHalvesOpen grades a hand-made capture: a
// bright day, a warm dusk and a dark night.
func TestGradeOfflineLeavesModelHalvesOpen(t *testing.T) {
	r := island(t)
	c := &capture.Capture{SHA256: "x", DayNight: &capture.DayNight{Day: "time_00", Night: "time_02", Gap: 170, Pinned: true}}
	for i, col := range [][3]uint8{{200, 200, 200}, {200, 120, 60}, {30, 30, 30}} {
		v := capture.View{Name: []string{"time_00", "time_01", "time_02"}[i], Kind: "time", Luma: []float64{200, 137, 30}[i]}
		c.Views = append(c.Views, capture.WithRGB(v, fill(col)))
	}
	c.Aliases = []capture.Alias{{Name: "overview", Of: "time_00"}}
	c.SeasonsNote = "no season views"
	rep := Grade(r, "worlds/a/world.html", "<script>x()</script>", c)
	if rep.Status != Complete || rep.Name != "a" {
		t.Fatalf("status %s, name %s", rep.Status, rep.Name)
	}
	p := rep.Pixels
	if p.DiffVsDay["time_01"] != 73.33 || p.DiffVsDay["time_02"] != 170 || !*p.LightFollowsSun {
		t.Fatalf("diff vs day %v", p.DiffVsDay)
	}
	// κ(day) = (1/3, 1/3), κ(dusk) = (200/380, 60/380): shift 0.193; the
	// night is not a dusk. (The dusk's lit luma must lie in the middle half
	// of the night–day range: the views' lumas are set below.)
	if len(p.TintVsDay) != 1 || p.TintVsDay["time_01"] != 0.193 || !*p.DuskDawnTint {
		t.Fatalf("tint %v", p.TintVsDay)
	}
	// Only WC005's four pixel halves have verdicts, 2 points × ½ each:
	// three pass, and the season tint fails (no season views).
	if rep.Score.Max != 280 || rep.Score.Judged != 4 || rep.Score.EarnedOfJudged != 3 || rep.Score.Unjudged != 276 || rep.Score.Earned != nil {
		t.Fatalf("score %+v", rep.Score)
	}
	for _, tr := range rep.Tests {
		if tr.Earned != nil {
			t.Errorf("%s has a score offline", tr.ID)
		}
		for _, it := range tr.Items {
			if it.Earned != nil {
				t.Errorf("%s/%s earned %v offline", tr.ID, it.ID, *it.Earned)
			}
			sum := 0.0
			for _, h := range it.Halves {
				sum += h.Share
				if h.Half == rubric.HalfCode && h.Status != result.StatusUnjudged {
					t.Errorf("%s/%s code half %s offline", tr.ID, it.ID, h.Status)
				}
			}
			if sum < 0.999 || sum > 1.001 {
				t.Errorf("%s/%s halves share %v", tr.ID, it.ID, sum)
			}
		}
	}
	wc5 := rep.Tests[4]
	got := map[string]string{}
	for _, it := range wc5.Items {
		for _, h := range it.Halves {
			if h.Half == rubric.HalfSight {
				got[it.ID] = h.Status
			}
		}
	}
	want := map[string]string{"light_follows_sun": "pass", "night_dimming": "pass", "dusk_dawn_tint": "pass", "season_world_tint": "fail", "season_cycle": "unjudged", "sky_or_fog_day_cycle": "unjudged"}
	for k, v := range want {
		if got[k] != v {
			t.Errorf("WC005 %s sight %q, want %q", k, got[k], v)
		}
	}
	// A WC004 moving weather entity has four quarter halves.
	for _, it := range rep.Tests[3].Items {
		if it.ID == "snowfall_visible" || len(it.Halves) == 4 {
			if it.Halves[0].Share != 0.25 || it.Halves[3].Half != rubric.HalfSightMotion {
				t.Fatalf("WC004 %s halves %+v", it.ID, it.Halves)
			}
			break
		}
	}
	gates := map[string]string{}
	for _, g := range rep.Gates {
		gates[g.ID] = g.Status
	}
	if gates["structural"] != "pass" || gates["clock_patch"] != "not_applicable" || gates["island_gate"] != "unjudged" {
		t.Fatalf("gates %v", gates)
	}
	dir := t.TempDir()
	if err := Write(dir, rep); err != nil {
		t.Fatal(err)
	}
	var back map[string]any
	b, _ := os.ReadFile(filepath.Join(dir, "judge.json"))
	if err := json.Unmarshal(b, &back); err != nil || back["status"] != "complete" {
		t.Fatalf("judge.json: %v %v", err, back["status"])
	}
	html, _ := os.ReadFile(filepath.Join(dir, "report.html"))
	if !strings.Contains(string(html), `src="`) && len(c.Views) > 0 || !strings.Contains(string(html), "unjudged 276") {
		t.Fatalf("report.html lacks frames or the open score")
	}
	if !strings.Contains(string(html), `content="default-src 'none';`) {
		t.Fatalf("report.html has no Content-Security-Policy")
	}
}

func TestName(t *testing.T) {
	for in, want := range map[string]string{
		"../shared/corpus/worldbench/worlds/kimi-k-3/world.html": "kimi-k-3",
		"worlds/reference-create.html":                           "reference-create",
		"site/index.html":                                        "site",
	} {
		if got := Name(in); got != want {
			t.Errorf("Name(%q) = %q, want %q", in, got, want)
		}
	}
}

func TestNotRunSpansJoinAcrossLinesWithoutCode(t *testing.T) {
	// Lines 1..9: ran, not, unknown, not, ran, not, not, unknown, ran.
	r := &coverage.Report{Lines: []coverage.State{coverage.Unknown,
		coverage.Ran, coverage.NotRun, coverage.Unknown, coverage.NotRun, coverage.Ran,
		coverage.NotRun, coverage.NotRun, coverage.Unknown, coverage.Ran}}
	got := notRun(r)
	want := []Span{{2, 4}, {6, 7}}
	if len(got) != len(want) || got[0] != want[0] || got[1] != want[1] {
		t.Fatalf("spans %v, want %v", got, want)
	}
}

// TestScoreClosesWhenEverythingIsJudged: a ladder whose only half is
// measured by pixels gets an earned score; a forbidden item, unjudged
// offline, keeps its test and the score open.
func TestScoreClosesWhenEverythingIsJudged(t *testing.T) {
	r := &rubric.Rubric{Name: "tiny", TotalPoints: 2, Pixels: island(t).Pixels, Tests: []rubric.Test{{ID: "WC005", Points: 2, Items: []rubric.Item{
		{ID: "night_dimming", Points: 2, Halves: []string{rubric.HalfSight}, Sight: "pixel", Measure: "night_dimming"},
	}}}}
	c := &capture.Capture{DayNight: &capture.DayNight{Day: "time_00", Night: "time_01", Gap: 170, Pinned: true}}
	for i, v := range []uint8{200, 30} {
		c.Views = append(c.Views, capture.WithRGB(capture.View{Name: []string{"time_00", "time_01"}[i], Kind: "time", Luma: float64(v)}, fill(grey3(v))))
	}
	rep := Grade(r, "w.html", "", c)
	if s := rep.Score; s.Earned == nil || *s.Earned != 2 || s.Judged != 2 || s.Unjudged != 0 || rep.Tests[0].Earned == nil || *rep.Tests[0].Earned != 2 {
		t.Fatalf("score %+v, test %+v", rep.Score, rep.Tests[0].Tally)
	}
	r.Tests[0].Forbidden = []rubric.Forbidden{{ID: "eternal_day", Penalty: 1}}
	rep = Grade(r, "w.html", "", c)
	if rep.Score.Earned != nil || rep.Tests[0].Earned != nil || rep.Score.Judged != 2 || rep.Score.EarnedOfJudged != 2 {
		t.Fatalf("with an unjudged forbidden item: score %+v, test %+v", rep.Score, rep.Tests[0].Tally)
	}
}

func grey3(v uint8) [3]uint8 { return [3]uint8{v, v, v} }
