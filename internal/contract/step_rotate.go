package contract

import "go.yaml.in/yaml/v3"

// StepRotate turns the XR user about the vertical line through the head.
const StepRotate StepKind = "rotate"

// RotateStep turns the user by Yaw degrees.
type RotateStep struct{ Yaw float64 }

func init() {
	registerStep(stepType{
		Kind: StepRotate, Order: 230,
		Example: "`rotate: {yaw: 90}`",
		Doc:     "turns the XR user by `yaw` degrees about the vertical line through the head, counter-clockwise seen from above (90 turns to the left); the hands and controllers turn with it",
		Parse: func(p *parser, v *yaml.Node, c stepContext) (Action, bool) {
			fields := p.mapping(v, c.what, "yaw")
			if fields == nil {
				return nil, false
			}
			f, has := fields["yaw"]
			if !has {
				p.errorf(v, "%s: want yaw (degrees)", c.what)
				return nil, false
			}
			n, ok := p.num(f.value, c.what+": yaw")
			return &RotateStep{Yaw: n}, ok
		},
	})
}

// Describe renders "rotate yaw 90".
func (a *RotateStep) Describe() string { return "rotate yaw " + formatFloat(a.Yaw) }

// Traits: turning the user is input.
func (a *RotateStep) Traits() Traits { return Traits{Input: true} }

// FrameCount: none of its own.
func (a *RotateStep) FrameCount(Timing) int { return 0 }

func (a *RotateStep) run(x *exec) error {
	xr, err := x.headset()
	if err != nil {
		return err
	}
	return xr.XRLocomote(x.ctx, []float64{0, 0, 0}, a.Yaw)
}
