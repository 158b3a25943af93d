package contract

import (
	"math"

	"go.yaml.in/yaml/v3"
)

// StepRotateHand turns a hand's active input in its own frame.
const StepRotateHand StepKind = "rotateHand"

// RotateHandStep turns a hand's active input by Yaw, Pitch and Roll
// degrees about its own y, x and z axes, in that order.
type RotateHandStep struct {
	Hand             string
	Yaw, Pitch, Roll float64
}

func init() {
	registerStep(stepType{
		Kind: StepRotateHand, Order: 290,
		Example: "`rotateHand: {hand: left, roll: 90}`",
		Doc: "turns the hand's active XR input, where it is, by `yaw`, `pitch` and `roll` degrees (at least one non-zero) about its own y, x and z axes, in that order " +
			"(positive: to its left, up, counter-clockwise seen from behind); its target ray turns with it",
		Parse: parseRotateHand,
	})
}

func parseRotateHand(p *parser, v *yaml.Node, c stepContext) (Action, bool) {
	fields := p.mapping(v, c.what, "hand", "yaw", "pitch", "roll")
	if fields == nil {
		return nil, false
	}
	hand, ok := p.handOf(v, fields, c.what)
	a, good := p.amounts(v, fields, c.what, [3]string{"yaw", "pitch", "roll"})
	return &RotateHandStep{Hand: hand, Yaw: a[0], Pitch: a[1], Roll: a[2]}, ok && good
}

// Describe renders "rotateHand left yaw 0 pitch 0 roll 90".
func (a *RotateHandStep) Describe() string {
	return "rotateHand " + a.Hand + " yaw " + formatFloat(a.Yaw) + " pitch " + formatFloat(a.Pitch) + " roll " + formatFloat(a.Roll)
}

// Traits: turning a hand is input.
func (a *RotateHandStep) Traits() Traits { return Traits{Input: true} }

// FrameCount: none of its own.
func (a *RotateHandStep) FrameCount(Timing) int { return 0 }

func (a *RotateHandStep) run(x *exec) error {
	xr, err := x.headset()
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
	half := func(deg float64) (float64, float64) {
		return math.Sin(deg * math.Pi / 360), math.Cos(deg * math.Pi / 360)
	}
	ys, yc := half(a.Yaw)
	ps, pc := half(a.Pitch)
	rs, rc := half(a.Roll)
	turn := mulQuat(mulQuat([]float64{0, ys, 0, yc}, []float64{ps, 0, 0, pc}), []float64{0, 0, rs, rc})
	return xr.XRPose(x.ctx, device, pos, mulQuat(unitQuat(q), turn))
}
