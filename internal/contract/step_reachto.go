package contract

import "go.yaml.in/yaml/v3"

// StepReachTo places a hand's touching point at a target.
const StepReachTo StepKind = "reachTo"

// ReachToStep moves a hand's active input, not turning it, so that its
// touching point is at Target.
type ReachToStep struct {
	Hand   string
	Target Target
}

func init() {
	registerStep(stepType{
		Kind: StepReachTo, Order: 260,
		Example: "`reachTo: {hand: right, world: [0, 1.2, -0.4]}`",
		Doc: "moves the hand's active XR input, not turning it, so that its index fingertip (a tracked hand, in its current gesture and pinch) " +
			"or its grip (a controller) is at a target, `{world: [x, y, z]}`, `{object: name}`, `{tag: name}` or `{joint: {hand, name}}`; the page reads it there on the next frame",
		Parse: func(p *parser, v *yaml.Node, c stepContext) (Action, bool) {
			h, t, ok := parseHandTarget(p, v, c)
			return &ReachToStep{Hand: h, Target: t}, ok
		},
	})
}

// Describe renders "reachTo right TARGET".
func (a *ReachToStep) Describe() string { return "reachTo " + a.Hand + " " + a.Target.String() }

// Traits: moving a hand is input (it settles the page first, so an object
// target is read where the page has put it).
func (a *ReachToStep) Traits() Traits { return Traits{Input: true} }

// FrameCount: none of its own.
func (a *ReachToStep) FrameCount(Timing) int { return 0 }

func (a *ReachToStep) run(x *exec) error {
	xr, err := x.headset()
	if err != nil {
		return err
	}
	at, err := x.worldPoint(a.Target)
	if err != nil {
		return err
	}
	device, err := x.activeDevice(xr, a.Hand)
	if err != nil {
		return err
	}
	_, q, err := xr.XRPoseOf(x.ctx, device)
	if err != nil {
		return err
	}
	off, err := xr.XRTouchOffset(x.ctx, a.Hand)
	if err != nil {
		return err
	}
	q = unitQuat(q)
	r := rotate(q, off)
	return xr.XRPose(x.ctx, device, []float64{at[0] - r[0], at[1] - r[1], at[2] - r[2]}, q)
}
