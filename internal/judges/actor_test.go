package judges

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/worldprobe/worldprobe/internal/contract"
	"github.com/worldprobe/worldprobe/internal/result"
	"github.com/worldprobe/worldprobe/internal/trial"
)

const actPinch = `version: 1
probes:
  - name: pinch
    level: transition
    steps:
      - step: 2
      - act: {instruction: pinch with your right hand in front of you, max_steps: 6}
      - assert: s.selects == 1
`

// TestActDrivesARealXRPage: an act step in a real XR trial, driven by an
// httptest server answering as OpenAI does with replies written as real
// models write them: the model raises the right hand, pinches, lets go
// and says done; the page counts one select. Each turn the model got the
// instruction, the turn, the hand where its last action put it and the
// frame kept in the trial folder; the trajectory is kept.
func TestActDrivesARealXRPage(t *testing.T) {
	f := newFakeOpenAI(t, answer{file: "act_move.md"}, answer{file: "act_pinch.md"}, answer{file: "act_release.md"}, answer{file: "act_done.md"})
	r := &actRunner{actor: &Actor{Model: visualModel(t, f), ModelName: "openai/test-vlm"}}
	tr, dir := r.run(t)
	require.Equal(t, []string{"pinch:8  pass \"s.selects == 1\" |  |  |  | "}, looks(tr))
	require.True(t, tr.Pass)
	require.Zero(t, tr.Unjudged)

	require.Len(t, f.bodies, 4)
	for i, b := range f.bodies {
		img, text := sentImage(t, b)
		kept, err := os.ReadFile(filepath.Join(dir, "act-pinch-7-"+string(rune('1'+i))+".png"))
		require.NoError(t, err)
		require.Equal(t, kept, img, "turn %d", i+1)
		require.True(t, strings.HasPrefix(text, "Instruction: pinch with your right hand in front of you\nTurn "+string(rune('1'+i))+" of 6.\nYour state: "), text)
		require.Equal(t, ActInstruction(), b["messages"].([]any)[0].(map[string]any)["content"])
	}
	_, second := sentImage(t, f.bodies[1])
	require.Contains(t, second, `"right":{"orientation":[0,0,0,1],"position":[0.2,1.3,-0.4]}`)
	require.Contains(t, second, "Your earlier turns:\n1. {\"hand\": {\"hand\": \"right\", \"position\": [0.2, 1.3, -0.4]}}\n")

	traj, err := os.ReadFile(filepath.Join(dir, "act-pinch-7.jsonl"))
	require.NoError(t, err)
	var turns []contract.ActRecord
	for _, l := range strings.Split(strings.TrimSpace(string(traj)), "\n") {
		var rec contract.ActRecord
		require.NoError(t, json.Unmarshal([]byte(l), &rec))
		turns = append(turns, rec)
	}
	require.Len(t, turns, 4)
	require.Equal(t, contract.ActRecord{Turn: 2, Action: `{"hand": {"hand": "right", "pinch": 1}}`, Reason: "Close the right pinch.", Frame: "act-pinch-7-2.png", At: turns[1].At}, turns[1])
	require.Equal(t, `"done"`, turns[3].Action)
	require.Subset(t, tr.Artifacts, []string{"act-pinch-7.jsonl", "act-pinch-7-1.png", "act-pinch-7-4.png"})
}

// actRunner runs actPinch with an actor, or none.
type actRunner struct{ actor contract.Actor }

func (a *actRunner) run(t *testing.T) (*result.Trial, string) {
	t.Helper()
	return xrTrial(t, actPinch, func(r *trial.Runner) { r.Actor = a.actor })
}

// TestActWithoutAModelInARealTrial: without an xr_actor model the act
// does nothing and the assertion after it is unjudged, never passed.
func TestActWithoutAModelInARealTrial(t *testing.T) {
	tr, _ := (&actRunner{}).run(t)
	require.Equal(t, []string{`pinch:8  unjudged "s.selects == 1" | unjudged: act "pinch with your right hand in front of you" (line 7): no xr_actor model is configured (give the xr_actor role a model: docs/models.md) |  |  | `}, looks(tr))
	require.Equal(t, 1, tr.Unjudged)
	require.True(t, tr.Pass) // the interface field, judged, passed
	require.Equal(t, result.StatusUnjudged, tr.Assertions[1].Status)
}
