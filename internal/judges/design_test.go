package judges

import (
	"context"
	"encoding/base64"
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/worldprobe/worldprobe/internal/contract"
	"github.com/worldprobe/worldprobe/internal/result"
	"github.com/worldprobe/worldprobe/internal/task"
	"github.com/worldprobe/worldprobe/internal/trial"
)

// docs/xr-design.md and DesignHeuristics say the same ten heuristics,
// in the same order, with the same 1 and 5.
func TestDesignHeuristicsAreTheDocs(t *testing.T) {
	b, err := os.ReadFile(filepath.Join("..", "..", "docs", "xr-design.md"))
	require.NoError(t, err)
	re := regexp.MustCompile("(?m)^### (\\d+)\\. (.+) \\(`([a-z-]+)`\\)\n- \\*\\*1:\\*\\* (.+)\n- \\*\\*5:\\*\\* (.+)$")
	var got []Heuristic
	for i, m := range re.FindAllStringSubmatch(string(b), -1) {
		require.Equal(t, fmt.Sprint(i+1), m[1])
		got = append(got, Heuristic{ID: m[3], Name: m[2], One: m[4], Five: m[5]})
	}
	require.Equal(t, DesignHeuristics, got)
	require.Len(t, got, 10)
}

func TestParseDesign(t *testing.T) {
	reply, err := os.ReadFile(filepath.Join("testdata", "replies", "design_gpt.md"))
	require.NoError(t, err)
	r, err := ParseDesign(string(reply))
	require.NoError(t, err)
	require.Len(t, r, 10)
	require.Equal(t, result.DesignRating{Heuristic: "reach", Score: 3, Reason: "The panel is about a metre away, just past arm's reach."}, r[1])

	all := func(v string) string {
		var parts []string
		for _, h := range DesignHeuristics {
			parts = append(parts, fmt.Sprintf("%q: %s", h.ID, v))
		}
		return "{" + strings.Join(parts, ", ") + "}"
	}
	r, err = ParseDesign(`Here you go: {"ratings": ` + all("4") + `} Hope this helps.`)
	require.NoError(t, err)
	require.Equal(t, result.DesignRating{Heuristic: "focus", Score: 4}, r[9])

	for reply, want := range map[string]string{
		"I cannot rate this.":                                      `it holds no JSON object with a "ratings" key`,
		`{"ratings": {"comfort": 3}}`:                              `no rating of "reach"`,
		`{"ratings": ` + all("6") + `}`:                            `"comfort" scores 6, not a whole number from 1 to 5`,
		`{"ratings": ` + all(`{"score": 2.5}`) + `}`:               `"comfort" scores {"score": 2.5}, not a whole number from 1 to 5`,
		`{"ratings": [1, 2]}`:                                      `"ratings" is not an object of heuristic ids: json: cannot unmarshal array into Go value of type map[string]json.RawMessage`,
		`{"ratings": ` + all("3")[:len(all("3"))-1] + `, "x": 3}}`: `"x" is no heuristic of docs/xr-design.md`,
	} {
		_, err := ParseDesign(reply)
		require.EqualError(t, err, want, reply)
	}
}

