package look

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
	"github.com/worldprobe/worldprobe/internal/worldjudge/rubric"
)

// fake answers in order with recorded replies (testdata/replies): the
// OpenAI chat completions and Anthropic messages wire formats, whichever
// path the client calls.
type fake struct {
	t       *testing.T
	srv     *httptest.Server
	mu      sync.Mutex
	replies []string
	bodies  []map[string]any
	raw     []string
}

func newFake(t *testing.T, replies ...string) *fake {
	f := &fake{t: t, replies: replies}
	f.srv = httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		raw, _ := io.ReadAll(r.Body)
		var body map[string]any
		_ = json.Unmarshal(raw, &body)
		f.mu.Lock()
		f.bodies, f.raw = append(f.bodies, body), append(f.raw, string(raw))
		if len(f.replies) == 0 {
			f.mu.Unlock()
			t.Errorf("unexpected call %d to %s", len(f.bodies), r.URL.Path)
			http.Error(w, `{"error":{"message":"unexpected"}}`, http.StatusTeapot)
			return
		}
		name := f.replies[0]
		f.replies = f.replies[1:]
		f.mu.Unlock()
		want := "/v1/chat/completions"
		if strings.HasPrefix(name, "blind_") {
			want = "/v1/messages"
		}
		if r.URL.Path != want {
			t.Errorf("reply %s asked on %s", name, r.URL.Path)
		}
		b, err := os.ReadFile(filepath.Join("testdata", "replies", name))
		if err != nil {
			t.Error(err)
		}
		w.Header().Set("Content-Type", "application/json")
		_, _ = w.Write(b)
	}))
	t.Cleanup(f.srv.Close)
	return f
}

func (f *fake) left() int {
	f.mu.Lock()
	defer f.mu.Unlock()
	return len(f.replies)
}

// models are the blind_identifier (Anthropic) and visual_judge (OpenAI)
// roles on the fake.
func models(t *testing.T, f *fake) (blind, visual llm.Model) {
	t.Helper()
	cfg, err := llm.ParseConfig([]byte("pricing:\n  test-vlm: {input: 2.00, output: 8.00}\n  test-claude: {input: 3.00, output: 15.00}\nroles:\n" +
		"  visual_judge:\n    provider: openai\n    model: test-vlm\n    max_retries: 0\n    base_url: " + f.srv.URL + "/v1\n    key_env: TEST_VLM_KEY\n" +
		"  blind_identifier:\n    provider: anthropic\n    model: test-claude\n    max_retries: 0\n    base_url: " + f.srv.URL + "/\n    key_env: TEST_CLAUDE_KEY\n"))
	if err != nil {
		t.Fatal(err)
	}
	reg, err := llm.New(cfg, func(k string) string { return map[string]string{"TEST_VLM_KEY": "sk-v", "TEST_CLAUDE_KEY": "sk-c"}[k] })
	if err != nil {
		t.Fatal(err)
	}
	b, err := reg.Role(context.Background(), llm.BlindIdentifier)
	if err != nil {
		t.Fatal(err)
	}
	v, err := reg.Role(context.Background(), llm.VisualJudge)
	if err != nil {
		t.Fatal(err)
	}
	return b, v
}

// writeFrames writes a small PNG per view into dir/frames.
func writeFrames(t *testing.T, dir string, views ...string) []Frame {
	t.Helper()
	if err := os.MkdirAll(filepath.Join(dir, "frames"), 0o755); err != nil {
		t.Fatal(err)
	}
	var out []Frame
	for i, v := range views {
		img := image.NewRGBA(image.Rect(0, 0, 16, 10))
		for p := 0; p < 160; p++ {
			img.Set(p%16, p/16, color.RGBA{uint8(40 * i), 100, 200, 255})
		}
		var buf bytes.Buffer
		if err := png.Encode(&buf, img); err != nil {
			t.Fatal(err)
		}
		f := Frame{View: v, File: "frames/" + v + ".png"}
		if strings.HasPrefix(v, "biome_") {
			f.Biome = strings.TrimPrefix(v, "biome_")
		}
		if err := os.WriteFile(filepath.Join(dir, f.File), buf.Bytes(), 0o644); err != nil {
			t.Fatal(err)
		}
		out = append(out, f)
	}
	return out
}

