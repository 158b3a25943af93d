package probe

import (
	"context"
	"encoding/json"
	"fmt"
	"strings"

	"github.com/worldprobe/worldprobe/internal/llm"
	"github.com/worldprobe/worldprobe/internal/worldjudge/quote"
)

// Ask is one rubric item the probe looks for in the code.
type Ask struct {
	ID    string `json:"id"`
	Label string `json:"label"`
	// Motion: a second quote is wanted, the code that changes the thing
	// over time (WC004's moving entities, WC005's cycles).
	Motion bool `json:"needs_motion_quote,omitempty"`
	// Axis is the expected motion (WC004), for the model's guidance.
	Axis string `json:"expected_motion,omitempty"`
	// Forbidden: the world must not build it; found means it leaks.
	Forbidden bool `json:"must_not_be_present,omitempty"`
}

// Group is one probe call: the items of one test in one biome (WC003,
// WC004), or of a whole test (WC001, WC005).
type Group struct {
	Test  string `json:"test"`
	Title string `json:"title"`
	// Biome and its label and the names the world may use for it; empty
	// for a test not split by biome.
	Biome      string   `json:"biome,omitempty"`
	BiomeLabel string   `json:"biome_label,omitempty"`
	Aliases    []string `json:"aliases,omitempty"`
	Items      []Ask    `json:"items"`
	// Probability: each item gets a probability too (WC001's source judge).
	Probability bool `json:"-"`
}

// Name is the group's name in reasons: "WC003 desert" or "WC005".
func (g Group) Name() string { return strings.TrimSpace(g.Test + " " + g.Biome) }

// Finding is the probe's checked answer for one item.
type Finding struct {
	ID string `json:"id"`
	// Found is the model's claim; Probability its confidence (WC001);
	// Reason its explanation.
	Found       bool    `json:"found"`
	Probability float64 `json:"probability,omitempty"`
	Reason      string  `json:"reason,omitempty"`
	// Axis is the motion axis the model says the quoted code gives the
	// item, as it said it (nil when its reply had none: a reply recorded
	// before the axis was asked for). ApplyMotion reads it.
	Axis *string `json:"axis,omitempty"`
	// Look and Motion are the checked quotes (nil when none was given).
	Look   *Evidence `json:"look,omitempty"`
	Motion *Evidence `json:"motion,omitempty"`
	// Unjudged says why the item has no verdict: the call failed, the
	// reply could not be read, or it left the item out.
	Unjudged string `json:"unjudged,omitempty"`
}

// Result is one group's findings, by item id.
type Result struct {
	Group    Group
	Findings map[string]*Finding
}

// ProbePrompt is the code probe's system prompt.
const ProbePrompt = `You read the source code of a three.js world and say, for each listed item, whether the code builds it, quoting the code that does.

How to quote:
- Copy source lines exactly as they are, one source line per line of the quote.
- Never join lines, never shorten with "..." or "…", never paraphrase or fix code.
- Quote at most 6 consecutive lines: the ones that create or place the thing.

What counts:
- Only code that builds, places or updates the item. A comment, a legend, label or config row ({id, label, color, weather}), HUD text or a bare biome id proves nothing.
- When a biome is named, only code of that biome's scope counts (its names are listed); a keyword in another biome's branch does not.
- Random placements over the whole map that are then skipped outside the biome do not count.
- When an item needs a motion quote, give in motion_evidence the line(s) that change it over time (run every frame), not the line that creates it.
- In axis, say how the code you quoted moves the item: falling (down), blowing (sideways, wind), rising (up), flowing (water running along or down), pulsing (glow, scale or intensity going up and down), cyclic (a day or season cycle, an orbit), grounded (walking or idling on the ground), still (hanging in place), or n/a (nothing moves it). Read it from the code (which coordinate changes, and which way), not from the item's expected motion.
- When the code does not build the item, answer found: false with empty quotes. Do not guess from the item's name.
- Items marked must_not_be_present are things the world must not have: answer found: true, with the quote, only when the code does build one.

Answer by calling report_items once with every listed item, or with the same JSON object: {"items": [{"id", "found", "probability", "evidence", "motion_evidence", "axis", "reason"}]}.`

const reportTool = "report_items"

