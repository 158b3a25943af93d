package contract

import (
	"fmt"

	"go.yaml.in/yaml/v3"
)

// FramesStep advances the virtual clock by Frames frames (step: N).
type FramesStep struct{ Frames int }

func init() {
	registerStep(stepType{
		Kind: StepStep, Order: 20,
		Example: "`step: 30`",
		Doc:     "advances the virtual clock by 30 frames",
		Parse: func(p *parser, v *yaml.Node, c stepContext) (Action, bool) {
			n, ok := p.whole(v, c.what+" (frames)", 1)
			return &FramesStep{Frames: n}, ok
		},
	})
}

// Describe renders "step N".
func (a *FramesStep) Describe() string { return fmt.Sprintf("step %d", a.Frames) }

// Traits: stepping advances the clock.
func (a *FramesStep) Traits() Traits { return Traits{Advances: true} }

// Frames is the frames asked for.
func (a *FramesStep) FrameCount(Timing) int { return a.Frames }

func (a *FramesStep) run(x *exec) error { return x.advance(a.Frames) }
