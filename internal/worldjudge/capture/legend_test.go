package capture

import (
	"context"
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
	// gemini-3-1-pro's and gpt-5-6-sol's names: "Volcanic Wasteland",
	// "Coastal Ocean", "Snowy Conifer"; "Snow forest", "Coast / ocean".
	gemini := []string{"Orbit view", "Snow Mountains", "Snowy Conifer", "Temperate Highlands", "Flowering Grove", "Dense Jungle",
		"Backwater Swamp", "Central Grasslands", "Arid Desert", "Volcanic Wasteland", "Coastal Ocean"}
	if got, want := MatchLegend(gemini, islandBiomes(t)), map[string]int{"mountains": 1, "forest": 2, "highlands": 3, "grove": 4, "jungle": 5, "swamp": 6, "grassland": 7, "desert": 8, "volcano": 9, "delta": 10}; !reflect.DeepEqual(got, want) {
		t.Fatalf("gemini: got %v", got)
	}
	gpt := []string{"Whole island overview", "Snow mountains blizzard", "Snow forest snow", "Highlands mist", "Jungle rain", "Swamp mist",
		"Grasslands rivers", "Flowering grove showers", "Desert sandstorm", "Volcano ash", "Coast / ocean delta"}
	if got, want := MatchLegend(gpt, islandBiomes(t)), map[string]int{"mountains": 1, "forest": 2, "highlands": 3, "jungle": 4, "swamp": 5, "grassland": 6, "grove": 7, "desert": 8, "volcano": 9, "delta": 10}; !reflect.DeepEqual(got, want) {
		t.Fatalf("gpt: got %v", got)
	}
	if got := MatchLegend([]string{"Pause", "Reset camera", "Day/Night"}, islandBiomes(t)); len(got) != 0 {
		t.Fatalf("controls matched biomes: %v", got)
	}
}

