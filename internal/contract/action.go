package contract

import (
	"fmt"
	"sort"
	"strings"

	"go.yaml.in/yaml/v3"
)

// Action is what one step does. Every step kind is one type in its own
// file (step_click.go, step_wheel.go, …) that holds its YAML form, its
// validation with positions, its execution against the page and its
// documentation, and registers itself in the step table with
// registerStep. Adding a step kind is that one file and its test.
type Action interface {
	// Describe renders the step for messages, e.g. `click {selector: "#go"}`.
	Describe() string
	// Traits says how the step meets the page's clock and its input.
	Traits() Traits
	// Frames is how many frames the step advances the clock by (the
	// frames it holds input for included), at the timing of its probe.
	FrameCount(t Timing) int
	// run performs the step in a probe run.
	run(x *exec) error
}

// Traits describe a step to the engine, which adds settle frames and
// checks the primary button from them (see Step.Settles).
type Traits struct {
	// Reads: the step reads the page, so it settles first.
	Reads bool
	// Pixels: the step reads the drawn canvas, so the frame before it is
	// drawn. Frames before any other step are stepped undrawn when the
	// page can (a page's JavaScript runs the same either way; drawing a
	// frame under SwiftShader costs far more than running it).
	Pixels bool
	// Input: the step sends input; it settles first and leaves the page
	// pending (it has not yet run a frame with the input).
	Input bool
	// Advances: the step runs at least one frame of its own after its
	// last input, so the page is no longer pending.
	Advances bool
	// Reloads: the step loads the page again (pending, button up).
	Reloads bool
	// Button is how the step uses the primary button.
	Button ButtonUse
}

// ButtonUse is how a step uses the primary pointer button.
type ButtonUse int

// Button uses.
const (
	// ButtonNone: the step leaves the button as it is.
	ButtonNone ButtonUse = iota
	// ButtonWhole: the step presses and releases it itself (click, drag),
	// so the button must be up before it.
	ButtonWhole
	// ButtonDown: the step holds it down (press); it must be up before.
	ButtonDown
	// ButtonUp: the step lets it up (release); it must be down before.
	ButtonUp
)

// Timing is what a step's frame count depends on.
type Timing struct {
	// FPS is the probe's frame rate.
	FPS float64
	// HoldMs is the contract's hold (hold:), DefaultHoldMs when unset.
	HoldMs float64
}

// Hold is how many frames an input held for ms lasts; 0 ms means the
// contract's hold.
func (t Timing) Hold(ms float64) int {
	if ms <= 0 {
		ms = t.HoldMs
	}
	if ms <= 0 {
		ms = DefaultHoldMs
	}
	return HoldFrames(ms, t.FPS)
}

// stepType is one entry of the step table: a step kind, how to parse it
// and how to document it.
type stepType struct {
	Kind StepKind
	// Order places the kind in StepKinds and in the documentation.
	Order int
	// Example is the step as written, for the documentation table.
	Example string
	// Doc says what the step does, for the documentation table (Markdown).
	Doc string
	// Control: the kind may be a task's control (task.yaml controls:),
	// which explorations send in any order; kinds whose effect depends on
	// a step around them (press, release) may not.
	Control bool
	// Siblings are further keys a step of this kind may carry next to
	// its own (assert: message, attribution).
	Siblings []string
	// Parse reads the step's value; it reports problems through p and
	// returns false when the step is unusable.
	Parse func(p *parser, v *yaml.Node, c stepContext) (Action, bool)
}

// stepContext is what parsing one step may need beyond its value.
type stepContext struct {
	// what names the step in messages, e.g. "probe falls: steps: click".
	what string
	// fields are the step mapping's keys, siblings included.
	fields map[string]field
	// names are the snapshot and trace names the probe has defined.
	names *stepNames
}

// stepTable holds every registered step kind by kind.
var stepTable = map[StepKind]stepType{}

// registerStep adds a step kind to the table; each step file calls it
// from init. Registering a kind twice is a programming error.
func registerStep(t stepType) {
	if _, dup := stepTable[t.Kind]; dup {
		panic(fmt.Sprintf("contract: step kind %q registered twice", t.Kind))
	}
	if t.Parse == nil || t.Doc == "" || t.Example == "" {
		panic(fmt.Sprintf("contract: step kind %q needs Parse, Example and Doc", t.Kind))
	}
	stepTable[t.Kind] = t
}

// stepTypes returns the table in documentation order.
func stepTypes() []stepType {
	out := make([]stepType, 0, len(stepTable))
	for _, t := range stepTable {
		out = append(out, t)
	}
	sort.Slice(out, func(i, j int) bool { return out[i].Order < out[j].Order })
	return out
}

// StepKinds lists every step kind in documentation order.
func StepKinds() []StepKind {
	var out []StepKind
	for _, t := range stepTypes() {
		out = append(out, t.Kind)
	}
	return out
}

// ControlKinds lists the step kinds a task's controls may use.
func ControlKinds() []StepKind {
	var out []StepKind
	for _, t := range stepTypes() {
		if t.Control {
			out = append(out, t.Kind)
		}
	}
	return out
}

// StepTable renders the documentation table of every step kind, as
// docs/contracts.md carries it.
func StepTable() string {
	var b strings.Builder
	b.WriteString("| step | example | what it does |\n|---|---|---|\n")
	for _, t := range stepTypes() {
		fmt.Fprintf(&b, "| `%s` | %s | %s |\n", t.Kind, t.Example, t.Doc)
	}
	return b.String()
}
