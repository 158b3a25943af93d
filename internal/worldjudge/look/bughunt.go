package look

import (
	"context"
	"encoding/json"
	"fmt"
	"slices"
	"strings"

	"github.com/worldprobe/worldprobe/internal/llm"
	"github.com/worldprobe/worldprobe/internal/worldjudge/measure"
)

// BugHuntInstruction is the system prompt of WC001's visual bug-hunt.
const BugHuntInstruction = `You inspect one picture of a 3D world that is meant to be an island built from cubes (voxels), floating in a dark void, for rendering defects.

First list the things you see. Then say, for each defect, whether the picture shows it:
- floating_blocks: solid land blocks hanging in the air, detached from the island, that are not meant to fly;
- hollow_mass: land that is visibly hollow or see-through where it should be solid (missing faces, open shells);
- non_voxel: land or large structures built from smooth, non-cube shapes instead of cubes;
- water_void: a flat sheet of water extending beyond the island over the void, with no blocks under or around it (water pouring off an edge as a waterfall is not this).
Weather, particles, clouds, mist, fog, smoke, the sun, the moon and any on-screen interface are never defects.

Reply with one JSON object and nothing else: {"entities": ["..."], "defects": {"floating_blocks": true or false, "hollow_mass": true or false, "non_voxel": true or false, "water_void": true or false}}`

const bugSchema = `{"type":"object","properties":{"entities":{"type":"array","items":{"type":"string"}},"defects":{"type":"object"}}}`

// Defects the bug-hunt asks about; the first three make a frame buggy.
var (
	Defects      = []string{"floating_blocks", "hollow_mass", "non_voxel", "water_void"}
	buggyDefects = map[string]bool{"floating_blocks": true, "hollow_mass": true, "non_voxel": true}
)

// BugVoteTemperature is the temperature of the two extra votes taken when
// the first (at 0) flags anything.
const BugVoteTemperature = 0.8

// FrameBugs is one frame's bug-hunt.
type FrameBugs struct {
	Frame
	// Status is Judged, or Unjudged with Reason (the frame then counts in
	// neither the judged nor the buggy frames).
	Status string `json:"status"`
	Reason string `json:"reason,omitempty"`
	// Votes are each vote's flagged defects; Confirmed those a strict
	// majority flagged.
	Votes     [][]string `json:"votes"`
	Confirmed []string   `json:"confirmed"`
	Buggy     bool       `json:"buggy"`
	Entities  []string   `json:"entities,omitempty"`
	Calls     []Call     `json:"calls,omitempty"`
}

// BugHunt is WC001's visual bug-hunt over the wide and biome frames.
type BugHunt struct {
	// Status is Judged, or Unjudged when more than half the frames could
	// not be judged (the part is then not scored: a judge failure is never
	// the world's).
	Status string      `json:"status"`
	Reason string      `json:"reason"`
	Frames []FrameBugs `json:"frames"`
	// Judged and Buggy count frames; Score is points · (judged − buggy) /
	// judged, 2 decimals.
	Judged int     `json:"judged"`
	Buggy  int     `json:"buggy"`
	Score  float64 `json:"score"`
	// OceanVoid: a confirmed water_void in at least OceanVoidViews of
	// the wide frames (WideViews).
	OceanVoid      bool     `json:"ocean_void"`
	OceanVoidViews []string `json:"ocean_void_views,omitempty"`
}

type bugReply struct {
	Entities []string         `json:"entities"`
	Defects  map[string]*bool `json:"defects"`
}

// ParseBugs reads one vote strictly: all four defects, each a boolean,
// no other defect; it returns the flagged ones, in Defects' order.
func ParseBugs(obj json.RawMessage) (flagged, entities []string, err error) {
	var r bugReply
	if err := strictDecode(obj, &r); err != nil {
		return nil, nil, err
	}
	for k := range r.Defects {
		known := false
		for _, d := range Defects {
			known = known || d == k
		}
		if !known {
			return nil, nil, fmt.Errorf("defect %q was not asked", k)
		}
	}
	for _, d := range Defects {
		v, ok := r.Defects[d]
		if !ok || v == nil {
			return nil, nil, fmt.Errorf("defect %s has no true/false answer", d)
		}
		if *v {
			flagged = append(flagged, d)
		}
	}
	return flagged, r.Entities, nil
}