// TestLegendFramingAndNavigator captures a small world of ours whose
// legend rows fly the camera to four coloured islets: each biome its
// legend names gets a frame of its own islet, with the magenta legend
// hidden; the pause button names no biome and is not clicked. The swamp,
// which the legend does not name, is left to the navigator (recorded
// OpenAI tool calls: ui, click the unnamed "Islet 4", save), whose saved
// frame shows the green islet and whose third request carries only the
// newest frame.
func TestLegendFramingAndNavigator(t *testing.T) {
	o := DefaultOptions(islandPixels(t))
	o.Width, o.Height, o.Coverage = 320, 200, false
	o.Horizon, o.Samples = 2, 2
	for _, b := range islandBiomes(t) {
		if b.ID == "mountains" || b.ID == "swamp" || b.ID == "desert" || b.ID == "volcano" {
			o.Biomes = append(o.Biomes, b)
		}
	}
	nav, bodies := navigatorModel(t, "1_ui.json", "2_click.json", "3_save.json")
	o.Navigator = nav
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
	// Each flight ends 12 above and 6 south of its islet, looking at it
	// (forward (0, -0.894, -0.447)).
	wantButtons := []LegendButton{{Text: "Pause"}, {Text: "Snow Mountains blizzard", Biome: "mountains", View: "biome_mountains", Pose: []float64{-60, 12, 6, -60, 11.1056, 5.5528}},
		{Text: "Desert sandstorms", Biome: "desert", View: "biome_desert", Pose: []float64{0, 12, -54, 0, 11.1056, -54.4472}},
		{Text: "Volcano ash & eruptions", Biome: "volcano", View: "biome_volcano", Pose: []float64{60, 12, 6, 60, 11.1056, 5.5528}},
		{Text: "Islet 4 mist"}}
	if !reflect.DeepEqual(lg.Buttons, wantButtons) {
		t.Fatalf("buttons %+v", lg.Buttons)
	}
	// The time samples show the magenta legend at the left; the orbits and
	// the biome frames do not, and each biome frame is filled by its
	// islet's colour.
	if p := pixelAt(view(t, c, "time_00").RGB(), 5, 100); p != [3]uint8{255, 0, 255} {
		t.Fatalf("time_00's legend pixel %v", p)
	}
	if p := pixelAt(view(t, c, "orbit_right").RGB(), 5, 100); p == [3]uint8{255, 0, 255} {
		t.Fatalf("the orbit frames show the legend")
	}
	// The legend's frames are taken at the day (within a second of page
	// time of it: one frame each after the orbits), in the document
	// stepped to it; the navigator's in a third.
	dayFrame := view(t, c, c.DayNight.Day).Frame
	for name, want := range map[string][3]uint8{"biome_mountains": {255, 255, 255}, "biome_desert": {255, 208, 0}, "biome_volcano": {255, 0, 0}, "biome_swamp": {0, 255, 0}} {
		v := view(t, c, name)
		doc := 2
		if name == "biome_swamp" {
			doc = 3
		}
		if v.Kind != "biome" || v.Document != doc {
			t.Errorf("%s: kind %s, document %d, want %d", name, v.Kind, v.Document, doc)
		}
		if name != "biome_swamp" && (v.Frame <= dayFrame || v.Frame > dayFrame+int(o.FPS)) {
			t.Errorf("%s: frame %d, not within a second after the day's frame %d", name, v.Frame, dayFrame)
		}
		if p := pixelAt(v.RGB(), 160, 100); p != want {
			t.Errorf("%s: centre %v, want %v", name, p, want)
		}
		if p := pixelAt(v.RGB(), 5, 100); p == [3]uint8{255, 0, 255} {
			t.Errorf("%s: the legend was not hidden", name)
		}
	}
	if len(c.Navigation) != 1 {
		t.Fatalf("navigation %+v", c.Navigation)
	}
	ep := c.Navigation[0]
	var tools []string
	for _, s := range ep.Steps {
		tools = append(tools, s.Tool+": "+s.Result)
	}
	if ep.Biome != "swamp" || ep.Status != "found" || ep.View != "biome_swamp" || ep.Confidence != 0.9 || !reflect.DeepEqual(tools, []string{
		`ui: uid=0 "Pause"` + "\n" + `uid=1 "Snow Mountains blizzard"` + "\n" + `uid=2 "Desert sandstorms"` + "\n" + `uid=3 "Volcano ash & eruptions"` + "\n" + `uid=4 "Islet 4 mist"`,
		"click: clicked", "save: saved"}) {
		t.Fatalf("episode %+v\ntools %q", ep, tools)
	}
	// Only the newest frame stays in context: after ui() the first screen
	// is still there; after the click it is dropped for the new one.
	got := bodies()
	if len(got) != 3 {
		t.Fatalf("%d navigator calls", len(got))
	}
	for i, want := range [][2]int{{1, 0}, {1, 0}, {1, 1}} {
		if n, d := strings.Count(got[i], `"type":"image_url"`), strings.Count(got[i], "[old frame dropped]"); n != want[0] || d != want[1] {
			t.Errorf("request %d: %d images, %d dropped; want %v", i+1, n, d, want)
		}
	}
}

// navigatorModel is the navigator role on an httptest server answering
// with recorded OpenAI tool calls (testdata/nav); bodies returns the
// requests received.
func navigatorModel(t *testing.T, replies ...string) (llm.Model, func() []string) {
	t.Helper()
	var mu sync.Mutex
	var got []string
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		raw, _ := io.ReadAll(r.Body)
		mu.Lock()
		got = append(got, string(raw))
		if len(replies) == 0 {
			mu.Unlock()
			t.Errorf("unexpected navigator call")
			http.Error(w, `{"error":{"message":"unexpected"}}`, http.StatusTeapot)
			return
		}
		name := replies[0]
		replies = replies[1:]
		mu.Unlock()
		b, err := os.ReadFile(filepath.Join("testdata", "nav", name))
		if err != nil {
			t.Error(err)
		}
		w.Header().Set("Content-Type", "application/json")
		_, _ = w.Write(b)
	}))
	t.Cleanup(srv.Close)
	cfg, err := llm.ParseConfig([]byte("pricing:\n  test-nav: {input: 0.10, output: 0.40}\nroles:\n  navigator:\n    provider: openai\n    model: test-nav\n    max_retries: 0\n    base_url: " + srv.URL + "/v1\n    key_env: TEST_NAV_KEY\n"))
	if err != nil {
		t.Fatal(err)
	}
	reg, err := llm.New(cfg, func(k string) string { return map[string]string{"TEST_NAV_KEY": "sk-n"}[k] })
	if err != nil {
		t.Fatal(err)
	}
	m, err := reg.Role(context.Background(), llm.Navigator)
	if err != nil {
		t.Fatal(err)
	}
	return m, func() []string { mu.Lock(); defer mu.Unlock(); return append([]string(nil), got...) }
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
