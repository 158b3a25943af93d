package judges

import (
	"bytes"
	"context"
	"encoding/base64"
	"fmt"
	"image/png"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/worldprobe/worldprobe/internal/contract"
	"github.com/worldprobe/worldprobe/internal/llm"
	"github.com/worldprobe/worldprobe/internal/pixel"
	"github.com/worldprobe/worldprobe/internal/result"
	"github.com/worldprobe/worldprobe/internal/task"
	"github.com/worldprobe/worldprobe/internal/trial"
)

// lookPanel looks at internal/xr/testdata/xr-world.html through the
// headset: the white panel 1 m ahead, then, the head turned round, the
// green marker behind the user.
const lookPanel = `version: 1
probes:
  - name: panel
    level: state
    steps:
      - step: 3
      - look: {criterion: a white square panel is in the middle of the view}
      - head: {position: [0, 1.6, 0], orientation: [0, 1, 0, 0]}
      - look: {criterion: a white square panel is in the middle of the view, view: user}
        message: the panel stays in front
      - assert: s.presenting
`

// lookUnjudged adds three looks no model judges: a refusal, prose with
// no verdict, a provider error after its retries.
const lookUnjudged = `
  - name: unjudged
    level: state
    steps:
      - step: 3
      - look: {criterion: the panel is lit from the left}
      - look: {criterion: the panel casts a shadow}
      - look: {criterion: the table is brown}
`

// lookTrial judges xr-world.html with the contract through a real
// trial in Chromium, the looks judged by looker.
func lookTrial(t *testing.T, contractText string, looker contract.Looker) (*result.Trial, string) {
	t.Helper()
	return xrTrial(t, contractText, func(r *trial.Runner) { r.Looker = looker })
}

// xrTrial judges xr-world.html with the contract through a real trial in
// Chromium, with the runner set up by setup.
func xrTrial(t *testing.T, contractText string, setup func(*trial.Runner)) (*result.Trial, string) {
	t.Helper()
	page, err := filepath.Abs(filepath.Join("..", "xr", "testdata", "xr-world.html"))
	require.NoError(t, err)
	dir := filepath.Join(t.TempDir(), "xr", "world")
	for name, body := range map[string]string{
		"task.yaml":     "id: xr/world\ntitle: XR world\ncategory: xr\ndifficulty: D1\nviewport: {width: 800, height: 600}\nxr: metaQuest3\nstate:\n  - {path: presenting, type: boolean}\n",
		"brief.md":      "# XR world\n\nSECRET-BRIEF: expose the state.\n",
		"contract.yaml": contractText,
	} {
		require.NoError(t, os.MkdirAll(dir, 0o755))
		require.NoError(t, os.WriteFile(filepath.Join(dir, name), []byte(body), 0o644))
	}
	tk, err := task.Load(dir)
	require.NoError(t, err)
	c, err := contract.Load(tk.ContractPath())
	require.NoError(t, err)
	out := t.TempDir()
	r := &trial.Runner{Browser: shared.Browser, Resolver: shared.Resolver, SkipDraw: true, Load: func() float64 { return 0.2 }}
	setup(r)
	tr, err := r.Run(context.Background(), trial.Input{Key: "k", Task: tk, Contract: c, Page: page, Model: "m", Candidate: "c", Dir: out})
	require.NoError(t, err)
	require.Equal(t, result.OutcomeOK, tr.Outcome, "%s: %s", tr.CrashKind, tr.CrashMessage)
	return tr, out
}

// looks renders a trial's look verdicts for comparison.
func looks(tr *result.Trial) []string {
	var out []string
	for _, a := range tr.Assertions {
		if a.Probe == contract.InterfaceProbe {
			continue
		}
		out = append(out, fmt.Sprintf("%s:%d %s %s %q | %s | %s | %s | %s", a.Probe, a.Line, a.Kind, a.Status, a.Expr, a.Message, a.Reason, a.Image, a.Model))
	}
	return out
}

// centre is the colour at the middle of a PNG.
func centre(t *testing.T, b []byte) pixel.RGBA {
	t.Helper()
	img, err := png.Decode(bytes.NewReader(b))
	require.NoError(t, err)
	r := img.Bounds()
	return pixel.At(img, r.Min.X+r.Dx()/2, r.Min.Y+r.Dy()/2)
}