// HuntBugs runs the bug-hunt on every frame: one vote at temperature 0;
// when it flags anything, two more at BugVoteTemperature, and a defect is
// confirmed by a strict majority. wide names the overview and direction
// views for the ocean-over-void rule (minViews of them).
func HuntBugs(ctx context.Context, m llm.Model, dir string, frames []Frame, wide map[string]bool, points float64, minViews int) *BugHunt {
	out := &BugHunt{Status: Unjudged, Frames: []FrameBugs{}}
	failed := 0
	for _, f := range frames {
		fb := huntFrame(ctx, m, dir, f)
		if fb.Status != Judged {
			failed++
		} else {
			out.Judged++
			if fb.Buggy {
				out.Buggy++
			}
			if wide[f.View] && slices.Contains(fb.Confirmed, "water_void") {
				out.OceanVoidViews = append(out.OceanVoidViews, f.View)
			}
		}
		out.Frames = append(out.Frames, fb)
	}
	switch {
	case len(frames) == 0:
		out.Reason = "no frame to inspect"
		return out
	case 2*failed > len(frames):
		out.Reason = fmt.Sprintf("%d of %d frames could not be judged (a judge failure, not the world's)", failed, len(frames))
		return out
	}
	out.Status = Judged
	out.Score = measure.Round(points*float64(out.Judged-out.Buggy)/float64(out.Judged), 2)
	out.OceanVoid = len(out.OceanVoidViews) >= minViews
	out.Reason = fmt.Sprintf("%d of %d judged frames buggy", out.Buggy, out.Judged)
	if failed > 0 {
		out.Reason += fmt.Sprintf(" (%d frames could not be judged and count in neither)", failed)
	}
	return out
}

func huntFrame(ctx context.Context, m llm.Model, dir string, f Frame) FrameBugs {
	fb := FrameBugs{Frame: f, Status: Unjudged, Votes: [][]string{}, Confirmed: []string{}}
	img, err := labelled(dir, "The picture:", []string{f.View}, []Frame{f}, "")
	if err != nil {
		fb.Reason = err.Error()
		return fb
	}
	img.Parts = img.Parts[:len(img.Parts)-1]
	vote := func(i int, temp float64) error {
		req := llm.Request{Messages: []llm.Message{llm.SystemText(BugHuntInstruction), img},
			Tools: []llm.Tool{answerTool(bugSchema)}, Temperature: &temp}
		if i > 0 {
			req.Variant = fmt.Sprintf("vote_%d", i+1)
		}
		obj, call, err := ask(ctx, m, req)
		if call.Reply != "" || call.Model != "" {
			fb.Calls = append(fb.Calls, call)
		}
		if err != nil {
			return fmt.Errorf("vote %d: %w", i+1, err)
		}
		flagged, ents, err := ParseBugs(obj)
		if err != nil {
			return fmt.Errorf("vote %d: %w", i+1, err)
		}
		if i == 0 {
			fb.Entities = ents
		}
		fb.Votes = append(fb.Votes, append([]string{}, flagged...))
		return nil
	}
	if err := vote(0, 0); err != nil {
		fb.Reason = err.Error()
		return fb
	}
	if len(fb.Votes[0]) > 0 {
		for i := 1; i < 3; i++ {
			if err := vote(i, BugVoteTemperature); err != nil {
				fb.Reason = err.Error()
				return fb
			}
		}
	}
	count := map[string]int{}
	for _, v := range fb.Votes {
		for _, d := range v {
			count[d]++
		}
	}
	for _, d := range Defects {
		if count[d] >= len(fb.Votes)/2+1 {
			fb.Confirmed = append(fb.Confirmed, d)
			fb.Buggy = fb.Buggy || buggyDefects[d]
		}
	}
	fb.Status = Judged
	fb.Reason = fmt.Sprintf("%d vote(s)", len(fb.Votes))
	if len(fb.Confirmed) > 0 {
		fb.Reason += "; confirmed " + strings.Join(fb.Confirmed, ", ")
	}
	return fb
}
