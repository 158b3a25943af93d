package probe

import (
	"context"
	"fmt"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/worldprobe/worldprobe/internal/llm"
)

var palmHunt = HuntInput{Test: "WC003", Biome: "delta", BiomeLabel: "Coastal Delta / Ocean", Item: Ask{ID: "palm_silhouettes", Label: "Palm voxel trees on warm beaches"}, VisualHint: "the frames show it (biome_delta)"}

// TestEvidenceAgentGrepReadAnswer: the agent greps, reads lines and
// answers with a final_answer call; the tools answered from the source in
// memory, and its quote is source text that ran.
func TestEvidenceAgentGrepReadAnswer(t *testing.T) {
	f := newFake(t,
		call("grep", `{"pattern": "mesh\\(box", "ignore_case": true, "context": 1}`),
		call("read_lines", `{"start": 7, "end": 13}`),
		reply{text: "The palms are built by buildPalms, called with the beach cells.", calls: [][2]string{{"final_answer", `{"found": true, "evidence": "trunk.position.set(c.x, c.h + 1, c.z);\nscene.add(trunk);", "lines": [10, 11], "explanation": "buildPalms places a trunk on each beach cell"}`}}},
	)
	m := f.model(t, llm.EvidenceAgent)
	h, err := HuntEvidence(context.Background(), m, world(t, nil), palmHunt)
	require.NoError(t, err)
	require.Empty(t, h.Unjudged)
	require.True(t, h.Found)
	require.Equal(t, []int{10, 11}, h.PickedLines)
	require.Equal(t, 5, h.Steps, "3 model calls, 2 tool calls")
	require.Len(t, h.Tools, 2)
	require.NotNil(t, h.Evidence)
	require.True(t, h.Evidence.OK)
	require.Equal(t, ByAgent, h.Evidence.By)
	require.Equal(t, "10-11", spansText(h.Evidence.Lines))

	// What the tools answered, as the model got it.
	msgs := f.messages(1)
	require.Equal(t, "tool", msgs[len(msgs)-1]["role"])
	require.Equal(t, "8:   for (const c of cells) {\n9:     const trunk = new THREE.Mesh(box, trunkMat);\n10:     trunk.position.set(c.x, c.h + 1, c.z);\n", msgs[len(msgs)-1]["content"])
	msgs = f.messages(2)
	require.Equal(t, "7: function buildPalms(cells) {\n8:   for (const c of cells) {\n9:     const trunk = new THREE.Mesh(box, trunkMat);\n10:     trunk.position.set(c.x, c.h + 1, c.z);\n11:     scene.add(trunk);\n12:   }\n13: }\n", msgs[len(msgs)-1]["content"])
	require.Equal(t, AgentPrompt, f.messages(0)[0]["content"])
	tools := f.bodies[0]["tools"].([]any)
	require.Len(t, tools, 3, "grep, read_lines, final_answer: nothing else")
}

// TestEvidenceAgentToolBudget: a model that keeps calling tools: its
// repeated call is refused, its 11th and 12th calls get "TOOL BUDGET
// SPENT", and then its answer in prose with the JSON is read; a quote of
// code that never ran is refused.
func TestEvidenceAgentToolBudget(t *testing.T) {
	var replies []reply
	for i := 1; i <= 12; i++ {
		p := fmt.Sprintf(`{"pattern": "cactus%d"}`, i)
		if i == 3 {
			p = `{"pattern": "cactus2"}`
		}
		replies = append(replies, call("grep", p))
	}
	replies = append(replies, text("I could not search further. My verdict:\n{\"found\": true, \"evidence\": \"cactus.position.set(cells[0].x, 1, cells[0].z);\", \"lines\": [16], \"explanation\": \"buildCactus\"}"))
	f := newFake(t, replies...)
	h, err := HuntEvidence(context.Background(), f.model(t, llm.EvidenceAgent), world(t, nil), palmHunt)
	require.NoError(t, err)
	require.Len(t, h.Tools, 12)
	var refused []string
	for _, u := range h.Tools {
		refused = append(refused, u.Refused)
	}
	require.Equal(t, []string{"", "", "repeated", "", "", "", "", "", "", "", "budget", "budget"}, refused)
	require.Equal(t, 25, h.Steps, "13 model calls, 12 tool calls")
	require.False(t, h.Salvaged)
	last := f.messages(12)
	require.True(t, strings.HasPrefix(last[len(last)-1]["content"].(string), "TOOL BUDGET SPENT: you have used your 10 tool calls."))
	require.Equal(t, "no match", f.messages(1)[3]["content"])
	require.NotNil(t, h.Evidence)
	require.Equal(t, RefusedNotRun, h.Evidence.Refused)
	require.False(t, h.Evidence.OK)
}

// TestEvidenceAgentSalvage: a model that never answers reaches the step
// limit (15 turns of one tool call: 30 steps); one more call, with no
// tools, turns its transcript into a verdict.
func TestEvidenceAgentSalvage(t *testing.T) {
	var replies []reply
	for i := 1; i <= 15; i++ {
		replies = append(replies, call("read_lines", fmt.Sprintf(`{"start": %d, "end": %d}`, i, i+4)))
	}
	replies = append(replies, text("```json\n{\"found\": true, \"evidence\": \"scene.add(trunk);\", \"lines\": [11], \"explanation\": \"read at line 11\"}\n```"))
	f := newFake(t, replies...)
	h, err := HuntEvidence(context.Background(), f.model(t, llm.EvidenceAgent), world(t, nil), palmHunt)
	require.NoError(t, err)
	require.True(t, h.Salvaged)
	require.Equal(t, 31, h.Steps)
	require.Len(t, f.bodies, 16)
	require.Nil(t, f.bodies[15]["tools"], "the salvage call offers no tools")
	sm := f.messages(15)
	require.Contains(t, sm[1]["content"], "read_lines {\"start\": 1, \"end\": 5}\n1: <!DOCTYPE html>")
	require.True(t, h.Evidence.OK, "%+v", h.Evidence)
	require.Equal(t, "11-11", spansText(h.Evidence.Lines))
}

// TestGrepAndReadLines: the tools' limits.
func TestGrepAndReadLines(t *testing.T) {
	c := world(t, nil)
	out, err := c.Grep(`rain\.position`, false, 0)
	require.NoError(t, err)
	require.Equal(t, "22:   rain.position.y -= dt * 9.8;\n23:   if (rain.position.y < 0) rain.position.y = 40;\n", out)
	out, err = c.Grep(`function`, false, 0)
	require.NoError(t, err)
	require.Equal(t, "7: function buildPalms(cells) {\n--\n14: function buildCactus(cells) {\n--\n21: function animate(dt) {\n", out)
	_, err = c.Grep(`(`, false, 0)
	require.ErrorContains(t, err, "grep: error parsing regexp")
	_, err = c.ReadLines(1, 401)
	require.EqualError(t, err, "read_lines: at most 400 lines at a time")
	_, err = c.ReadLines(30, 31)
	require.EqualError(t, err, "read_lines: 30–31 is not a range of lines 1–26")
	out, err = c.ReadLines(25, 40)
	require.NoError(t, err)
	require.Equal(t, "25: </script>\n26: </body></html>\n", out)
}
