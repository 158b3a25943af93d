package judges

import (
	"bytes"
	"context"
	"encoding/base64"
	"encoding/json"
	"image"
	"image/color"
	"image/png"
	"io"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"

	"github.com/stretchr/testify/require"
	"go.yaml.in/yaml/v3"

	"github.com/worldprobe/worldprobe/internal/llm"
	"github.com/worldprobe/worldprobe/internal/task"
)

// visualKey is the API key of the visual tests; it must never be written.
const visualKey = "sk-visual-test-SECRET-51c0"

// answer is how the fake provider answers one call: a reply file of
// testdata/replies, a refusal, or an HTTP error.
type answer struct {
	file    string
	refusal string
	status  int
	body    string
}

// fakeOpenAI answers chat completions the way OpenAI does, one scripted
// answer per call, and keeps what it was sent.
type fakeOpenAI struct {
	t       *testing.T
	srv     *httptest.Server
	mu      sync.Mutex
	answers []answer
	bodies  []map[string]any
	keys    []string
}

func newFakeOpenAI(t *testing.T, answers ...answer) *fakeOpenAI {
	t.Helper()
	f := &fakeOpenAI{t: t, answers: answers}
	f.srv = httptest.NewServer(http.HandlerFunc(f.serve))
	t.Cleanup(f.srv.Close)
	return f
}

func (f *fakeOpenAI) serve(w http.ResponseWriter, r *http.Request) {
	raw, _ := io.ReadAll(r.Body)
	var body map[string]any
	require.NoError(f.t, json.Unmarshal(raw, &body))
	f.mu.Lock()
	f.bodies = append(f.bodies, body)
	f.keys = append(f.keys, r.Header.Get("Authorization"))
	if len(f.answers) == 0 {
		f.mu.Unlock()
		f.t.Errorf("unexpected call %d", len(f.bodies))
		http.Error(w, `{"error":{"message":"unexpected"}}`, http.StatusTeapot)
		return
	}
	a := f.answers[0]
	f.answers = f.answers[1:]
	f.mu.Unlock()
	w.Header().Set("Content-Type", "application/json")
	if a.status != 0 {
		w.WriteHeader(a.status)
		_, _ = w.Write([]byte(a.body))
		return
	}
	msg := map[string]any{"role": "assistant", "content": nil, "refusal": nil}
	if a.refusal != "" {
		msg["refusal"] = a.refusal
	} else {
		b, err := os.ReadFile(filepath.Join("testdata", "replies", a.file))
		require.NoError(f.t, err)
		msg["content"] = string(b)
	}
	b, _ := json.Marshal(map[string]any{
		"id": "chatcmpl-visual", "object": "chat.completion", "created": 1760000000, "model": "test-vlm-2025-04-14",
		"choices": []any{map[string]any{"index": 0, "message": msg, "logprobs": nil, "finish_reason": "stop"}},
		"usage": map[string]any{"prompt_tokens": 1200, "completion_tokens": 80, "total_tokens": 1280,
			"prompt_tokens_details": map[string]any{"cached_tokens": 0}, "completion_tokens_details": map[string]any{"reasoning_tokens": 0}},
	})
	_, _ = w.Write(b)
}

// visualModel is the visual_judge role on the fake, priced at $2 in and
// $8 out per 1M tokens: a call of 1200 and 80 tokens costs $0.00304.
func visualModel(t *testing.T, f *fakeOpenAI) llm.Model {
	t.Helper()
	cfg, err := llm.ParseConfig([]byte("pricing:\n  test-vlm: {input: 2.00, output: 8.00}\nroles:\n  visual_judge:\n" +
		"    provider: openai\n    model: test-vlm\n    max_retries: 0\n    base_url: " + f.srv.URL + "/v1\n    key_env: TEST_VLM_KEY\n"))
	require.NoError(t, err)
	reg, err := llm.New(cfg, func(k string) string { return map[string]string{"TEST_VLM_KEY": visualKey}[k] })
	require.NoError(t, err)
	m, err := reg.Role(context.Background(), llm.VisualJudge)
	require.NoError(t, err)
	return m
}

// tinyPNG writes a 4×3 PNG and returns its path and bytes.
func tinyPNG(t *testing.T) (string, []byte) {
	t.Helper()
	img := image.NewRGBA(image.Rect(0, 0, 4, 3))
	img.Set(1, 1, color.RGBA{R: 255, A: 255})
	var buf bytes.Buffer
	require.NoError(t, png.Encode(&buf, img))
	path := filepath.Join(t.TempDir(), "screenshot.png")
	require.NoError(t, os.WriteFile(path, buf.Bytes(), 0o644))
	return path, buf.Bytes()
}

