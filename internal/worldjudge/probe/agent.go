package probe

import (
	"context"
	"encoding/json"
	"fmt"
	"regexp"
	"strings"

	"github.com/worldprobe/worldprobe/internal/llm"
)

// The evidence agent's budgets.
const (
	// MaxToolCalls: past it, every tool answers that the budget is spent.
	MaxToolCalls = 10
	// MaxSteps bounds model calls plus tool calls; past it the transcript
	// is salvaged by one more call.
	MaxSteps = 30
	// SalvageChars caps the transcript a salvage call sees.
	SalvageChars = 12000
	// MaxToolOutput caps one tool's answer.
	MaxToolOutput = 12000
	// MaxGrepContext and MaxReadLines bound grep's context and read_lines.
	MaxGrepContext = 20
	MaxReadLines   = 400
)

// HuntInput is one item the frames show but whose code the probe did not
// find.
type HuntInput struct {
	Test       string   `json:"test"`
	Biome      string   `json:"biome,omitempty"`
	BiomeLabel string   `json:"biome_label,omitempty"`
	Aliases    []string `json:"aliases,omitempty"`
	Item       Ask      `json:"item"`
	// VisualHint is what the frames showed: a lead, never proof.
	VisualHint string `json:"visual_hint,omitempty"`
	// LocationHint points at where the world places the biome, when known.
	LocationHint string `json:"location_hint,omitempty"`
}

// ToolUse is one tool call of a hunt, for the report.
type ToolUse struct {
	Name      string          `json:"name"`
	Arguments json.RawMessage `json:"arguments"`
	// Answer is what the tool answered, clipped; Refused says why it did
	// not run (budget spent, repeated call, bad arguments).
	Answer  string `json:"answer"`
	Refused string `json:"refused,omitempty"`
}

// Hunt is the evidence agent's checked verdict for one item.
type Hunt struct {
	Item  string `json:"item"`
	Found bool   `json:"found"`
	// Evidence is its final quote, checked; nil when it found nothing.
	Evidence    *Evidence `json:"evidence,omitempty"`
	PickedLines []int     `json:"lines,omitempty"`
	Explanation string    `json:"explanation,omitempty"`
	// Tools are its tool calls in order; Steps counts model and tool calls.
	Tools []ToolUse `json:"tools"`
	Steps int       `json:"steps"`
	// Salvaged: it gave no final answer within its steps, and one more
	// call turned its transcript into one.
	Salvaged bool `json:"salvaged,omitempty"`
	// Unjudged says why the hunt has no verdict.
	Unjudged string `json:"unjudged,omitempty"`
}

// AgentPrompt is the evidence agent's system prompt.
const AgentPrompt = `You look for the code of one item in a three.js world's source, which you cannot see whole: search it with grep (a regular expression; answers "N: line") and read it with read_lines (at most 400 lines at a time). You have at most 10 tool calls; do not repeat a call.

Rules:
- The frames hint tells you what a viewer saw. It is a lead, never proof: the code must build the item itself.
- Do not infer. "There are pools, so there must be banks" is not evidence; quote the code that builds the banks, or answer found: false.
- Worlds often build things in ways that do not name them: implicit math (a height function), a named helper placed in the biome's cells, a table read by a loop that places its rows. Follow the code to the place that builds the item.
- A comment, a legend or config row, HUD text or a bare biome id proves nothing.

When you are done, call final_answer (or answer with the same JSON): {"found": bool, "evidence": "exact source lines, copied, one per line, at most 6", "lines": [line numbers], "explanation": "..."}.`

const finalTool = "final_answer"

var agentTools = []llm.Tool{
	{Name: "grep", Description: "Search the source with a regular expression (RE2 syntax). Answers matching lines as \"N: line\", with context lines around each.",
		Parameters: json.RawMessage(`{"type":"object","properties":{"pattern":{"type":"string"},"ignore_case":{"type":"boolean"},"context":{"type":"integer","minimum":0,"maximum":20}},"required":["pattern"],"additionalProperties":false}`)},
	{Name: "read_lines", Description: "Read source lines start to end (1-based, both included, at most 400), as \"N: line\".",
		Parameters: json.RawMessage(`{"type":"object","properties":{"start":{"type":"integer","minimum":1},"end":{"type":"integer","minimum":1}},"required":["start","end"],"additionalProperties":false}`)},
	{Name: finalTool, Description: "Give the final verdict.",
		Parameters: json.RawMessage(`{"type":"object","properties":{"found":{"type":"boolean"},"evidence":{"type":"string"},"lines":{"type":"array","items":{"type":"integer"}},"explanation":{"type":"string"}},"required":["found","evidence","lines","explanation"],"additionalProperties":false}`)},
}

