package contract

import "go.yaml.in/yaml/v3"

// StepTeleportHand places a hand's active input at a target.
const StepTeleportHand StepKind = "teleportHand"

// TeleportHandStep places a hand's active input, not turning it, at Target.
type TeleportHandStep struct {
	Hand   string
	Target Target
}

func init() {
	registerStep(stepType{
		Kind: StepTeleportHand, Order: 265,
		Example: "`teleportHand: {hand: left, tag: cube}`",
		Doc: "places the hand's active XR input — the tracked hand or its controller, its own pose as `hand:` and `controller:` set it (a controller's grip is 5 cm from it) — at a target, " +
			"`{world: [x, y, z]}`, `{object: name}`, `{tag: name}` or `{joint: {hand, name}}`, not turned (GenXR-Test's `teleportHand`; `reachTo` puts the touching point there instead); " +
			"the page reads it there on the next frame",
		Parse: func(p *parser, v *yaml.Node, c stepContext) (Action, bool) {
			h, t, ok := parseHandTarget(p, v, c)
			return &TeleportHandStep{Hand: h, Target: t}, ok
		},
	})
}

// Describe renders "teleportHand left TARGET".
func (a *TeleportHandStep) Describe() string {
	return "teleportHand " + a.Hand + " " + a.Target.String()
}

// Traits: moving a hand is input.
func (a *TeleportHandStep) Traits() Traits { return Traits{Input: true} }

// FrameCount: none of its own.
func (a *TeleportHandStep) FrameCount(Timing) int { return 0 }

func (a *TeleportHandStep) run(x *exec) error {
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
	return xr.XRPose(x.ctx, device, at, nil)
}

// Mirrored, the other hand goes to the mirrored target.
func (a *TeleportHandStep) mirrored() Action {
	return &TeleportHandStep{Hand: otherHand(a.Hand), Target: mirrorTarget(a.Target)}
}
