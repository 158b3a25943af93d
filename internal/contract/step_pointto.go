package contract

import "go.yaml.in/yaml/v3"

// StepPointTo aims a hand's ray at a target.
const StepPointTo StepKind = "pointTo"

// PointToStep turns a hand's active input, where it is, so that its
// target ray points at Target.
type PointToStep struct {
	Hand   string
	Target Target
}

func init() {
	registerStep(stepType{
		Kind: StepPointTo, Order: 250,
		Example: "`pointTo: {hand: right, object: cube}`",
		Doc: "turns the hand's active XR input — the tracked hand or its controller — where it is, so that its target ray (its -z) points at a target, " +
			"`{world: [x, y, z]}`, `{object: name}`, `{tag: name}` or `{joint: {hand, name}}`, with no roll",
		Parse: func(p *parser, v *yaml.Node, c stepContext) (Action, bool) {
			h, t, ok := parseHandTarget(p, v, c)
			return &PointToStep{Hand: h, Target: t}, ok
		},
	})
}

// parseHandTarget reads {hand, TARGET}.
func parseHandTarget(p *parser, v *yaml.Node, c stepContext) (string, Target, bool) {
	fields := p.mapping(v, c.what, append([]string{"hand"}, xrTargetKeys()...)...)
	if fields == nil {
		return "", Target{}, false
	}
	h, ok := p.handOf(v, fields, c.what)
	t, good := p.xrTarget(v, fields, c.what)
	return h, t, ok && good
}

// Describe renders "pointTo right TARGET".
func (a *PointToStep) Describe() string { return "pointTo " + a.Hand + " " + a.Target.String() }

// Traits: turning a hand is input (it settles the page first, so an
// object target is read where the page has put it).
func (a *PointToStep) Traits() Traits { return Traits{Input: true} }

// FrameCount: none of its own.
func (a *PointToStep) FrameCount(Timing) int { return 0 }

func (a *PointToStep) run(x *exec) error {
	xr, err := x.headset()
	if err != nil {
		return err
	}
	device, err := x.activeDevice(xr, a.Hand)
	if err != nil {
		return err
	}
	return x.aim(xr, device, a.Target)
}
