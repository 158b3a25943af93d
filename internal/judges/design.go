package judges

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"strings"

	"github.com/worldprobe/worldprobe/internal/llm"
	"github.com/worldprobe/worldprobe/internal/result"
	"github.com/worldprobe/worldprobe/internal/trial"
)

// Heuristic is one XR design heuristic of docs/xr-design.md: what a
// rating of 1 and of 5 look like.
type Heuristic struct {
	ID, Name, One, Five string
}

// DesignHeuristics are the ten heuristics the design score rates, in the
// order of docs/xr-design.md (a test keeps the two the same).
var DesignHeuristics = []Heuristic{
	{"comfort", "Comfort", "the view lurches, spins or flickers by itself; the horizon tilts; bright flashes fill the view",
		"the world holds still unless the user moves; the horizon is level; nothing flashes or strobes"},
	{"reach", "Reach and ergonomics", "what must be touched is out of reach, on the floor, overhead or behind the user",
		"everything to touch is within arm's reach, between waist and eye height, in front of the user"},
	{"legibility", "Legibility", "text is tiny, far, blurred, edge-on or low in contrast",
		"text is large for its distance, faces the user, and stands out from what is behind it"},
	{"feedback", "Feedback", "touching, pointing at or grabbing things shows no change",
		"every hover, select and grab shows at once: a highlight, a motion, a change of colour"},
	{"spatial-consistency", "Spatial consistency", "objects float, sink into surfaces, jump or change size between frames",
		"objects rest on what holds them, keep their place and size, and move only when something moves them"},
	{"affordance", "Affordance", "nothing tells what can be grabbed or pressed",
		"interactive things look it: handles, buttons and grabbable objects stand apart from the scenery"},
	{"field-of-view", "Field of view", "what matters is outside the view, behind the user, or only at its edge",
		"what matters sits near the centre of the view, within a comfortable turn of the head"},
	{"depth", "Depth cues", "flat, unlit shapes whose distance cannot be told",
		"lighting, shading, shadows and occlusion make every object's distance clear"},
	{"scale", "Real-world scale", "things are toy-sized or giant next to the user: a table at knee height, a cup a metre wide",
		"things have their real sizes: a table at about 0.75 m, a door 2 m tall, a cube to grab a hand wide"},
	{"focus", "Focus and clutter", "the view is crowded or empty; nothing says where to look",
		"the task's objects stand out from an uncluttered scene; the eye goes where the user must act"},
}

// DesignInstruction is the system prompt of the design score.
func DesignInstruction() string {
	var b strings.Builder
	b.WriteString("You rate the design of a VR or AR web app from frames of one session, each what the user saw at one moment, in order.\n\n" +
		"Rate each of the ten heuristics below from 1 (poor) to 5 (excellent), judging only what the frames show.\n\n")
	for i, h := range DesignHeuristics {
		fmt.Fprintf(&b, "%d. %s (%q): 1 = %s; 5 = %s.\n", i+1, h.Name, h.ID, h.One, h.Five)
	}
	b.WriteString("\nAnswer with one JSON object: {\"ratings\": {\"<id>\": {\"score\": 1 to 5, \"reason\": \"one sentence\"}, ...}} with all ten ids.")
	return b.String()
}

// DesignRater rates an XR trial's recorded frames on DesignHeuristics
// with the visual_judge role (trial.DesignRater, run --design). With no
// Model, a reply without ten ratings, a refusal, a spent budget or a
// provider failure the design is unjudged, with the reason; a fatal model
// error and a cancelled context are errors.
type DesignRater struct {
	// Model is the visual_judge role's model, nil when none is
	// configured (Why then says why); ModelName names it.
	Model     llm.Model
	ModelName string
	Why       string
}

var _ trial.DesignRater = (*DesignRater)(nil)

// DesignRequest is the request of a design score over the frames.
func DesignRequest(frames []trial.DesignFrame) llm.Request {
	parts := []llm.Part{llm.Text(fmt.Sprintf("%d frames of the session, in order:", len(frames)))}
	for _, f := range frames {
		parts = append(parts, llm.Text(fmt.Sprintf("probe %s, frame %d:", f.Probe, f.N)), llm.Image("image/png", f.PNG))
	}
	return llm.Request{Messages: []llm.Message{llm.SystemText(DesignInstruction()), llm.UserParts(parts...)}}
}

// RateDesign asks the model for the ten ratings.
func (d *DesignRater) RateDesign(ctx context.Context, frames []trial.DesignFrame) (*result.Design, error) {
	out := &result.Design{Model: d.ModelName}
	switch {
	case d.Model == nil:
		out.Unjudged = d.Why
		if out.Unjudged == "" {
			out.Unjudged = "no visual_judge model is configured (docs/models.md)"
		}
		return out, nil
	case len(frames) == 0:
		out.Unjudged = "no frame was recorded"
		return out, nil
	}
	ratings, why, err := askScoped(ctx, d.Model, DesignRequest(frames), "ratings", ParseDesign)
	switch {
	case err != nil:
		return nil, fmt.Errorf("asking %s for the design score: %w", d.ModelName, err)
	case why != "":
		out.Unjudged = why
	default:
		sum := 0
		for _, r := range ratings {
			sum += r.Score
		}
		out.Ratings, out.Score = ratings, float64(sum)/float64(len(ratings))
	}
	return out, nil
}

// ParseDesign reads the ten ratings from a reply: the first JSON object
// with a "ratings" key, in a code fence or in prose, mapping each
// heuristic id to {score, reason} (or to a bare score). Every id must be
// there with a whole score from 1 to 5; ids it does not know are errors.
func ParseDesign(reply string) ([]result.DesignRating, error) {
	var raw map[string]json.RawMessage
	for _, cand := range jsonCandidates(reply) {
		var m map[string]json.RawMessage
		if json.Unmarshal([]byte(cand), &m) == nil {
			if _, ok := m["ratings"]; ok {
				raw = m
				break
			}
		}
	}
	if raw == nil {
		return nil, errors.New(`it holds no JSON object with a "ratings" key`)
	}
	var byID map[string]json.RawMessage
	if err := json.Unmarshal(raw["ratings"], &byID); err != nil {
		return nil, fmt.Errorf(`"ratings" is not an object of heuristic ids: %v`, err)
	}
	known := map[string]bool{}
	var out []result.DesignRating
	for _, h := range DesignHeuristics {
		known[h.ID] = true
		v, ok := byID[h.ID]
		if !ok {
			return nil, fmt.Errorf("no rating of %q", h.ID)
		}
		var r struct {
			Score  json.Number `json:"score"`
			Reason string      `json:"reason"`
		}
		if err := json.Unmarshal(v, &r); err != nil {
			if err := json.Unmarshal(v, &r.Score); err != nil {
				return nil, fmt.Errorf("%q is %s, not {score, reason}", h.ID, v)
			}
		}
		n, err := r.Score.Int64()
		if err != nil || n < 1 || n > 5 {
			return nil, fmt.Errorf("%q scores %s, not a whole number from 1 to 5", h.ID, v)
		}
		out = append(out, result.DesignRating{Heuristic: h.ID, Score: int(n), Reason: strings.TrimSpace(r.Reason)})
	}
	for id := range byID {
		if !known[id] {
			return nil, fmt.Errorf("%q is no heuristic of docs/xr-design.md", id)
		}
	}
	return out, nil
}
