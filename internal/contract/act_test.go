package contract

import (
	"context"
	"encoding/json"
	"fmt"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"
)

// scriptedActor answers an act's turns from a list, recording what each
// turn showed it.
type scriptedActor struct {
	replies []ActReply
	turns   []ActTurn
}

func (a *scriptedActor) Act(ctx context.Context, turn ActTurn) (ActReply, error) {
	a.turns = append(a.turns, turn)
	if len(a.replies) == 0 {
		return ActReply{Action: json.RawMessage(`"give_up"`), Reason: "out of script"}, nil
	}
	r := a.replies[0]
	a.replies = a.replies[1:]
	return r, nil
}

const actContract = `
version: 1
probes:
  - name: drive
    level: transition
    steps:
      - act: {instruction: move the right controller to the red target, max_steps: 6}
      - assert: s.right.ray == [0.3, 1.1, -0.5]
`

// TestActDrivesTheFakeHeadset: the model's actions are parsed as steps
// and run; a kind the act does not take, a step that does not parse and
// a target not found are turns the model is told about; done ends it; the
// trajectory and a frame per turn are kept.
func TestActDrivesTheFakeHeadset(t *testing.T) {
	actor := &scriptedActor{replies: []ActReply{
		{Action: json.RawMessage(`{"click": {"selector": "#go"}}`), Reason: "click it"},
		{Action: json.RawMessage(`{"controller": {"hand": "middle"}}`), Reason: "a third hand"},
		{Action: json.RawMessage(`{"pointTo": {"hand": "right", "object": "nothing"}}`), Reason: "aim"},
		{Action: json.RawMessage(`{"controller": {"hand": "right", "position": [0.3, 1.1, -0.5]}}`), Reason: "move it there"},
		{Action: json.RawMessage(`"done"`), Reason: "it is on the target"},
	}}
	files := map[string]string{}
	res := run(t, actContract, xrOpener(), Options{Actor: actor, Artifact: func(name string, data []byte) error {
		files[name] = string(data)
		return nil
	}})
	require.Equal(t, []string{"s.right.ray == [0.3, 1.1, -0.5] | pass | "}, messages(res))
	require.Len(t, actor.turns, 5)
	for i, turn := range actor.turns {
		require.Equal(t, "move the right controller to the red target", turn.Instruction)
		require.Equal(t, i+1, turn.Turn)
		require.Equal(t, 6, turn.MaxSteps)
		require.Len(t, turn.History, i)
		require.Equal(t, fmt.Sprintf("frame %d", i+2), string(turn.Frame)) // after the settle frame and the turn's own
	}
	require.Equal(t, "controller", actor.turns[0].State["input"])
	require.Equal(t, map[string]any{"position": []float64{0.3, 1.1, -0.5}, "orientation": []float64{0, 0, 0, 1}}, actor.turns[4].State["right-controller"])
	var lines []string
	for _, l := range strings.Split(strings.TrimSpace(files["act-drive-6.jsonl"]), "\n") {
		lines = append(lines, l)
	}
	require.Equal(t, []string{
		`{"turn":1,"action":"{\"click\": {\"selector\": \"#go\"}}","reason":"click it","error":"not run: \"click\" is not a step an act takes","frame":"act-drive-6-1.png","at":1}`,
		`{"turn":2,"action":"{\"controller\": {\"hand\": \"middle\"}}","reason":"a third hand","error":"not run: act: controller: hand \"middle\": want left or right","frame":"act-drive-6-2.png","at":2}`,
		`{"turn":3,"action":"{\"pointTo\": {\"hand\": \"right\", \"object\": \"nothing\"}}","reason":"aim","error":"not run: no object named \"nothing\": target not found","frame":"act-drive-6-3.png","at":3}`,
		`{"turn":4,"action":"{\"controller\": {\"hand\": \"right\", \"position\": [0.3, 1.1, -0.5]}}","reason":"move it there","frame":"act-drive-6-4.png","at":4}`,
		`{"turn":5,"action":"\"done\"","reason":"it is on the target","frame":"act-drive-6-5.png","at":5}`,
	}, lines)
	require.Equal(t, "frame 6", files["act-drive-6-5.png"])
}

// Without a model, or when it cannot answer, the assertions after an act
// are unjudged: never a silent pass.
func TestActWithoutAModelIsUnjudged(t *testing.T) {
	res := run(t, actContract, xrOpener(), Options{})
	require.Equal(t, []string{`s.right.ray == [0.3, 1.1, -0.5] | unjudged | unjudged: act "move the right controller to the red target" (line 6): no xr_actor model is configured (give the xr_actor role a model: docs/models.md)`}, messages(res))

	actor := &scriptedActor{replies: []ActReply{{Unjudged: "the model call failed: HTTP 500"}}}
	res = run(t, actContract, xrOpener(), Options{Actor: actor})
	require.Equal(t, []string{`s.right.ray == [0.3, 1.1, -0.5] | unjudged | unjudged: act "move the right controller to the red target" (line 6), turn 1: the model call failed: HTTP 500`}, messages(res))

	// give_up ends the act; the assertions judge what the page shows.
	actor = &scriptedActor{replies: []ActReply{{Action: json.RawMessage(`"give_up"`), Reason: "no target"}}}
	res = run(t, actContract, xrOpener(), Options{Actor: actor})
	require.Equal(t, StatusFail, res.Verdicts[0].Status)

	// max_steps bounds the turns, and the frame budget counts them with
	// the settle frames before the act and before the assertion.
	c := mustParse(t, actContract)
	require.Equal(t, 6*ActTurnFrames+2, c.Probes[0].Frames(60))
}

func TestActParseErrors(t *testing.T) {
	_, err := Parse("contract.yaml", []byte(strings.TrimLeft(`
version: 1
probes:
  - name: p
    level: state
    steps:
      - act: {max_steps: 3}
      - act: {instruction: go, max_steps: 40}
      - act: {instruction: go, steps: 3}
      - assert: s.x
`, "\n")))
	require.EqualError(t, err, strings.Join([]string{
		"contract.yaml:6: probe p: steps: act: instruction is required",
		"contract.yaml:7: probe p: steps: act: max_steps 40: at most 32",
		`contract.yaml:8: probe p: steps: act: unknown field "steps" (want one of instruction, max_steps)`,
	}, "\n"))
}
