package capture

import (
	"context"
	"path/filepath"
	"reflect"
	"testing"

	"github.com/worldprobe/worldprobe/internal/worldjudge/measure"
	"github.com/worldprobe/worldprobe/internal/worldjudge/rubric"
)

func islandBiomes(t *testing.T) []rubric.Biome {
	t.Helper()
	r, err := rubric.Load(filepath.Join("..", "..", "..", "suites", "worldbench", "island"))
	if err != nil {
		t.Fatal(err)
	}
	return r.Biomes
}

// MatchLegend on legends written the way the corpus worlds write them
// (fable's rows: name then weather; plurals; "Coast & Ocean" for the
// delta) and on controls that name no biome.
func TestMatchLegend(t *testing.T) {
	texts := []string{
		"Whole Island overview",
		"Snow Mountains blizzard (far face)",
		"Snowy Conifer Forest snowfall",
		"Highlands mist & drizzle",
		"Jungle heavy rain",
		"Swamp low mist",
		"Grasslands fair skies",
		"Flowering Grove petal drift",
		"Desert sandstorms",
		"Volcano eruptions & ash",
		"Coast & Ocean delta & waterfalls",
		"Pause",
	}
	got := MatchLegend(texts, islandBiomes(t))
	want := map[string]int{"mountains": 1, "forest": 2, "highlands": 3, "jungle": 4, "swamp": 5, "grove": 7, "grassland": 6, "delta": 10, "desert": 8, "volcano": 9}
	if !reflect.DeepEqual(got, want) {
		t.Fatalf("got %v\nwant %v", got, want)
	}
	// One element serves one biome: "Snow Mountains & Forest" goes to the
	// biome it names best (mountains: id and label word), the forest
	// takes its own row.
	got = MatchLegend([]string{"Snowy forest", "Snow Mountains & Forest", "Settings"}, islandBiomes(t))
	if want := map[string]int{"mountains": 1, "forest": 0}; !reflect.DeepEqual(got, want) {
		t.Fatalf("got %v, want %v", got, want)
	}
	if got := MatchLegend([]string{"Pause", "Reset camera", "Day/Night"}, islandBiomes(t)); len(got) != 0 {
		t.Fatalf("controls matched biomes: %v", got)
	}
}

// TestLegendFraming captures a small world of ours whose legend rows fly
// the camera to three coloured islets: each biome its legend names gets a
// frame of its own islet, with the magenta legend hidden; the pause
// button names no biome and is not clicked.
func TestLegendFraming(t *testing.T) {
	o := DefaultOptions(islandPixels(t))
	o.Width, o.Height, o.Coverage = 320, 200, false
	o.Horizon, o.Samples = 2, 2
	o.Biomes = islandBiomes(t)
	out := t.TempDir()
	c, err := Run(context.Background(), h.Browser, h.Resolver, filepath.Join("testdata", "legend", "world.html"), out, o)
	if err != nil {
		t.Fatal(err)
	}
	if c.Failure != "" {
		t.Fatalf("failure: %s (errors %v)", c.Failure, c.Errors)
	}
	lg := c.Legend
	if lg == nil || !reflect.DeepEqual(lg.Framed, []string{"mountains", "desert", "volcano"}) {
		t.Fatalf("legend %+v", lg)
	}
	wantButtons := []LegendButton{{Text: "Pause"}, {Text: "Snow Mountains blizzard", Biome: "mountains", View: "biome_mountains"},
		{Text: "Desert sandstorms", Biome: "desert", View: "biome_desert"}, {Text: "Volcano ash & eruptions", Biome: "volcano", View: "biome_volcano"}}
	if !reflect.DeepEqual(lg.Buttons, wantButtons) {
		t.Fatalf("buttons %+v", lg.Buttons)
	}
	// The time samples show the magenta legend at the left; the biome
	// frames do not, and each is filled by its islet's colour.
	if p := pixelAt(view(t, c, "time_00").RGB(), 5, 100); p != [3]uint8{255, 0, 255} {
		t.Fatalf("time_00's legend pixel %v", p)
	}
	if p := pixelAt(view(t, c, "orbit_right").RGB(), 5, 100); p == [3]uint8{255, 0, 255} {
		t.Fatalf("the orbit frames show the legend")
	}
	for name, want := range map[string][3]uint8{"biome_mountains": {255, 255, 255}, "biome_desert": {255, 208, 0}, "biome_volcano": {255, 0, 0}} {
		v := view(t, c, name)
		if v.Kind != "biome" || v.Document != 3 {
			t.Errorf("%s: kind %s, document %d", name, v.Kind, v.Document)
		}
		if p := pixelAt(v.RGB(), 160, 100); p != want {
			t.Errorf("%s: centre %v, want %v", name, p, want)
		}
		if p := pixelAt(v.RGB(), 5, 100); p == [3]uint8{255, 0, 255} {
			t.Errorf("%s: the legend was not hidden", name)
		}
	}
}

func view(t *testing.T, c *Capture, name string) View {
	t.Helper()
	for _, v := range c.Views {
		if v.Name == name {
			return v
		}
	}
	t.Fatalf("no view %s", name)
	return View{}
}

func pixelAt(m measure.RGB, x, y int) [3]uint8 {
	i := 3 * (y*m.W + x)
	return [3]uint8{m.Pix[i], m.Pix[i+1], m.Pix[i+2]}
}
