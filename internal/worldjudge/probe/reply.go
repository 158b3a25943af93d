// Package probe is the reading side of the world judge: a model quotes the
// world's source per rubric item (the code probe), a quote that is not
// source text gets one repair by line numbers a model picks from a
// numbered window (it selects lines, never writes them), and an evidence
// agent with read-only grep and read-lines tools looks again for items the
// frames show but the probe did not find. Every quote, whoever made it, is
// checked the same way (Verify): it must be source text by WorldBench's
// rules (internal/worldjudge/quote) and its lines must have run while the
// world was captured (internal/worldjudge/coverage).
package probe

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"strings"

	"github.com/worldprobe/worldprobe/internal/llm"
)

// decodeReply reads a structured answer into v: the arguments of a call to
// the tool named tool, else the reply's text as JSON — the whole text, a
// fenced block, or the object from the first '{' to the last '}' when the
// model wrapped it in prose. Decoding is strict: unknown fields and
// trailing data are refused.
func decodeReply(resp *llm.Response, tool string, v any) error {
	for _, c := range resp.ToolCalls {
		if c.Name == tool {
			return strictJSON(c.Arguments, v)
		}
	}
	if len(resp.ToolCalls) > 0 {
		return fmt.Errorf("the model called %s, not %s", resp.ToolCalls[0].Name, tool)
	}
	text := strings.TrimSpace(resp.Text)
	if text == "" {
		return errors.New("the reply is empty")
	}
	if err := strictJSON([]byte(unfence(text)), v); err == nil {
		return nil
	}
	i, j := strings.Index(text, "{"), strings.LastIndex(text, "}")
	if i < 0 || j < i {
		return errors.New("the reply holds no JSON object")
	}
	return strictJSON([]byte(text[i:j+1]), v)
}

// unfence removes a Markdown code fence around the whole text.
func unfence(text string) string {
	if !strings.HasPrefix(text, "```") {
		return text
	}
	text = strings.TrimPrefix(text, "```")
	if nl := strings.IndexByte(text, '\n'); nl >= 0 && !strings.Contains(text[:nl], "{") {
		text = text[nl+1:]
	}
	return strings.TrimSuffix(strings.TrimSpace(text), "```")
}

func strictJSON(data []byte, v any) error {
	dec := json.NewDecoder(bytes.NewReader(data))
	dec.DisallowUnknownFields()
	if err := dec.Decode(v); err != nil {
		return fmt.Errorf("not the expected JSON: %w", err)
	}
	if dec.More() {
		return errors.New("not the expected JSON: data after the object")
	}
	return nil
}

// clip shortens a reply for a reason string.
func clip(s string, n int) string {
	s = strings.TrimSpace(s)
	r := []rune(s)
	if len(r) <= n {
		return s
	}
	return string(r[:n]) + "…"
}