type verdict struct {
	Found       bool   `json:"found"`
	Evidence    string `json:"evidence"`
	Lines       []int  `json:"lines"`
	Explanation string `json:"explanation"`
}

// HuntEvidence runs the evidence agent for one item: a tool loop over the
// world's source only (grep and read_lines on the text in memory; no file
// system, no network), at most MaxToolCalls tool calls and MaxSteps steps,
// then its final quote goes through c.Verify like the probe's. The error
// is for a fatal model error or a cancelled context only.
func HuntEvidence(ctx context.Context, m llm.Model, c *Checker, in HuntInput) (*Hunt, error) {
	h := &Hunt{Item: in.Item.ID}
	task, _ := json.MarshalIndent(in, "", "  ")
	msgs := []llm.Message{
		llm.SystemText(AgentPrompt),
		llm.UserText(fmt.Sprintf("The item to find (the source has %d lines):\n%s", len(c.Lines), task)),
	}
	t0 := 0.0
	seen := map[string]bool{}
	calls := 0
	var v *verdict
loop:
	for h.Steps < MaxSteps {
		resp, err := m.Chat(ctx, llm.Request{Messages: msgs, Tools: agentTools, Temperature: &t0})
		h.Steps++
		if err != nil {
			if fatal(ctx, err) {
				return nil, fmt.Errorf("evidence agent for %s: %w", in.Item.ID, err)
			}
			h.Unjudged = "the evidence agent's call failed: " + err.Error()
			return h, nil
		}
		if len(resp.ToolCalls) == 0 {
			var fv verdict
			if err := decodeReply(resp, finalTool, &fv); err == nil {
				v = &fv
			}
			break
		}
		msgs = append(msgs, llm.AssistantText(resp.Text, resp.ToolCalls...))
		for _, call := range resp.ToolCalls {
			if call.Name == finalTool {
				var fv verdict
				if err := strictJSON(call.Arguments, &fv); err == nil {
					v = &fv
					break loop
				}
			}
			h.Steps++
			calls++
			use := ToolUse{Name: call.Name, Arguments: call.Arguments}
			key := call.Name + string(call.Arguments)
			switch {
			case calls > MaxToolCalls:
				use.Refused = "budget"
				use.Answer = fmt.Sprintf("TOOL BUDGET SPENT: you have used your %d tool calls. Give your final answer now with final_answer.", MaxToolCalls)
			case seen[key]:
				use.Refused = "repeated"
				use.Answer = "You already ran " + call.Name + " with these arguments; its answer is above. Do something else or give your final answer."
			default:
				seen[key] = true
				var err error
				use.Answer, err = c.tool(call)
				if err != nil {
					use.Refused = "arguments"
					use.Answer = err.Error()
				}
			}
			h.Tools = append(h.Tools, use)
			msgs = append(msgs, llm.ToolResult(call.ID, use.Answer))
		}
	}
	if v == nil {
		sv, why, err := salvage(ctx, m, in, h)
		if err != nil {
			return nil, err
		}
		h.Steps++
		h.Salvaged = true
		if sv == nil {
			h.Unjudged = why
			return h, nil
		}
		v = sv
	}
	h.Found, h.Explanation, h.PickedLines = v.Found, v.Explanation, v.Lines
	if v.Found {
		ev, err := c.Verify(ctx, "look", ByAgent, v.Evidence)
		if err != nil {
			return nil, err
		}
		h.Evidence = &ev
	}
	for i := range h.Tools {
		h.Tools[i].Answer = clip(h.Tools[i].Answer, 600)
	}
	return h, nil
}