var reportSchema = json.RawMessage(`{"type":"object","properties":{"items":{"type":"array","items":{"type":"object","properties":{` +
	`"id":{"type":"string"},"found":{"type":"boolean"},"probability":{"type":"number","minimum":0,"maximum":1},` +
	`"evidence":{"type":"string","description":"exact source lines that build the item, or empty"},` +
	`"motion_evidence":{"type":"string","description":"exact source lines that change it over time, or empty"},` +
	`"axis":{"type":"string","enum":["falling","blowing","rising","flowing","pulsing","cyclic","grounded","still","n/a"],"description":"how the quoted code moves the item"},` +
	`"reason":{"type":"string"}},"required":["id","found","probability","evidence","motion_evidence","axis","reason"],"additionalProperties":false}}},` +
	`"required":["items"],"additionalProperties":false}`)

// answer is one item of the probe's reply.
type answer struct {
	ID             string   `json:"id"`
	Found          bool     `json:"found"`
	Probability    *float64 `json:"probability"`
	Evidence       string   `json:"evidence"`
	MotionEvidence string   `json:"motion_evidence"`
	Axis           *string  `json:"axis"`
	Reason         string   `json:"reason"`
}

// Request is the probe's request for a group.
func Request(g Group, src *quote.Source) llm.Request {
	ask, _ := json.MarshalIndent(g, "", "  ")
	t0 := 0.0
	return llm.Request{
		Messages: []llm.Message{
			llm.SystemText(ProbePrompt),
			llm.UserText("The items (" + g.Name() + "):\n" + string(ask) + "\n\nThe source (the page's scripts):\n" + src.JS),
		},
		Tools:       []llm.Tool{{Name: reportTool, Description: "Report every listed item once.", Parameters: reportSchema}},
		Temperature: &t0,
	}
}

// Probe asks m about a group's items and checks every quote with c. A
// call that fails or a reply that cannot be read leaves the group's items
// unjudged, saying why; the error is for a fatal model error or a
// cancelled context only.
func Probe(ctx context.Context, m llm.Model, c *Checker, g Group) (*Result, error) {
	res := &Result{Group: g, Findings: map[string]*Finding{}}
	all := func(why string) (*Result, error) {
		for _, it := range g.Items {
			res.Findings[it.ID] = &Finding{ID: it.ID, Unjudged: why}
		}
		return res, nil
	}
	resp, err := m.Chat(ctx, Request(g, c.Src))
	if err != nil {
		if fatal(ctx, err) {
			return nil, fmt.Errorf("code probe %s: %w", g.Name(), err)
		}
		return all("the code probe's call failed: " + err.Error())
	}
	var rep struct {
		Items []answer `json:"items"`
	}
	if err := decodeReply(resp, reportTool, &rep); err != nil {
		return all(fmt.Sprintf("the code probe's reply could not be read (%v): %s", err, clip(resp.Text, 200)))
	}
	asked := map[string]Ask{}
	for _, it := range g.Items {
		asked[it.ID] = it
	}
	got := map[string]answer{}
	for _, a := range rep.Items {
		if _, ok := asked[a.ID]; !ok {
			return all(fmt.Sprintf("the code probe's reply names item %q, which was not asked", a.ID))
		}
		if _, dup := got[a.ID]; dup {
			return all(fmt.Sprintf("the code probe's reply gives item %q twice", a.ID))
		}
		if p := a.Probability; p != nil && (*p < 0 || *p > 1) {
			return all(fmt.Sprintf("the code probe's reply gives item %q a probability of %g", a.ID, *p))
		}
		got[a.ID] = a
	}
	for _, it := range g.Items {
		a, ok := got[it.ID]
		if !ok {
			res.Findings[it.ID] = &Finding{ID: it.ID, Unjudged: "the code probe's reply left this item out"}
			continue
		}
		f, err := c.finding(ctx, it, a, g.Probability)
		if err != nil {
			return nil, fmt.Errorf("code probe %s: %w", g.Name(), err)
		}
		c.ApplyMotion(g.Test, it, f)
		res.Findings[it.ID] = f
	}
	return res, nil
}

// finding checks one answer's quotes.
func (c *Checker) finding(ctx context.Context, it Ask, a answer, prob bool) (*Finding, error) {
	f := &Finding{ID: it.ID, Found: a.Found, Reason: a.Reason, Axis: a.Axis}
	if prob {
		f.Probability = 0
		if a.Probability != nil {
			f.Probability = *a.Probability
		}
	}
	if !a.Found {
		return f, nil
	}
	look, err := c.Verify(ctx, "look", ByProbe, a.Evidence)
	if err != nil {
		return nil, err
	}
	f.Look = &look
	if it.Motion {
		mo, err := c.Verify(ctx, "motion", ByProbe, a.MotionEvidence)
		if err != nil {
			return nil, err
		}
		f.Motion = &mo
	}
	return f, nil
}
