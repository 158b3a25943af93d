package contract

import (
	"math"

	"go.yaml.in/yaml/v3"
)

// StepWalk moves the XR user relative to where the head faces (GenXR-Test's
// move; move is the pointer's).
const StepWalk StepKind = "walk"

// WalkStep moves the user Forward, Right and Up metres in the head's yaw
// frame.
type WalkStep struct{ Forward, Right, Up float64 }

func init() {
	registerStep(stepType{
		Kind: StepWalk, Order: 220,
		Example: "`walk: {forward: 1, right: -0.5}`",
		Doc: "moves the XR user (GenXR-Test's `move`) `forward`, `right` and `up` metres (at least one non-zero) in the head's yaw frame: forward is where the head faces, level, " +
			"whatever its pitch; the hands and controllers move with it",
		Parse: parseWalk,
	})
}

func parseWalk(p *parser, v *yaml.Node, c stepContext) (Action, bool) {
	fields := p.mapping(v, c.what, "forward", "right", "up")
	if fields == nil {
		return nil, false
	}
	a, ok := p.amounts(v, fields, c.what, [3]string{"forward", "right", "up"})
	return &WalkStep{Forward: a[0], Right: a[1], Up: a[2]}, ok
}

// Describe renders "walk forward 1 right 0 up 0".
func (a *WalkStep) Describe() string {
	return "walk forward " + formatFloat(a.Forward) + " right " + formatFloat(a.Right) + " up " + formatFloat(a.Up)
}

// Traits: moving the user is input.
func (a *WalkStep) Traits() Traits { return Traits{Input: true} }

// FrameCount: none of its own.
func (a *WalkStep) FrameCount(Timing) int { return 0 }

func (a *WalkStep) run(x *exec) error {
	xr, err := x.headset()
	if err != nil {
		return err
	}
	_, q, err := xr.XRPoseOf(x.ctx, "head")
	if err != nil {
		return err
	}
	yaw := headingOf(unitQuat(q))
	// Forward is (-sin yaw, 0, -cos yaw), right (cos yaw, 0, -sin yaw).
	s, c := math.Sin(yaw), math.Cos(yaw)
	return xr.XRLocomote(x.ctx, []float64{-a.Forward*s + a.Right*c, a.Up, -a.Forward*c - a.Right*s}, 0)
}
