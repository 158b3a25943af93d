package look

import (
	"context"
	"encoding/json"
	"fmt"
	"sort"
	"strings"

	"github.com/worldprobe/worldprobe/internal/llm"
)

// VisualInstruction is the system prompt of the visual item judge.
const VisualInstruction = `You check pictures of a 3D voxel world for named things. Each picture comes after its label in square brackets.

Say a thing is visible only when you can see it in a picture. Do not infer it from the region's name or from other things: a snowy region does not mean falling snow is visible, a volcano does not mean lava is visible. For every thing you call visible, list the labels of the pictures where you see it.

Pictures whose label ends in "_motion" show a first frame darkened, with the pixels that changed over the next seconds painted red: small scattered red specks are usually moving particles or creatures; large flat red areas are usually changes of light, shadow or fog. Use them, with the plain frames of the same burst, to say whether a thing moves and in which direction.

Reply with one JSON object of this form and nothing else:
{"items": [{"id": "...", "visible": true or false, "frames": ["label", ...], "seen": "a few words"}],
 "leaks": [{"id": "...", "visible": true or false, "frames": ["label", ...], "seen": "a few words"}],
 "motion": [{"id": "...", "moving": true or false, "axis": "falling|blowing|rising|still|flowing|grounded|pulsing|n/a", "frames": ["label", ...]}],
 "questions": {"id": true or false}}
with exactly one entry for every id you are asked about, in each section you are asked about.`

const visualSchema = `{"type":"object","properties":{"items":{"type":"array"},"leaks":{"type":"array"},"motion":{"type":"array"},"questions":{"type":"object"}}}`

// Question is one thing the visual judge is asked about.
type Question struct {
	ID    string `json:"id"`
	Label string `json:"label"`
}

// Ask is one visual judge call: a subject (a biome, the day cycle), the
// frames whose sightings count, frames shown for context only, the burst
// frames and overlays for motion, and what to look for.
type Ask struct {
	// Subject names what the frames are about ("the Volcano region").
	Subject string
	// Sights are the frames a sighting may rest on (blind-confirmed biome
	// frames, or the time samples for the day cycle).
	Sights []Frame
	// Context frames are shown, but a sighting in them alone counts not.
	Context []Frame
	// Motion are burst frames and overlays, for the Motion questions.
	Motion []Frame
	// Items should be visible, Leaks must not be; Moves are asked whether
	// and how they move; Questions are yes/no questions.
	Items, Leaks, Moves, Questions []Question
}

// Sighting is the judge's answer about one item or leak.
type Sighting struct {
	Visible bool `json:"visible"`
	// Frames are the labels the model named; Files the frames of those
	// that a sighting may rest on.
	Frames []string `json:"frames,omitempty"`
	Files  []string `json:"files,omitempty"`
	Seen   string   `json:"seen,omitempty"`
	// Counted: visible in at least one frame of Ask.Sights.
	Counted bool   `json:"counted"`
	Reason  string `json:"reason"`
}

// Movement is the judge's answer about one item's motion.
type Movement struct {
	Moving bool     `json:"moving"`
	Axis   string   `json:"axis"`
	Frames []string `json:"frames,omitempty"`
	Files  []string `json:"files,omitempty"`
}

// Visual is one visual judge call's verdict.
type Visual struct {
	Subject string `json:"subject"`
	// Status is Judged, or Unjudged with Reason.
	Status string `json:"status"`
	Reason string `json:"reason,omitempty"`
	// Shown are the frames sent, by label.
	Shown     []Frame             `json:"shown"`
	Items     map[string]Sighting `json:"items,omitempty"`
	Leaks     map[string]Sighting `json:"leaks,omitempty"`
	Motion    map[string]Movement `json:"motion,omitempty"`
	Questions map[string]bool     `json:"questions,omitempty"`
	Call      *Call               `json:"call,omitempty"`
}

