package judges

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"strings"

	"github.com/worldprobe/worldprobe/internal/contract"
	"github.com/worldprobe/worldprobe/internal/llm"
)

// ActInstruction is the system prompt of the xr_actor role in an act step.
func ActInstruction() string {
	kinds := make([]string, len(contract.ActKinds))
	for i, k := range contract.ActKinds {
		kinds[i] = string(k)
	}
	return `You are the user of a VR web app, wearing an emulated headset with two hands (or controllers). Each turn you see what your eyes see now and your pose, and you choose ONE action towards the instruction.

Positions are metres in the room (y up, the floor at y = 0, -z ahead at the start). Actions are worldprobe contract steps, one of: ` + strings.Join(kinds, ", ") + `. Examples:
{"reachTo": {"hand": "right", "object": "cube"}}   (move the right index fingertip to the object named cube)
{"hand": {"hand": "right", "pinch": 1}}             (pinch; {"pinch": 0} lets go)
{"moveHand": {"hand": "right", "up": 0.2}}
{"lookAtTarget": {"world": [0, 1.2, -0.5]}}
{"step": 10}                                          (wait 10 frames)

Answer with one JSON object: {"action": <one action as above, or "done" when the instruction is carried out, or "give_up">, "reason": "one sentence"}.`
}

// Actor drives act steps with the xr_actor role (contract.Actor). A reply
// with no action, a refusal, a spent budget or a provider failure leaves
// the act unjudged with the reason; a fatal model error and a cancelled
// context are errors.
type Actor struct {
	Model     llm.Model
	ModelName string
}

var _ contract.Actor = (*Actor)(nil)

// ActRequest is one turn's request: the instruction, the turn, the state,
// the earlier turns and the frame.
func ActRequest(turn contract.ActTurn) llm.Request {
	state, _ := json.Marshal(turn.State)
	var b strings.Builder
	fmt.Fprintf(&b, "Instruction: %s\nTurn %d of %d.\nYour state: %s\n", turn.Instruction, turn.Turn, turn.MaxSteps, state)
	if len(turn.History) > 0 {
		b.WriteString("Your earlier turns:\n")
		for _, h := range turn.History {
			fmt.Fprintf(&b, "%d. %s", h.Turn, h.Action)
			if h.Error != "" {
				fmt.Fprintf(&b, " (%s)", h.Error)
			}
			b.WriteString("\n")
		}
	}
	b.WriteString("What you see now:")
	return llm.Request{Variant: fmt.Sprint(turn.Turn), Messages: []llm.Message{
		llm.SystemText(ActInstruction()),
		llm.UserParts(llm.Text(b.String()), llm.Image("image/png", turn.Frame)),
	}}
}

// Act asks the model for the turn's action.
func (a *Actor) Act(ctx context.Context, turn contract.ActTurn) (contract.ActReply, error) {
	out := contract.ActReply{Model: a.ModelName}
	type action struct {
		act    json.RawMessage
		reason string
	}
	v, why, err := askScoped(ctx, a.Model, ActRequest(turn), "action", func(text string) (action, error) {
		act, reason, err := ParseAction(text)
		return action{act, reason}, err
	})
	switch {
	case err != nil:
		return out, fmt.Errorf("asking %s: %w", a.ModelName, err)
	case why != "":
		out.Unjudged = why
	default:
		out.Action, out.Reason = v.act, v.reason
	}
	return out, nil
}

// ParseAction reads an actor's reply: the first JSON object with an
// "action" key, in a code fence or in prose; the action as JSON and the
// reason.
func ParseAction(reply string) (json.RawMessage, string, error) {
	for _, cand := range jsonCandidates(reply) {
		var m map[string]json.RawMessage
		if json.Unmarshal([]byte(cand), &m) != nil {
			continue
		}
		act, ok := m["action"]
		if !ok || string(act) == "null" {
			continue
		}
		var reason string
		if r, ok := m["reason"]; ok {
			if json.Unmarshal(r, &reason) != nil {
				reason = string(r)
			}
		}
		return act, strings.TrimSpace(reason), nil
	}
	return nil, "", errors.New(`it holds no JSON object with an "action" key`)
}