// userParts are the text and the image URL of a request's user message.
func userParts(t *testing.T, body map[string]any) (system, text, imageURL string) {
	t.Helper()
	for _, m := range body["messages"].([]any) {
		mm := m.(map[string]any)
		switch mm["role"] {
		case "system":
			system, _ = mm["content"].(string)
		case "user":
			for _, p := range mm["content"].([]any) {
				pp := p.(map[string]any)
				switch pp["type"] {
				case "text":
					text = pp["text"].(string)
				case "image_url":
					imageURL = pp["image_url"].(map[string]any)["url"].(string)
				}
			}
		}
	}
	return system, text, imageURL
}

// The visual judge against replies written the way models answer: JSON in
// a fence after prose, a hedging answer with a bare fence, bare JSON with
// prose after it, a refusal, a decline in prose, cut-off JSON, a "pass"
// that is no boolean, a score in percent and a provider error. The first
// three are verdicts; the others are recorded judge failures.
func TestVisualJudgeReadsRealReplies(t *testing.T) {
	f := newFakeOpenAI(t,
		answer{file: "gpt_fenced.md"}, answer{file: "claude_hedging.md"}, answer{file: "bare_json.md"},
		answer{refusal: "I'm sorry, but I can't help with evaluating this image."}, answer{file: "declines_in_prose.md"},
		answer{file: "truncated_json.md"}, answer{file: "pass_partially.md"}, answer{file: "score_percent.md"},
		answer{status: http.StatusBadRequest, body: `{"error": {"message": "Invalid image.", "type": "invalid_request_error", "param": null, "code": "invalid_image"}}`},
	)
	j := &VisualJudge{Model: visualModel(t, f), ModelName: "openai/test-vlm"}
	tk := starterTask(t, "application/light-slider")
	shot, pngBytes := tinyPNG(t)
	c := Candidate{Key: "trial-1", Task: tk, Page: tk.SolutionPath(), Screenshot: shot}
	ctx := context.Background()
	judge := func() *Verdict {
		t.Helper()
		v, err := Run(ctx, j, c)
		require.NoError(t, err)
		require.Equal(t, "visual", v.Judge)
		require.Equal(t, "visual v1, openai/test-vlm", v.Config)
		return v
	}
	called := Cost{Calls: 1, InputTokens: 1200, OutputTokens: 80, USD: 0.00304, Source: llm.SourceLive}
	costOf := func(v *Verdict) Cost { c := v.Cost; c.WallMs = 0; c.USD = float64(int(c.USD*1e8+0.5)) / 1e8; return c }

	v := judge()
	require.Equal(t, true, v.Pass)
	require.Equal(t, 0.85, v.Score)
	require.Equal(t, "The sphere, the dark background and both sliders with their value labels are visible; the light's yellow tint fits a hue of 60.", v.Reason)
	require.Empty(t, v.Failure)
	require.Equal(t, called, costOf(v))
	require.True(t, strings.HasPrefix(v.Reply, "Looking at the screenshot"))

	v = judge()
	require.Equal(t, false, v.Pass)
	require.Equal(t, 0.4, v.Score)
	require.Equal(t, "The sliders and labels are there, but the light does not look yellow as hue 60 requires.", v.Reason)

	v = judge()
	require.True(t, v.Pass)
	require.Equal(t, 1.0, v.Score)
	require.Equal(t, "Everything the brief describes is visible: the sphere, the {dark} background and the labelled sliders.", v.Reason)

	for _, want := range []string{
		`the model declined: "I'm sorry, but I can't help with evaluating this image."`,
		`no verdict in the reply (it holds no JSON object with a "pass" key): "I'm not able to judge this page reliably from a single screenshot: whether the sliders drive the light can only be seen by using them. I'd suggest an interactiv…"`,
		"no verdict in the reply (it holds no JSON object with a \"pass\" key): \"```json {\\\"pass\\\": true, \\\"score\\\": 0.9, \\\"reason\\\": \\\"The sphere is lit and the panel\"",
		"no verdict in the reply (\"pass\" is \"partially\", not true or false): \"Mostly there, but not entirely. ```json {\\\"pass\\\": \\\"partially\\\", \\\"score\\\": 0.5, \\\"reason\\\": \\\"The hue label is missing.\\\"} ```\"",
		"no verdict in the reply (\"score\" 85 is outside [0, 1]): \"```json {\\\"pass\\\": true, \\\"score\\\": 85, \\\"reason\\\": \\\"The page matches the brief well.\\\"} ```\"",
	} {
		v = judge()
		require.Equal(t, want, v.Failure)
		require.False(t, v.Pass)
		require.Zero(t, v.Score)
		require.Equal(t, called, costOf(v), "a reply that is no verdict was still paid for")
	}
	v = judge()
	require.False(t, v.Pass)
	require.Contains(t, v.Failure, "the model call failed: ")
	require.Contains(t, v.Failure, "Invalid image.")
	require.Zero(t, v.Cost.Calls, "no answer, no cost")

	// What the provider was sent: the instruction, the brief as the model
	// that wrote the page got it (parameters filled in, no requirement ids)
	// and the screenshot; nothing of the contract.
	brief, err := tk.Brief()
	require.NoError(t, err)
	for i, body := range f.bodies {
		require.Equal(t, "Bearer "+visualKey, f.keys[i])
		require.Equal(t, "test-vlm", body["model"])
		system, text, img := userParts(t, body)
		require.Equal(t, VisualInstruction, system)
		require.Equal(t, "The brief:\n\n"+strings.TrimSpace(task.StripRequirementIDs(brief))+"\n\nThe screenshot:", text)
		require.Contains(t, text, "`max` 3,", "the parameter is filled in")
		require.NotContains(t, text, "{#")
		require.Equal(t, "data:image/png;base64,"+base64.StdEncoding.EncodeToString(pngBytes), img)
	}
	contract, err := os.ReadFile(filepath.Join("..", "..", "suites", "starter", "application", "light-slider", task.ContractFile))
	require.NoError(t, err)
	var probes struct{ Probes []struct{ Name string } }
	require.NoError(t, yaml.Unmarshal(contract, &probes))
	require.NotEmpty(t, probes.Probes)
	for _, body := range f.bodies {
		raw, _ := json.Marshal(body)
		for _, p := range probes.Probes {
			require.NotContains(t, string(raw), p.Name, "the contract's probe %s reached the model", p.Name)
		}
	}
}

