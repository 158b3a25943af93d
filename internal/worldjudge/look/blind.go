package look

import (
	"context"
	"encoding/binary"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"math/rand/v2"
	"sort"
	"strings"

	"github.com/worldprobe/worldprobe/internal/llm"
	"github.com/worldprobe/worldprobe/internal/worldjudge/rubric"
)

// Answers of blind identification besides a biome id.
const (
	// AnswerNone: the frame shows none of the biomes.
	AnswerNone = "none"
	// AnswerIsland: the frame shows the whole island or several biomes,
	// none filling it.
	AnswerIsland = "island"
)

// BlindInstruction is the system prompt of blind identification. It
// never carries the world's brief, nor what a frame was meant to show.
const BlindInstruction = `You look at pictures of a 3D voxel world, each after its label in square brackets. The pictures are in no particular order.

For each picture, name the one region from the list you are given that fills most of it. Answer "island" when it shows the whole island or several regions with none filling most of it, and "none" when it shows none of them (a blank or black screen, only sky, only water far from land). Judge by what you see only; if you are unsure, answer "none".

Reply with one JSON object mapping every label to one answer, e.g. {"frame_1": "desert", "frame_2": "none"} — the region ids exactly as listed, nothing else.`

const blindSchema = `{"type":"object","additionalProperties":{"type":"string"}}`

// Blind is the verdict of blind identification.
type Blind struct {
	// Status is Judged, or Unjudged with Reason.
	Status string `json:"status"`
	Reason string `json:"reason,omitempty"`
	// Frames are the frames shown, in the shuffled order they were sent.
	Frames []BlindFrame `json:"frames"`
	Call   *Call        `json:"call,omitempty"`
}

// BlindFrame is one frame's identification.
type BlindFrame struct {
	Frame
	// Label is the frame's name in the call (frame_1 …).
	Label string `json:"label"`
	// IdentifiedAs is the model's answer: a biome id, island or none.
	IdentifiedAs string `json:"identified_as,omitempty"`
	// Confirmed: the frame counts as a sighting of ConfirmedBiome — the
	// model named the biome the frame was meant to show, or, for a frame
	// meant to show no one biome (an orbit, a burst), named a biome on its
	// own.
	Confirmed      bool   `json:"confirmed"`
	ConfirmedBiome string `json:"confirmed_biome,omitempty"`
}

// Shuffle orders frames by a permutation seeded from the world's SHA-256
// (hex), the same for the same world.
func Shuffle(frames []Frame, sha string) []Frame {
	seed, _ := hex.DecodeString(sha)
	var a, b uint64
	if len(seed) >= 16 {
		a, b = binary.BigEndian.Uint64(seed[:8]), binary.BigEndian.Uint64(seed[8:16])
	}
	out := append([]Frame(nil), frames...)
	rand.New(rand.NewPCG(a, b)).Shuffle(len(out), func(i, j int) { out[i], out[j] = out[j], out[i] })
	return out
}

// BlindRequest is the one call of blind identification: the biome list,
// then every frame under its shuffled label.
func BlindRequest(dir string, shuffled []Frame, biomes []rubric.Biome) (llm.Request, []string, error) {
	var list strings.Builder
	for _, b := range biomes {
		fmt.Fprintf(&list, "- %s: %s\n", b.ID, b.Label)
	}
	labels := make([]string, len(shuffled))
	for i := range shuffled {
		labels[i] = fmt.Sprintf("frame_%d", i+1)
	}
	intro := fmt.Sprintf("The regions:\n%s- island: the whole island, or several regions\n- none: none of them\n\nThe %d pictures:", list.String(), len(shuffled))
	msg, err := labelled(dir, intro, labels, shuffled, fmt.Sprintf("Answer for all %d labels, frame_1 to frame_%d.", len(shuffled), len(shuffled)))
	if err != nil {
		return llm.Request{}, nil, err
	}
	zero := 0.0
	return llm.Request{Messages: []llm.Message{llm.SystemText(BlindInstruction), msg},
		Tools: []llm.Tool{answerTool(blindSchema)}, Temperature: &zero}, labels, nil
}