// sentImage is the PNG of the one image a chat request carried.
func sentImage(t *testing.T, body map[string]any) ([]byte, string) {
	t.Helper()
	msgs := body["messages"].([]any)
	require.Len(t, msgs, 2)
	var text, url string
	for _, part := range msgs[1].(map[string]any)["content"].([]any) {
		p := part.(map[string]any)
		switch p["type"] {
		case "text":
			text += p["text"].(string)
		case "image_url":
			require.Empty(t, url, "one image only")
			url = p["image_url"].(map[string]any)["url"].(string)
		}
	}
	const prefix = "data:image/png;base64,"
	require.True(t, strings.HasPrefix(url, prefix), url[:min(40, len(url))])
	b, err := base64.StdEncoding.DecodeString(strings.TrimPrefix(url, prefix))
	require.NoError(t, err)
	return b, text
}

// TestLookJudgesTheUserView runs look steps in a real XR trial against a
// provider answering as OpenAI does, with replies written the way real
// models write them (a fenced verdict in prose, a bare one after prose,
// a refusal, prose with no verdict, a server error): the model gets the
// frame of the headset's view and the criterion, never the brief nor the
// contract; judged looks pass or fail with its reason, the others are
// unjudged and counted apart; each frame is an artifact of the trial.
func TestLookJudgesTheUserView(t *testing.T) {
	f := newFakeOpenAI(t, answer{file: "look_gpt_pass.md"}, answer{file: "look_claude_fail.md"},
		answer{refusal: "I can't help with judging this image."}, answer{file: "declines_in_prose.md"},
		answer{status: 500, body: `{"error":{"message":"The server had an error while processing your request.","type":"server_error"}}`})
	looker := &Looker{Model: visualModel(t, f), ModelName: "openai/test-vlm"}
	tr, dir := lookTrial(t, lookPanel+lookUnjudged, looker)

	require.Equal(t, []string{
		`panel:7 look pass "a white square panel is in the middle of the view" |  | A white square panel fills the centre of the view. | look-panel-7.png | openai/test-vlm`,
		`panel:9 look fail "a white square panel is in the middle of the view" | the panel stays in front: the model judged that the view does not show "a white square panel is in the middle of the view": The centre shows a small green cube, not a white panel. | The centre shows a small green cube, not a white panel. | look-panel-9.png | openai/test-vlm`,
		`panel:11  pass "s.presenting" |  |  |  | `,
		`unjudged:17 look unjudged "the panel is lit from the left" | unjudged: the model declined: "I can't help with judging this image." | the model declined: "I can't help with judging this image." | look-unjudged-17.png | openai/test-vlm`,
		`unjudged:18 look unjudged "the panel casts a shadow" | unjudged: no verdict in the reply (it holds no JSON object with a "pass" key): "I'm not able to judge this page reliably from a single screenshot: whether the sliders drive the light can only be seen by using them. I'd suggest an interactiv…" | no verdict in the reply (it holds no JSON object with a "pass" key): "I'm not able to judge this page reliably from a single screenshot: whether the sliders drive the light can only be seen by using them. I'd suggest an interactiv…" | look-unjudged-18.png | openai/test-vlm`,
		`unjudged:19 look unjudged "the table is brown" | unjudged: the model call failed: ` + lookErr(tr, 19) + ` | the model call failed: ` + lookErr(tr, 19) + ` | look-unjudged-19.png | openai/test-vlm`,
	}, looks(tr))
	require.Contains(t, lookErr(tr, 19), "HTTP 500")
	require.False(t, tr.Pass)
	require.Equal(t, 3, tr.Unjudged)
	// Judged: the interface field, two looks and the assert; one failed.
	require.Equal(t, 0.75, tr.VCov)
	require.Equal(t, 2.0/3, tr.SCov) // the interface field is an affordance
	require.Equal(t, contract.AttrStateMismatch, tr.Attribution)

	// The model saw the headset's view: the white panel ahead, then the
	// green marker once the head turned round; the frame sent is the
	// artifact kept, byte for byte; the text is the criterion alone.
	require.Len(t, f.bodies, 5)
	want := []pixel.RGBA{{R: 255, G: 255, B: 255, A: 255}, {R: 0, G: 255, B: 0, A: 255}}
	for i, b := range f.bodies {
		img, text := sentImage(t, b)
		a := tr.Assertions[1+i+min(i/2, 1)] // the interface field first, the assert after two looks
		require.Equal(t, "The criterion: "+a.Expr+"\n\nThe picture:", text)
		kept, err := os.ReadFile(filepath.Join(dir, a.Image))
		require.NoError(t, err)
		require.Equal(t, kept, img, a.Image)
		if i < 2 {
			require.Equal(t, want[i], centre(t, img), "frame %d", i)
		}
		require.Equal(t, LookInstruction, b["messages"].([]any)[0].(map[string]any)["content"])
		raw := fmt.Sprint(b)
		require.NotContains(t, raw, "SECRET-BRIEF")
		require.NotContains(t, raw, "s.presenting")
	}
	require.Subset(t, tr.Artifacts, []string{"look-panel-7.png", "look-panel-9.png", "look-unjudged-17.png", "look-unjudged-18.png", "look-unjudged-19.png"})
}

