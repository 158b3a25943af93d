package contract

import (
	"math"

	"go.yaml.in/yaml/v3"
)

// StepMoveHand moves a hand's active input relative to the user.
const StepMoveHand StepKind = "moveHand"

// MoveHandStep moves a hand's active input Forward, Right and Up metres in
// the head's yaw frame, not turning it.
type MoveHandStep struct {
	Hand               string
	Forward, Right, Up float64
}

func init() {
	registerStep(stepType{
		Kind: StepMoveHand, Order: 280,
		Example: "`moveHand: {hand: right, forward: 0.1, up: -0.05}`",
		Doc: "moves the hand's active XR input — the tracked hand or its controller — `forward`, `right` and `up` metres (at least one non-zero) " +
			"in the head's yaw frame, as `walk` moves the user, not turning it; the page sees it from the next frame",
		Parse: parseMoveHand,
	})
}

func parseMoveHand(p *parser, v *yaml.Node, c stepContext) (Action, bool) {
	fields := p.mapping(v, c.what, "hand", "forward", "right", "up")
	if fields == nil {
		return nil, false
	}
	hand, ok := p.handOf(v, fields, c.what)
	a, good := p.amounts(v, fields, c.what, [3]string{"forward", "right", "up"})
	return &MoveHandStep{Hand: hand, Forward: a[0], Right: a[1], Up: a[2]}, ok && good
}

// Describe renders "moveHand right forward 0.1 right 0 up 0".
func (a *MoveHandStep) Describe() string {
	return "moveHand " + a.Hand + " forward " + formatFloat(a.Forward) + " right " + formatFloat(a.Right) + " up " + formatFloat(a.Up)
}

// Traits: moving a hand is input.
func (a *MoveHandStep) Traits() Traits { return Traits{Input: true} }

// FrameCount: none of its own.
func (a *MoveHandStep) FrameCount(Timing) int { return 0 }

func (a *MoveHandStep) run(x *exec) error {
	xr, err := x.headset()
	if err != nil {
		return err
	}
	_, hq, err := xr.XRPoseOf(x.ctx, "head")
	if err != nil {
		return err
	}
	device, err := x.activeDevice(xr, a.Hand)
	if err != nil {
		return err
	}
	pos, q, err := xr.XRPoseOf(x.ctx, device)
	if err != nil {
		return err
	}
	s, c := math.Sin(headingOf(unitQuat(hq))), math.Cos(headingOf(unitQuat(hq)))
	to := []float64{pos[0] - a.Forward*s + a.Right*c, pos[1] + a.Up, pos[2] - a.Forward*c - a.Right*s}
	return xr.XRPose(x.ctx, device, to, unitQuat(q))
}
