package contract

import "go.yaml.in/yaml/v3"

// StepStartSelect starts a select on a hand's active input.
const StepStartSelect StepKind = "startSelect"

// StartSelectStep starts a select: the pinch of a tracked hand closes, the
// trigger of a controller is pulled.
type StartSelectStep struct{ Hand string }

func init() {
	registerStep(stepType{
		Kind: StepStartSelect, Order: 190,
		Example: "`startSelect: {hand: right}`",
		Doc:     "starts a select on the hand's active XR input — closes a tracked hand's pinch as `hand: {pinch: 1}` does (the fingers meet a frame before the pinch is reported: one frame of its own), pulls a controller's trigger; the page gets `selectstart` on the next frame (IWER 2.5 fires `select` with it: docs/xr.md) and `selectend` after `endSelect`",
		Parse: func(p *parser, v *yaml.Node, c stepContext) (Action, bool) {
			h, ok := parseHandOnly(p, v, c)
			return &StartSelectStep{Hand: h}, ok
		},
	})
}

// parseHandOnly reads a step whose only field is hand.
func parseHandOnly(p *parser, v *yaml.Node, c stepContext) (string, bool) {
	fields := p.mapping(v, c.what, "hand")
	if fields == nil {
		return "", false
	}
	return p.handOf(v, fields, c.what)
}

// Describe renders "startSelect right".
func (a *StartSelectStep) Describe() string { return "startSelect " + a.Hand }

// Traits: a select is input.
func (a *StartSelectStep) Traits() Traits { return Traits{Input: true} }

// FrameCount: a tracked hand's pinch steps a frame of its own (see
// HandStep); a controller's trigger none.
func (a *StartSelectStep) FrameCount(Timing) int { return 1 }

func (a *StartSelectStep) run(x *exec) error {
	xr, err := x.headset()
	if err != nil {
		return err
	}
	return x.selectInput(xr, a.Hand, 1)
}
