package taskcheck

import (
	"fmt"
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/worldprobe/worldprobe/internal/contract"
	"github.com/worldprobe/worldprobe/internal/task"
)

func TestExploration(t *testing.T) {
	tk := &task.Task{ID: "simulation/x", FPS: 60, Frames: 900, Controls: []map[string]any{
		{"key": map[string]any{"press": " "}},
		{"click": map[string]any{"object": "ball"}},
		{"wheel": map[string]any{"at": []any{400, 300}, "dy": 120}},
	}}
	c, n, err := Exploration(tk, 1, 8)
	require.NoError(t, err)
	require.Equal(t, 8, n)
	p := c.Probes[0]
	var kinds []contract.StepKind
	for _, s := range p.Steps {
		kinds = append(kinds, s.Kind)
	}
	// A first pause and snapshot, then 8 × (input, pause, snapshot), then the assertion.
	require.Len(t, kinds, 2+8*3+1)
	require.Equal(t, []contract.StepKind{contract.StepWait, contract.StepSnapshot}, kinds[:2])
	for i := 0; i < 8; i++ {
		require.Contains(t, []contract.StepKind{contract.StepKey, contract.StepClick, contract.StepWheel}, kinds[2+3*i], "input %d", i)
		require.Equal(t, contract.StepWait, kinds[3+3*i])
	}
	again, _, err := Exploration(tk, 1, 8)
	require.NoError(t, err)
	require.Equal(t, describe(p.Steps), describe(again.Probes[0].Steps), "the same seed gives the same sequence")
	other, _, err := Exploration(tk, 2, 8)
	require.NoError(t, err)
	require.NotEqual(t, describe(p.Steps), describe(other.Probes[0].Steps), "another seed another sequence")

	// The budget cuts the sequence short.
	tk.Frames = 120
	c, n, err = Exploration(tk, 1, 50)
	require.NoError(t, err)
	require.Less(t, n, 50)
	require.LessOrEqual(t, c.Probes[0].Frames(60), 120)
	require.Empty(t, c.CheckBudget(60, 120))

	// Controls that are not one input step are refused.
	tk.Controls = []map[string]any{{"assert": "true"}}
	_, _, err = Exploration(tk, 1, 8)
	require.ErrorContains(t, err, "controls[0]: assert is not an input step")
	tk.Controls = []map[string]any{{"key": map[string]any{"push": "x"}}}
	_, _, err = Exploration(tk, 1, 8)
	require.ErrorContains(t, err, "simulation/x: controls:")
}

// describe renders steps by value, not by pointer.
func describe(steps []contract.Step) []string {
	var out []string
	for _, s := range steps {
		if a := s.Assertion(); a != nil {
			out = append(out, "assert "+a.Expr)
			continue
		}
		out = append(out, fmt.Sprintf("%s %+v", s.Kind, s.Action))
	}
	return out
}

// TestStarterControlsParse: every starter task declares controls, and they
// make a valid exploration within the task's frame budget.
func TestStarterControlsParse(t *testing.T) {
	tasks, err := task.LoadSuite(filepath.Join("..", "..", "suites", "starter"))
	require.NoError(t, err)
	for _, tk := range tasks {
		require.NotEmpty(t, tk.Controls, "%s declares its controls in task.yaml", tk.ID)
		_, n, err := Exploration(tk, 1, DefaultExploreInputs)
		require.NoError(t, err, tk.ID)
		require.GreaterOrEqual(t, n, 8, "%s: the exploration sends at least 8 inputs within the frame budget", tk.ID)
	}
}
