package taskcheck

import (
	"fmt"
	"math/rand/v2"
	"strings"

	"go.yaml.in/yaml/v3"

	"github.com/worldprobe/worldprobe/internal/contract"
	"github.com/worldprobe/worldprobe/internal/task"
)

// DefaultExploreInputs is how many inputs an exploration sends.
const DefaultExploreInputs = 16

// exploreWaitsMs are the pauses an exploration draws from after each input.
var exploreWaitsMs = []int{50, 150, 300, 600}

// Exploration builds the contract that explores a page beyond its task's
// contract: one probe that, after a first frame, sends inputs drawn with
// seed from the task's controls (none when it declares none: then only
// time passes), each followed by a pause drawn from 50, 150, 300 or 600
// ms and a snapshot. Judged with fingerprints, two pages that give the same
// state hash under it behaved alike under every input. The sequence stops
// early rather than exceed the task's frame budget; the second result is
// how many inputs it sends.
func Exploration(t *task.Task, seed uint64, inputs int) (*contract.Contract, int, error) {
	controlKinds := contract.ControlKinds()
	names := make([]string, len(controlKinds))
	for i, k := range controlKinds {
		names[i] = string(k)
	}
	want := strings.Join(names, ", ")
	controls := make([]string, 0, len(t.Controls))
	for i, c := range t.Controls {
		if len(c) != 1 {
			return nil, 0, fmt.Errorf("%s: controls[%d]: want one input step (%s)", t.ID, i, want)
		}
		for k := range c {
			if !contains(controlKinds, contract.StepKind(k)) {
				return nil, 0, fmt.Errorf("%s: controls[%d]: %s is not an input step (want %s)", t.ID, i, k, want)
			}
		}
		b, err := yaml.Marshal([]map[string]any{c})
		if err != nil {
			return nil, 0, fmt.Errorf("%s: controls[%d]: %w", t.ID, i, err)
		}
		controls = append(controls, string(b))
	}
	rng := rand.New(rand.NewPCG(seed, 0x9e3779b97f4a7c15))
	var steps []string
	budget := t.Frames
	if budget <= 0 {
		budget = task.DefaultFrames
	}
	for n := 0; n <= inputs; n++ {
		var step []string
		if n > 0 && len(controls) > 0 {
			step = append(step, controls[rng.IntN(len(controls))])
		}
		step = append(step, fmt.Sprintf("- wait: %d\n", exploreWaitsMs[rng.IntN(len(exploreWaitsMs))]),
			fmt.Sprintf("- snapshot: s%d\n", n))
		c, err := exploreContract(append(append([]string{}, steps...), step...))
		if err != nil {
			return nil, 0, fmt.Errorf("%s: controls: %w", t.ID, err)
		}
		if len(c.CheckBudget(t.FPS, budget)) > 0 {
			if n == 0 {
				return nil, 0, fmt.Errorf("%s: the frame budget %d leaves no room to explore", t.ID, budget)
			}
			c, err := exploreContract(steps)
			return c, n - 1, err
		}
		steps = append(steps, step...)
	}
	c, err := exploreContract(steps)
	return c, inputs, err
}

// exploreContract parses the exploration probe made of steps (YAML list items).
func exploreContract(steps []string) (*contract.Contract, error) {
	var b strings.Builder
	b.WriteString("version: 1\nprobes:\n  - name: explore\n    level: invariant\n    steps:\n")
	for _, s := range steps {
		for _, line := range strings.Split(strings.TrimRight(s, "\n"), "\n") {
			b.WriteString("      " + line + "\n")
		}
	}
	b.WriteString("      - assert: \"true\"\n")
	return contract.Parse("exploration", []byte(b.String()))
}

func contains[T comparable](xs []T, x T) bool {
	for _, y := range xs {
		if y == x {
			return true
		}
	}
	return false
}