var biomes = []rubric.Biome{{ID: "swamp", Label: "Backwater Swamp"}, {ID: "desert", Label: "Desert Basin"}, {ID: "volcano", Label: "Volcano"}}

// The world's hash "bbc9…" shuffles the six frames to orbit_right,
// orbit_back, biome_swamp, burst_near_0, biome_desert, biome_volcano.
const sha = "bbc9407ed6ee053528676c0330145d8dcf5b5bc96dcd64f438257ecc774531f1"

// TestIdentifyReadsRealReplies: one shuffled call; the volcano frame
// misnamed desert is not confirmed, the desert frame answered by its
// label is, the swamp frame answered "none" is not, an orbit the model
// named volcano on its own confirms the volcano; a reply naming no region
// of the list leaves the identification unjudged with the reason; the
// same answers as a tool call are read alike.
func TestIdentifyReadsRealReplies(t *testing.T) {
	dir := t.TempDir()
	frames := writeFrames(t, dir, "orbit_right", "orbit_back", "biome_volcano", "biome_desert", "biome_swamp", "burst_near_0")
	f := newFake(t, "blind_prose.json", "blind_unknown.json", "blind_tool.json")
	m, _ := models(t, f)
	b := Identify(context.Background(), m, dir, frames, biomes, sha)
	if b.Status != Judged {
		t.Fatalf("blind %s: %s", b.Status, b.Reason)
	}
	type row struct {
		label, view, as string
		ok              bool
		biome           string
	}
	var got []row
	for _, fr := range b.Frames {
		got = append(got, row{fr.Label, fr.View, fr.IdentifiedAs, fr.Confirmed, fr.ConfirmedBiome})
	}
	want := []row{
		{"frame_1", "orbit_right", "island", false, ""},
		{"frame_2", "orbit_back", "volcano", true, "volcano"},
		{"frame_3", "biome_swamp", "none", false, ""},
		{"frame_4", "burst_near_0", "island", false, ""},
		{"frame_5", "biome_desert", "desert", true, "desert"},
		{"frame_6", "biome_volcano", "desert", false, ""},
	}
	if !reflect.DeepEqual(got, want) {
		t.Fatalf("frames\n%v\nwant\n%v", got, want)
	}
	if c := b.ConfirmedFrames(frames, "volcano"); len(c) != 1 || c[0].View != "orbit_back" {
		t.Fatalf("confirmed volcano frames %v", c)
	}
	if b.Call == nil || b.Call.InputTokens != 5400 || b.Call.Model != "anthropic/test-claude" {
		t.Fatalf("call %+v", b.Call)
	}
	// Blind: the request names frames only frame_N, never a view or the
	// biome a frame was meant to show, and carries every image once.
	raw := f.raw[0]
	for _, leak := range []string{"biome_", "orbit_", "burst_", "legend"} {
		if strings.Contains(raw, leak) {
			t.Errorf("the blind request contains %q", leak)
		}
	}
	if n := strings.Count(raw, `"type":"image"`); n != 6 {
		t.Errorf("%d images sent, want 6", n)
	}
	b = Identify(context.Background(), m, dir, frames, biomes, sha)
	if b.Status != Unjudged || b.Reason != `blind identification: frame_6 is answered "lava fields", which is no region of the list` {
		t.Fatalf("unknown answer: %s %q", b.Status, b.Reason)
	}
	b = Identify(context.Background(), m, dir, frames, biomes, sha)
	if b.Status != Judged || !b.Frames[5].Confirmed || b.Frames[5].ConfirmedBiome != "volcano" {
		t.Fatalf("tool answer: %+v", b)
	}
	if f.left() != 0 {
		t.Fatalf("%d replies unused", f.left())
	}
}

