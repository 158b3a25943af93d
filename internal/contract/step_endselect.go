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
		Doc:     "ends the select `startSelect` began (opens the pinch, lets the trigger go); the page gets `selectend` on the next frame",
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

// FrameCount: none of its own.
func (a *EndSelectStep) FrameCount(Timing) int { return 0 }

func (a *EndSelectStep) run(x *exec) error {
	xr, err := x.headset()
	if err != nil {
		return err
	}
	return xr.XRSelect(x.ctx, a.Hand, 0)
}