// salvage turns a hunt's transcript into a verdict with one call.
func salvage(ctx context.Context, m llm.Model, in HuntInput, h *Hunt) (*verdict, string, error) {
	var b strings.Builder
	for _, t := range h.Tools {
		fmt.Fprintf(&b, "%s %s\n%s\n\n", t.Name, t.Arguments, t.Answer)
	}
	tr := b.String()
	if len(tr) > SalvageChars {
		tr = tr[len(tr)-SalvageChars:]
	}
	t0 := 0.0
	resp, err := m.Chat(ctx, llm.Request{Temperature: &t0, Messages: []llm.Message{
		llm.SystemText(`You searched a world's source for one item and ran out of steps. From the tool answers below only, give your verdict as JSON: {"found": bool, "evidence": "exact source lines from the answers, one per line", "lines": [line numbers], "explanation": "..."}. Quote only lines shown below; if none builds the item, found is false.`),
		llm.UserText(fmt.Sprintf("The item: %s (%s)\n\nYour tool answers:\n%s", in.Item.ID, in.Item.Label, tr)),
	}})
	if err != nil {
		if fatal(ctx, err) {
			return nil, "", fmt.Errorf("evidence agent for %s: %w", in.Item.ID, err)
		}
		return nil, "the evidence agent's salvage call failed: " + err.Error(), nil
	}
	var v verdict
	if err := decodeReply(resp, finalTool, &v); err != nil {
		return nil, fmt.Sprintf("the evidence agent gave no readable verdict (%v): %s", err, clip(resp.Text, 200)), nil
	}
	return &v, "", nil
}

// tool runs grep or read_lines over the source in memory.
func (c *Checker) tool(call llm.ToolCall) (string, error) {
	switch call.Name {
	case "grep":
		var a struct {
			Pattern    string `json:"pattern"`
			IgnoreCase bool   `json:"ignore_case"`
			Context    int    `json:"context"`
		}
		if err := strictJSON(call.Arguments, &a); err != nil {
			return "", fmt.Errorf("grep: %v", err)
		}
		return c.Grep(a.Pattern, a.IgnoreCase, a.Context)
	case finalTool:
		var v verdict
		err := strictJSON(call.Arguments, &v)
		return "", fmt.Errorf("final_answer: %v; call it again with found, evidence, lines and explanation", err)
	case "read_lines":
		var a struct {
			Start int `json:"start"`
			End   int `json:"end"`
		}
		if err := strictJSON(call.Arguments, &a); err != nil {
			return "", fmt.Errorf("read_lines: %v", err)
		}
		return c.ReadLines(a.Start, a.End)
	}
	return "", fmt.Errorf("there is no tool %q (grep, read_lines, final_answer)", call.Name)
}

// Grep answers the lines matching pattern, with context lines around each,
// as "N: line"; groups are separated by "--".
func (c *Checker) Grep(pattern string, ignoreCase bool, context int) (string, error) {
	if ignoreCase {
		pattern = "(?i)" + pattern
	}
	re, err := regexp.Compile(pattern)
	if err != nil {
		return "", fmt.Errorf("grep: %v", err)
	}
	context = max(0, min(context, MaxGrepContext))
	var hits []int
	for i, l := range c.Lines {
		if re.MatchString(l) {
			hits = append(hits, i+1)
		}
	}
	if len(hits) == 0 {
		return "no match", nil
	}
	var b strings.Builder
	last := 0
	for _, h := range hits {
		from, to := max(1, h-context, last+1), min(len(c.Lines), h+context)
		if last > 0 && from > last+1 {
			b.WriteString("--\n")
		}
		for l := from; l <= to; l++ {
			fmt.Fprintf(&b, "%d: %s\n", l, c.Lines[l-1])
		}
		last = max(last, to)
		if b.Len() > MaxToolOutput {
			return b.String()[:MaxToolOutput] + fmt.Sprintf("\n[clipped: %d matching lines in all]", len(hits)), nil
		}
	}
	return b.String(), nil
}

// ReadLines answers lines start to end as "N: line".
func (c *Checker) ReadLines(start, end int) (string, error) {
	if start < 1 || end < start || start > len(c.Lines) {
		return "", fmt.Errorf("read_lines: %d–%d is not a range of lines 1–%d", start, end, len(c.Lines))
	}
	if end-start+1 > MaxReadLines {
		return "", fmt.Errorf("read_lines: at most %d lines at a time", MaxReadLines)
	}
	end = min(end, len(c.Lines))
	var b strings.Builder
	for l := start; l <= end; l++ {
		fmt.Fprintf(&b, "%d: %s\n", l, c.Lines[l-1])
	}
	s := b.String()
	if len(s) > MaxToolOutput {
		s = s[:MaxToolOutput] + "\n[clipped]"
	}
	return s, nil
}