func TestParseBlindIsStrict(t *testing.T) {
	labels := []string{"frame_1", "frame_2"}
	for in, want := range map[string]string{
		`{"frame_1": "desert"}`: "the reply leaves out frame_2",
		`{"frame_1": "desert", "frame_2": "none", "frame_3": "none"}`: "the reply names labels that were not shown: frame_3",
		`{"frame_1": "desert", "frame_2": 3}`:                         "the reply's object does not map labels to answers",
	} {
		_, err := ParseBlind(json.RawMessage(in), labels, biomes)
		if err == nil || !strings.Contains(err.Error(), want) {
			t.Errorf("%s: %v, want %q", in, err, want)
		}
	}
	got, err := ParseBlind(json.RawMessage(`{"frame_1": " VOLCANO ", "frame_2": "backwater swamp"}`), labels, biomes)
	if err != nil || got["frame_1"] != "volcano" || got["frame_2"] != "swamp" {
		t.Fatalf("%v %v", got, err)
	}
}

func volcanoAsk(frames []Frame) Ask {
	by := map[string]Frame{}
	for _, f := range frames {
		by[f.View] = f
	}
	return Ask{Subject: "the Volcano region", Sights: []Frame{by["biome_volcano"]}, Context: []Frame{by["overview"]},
		Motion: []Frame{by["burst_near_0"], by["burst_near_motion"]},
		Items:  []Question{{ID: "WC003.volcano_cone", Label: "cone"}, {ID: "WC004.lava_flow", Label: "lava"}, {ID: "WC004.ash_plume", Label: "ash"}},
		Leaks:  []Question{{ID: "WC003.snow_on_volcano", Label: "snow"}},
		Moves:  []Question{{ID: "WC004.ash_plume", Label: "ash"}}}
}

// TestJudgeVisualReadsRealReplies: prose with a fenced object, where an
// item said visible only in the overview (a frame blind identification
// did not confirm) does not count; a tool call; a reply cut at the token
// limit, one answering an item that was not asked and one naming a frame
// that was not shown are unjudged with the reason, never 0.
func TestJudgeVisualReadsRealReplies(t *testing.T) {
	dir := t.TempDir()
	frames := writeFrames(t, dir, "biome_volcano", "overview", "burst_near_0", "burst_near_motion")
	f := newFake(t, "visual_fenced.json", "visual_tool.json", "visual_truncated.json", "visual_unasked.json", "visual_unknown_frame.json")
	_, m := models(t, f)
	a := volcanoAsk(frames)
	v := JudgeVisual(context.Background(), m, dir, a)
	if v.Status != Judged {
		t.Fatalf("%s: %s", v.Status, v.Reason)
	}
	want := map[string]Sighting{
		"WC003.volcano_cone": {Visible: true, Frames: []string{"biome_volcano"}, Files: []string{"frames/biome_volcano.png"}, Seen: "tall dark cone, glowing top", Counted: true, Reason: "seen in biome_volcano"},
		"WC004.lava_flow":    {Visible: true, Frames: []string{"overview"}, Seen: "orange streak on the far flank", Reason: "seen only in overview, none of them a frame blind identification confirmed"},
		"WC004.ash_plume":    {Visible: true, Frames: []string{"biome_volcano", "burst_near_motion"}, Files: []string{"frames/biome_volcano.png"}, Seen: "grey specks above the summit", Counted: true, Reason: "seen in biome_volcano"},
	}
	if !reflect.DeepEqual(v.Items, want) {
		t.Fatalf("items %+v", v.Items)
	}
	if l := v.Leaks["WC003.snow_on_volcano"]; l.Visible || l.Counted {
		t.Fatalf("leak %+v", l)
	}
	if mv := v.Motion["WC004.ash_plume"]; !mv.Moving || mv.Axis != "up" || !rubric.WC004Axes.OK("rising", mv.Axis) || !reflect.DeepEqual(mv.Files, []string{"frames/burst_near_motion.png"}) {
		t.Fatalf("motion %+v", mv)
	}
	// The request: every frame under its view name, the system prompt's
	// rule against inferring, temperature 0, the answer tool offered.
	body := f.bodies[0]
	if body["temperature"] != 0.0 || !strings.Contains(f.raw[0], "Do not infer it from the region") || !strings.Contains(f.raw[0], `"name":"answer"`) {
		t.Fatalf("request %v", body)
	}
	for _, l := range []string{"[biome_volcano]", "[overview]", "[burst_near_motion]"} {
		if !strings.Contains(f.raw[0], l) {
			t.Errorf("the request lacks %s", l)
		}
	}
	v = JudgeVisual(context.Background(), m, dir, a)
	if v.Status != Judged || v.Items["WC004.lava_flow"].Visible || !v.Leaks["WC003.snow_on_volcano"].Counted || v.Motion["WC004.ash_plume"].Moving {
		t.Fatalf("tool reply %+v", v)
	}
	for _, want := range []string{
		"the visual judge: no JSON object in the reply",
		`the visual judge: items: "WC003.obsidian" was not asked`,
		`the visual judge: items: WC003.volcano_cone names frame "frame_9", which was not shown`,
	} {
		v = JudgeVisual(context.Background(), m, dir, a)
		if v.Status != Unjudged || !strings.HasPrefix(v.Reason, want) || v.Items != nil || v.Call == nil {
			t.Errorf("got %s %q, want unjudged %q", v.Status, v.Reason, want)
		}
	}
	if f.left() != 0 {
		t.Fatalf("%d replies unused", f.left())
	}
}