// VisualRequest builds the call: the subject, every frame under its view
// name, then the lists to answer.
func VisualRequest(dir string, a Ask) (llm.Request, []Frame, error) {
	shown := append(append(append([]Frame{}, a.Sights...), a.Context...), a.Motion...)
	labels := make([]string, len(shown))
	for i, f := range shown {
		labels[i] = f.View
	}
	var b strings.Builder
	section := func(title string, qs []Question) {
		if len(qs) == 0 {
			return
		}
		fmt.Fprintf(&b, "\n%s\n", title)
		for _, q := range qs {
			fmt.Fprintf(&b, "- %s: %s\n", q.ID, q.Label)
		}
	}
	section(`"items" — is each of these visible?`, a.Items)
	section(`"leaks" — is any of these visible (they should not be there)?`, a.Leaks)
	section(`"motion" — does each of these move, and along which axis?`, a.Moves)
	section(`"questions" — answer each true or false:`, a.Questions)
	var omit []string
	for _, s := range []struct {
		name string
		qs   []Question
	}{{"items", a.Items}, {"leaks", a.Leaks}, {"motion", a.Moves}, {"questions", a.Questions}} {
		if len(s.qs) == 0 {
			omit = append(omit, `"`+s.name+`"`)
		}
	}
	outro := b.String()
	if len(omit) > 0 {
		outro += "\nLeave out " + strings.Join(omit, ", ") + " (nothing is asked there)."
	}
	msg, err := labelled(dir, fmt.Sprintf("What the pictures show: %s. The %d pictures:", a.Subject, len(shown)), labels, shown, outro)
	if err != nil {
		return llm.Request{}, nil, err
	}
	zero := 0.0
	return llm.Request{Messages: []llm.Message{llm.SystemText(VisualInstruction), msg},
		Tools: []llm.Tool{answerTool(visualSchema)}, Temperature: &zero}, shown, nil
}

// JudgeVisual asks the visual_judge model about a. A failed call or a
// reply that does not answer exactly what was asked leaves the whole
// verdict Unjudged with the reason.
func JudgeVisual(ctx context.Context, m llm.Model, dir string, a Ask) *Visual {
	out := &Visual{Subject: a.Subject, Status: Unjudged}
	req, shown, err := VisualRequest(dir, a)
	if err != nil {
		out.Reason = err.Error()
		return out
	}
	out.Shown = shown
	obj, call, err := ask(ctx, m, req)
	if call.Reply != "" || call.Model != "" {
		out.Call = &call
	}
	if err == nil {
		err = ParseVisual(obj, a, out)
	}
	if err != nil {
		out.Reason = "the visual judge: " + err.Error()
		out.Items, out.Leaks, out.Motion, out.Questions = nil, nil, nil, nil
		return out
	}
	out.Status = Judged
	return out
}

type sightingReply struct {
	ID      string   `json:"id"`
	Visible *bool    `json:"visible"`
	Frames  []string `json:"frames"`
	Seen    string   `json:"seen"`
}

type motionReply struct {
	ID     string   `json:"id"`
	Moving *bool    `json:"moving"`
	Axis   string   `json:"axis"`
	Frames []string `json:"frames"`
}

type visualReply struct {
	Items     []sightingReply  `json:"items"`
	Leaks     []sightingReply  `json:"leaks"`
	Motion    []motionReply    `json:"motion"`
	Questions map[string]*bool `json:"questions"`
}