// lookErr is the provider error a look's reason quotes.
func lookErr(tr *result.Trial, line int) string {
	for _, a := range tr.Assertions {
		if a.Line == line && a.Kind == result.KindLook {
			return strings.TrimPrefix(a.Reason, "the model call failed: ")
		}
	}
	return ""
}

// TestLookWithoutAModel: with no visual_judge model every look is
// unjudged, its frame still kept; the trial passes on the judged
// assertions and says how many are unjudged.
func TestLookWithoutAModel(t *testing.T) {
	tr, _ := lookTrial(t, lookPanel, nil)
	msg := "unjudged: no visual_judge model is configured (give the visual_judge role a model: docs/models.md)"
	require.Equal(t, []string{
		`panel:7 look unjudged "a white square panel is in the middle of the view" | ` + msg + ` | no visual_judge model is configured (give the visual_judge role a model: docs/models.md) | look-panel-7.png | `,
		`panel:9 look unjudged "a white square panel is in the middle of the view" | ` + msg + ` | no visual_judge model is configured (give the visual_judge role a model: docs/models.md) | look-panel-9.png | `,
		`panel:11  pass "s.presenting" |  |  |  | `,
	}, looks(tr))
	require.True(t, tr.Pass)
	require.Equal(t, 2, tr.Unjudged)
	require.Equal(t, 1.0, tr.VCov)
}

// TestLookReplaysRecordedResponses: a trial whose looks were recorded
// (llm.WithRecord) runs again from the recordings alone, the provider
// gone, with the same verdicts: the frames are the same bytes run after
// run, so each request has the digest it was recorded under.
func TestLookReplaysRecordedResponses(t *testing.T) {
	rec := t.TempDir()
	f := newFakeOpenAI(t, answer{file: "look_gpt_pass.md"}, answer{file: "look_claude_fail.md"})
	model := func(opts ...llm.Option) llm.Model {
		cfg, err := llm.ParseConfig([]byte("pricing:\n  test-vlm: {input: 2.00, output: 8.00}\nroles:\n  visual_judge:\n" +
			"    provider: openai\n    model: test-vlm\n    max_retries: 0\n    base_url: " + f.srv.URL + "/v1\n    key_env: TEST_VLM_KEY\n"))
		require.NoError(t, err)
		reg, err := llm.New(cfg, func(k string) string { return map[string]string{"TEST_VLM_KEY": visualKey}[k] }, opts...)
		require.NoError(t, err)
		m, err := reg.Role(context.Background(), llm.VisualJudge)
		require.NoError(t, err)
		return m
	}
	first, _ := lookTrial(t, lookPanel, &Looker{Model: model(llm.WithRecord(rec)), ModelName: "openai/test-vlm"})
	f.srv.Close()
	files, err := filepath.Glob(filepath.Join(rec, "visual_judge", "*.json"))
	require.NoError(t, err)
	require.Len(t, files, 2)
	for _, p := range files {
		b, err := os.ReadFile(p)
		require.NoError(t, err)
		require.NotContains(t, string(b), visualKey)
	}
	again, _ := lookTrial(t, lookPanel, &Looker{Model: model(llm.WithReplay(rec)), ModelName: "openai/test-vlm"})
	require.Equal(t, looks(first), looks(again))
	require.Equal(t, result.StatusPass, again.Assertions[1].Status)
	require.Equal(t, result.StatusFail, again.Assertions[2].Status)
	require.Equal(t, first.StateHash, again.StateHash)
}