// TestHuntBugsVotes: a first vote flagging anything gets two more at
// temperature 0.8 and a defect needs a strict majority; a refused frame
// and a reply missing a defect leave their frames out of both counts;
// water over the void in two wide views is the ocean over the void.
func TestHuntBugsVotes(t *testing.T) {
	dir := t.TempDir()
	frames := writeFrames(t, dir, "overview", "orbit_right", "orbit_back", "biome_volcano", "biome_desert")
	f := newFake(t,
		"bug_water.json", "bug_water.json", "bug_clean.json", // overview: water_void 2 of 3
		"bug_water_floating.json", "bug_water.json", "bug_water_floating.json", // orbit_right: both 2 of 3 → buggy
		"bug_clean.json",                              // orbit_back: one clean vote
		"bug_refusal.json", "bug_missing_defect.json", // the two biome frames cannot be judged
	)
	_, m := models(t, f)
	wide := map[string]bool{"overview": true, "orbit_right": true, "orbit_back": true}
	bh := HuntBugs(context.Background(), m, dir, frames, wide, 20, 2)
	// 2 of 5 frames unjudged is not more than half: the hunt is judged.
	if bh.Status != Judged || bh.Judged != 3 || bh.Buggy != 1 || bh.Score != 13.33 || !bh.OceanVoid || !reflect.DeepEqual(bh.OceanVoidViews, []string{"overview", "orbit_right"}) {
		t.Fatalf("hunt %+v", bh)
	}
	want := [][]string{{"water_void"}, {"floating_blocks", "water_void"}, {}}
	for i, w := range want {
		if !reflect.DeepEqual(bh.Frames[i].Confirmed, w) {
			t.Errorf("%s confirmed %v, want %v", bh.Frames[i].View, bh.Frames[i].Confirmed, w)
		}
	}
	if bh.Frames[3].Status != Unjudged || !strings.Contains(bh.Frames[3].Reason, "the model declined") || bh.Frames[4].Reason != "vote 1: defect non_voxel has no true/false answer" {
		t.Fatalf("unjudged frames %+v / %+v", bh.Frames[3], bh.Frames[4])
	}
	temps := []any{}
	for _, b := range f.bodies[:3] {
		temps = append(temps, b["temperature"])
	}
	if !reflect.DeepEqual(temps, []any{0.0, 0.8, 0.8}) {
		t.Fatalf("vote temperatures %v", temps)
	}
	if f.left() != 0 {
		t.Fatalf("%d replies unused", f.left())
	}
	if bh.Reason != "1 of 3 judged frames buggy (2 frames could not be judged and count in neither)" {
		t.Fatalf("reason %q", bh.Reason)
	}
}
