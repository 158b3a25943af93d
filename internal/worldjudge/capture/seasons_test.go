package capture

import (
	"context"
	"path/filepath"
	"reflect"
	"strings"
	"testing"
)

// TestSeasonsAtTheDaysTimeOfDay captures a world of ours whose day (8 s,
// noon at 2 s) and seasons (5 s each, named in its HUD) both follow the
// frame's timestamp, so the virtual clock drives them. The day is the
// sample at 2.05 s; the light probes between the samples give the day's
// length, 8 s exactly; the season views are then taken in a third
// document at 2.05 s + k × 8 s: spring at 2.05 s, autumn at 10.05 s,
// winter at 18.05 s and summer at 26.05 s (6.05 s into the second year) —
// every one at the day's time of day, where the time samples named them
// at 0.05 s, 6.05 s, 10.05 s and 16.05 s, three of them not at noon.
func TestSeasonsAtTheDaysTimeOfDay(t *testing.T) {
	o := DefaultOptions(islandPixels(t))
	o.Width, o.Height, o.Coverage = 320, 200, false
	o.Horizon, o.Samples = 24, 12 // samples at 0.05, 2.05, …, 22.05 s; light probes every 0.5 s between them
	c, err := Run(context.Background(), h.Browser, h.Resolver, filepath.Join("testdata", "seasons", "world.html"), t.TempDir(), o)
	if err != nil {
		t.Fatal(err)
	}
	if c.Failure != "" {
		t.Fatalf("failure: %s (errors %v)", c.Failure, c.Errors)
	}
	dn := c.DayNight
	if dn == nil || !dn.Pinned || dn.Day != "time_01" || dn.DayMs != 2050 || dn.LengthMs != 8000 || dn.LengthFit < 0.99 {
		t.Fatalf("day/night %+v, lumas %v", dn, lumas(c))
	}
	if !reflect.DeepEqual(c.Seasons, []string{"spring", "summer", "autumn", "winter"}) {
		t.Fatalf("seasons %v (%s)", c.Seasons, c.SeasonsNote)
	}
	type at struct {
		Name   string
		Frame  int
		PageMs float64
		Doc    int
		Season []string
	}
	var got []at
	for _, v := range c.Views {
		if v.Kind == "season" {
			got = append(got, at{v.Name, v.Frame, v.PageMs, v.Document, v.Seasons})
		}
	}
	want := []at{
		{"season_spring", 41, 2050, 3, []string{"spring"}},
		{"season_autumn", 201, 10050, 3, []string{"autumn"}},
		{"season_winter", 361, 18050, 3, []string{"winter"}},
		{"season_summer", 521, 26050, 3, []string{"summer"}},
	}
	if !reflect.DeepEqual(got, want) {
		t.Fatalf("season views %+v, want %+v", got, want)
	}
	wantAliases := []Alias{{"overview", "time_01"}, {"season_spring", "season_spring"}, {"season_summer", "season_summer"},
		{"season_autumn", "season_autumn"}, {"season_winter", "season_winter"}}
	if !reflect.DeepEqual(c.Aliases, wantAliases) {
		t.Fatalf("aliases %v", c.Aliases)
	}
	// Each season view is as bright as the day: the same time of day.
	for _, v := range c.Views {
		if v.Kind == "season" && v.Luma != c.Views[1].Luma {
			t.Errorf("%s: lit luma %v, the day's %v", v.Name, v.Luma, c.Views[1].Luma)
		}
	}
	if !strings.Contains(c.SeasonsNote, "each season view is taken at the day's time of day: the first frame day + k × the day's length (8.00 s, fitted to the light probes)") {
		t.Fatalf("note %q", c.SeasonsNote)
	}
	t.Logf("timing %+v", c.Timing)
}