// ParseVisual reads a reply strictly into out: no field beyond the form,
// every asked id answered exactly once with a boolean, no id that was not
// asked, every frame named one that was shown. A visible item counts only
// when one of its frames is in a.Sights.
func ParseVisual(obj json.RawMessage, a Ask, out *Visual) error {
	var r visualReply
	if err := strictDecode(obj, &r); err != nil {
		return err
	}
	shown := map[string]Frame{}
	for _, f := range append(append(append([]Frame{}, a.Sights...), a.Context...), a.Motion...) {
		shown[f.View] = f
	}
	sight := map[string]bool{}
	for _, f := range a.Sights {
		sight[f.View] = true
	}
	checkFrames := func(id string, frames []string) error {
		for _, l := range frames {
			if _, ok := shown[l]; !ok {
				return fmt.Errorf("%s names frame %q, which was not shown", id, l)
			}
		}
		return nil
	}
	sightings := func(section string, asked []Question, got []sightingReply) (map[string]Sighting, error) {
		want := ids(asked)
		res := map[string]Sighting{}
		for _, g := range got {
			switch {
			case !want[g.ID]:
				return nil, fmt.Errorf("%s: %q was not asked", section, g.ID)
			case g.Visible == nil:
				return nil, fmt.Errorf("%s: %s has no true/false visible", section, g.ID)
			}
			if _, dup := res[g.ID]; dup {
				return nil, fmt.Errorf("%s: %s is answered twice", section, g.ID)
			}
			if err := checkFrames(g.ID, g.Frames); err != nil {
				return nil, fmt.Errorf("%s: %w", section, err)
			}
			s := Sighting{Visible: *g.Visible, Frames: g.Frames, Seen: g.Seen}
			for _, l := range g.Frames {
				if sight[l] {
					s.Files = append(s.Files, shown[l].File)
				}
			}
			switch {
			case !s.Visible:
				s.Reason = "the visual judge did not see it"
			case len(g.Frames) == 0:
				s.Reason = "said visible, but in no named frame"
			case len(s.Files) == 0:
				s.Reason = "seen only in " + strings.Join(g.Frames, ", ") + ", none of them a frame blind identification confirmed"
			default:
				s.Counted = true
				s.Reason = "seen in " + strings.Join(labelsIn(g.Frames, sight), ", ")
			}
			res[g.ID] = s
		}
		if err := missing(section, asked, len(res), func(id string) bool { _, ok := res[id]; return ok }); err != nil {
			return nil, err
		}
		return res, nil
	}
	var err error
	if out.Items, err = sightings("items", a.Items, r.Items); err != nil {
		return err
	}
	if out.Leaks, err = sightings("leaks", a.Leaks, r.Leaks); err != nil {
		return err
	}
	want := ids(a.Moves)
	out.Motion = map[string]Movement{}
	for _, g := range r.Motion {
		switch {
		case !want[g.ID]:
			return fmt.Errorf("motion: %q was not asked", g.ID)
		case g.Moving == nil:
			return fmt.Errorf("motion: %s has no true/false moving", g.ID)
		}
		if _, dup := out.Motion[g.ID]; dup {
			return fmt.Errorf("motion: %s is answered twice", g.ID)
		}
		if err := checkFrames(g.ID, g.Frames); err != nil {
			return fmt.Errorf("motion: %w", err)
		}
		mv := Movement{Moving: *g.Moving, Axis: strings.ToLower(strings.TrimSpace(g.Axis)), Frames: g.Frames}
		for _, l := range g.Frames {
			mv.Files = append(mv.Files, shown[l].File)
		}
		out.Motion[g.ID] = mv
	}
	if err := missing("motion", a.Moves, len(out.Motion), func(id string) bool { _, ok := out.Motion[id]; return ok }); err != nil {
		return err
	}
	wantQ := ids(a.Questions)
	out.Questions = map[string]bool{}
	for id, v := range r.Questions {
		if !wantQ[id] {
			return fmt.Errorf("questions: %q was not asked", id)
		}
		if v == nil {
			return fmt.Errorf("questions: %s is not true or false", id)
		}
		out.Questions[id] = *v
	}
	return missing("questions", a.Questions, len(out.Questions), func(id string) bool { _, ok := out.Questions[id]; return ok })
}

func ids(qs []Question) map[string]bool {
	out := map[string]bool{}
	for _, q := range qs {
		out[q.ID] = true
	}
	return out
}

func missing(section string, asked []Question, n int, has func(string) bool) error {
	if n == len(asked) {
		return nil
	}
	var left []string
	for _, q := range asked {
		if !has(q.ID) {
			left = append(left, q.ID)
		}
	}
	sort.Strings(left)
	return fmt.Errorf("%s: no answer for %s", section, strings.Join(left, ", "))
}

func labelsIn(labels []string, keep map[string]bool) []string {
	var out []string
	for _, l := range labels {
		if keep[l] {
			out = append(out, l)
		}
	}
	return out
}
