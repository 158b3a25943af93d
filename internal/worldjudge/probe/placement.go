package probe

import (
	"context"
	"encoding/json"
	"fmt"
	"slices"

	"github.com/worldprobe/worldprobe/internal/llm"
	"github.com/worldprobe/worldprobe/internal/worldjudge/quote"
)

// Region is one biome the placement calls ask about (WC002).
type Region struct {
	ID      string   `json:"id"`
	Label   string   `json:"label"`
	Aliases []string `json:"aliases,omitempty"`
}

// ByExtract: a quote the extract role's classify call gave (WC002).
const ByExtract = "extract"

// Judged and Unjudged are a placement call's statuses.
const (
	Judged   = "judged"
	Unjudged = "unjudged"
)

// Layout is classify's checked answer for one biome: whether the code
// builds it, and the code that places it and sets its height, each quote
// checked as every other quote is (Checker.Verify).
type Layout struct {
	Biome   string `json:"biome"`
	Present bool   `json:"present"`
	Reason  string `json:"reason,omitempty"`
	// Placement and Elevation are nil when the model gave no quote.
	Placement *Evidence `json:"placement,omitempty"`
	Elevation *Evidence `json:"elevation,omitempty"`
}

// Covered: present, with a layout quote that earns (source text that
// ran).
func (l *Layout) Covered() bool {
	return l != nil && l.Present && (l.Placement != nil && l.Placement.OK || l.Elevation != nil && l.Elevation.OK)
}

// Classification is the classify call's result.
type Classification struct {
	// Status is Judged or Unjudged (Reason says why: the call failed or
	// its reply could not be read).
	Status string `json:"status"`
	Reason string `json:"reason,omitempty"`
	// Biomes are by biome id; a biome the reply left out is missing.
	Biomes map[string]*Layout `json:"biomes,omitempty"`
}

// Map is the extract call's result: which biomes touch, and their heights.
type Map struct {
	Status string `json:"status"`
	Reason string `json:"reason,omitempty"`
	// Neighbours are each biome's neighbours as the model gave them (only
	// biome ids; Adjacent makes them symmetric).
	Neighbours map[string][]string `json:"neighbours,omitempty"`
	// Elevation is the biomes from highest to lowest; a biome not in it
	// has no rank.
	Elevation []string `json:"elevation_order,omitempty"`
	// Ignored are names the reply used that are not biomes (the ocean, a
	// beach), left out of the map.
	Ignored []string `json:"ignored,omitempty"`
}

// Adjacent reports whether a and b touch, by either's neighbour list.
func (m *Map) Adjacent(a, b string) bool {
	return slices.Contains(m.Neighbours[a], b) || slices.Contains(m.Neighbours[b], a)
}

// Rank is a biome's place in the elevation order (0 = highest), and
// whether it has one.
func (m *Map) Rank(b string) (int, bool) {
	i := slices.Index(m.Elevation, b)
	return i, i >= 0
}

// ClassifyPrompt is the classify call's system prompt (ours).
const ClassifyPrompt = `You read the source code of a three.js world that should contain the listed biomes (regions of an island), and say for each biome where its code is.

For each biome:
- present: true when the code builds the biome's ground or contents somewhere on the island (by its id, label or one of its listed names); false when it is only named (a legend, a label, a comment) or not at all.
- placement_code: the exact source line(s) that decide where the biome lies (a region test, a grid cell, a position, a distance from a centre, a case of a switch over the biome's number). Copy lines exactly as they are, one source line per line, at most 6 lines, never shortened with "..." and never joined.
- elevation_code: the exact source line(s) that set the biome's ground height, the same way; empty when there are none.
- Leave a quote empty rather than guess. A comment, a legend or colour row, or HUD text is not placement code.

Answer by calling report_biomes once with every listed biome, or with the same JSON object: {"biomes": [{"id", "present", "placement_code", "elevation_code", "reason"}]}.`

