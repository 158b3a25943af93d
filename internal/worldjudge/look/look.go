// Package look is the looking side of the world judge with models: blind
// identification of the saved frames (one shuffled call, no brief), the
// shared visual item judge over blind-confirmed frames (and the burst
// overlays for motion), and the visual bug-hunt of WC001 with its ocean
// over the void. Every reply is read strictly: a reply that cannot be read
// leaves what it was to judge "unjudged" with the reason, never 0.
package look

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"

	"github.com/worldprobe/worldprobe/internal/llm"
	"github.com/worldprobe/worldprobe/internal/pixel"
	"github.com/worldprobe/worldprobe/internal/worldjudge/measure"
)

// Verdict statuses (a model's answer read, or not).
const (
	// Judged: the reply was read.
	Judged = "judged"
	// Unjudged: no usable reply (result.StatusUnjudged's word).
	Unjudged = "unjudged"
)

// ImageWidth is the width frames are sent at (WorldBench's 896), as JPEG
// of quality ImageQuality, area-averaged from the saved PNG.
const (
	ImageWidth   = 896
	ImageQuality = 80
)

// Frame is one saved frame shown to a model.
type Frame struct {
	// View is the capture's view name; File its PNG, relative to the
	// judge's folder.
	View string `json:"view"`
	File string `json:"file"`
	// Biome is the biome the frame was meant to show ("" for none).
	Biome string `json:"biome,omitempty"`
}

// Call is what one model call cost and answered, for the report.
type Call struct {
	Model        string  `json:"model,omitempty"`
	InputTokens  int64   `json:"input_tokens"`
	OutputTokens int64   `json:"output_tokens"`
	CostUSD      float64 `json:"cost_usd"`
	Source       string  `json:"source,omitempty"`
	// Reply is the model's answer, as it came (text or tool arguments).
	Reply string `json:"reply"`
}

func callOf(r *llm.Response, reply string) Call {
	return Call{Model: r.Provider + "/" + r.Model, InputTokens: r.Usage.InputTokens, OutputTokens: r.Usage.OutputTokens,
		CostUSD: r.CostUSD, Source: string(r.Source), Reply: reply}
}

// image reads a frame and returns it as a JPEG ImageWidth wide (smaller
// frames keep their size).
func loadImage(dir string, f Frame) ([]byte, error) {
	raw, err := os.ReadFile(filepath.Join(dir, f.File))
	if err != nil {
		return nil, fmt.Errorf("reading frame %s: %w", f.View, err)
	}
	img, err := pixel.DecodePNG(raw)
	if err != nil {
		return nil, fmt.Errorf("decoding frame %s: %w", f.View, err)
	}
	b, err := measure.JPEG(img, ImageWidth, ImageQuality)
	if err != nil {
		return nil, fmt.Errorf("frame %s: %w", f.View, err)
	}
	return b, nil
}

// labelled is the user message of images, each after its label.
func labelled(dir, intro string, labels []string, frames []Frame, outro string) (llm.Message, error) {
	parts := []llm.Part{llm.Text(intro)}
	for i, f := range frames {
		b, err := loadImage(dir, f)
		if err != nil {
			return llm.Message{}, err
		}
		parts = append(parts, llm.Text("["+labels[i]+"]"), llm.Image("image/jpeg", b))
	}
	parts = append(parts, llm.Text(outro))
	return llm.UserParts(parts...), nil
}

// answerTool lets a model answer through a tool call instead of text.
func answerTool(schema string) llm.Tool {
	return llm.Tool{Name: "answer", Description: "Give your answer as the arguments of this call.", Parameters: json.RawMessage(schema)}
}

// ask sends req and returns the reply's JSON object (from a call of the
// answer tool, else the first JSON object in the text, fenced or in
// prose) as raw JSON, with the call. A failed call or a reply with no
// object is an error with the reply kept in the Call.
func ask(ctx context.Context, m llm.Model, req llm.Request) (json.RawMessage, Call, error) {
	resp, err := m.Chat(ctx, req)
	if err != nil {
		return nil, Call{}, fmt.Errorf("the model call failed: %w", err)
	}
	for _, tc := range resp.ToolCalls {
		if tc.Name == "answer" {
			c := callOf(resp, string(tc.Arguments))
			if !json.Valid(tc.Arguments) {
				return nil, c, errors.New("the answer call's arguments are not JSON")
			}
			return tc.Arguments, c, nil
		}
	}
	c := callOf(resp, resp.Text)
	if resp.StopReason == llm.StopRefusal {
		return nil, c, fmt.Errorf("the model declined: %s", short(resp.Text))
	}
	obj, err := firstObject(resp.Text)
	if err != nil {
		if resp.StopReason == llm.StopLength {
			err = fmt.Errorf("%w (the reply was cut at the token limit)", err)
		}
		return nil, c, err
	}
	return obj, c, nil
}

// firstObject finds the first complete, valid JSON object in a reply.
func firstObject(text string) (json.RawMessage, error) {
	for i := 0; i < len(text); i++ {
		if text[i] != '{' {
			continue
		}
		dec := json.NewDecoder(strings.NewReader(text[i:]))
		var raw json.RawMessage
		if dec.Decode(&raw) == nil && len(raw) > 0 && raw[0] == '{' {
			return raw, nil
		}
	}
	return nil, fmt.Errorf("no JSON object in the reply: %s", short(text))
}

// strictDecode decodes obj into v, refusing unknown fields.
func strictDecode(obj json.RawMessage, v any) error {
	dec := json.NewDecoder(bytes.NewReader(obj))
	dec.DisallowUnknownFields()
	if err := dec.Decode(v); err != nil {
		return fmt.Errorf("the reply's object does not fit the asked form: %w", err)
	}
	return nil
}

func short(s string) string {
	s = strings.TrimSpace(s)
	if r := []rune(s); len(r) > 200 {
		return string(r[:200]) + "…"
	}
	return fmt.Sprintf("%q", s)
}