// TestDesignScoreRatesTheRecordedFrames: run --design in a real XR trial
// with video: three frames of each probe's recording (first, middle,
// last) go to the model in order with the ten heuristics, are kept as
// artifacts, and its ten ratings give the design score, apart from the
// verdict; without a model the design is unjudged.
func TestDesignScoreRatesTheRecordedFrames(t *testing.T) {
	page, err := filepath.Abs(filepath.Join("..", "xr", "testdata", "xr-world.html"))
	require.NoError(t, err)
	dir := filepath.Join(t.TempDir(), "xr", "world")
	for name, body := range map[string]string{
		"task.yaml":     "id: xr/world\ntitle: XR world\ncategory: xr\ndifficulty: D1\nviewport: {width: 800, height: 600}\nxr: metaQuest3\nstate:\n  - {path: presenting, type: boolean}\n",
		"brief.md":      "# XR world\n\nExpose the state.\n",
		"contract.yaml": "version: 1\nprobes:\n  - name: turn\n    level: state\n    steps:\n      - step: 4\n      - head: {position: [0, 1.6, 0], orientation: [0, 1, 0, 0]}\n      - step: 4\n      - assert: s.presenting\n",
	} {
		require.NoError(t, os.MkdirAll(dir, 0o755))
		require.NoError(t, os.WriteFile(filepath.Join(dir, name), []byte(body), 0o644))
	}
	tk, err := task.Load(dir)
	require.NoError(t, err)
	c, err := contract.Load(tk.ContractPath())
	require.NoError(t, err)
	judge := func(rater trial.DesignRater) (*result.Trial, string) {
		out := t.TempDir()
		r := &trial.Runner{Browser: shared.Browser, Resolver: shared.Resolver, SkipDraw: true, Load: func() float64 { return 0.2 },
			Video: trial.Video{Mode: trial.VideoXR}, Design: rater}
		tr, err := r.Run(context.Background(), trial.Input{Key: "k", Task: tk, Contract: c, Page: page, Model: "m", Candidate: "c", Dir: out})
		require.NoError(t, err)
		require.Equal(t, result.OutcomeOK, tr.Outcome, "%s: %s", tr.CrashKind, tr.CrashMessage)
		require.True(t, tr.Pass)
		return tr, out
	}

	f := newFakeOpenAI(t, answer{file: "design_gpt.md"})
	tr, out := judge(&DesignRater{Model: visualModel(t, f), ModelName: "openai/test-vlm"})
	d := tr.Design
	require.NotNil(t, d)
	require.Empty(t, d.Unjudged)
	require.Equal(t, "openai/test-vlm", d.Model)
	require.Equal(t, 3.2, d.Score) // (5+3+3+1+4+2+5+1+4+4) / 10
	require.Len(t, d.Ratings, 10)
	require.Equal(t, result.DesignRating{Heuristic: "depth", Score: 1, Reason: "Unlit flat colours give no depth cues."}, d.Ratings[7])
	// The probe steps 4 frames, turns the head and steps 4 more: 8
	// recorded, of which frames 1, 4 and 8 are rated (video.Sample).
	require.Equal(t, []string{"design-turn-1.png", "design-turn-4.png", "design-turn-8.png"}, d.Frames)
	require.Len(t, f.bodies, 1)
	msgs := f.bodies[0]["messages"].([]any)
	require.Equal(t, DesignInstruction(), msgs[0].(map[string]any)["content"])
	var texts []string
	imgs := 0
	for _, part := range msgs[1].(map[string]any)["content"].([]any) {
		p := part.(map[string]any)
		if p["type"] == "text" {
			texts = append(texts, p["text"].(string))
			continue
		}
		url := p["image_url"].(map[string]any)["url"].(string)
		kept, err := os.ReadFile(filepath.Join(out, d.Frames[imgs]))
		require.NoError(t, err)
		require.Equal(t, "data:image/png;base64,"+b64(kept), url, d.Frames[imgs])
		imgs++
	}
	require.Equal(t, []string{"3 frames of the session, in order:", "probe turn, frame 1:", "probe turn, frame 4:", "probe turn, frame 8:"}, texts)
	require.Equal(t, 3, imgs)
	// The frames show the panel ahead, then the marker once the head turned.
	first, _ := os.ReadFile(filepath.Join(out, d.Frames[0]))
	last, _ := os.ReadFile(filepath.Join(out, d.Frames[2]))
	require.Equal(t, 255.0, centre(t, first).R)
	require.Equal(t, 0.0, centre(t, last).R)
	require.Equal(t, 255.0, centre(t, last).G)

	tr, _ = judge(&DesignRater{Why: "the visual_judge role's model needs $OPENAI_API_KEY, which is not set"})
	require.Equal(t, &result.Design{Unjudged: "the visual_judge role's model needs $OPENAI_API_KEY, which is not set",
		Frames: []string{"design-turn-1.png", "design-turn-4.png", "design-turn-8.png"}}, tr.Design)
}

func b64(b []byte) string { return base64.StdEncoding.EncodeToString(b) }