// ExtractPrompt is the extract call's system prompt (ours).
const ExtractPrompt = `You read the source code of a three.js world that should contain the listed biomes (regions of an island) and work out its map from the code: which biomes touch each other, and how high each one lies.

- nodes: one entry per biome the code places, with neighbours: the ids of the biomes whose ground borders it (shares an edge or blends into it). Use only the listed biome ids.
- elevation_order: the ids of the biomes from the highest ground to the lowest, by the heights the code gives them. Leave out a biome whose height you cannot tell from the code.
- Work only from the code (positions, region tests, height functions); do not assume the layout the biome names suggest.

Answer by calling report_map once, or with the same JSON object: {"nodes": [{"id", "neighbours": [...]}], "elevation_order": [...]}.`

const (
	classifyTool = "report_biomes"
	extractTool  = "report_map"
)

var classifySchema = json.RawMessage(`{"type":"object","properties":{"biomes":{"type":"array","items":{"type":"object","properties":{` +
	`"id":{"type":"string"},"present":{"type":"boolean"},` +
	`"placement_code":{"type":"string","description":"exact source lines that decide where the biome lies, or empty"},` +
	`"elevation_code":{"type":"string","description":"exact source lines that set its ground height, or empty"},` +
	`"reason":{"type":"string"}},"required":["id","present","placement_code","elevation_code","reason"],"additionalProperties":false}}},` +
	`"required":["biomes"],"additionalProperties":false}`)

var extractSchema = json.RawMessage(`{"type":"object","properties":{` +
	`"nodes":{"type":"array","items":{"type":"object","properties":{"id":{"type":"string"},"neighbours":{"type":"array","items":{"type":"string"}}},` +
	`"required":["id","neighbours"],"additionalProperties":false}},` +
	`"elevation_order":{"type":"array","items":{"type":"string"},"description":"biome ids, highest ground first"}},` +
	`"required":["nodes","elevation_order"],"additionalProperties":false}`)

func placementRequest(system, tool, desc string, schema json.RawMessage, regions []Region, src *quote.Source) llm.Request {
	ask, _ := json.MarshalIndent(regions, "", "  ")
	t0 := 0.0
	return llm.Request{
		Messages: []llm.Message{
			llm.SystemText(system),
			llm.UserText("The biomes:\n" + string(ask) + "\n\nThe source (the page's scripts):\n" + src.JS),
		},
		Tools:       []llm.Tool{{Name: tool, Description: desc, Parameters: schema}},
		Temperature: &t0,
	}
}

// ClassifyRequest is the classify call's request.
func ClassifyRequest(regions []Region, src *quote.Source) llm.Request {
	return placementRequest(ClassifyPrompt, classifyTool, "Report every listed biome once.", classifySchema, regions, src)
}

// ExtractRequest is the extract call's request.
func ExtractRequest(regions []Region, src *quote.Source) llm.Request {
	return placementRequest(ExtractPrompt, extractTool, "Report the island's map.", extractSchema, regions, src)
}

