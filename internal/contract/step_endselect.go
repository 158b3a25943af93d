package contract

import "go.yaml.in/yaml/v3"

// StepEndSelect ends a select on a hand's active input.
const StepEndSelect StepKind = "endSelect"

// EndSelectStep ends a select: the pinch of a tracked hand opens, the
// trigger of a controller is let go.
type EndSelectStep struct{ Hand string }

func init() {
	registerStep(stepType{
		Kind: StepEndSelect, Order: 200,
		Example: "`endSelect: {hand: right}`",
		Doc:     "ends the select `startSelect` began (opens the pinch as `hand: {pinch: 0}` does, the fingers parting a frame after it ends; lets the trigger go); the page gets `selectend` on the next frame",
		Parse: func(p *parser, v *yaml.Node, c stepContext) (Action, bool) {
			h, ok := parseHandOnly(p, v, c)
			return &EndSelectStep{Hand: h}, ok
		},
	})
}

// Describe renders "endSelect right".
func (a *EndSelectStep) Describe() string { return "endSelect " + a.Hand }

// Traits: a select is input.
func (a *EndSelectStep) Traits() Traits { return Traits{Input: true} }

// FrameCount: a tracked hand's pinch steps a frame of its own (see
// HandStep); a controller's trigger none.
func (a *EndSelectStep) FrameCount(Timing) int { return 1 }

func (a *EndSelectStep) run(x *exec) error {
	xr, err := x.headset()
	if err != nil {
		return err
	}
	return x.selectInput(xr, a.Hand, 0)
}