// Identify shows every frame to the blind_identifier model in one call,
// shuffled by the world's hash, without the brief, and confirms each
// frame whose answer is its biome. A call that fails or a reply that
// cannot be read leaves the identification Unjudged; frames is never
// reordered in place.
func Identify(ctx context.Context, m llm.Model, dir string, frames []Frame, biomes []rubric.Biome, sha string) *Blind {
	out := &Blind{Status: Unjudged, Frames: []BlindFrame{}}
	if len(frames) == 0 {
		out.Reason = "no frame to identify"
		return out
	}
	shuffled := Shuffle(frames, sha)
	req, labels, err := BlindRequest(dir, shuffled, biomes)
	if err != nil {
		out.Reason = err.Error()
		return out
	}
	for i, f := range shuffled {
		out.Frames = append(out.Frames, BlindFrame{Frame: f, Label: labels[i]})
	}
	obj, call, err := ask(ctx, m, req)
	if call.Reply != "" || call.Model != "" {
		out.Call = &call
	}
	if err != nil {
		out.Reason = "blind identification: " + err.Error()
		return out
	}
	answers, err := ParseBlind(obj, labels, biomes)
	if err != nil {
		out.Reason = "blind identification: " + err.Error()
		return out
	}
	out.Status = Judged
	for i := range out.Frames {
		f := &out.Frames[i]
		f.IdentifiedAs = answers[f.Label]
		switch {
		case f.Biome != "":
			f.Confirmed = f.IdentifiedAs == f.Biome
		default:
			f.Confirmed = f.IdentifiedAs != AnswerNone && f.IdentifiedAs != AnswerIsland
		}
		if f.Confirmed {
			f.ConfirmedBiome = f.IdentifiedAs
		}
	}
	return out
}

// ParseBlind reads the answers: an object with exactly the labels as
// keys, each a biome id (or its label, any case), island or none.
func ParseBlind(obj json.RawMessage, labels []string, biomes []rubric.Biome) (map[string]string, error) {
	var raw map[string]string
	if err := json.Unmarshal(obj, &raw); err != nil {
		return nil, fmt.Errorf("the reply's object does not map labels to answers: %w", err)
	}
	known := map[string]string{AnswerNone: AnswerNone, AnswerIsland: AnswerIsland}
	for _, b := range biomes {
		known[strings.ToLower(b.ID)] = b.ID
		known[strings.ToLower(b.Label)] = b.ID
	}
	want := map[string]bool{}
	for _, l := range labels {
		want[l] = true
	}
	var extra []string
	out := map[string]string{}
	for k, v := range raw {
		if !want[k] {
			extra = append(extra, k)
			continue
		}
		id, ok := known[strings.ToLower(strings.TrimSpace(v))]
		if !ok {
			return nil, fmt.Errorf("%s is answered %q, which is no region of the list", k, v)
		}
		out[k] = id
	}
	if len(extra) > 0 {
		sort.Strings(extra)
		return nil, fmt.Errorf("the reply names labels that were not shown: %s", strings.Join(extra, ", "))
	}
	var missing []string
	for _, l := range labels {
		if _, ok := out[l]; !ok {
			missing = append(missing, l)
		}
	}
	if len(missing) > 0 {
		return nil, fmt.Errorf("the reply leaves out %s", strings.Join(missing, ", "))
	}
	return out, nil
}

// ConfirmedFrames are the frames confirmed as showing biome, in the order
// the capture saved them (frames).
func (b *Blind) ConfirmedFrames(frames []Frame, biome string) []Frame {
	ok := map[string]bool{}
	for _, f := range b.Frames {
		if f.Confirmed && f.ConfirmedBiome == biome {
			ok[f.View] = true
		}
	}
	var out []Frame
	for _, f := range frames {
		if ok[f.View] {
			out = append(out, f)
		}
	}
	return out
}