// Classify asks m, in one call over the whole source, whether each biome
// is built and which code places it and sets its height, and checks every
// quote with c. A failed call or a reply that cannot be read (unknown
// fields, a biome not asked or given twice) is Unjudged with the reason;
// the error is for a fatal model error or a cancelled context only.
func Classify(ctx context.Context, m llm.Model, c *Checker, regions []Region) (*Classification, error) {
	out := &Classification{Status: Unjudged}
	resp, err := m.Chat(ctx, ClassifyRequest(regions, c.Src))
	if err != nil {
		if fatal(ctx, err) {
			return nil, fmt.Errorf("classify: %w", err)
		}
		out.Reason = "the classify call failed: " + err.Error()
		return out, nil
	}
	var rep struct {
		Biomes []struct {
			ID        string `json:"id"`
			Present   *bool  `json:"present"`
			Placement string `json:"placement_code"`
			Elevation string `json:"elevation_code"`
			Reason    string `json:"reason"`
		} `json:"biomes"`
	}
	if err := decodeReply(resp, classifyTool, &rep); err != nil {
		out.Reason = fmt.Sprintf("the classify reply could not be read (%v): %s", err, clip(resp.Text, 200))
		return out, nil
	}
	asked := map[string]bool{}
	for _, r := range regions {
		asked[r.ID] = true
	}
	got := map[string]*Layout{}
	for _, b := range rep.Biomes {
		switch {
		case !asked[b.ID]:
			out.Reason = fmt.Sprintf("the classify reply names biome %q, which was not asked", b.ID)
			return out, nil
		case got[b.ID] != nil:
			out.Reason = fmt.Sprintf("the classify reply gives biome %q twice", b.ID)
			return out, nil
		case b.Present == nil:
			out.Reason = fmt.Sprintf("the classify reply does not say whether biome %q is present", b.ID)
			return out, nil
		}
		l := &Layout{Biome: b.ID, Present: *b.Present, Reason: b.Reason}
		for _, q := range []struct {
			dst  **Evidence
			kind string
			text string
		}{{&l.Placement, "placement", b.Placement}, {&l.Elevation, "elevation", b.Elevation}} {
			if q.text == "" {
				continue
			}
			ev, err := c.Verify(ctx, q.kind, ByExtract, q.text)
			if err != nil {
				return nil, fmt.Errorf("classify %s: %w", b.ID, err)
			}
			*q.dst = &ev
		}
		got[b.ID] = l
	}
	out.Status, out.Biomes = Judged, got
	return out, nil
}

// Extract asks m, in one call over the whole source, for the island's map:
// each biome's neighbours and the elevation order. The reply is read
// strictly (unknown fields, a node given twice, a name twice in the
// elevation order make it unreadable: Unjudged with the reason); names
// that are not biomes are left out and listed in Ignored. The error is for
// a fatal model error or a cancelled context only.
func Extract(ctx context.Context, m llm.Model, src *quote.Source, regions []Region) (*Map, error) {
	out := &Map{Status: Unjudged}
	resp, err := m.Chat(ctx, ExtractRequest(regions, src))
	if err != nil {
		if fatal(ctx, err) {
			return nil, fmt.Errorf("extract: %w", err)
		}
		out.Reason = "the extract call failed: " + err.Error()
		return out, nil
	}
	var rep struct {
		Nodes []struct {
			ID         string   `json:"id"`
			Neighbours []string `json:"neighbours"`
		} `json:"nodes"`
		Elevation []string `json:"elevation_order"`
	}
	if err := decodeReply(resp, extractTool, &rep); err != nil {
		out.Reason = fmt.Sprintf("the extract reply could not be read (%v): %s", err, clip(resp.Text, 200))
		return out, nil
	}
	known := map[string]bool{}
	for _, r := range regions {
		known[r.ID] = true
	}
	ignore := func(name string) {
		if !slices.Contains(out.Ignored, name) {
			out.Ignored = append(out.Ignored, name)
		}
	}
	nb := map[string][]string{}
	for _, n := range rep.Nodes {
		if !known[n.ID] {
			ignore(n.ID)
			continue
		}
		if _, dup := nb[n.ID]; dup {
			out.Reason = fmt.Sprintf("the extract reply gives node %q twice", n.ID)
			return out, nil
		}
		nb[n.ID] = []string{}
		for _, x := range n.Neighbours {
			switch {
			case !known[x]:
				ignore(x)
			case x != n.ID && !slices.Contains(nb[n.ID], x):
				nb[n.ID] = append(nb[n.ID], x)
			}
		}
	}
	var order []string
	for _, x := range rep.Elevation {
		switch {
		case !known[x]:
			ignore(x)
		case slices.Contains(order, x):
			out.Reason = fmt.Sprintf("the extract reply ranks %q twice in the elevation order", x)
			return out, nil
		default:
			order = append(order, x)
		}
	}
	out.Status, out.Neighbours, out.Elevation = Judged, nb, order
	return out, nil
}