// A provider that refuses for good (a bad key) stops the comparison: the
// judge returns the error rather than a verdict, and never shows the key.
func TestVisualJudgeStopsOnFatalErrors(t *testing.T) {
	f := newFakeOpenAI(t, answer{status: http.StatusUnauthorized,
		body: `{"error": {"message": "Incorrect API key provided: sk-visu************51c0.", "type": "invalid_request_error", "param": null, "code": "invalid_api_key"}}`})
	j := &VisualJudge{Model: visualModel(t, f), ModelName: "openai/test-vlm"}
	tk := starterTask(t, "application/light-slider")
	shot, _ := tinyPNG(t)
	_, err := Run(context.Background(), j, Candidate{Key: "k", Task: tk, Page: tk.SolutionPath(), Screenshot: shot})
	require.Error(t, err)
	require.True(t, llm.IsFatal(err), "%v", err)
	require.NotContains(t, err.Error(), visualKey)
}

// Without the run's screenshot the judge takes its own: the task's whole
// viewport after 30 frames, in real Chromium. Without a page there is
// nothing to show and no call.
func TestVisualJudgeTakesAScreenshot(t *testing.T) {
	f := newFakeOpenAI(t, answer{file: "gpt_fenced.md"})
	j := &VisualJudge{Model: visualModel(t, f), ModelName: "openai/test-vlm", Browser: shared.Browser, Resolver: shared.Resolver}
	tk := starterTask(t, "application/light-slider")
	v, err := Run(context.Background(), j, Candidate{Key: "k", Task: tk, Page: tk.SolutionPath()})
	require.NoError(t, err)
	require.True(t, v.Pass)
	require.Len(t, f.bodies, 1)
	_, _, url := userParts(t, f.bodies[0])
	data, err := base64.StdEncoding.DecodeString(strings.TrimPrefix(url, "data:image/png;base64,"))
	require.NoError(t, err)
	img, err := png.Decode(bytes.NewReader(data))
	require.NoError(t, err)
	require.Equal(t, image.Rect(0, 0, tk.Viewport.Width, tk.Viewport.Height), img.Bounds())

	v, err = Run(context.Background(), j, Candidate{Key: "k", Task: tk})
	require.NoError(t, err)
	require.Equal(t, &Verdict{Judge: "visual", Config: "visual v1, openai/test-vlm", Reason: "no screenshot: the model produced no page", Cost: v.Cost}, v)
	require.Len(t, f.bodies, 1, "no call")
}

// ParseVerdict's rules on their own.
func TestParseVerdict(t *testing.T) {
	for _, c := range []struct {
		reply  string
		pass   bool
		score  float64
		reason string
		err    string
	}{
		{reply: `{"pass": false}`, score: 0},
		{reply: `{"pass": true, "score": null, "reason": " fine "}`, pass: true, score: 1, reason: "fine"},
		{reply: "Example: {\"verdict\": 1}\n```json\n{\"pass\": true, \"score\": 0.5}\n```", pass: true, score: 0.5},
		{reply: `{"pass": true, "score": "high"}`, err: `"score" is "high", not a number`},
		{reply: `{"pass": true, "score": -0.1}`, err: `"score" -0.1 is outside [0, 1]`},
		{reply: `no json {here`, err: `it holds no JSON object with a "pass" key`},
	} {
		pass, score, reason, err := ParseVerdict(c.reply)
		if c.err != "" {
			require.EqualError(t, err, c.err, c.reply)
			continue
		}
		require.NoError(t, err, c.reply)
		require.Equal(t, []any{c.pass, c.score, c.reason}, []any{pass, score, reason}, c.reply)
	}
}
