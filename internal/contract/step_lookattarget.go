package contract

import (
	"fmt"

	"go.yaml.in/yaml/v3"

	"github.com/worldprobe/worldprobe/internal/target"
)

// StepLookAtTarget turns the XR head to face a target.
const StepLookAtTarget StepKind = "lookAtTarget"

// LookAtTargetStep turns the head towards Target.
type LookAtTargetStep struct{ Target Target }

func init() {
	registerStep(stepType{
		Kind: StepLookAtTarget, Order: 240,
		Example: "`lookAtTarget: {object: cube}`",
		Doc: "turns the XR head, where it stands, to face a target — `{world: [x, y, z]}`, `{object: name}`, `{tag: name}` or `{joint: {hand, name}}` (its world position now) — " +
			"with no roll; the hands stay where they are",
		Parse: func(p *parser, v *yaml.Node, c stepContext) (Action, bool) {
			fields := p.mapping(v, c.what, xrTargetKeys()...)
			if fields == nil {
				return nil, false
			}
			t, ok := p.xrTarget(v, fields, c.what)
			return &LookAtTargetStep{Target: t}, ok
		},
	})
}

// Describe renders "lookAtTarget TARGET".
func (a *LookAtTargetStep) Describe() string { return "lookAtTarget " + a.Target.String() }

// Traits: turning the head is input (it settles the page first, so an
// object target is read where the page has put it).
func (a *LookAtTargetStep) Traits() Traits { return Traits{Input: true} }

// FrameCount: none of its own.
func (a *LookAtTargetStep) FrameCount(Timing) int { return 0 }

func (a *LookAtTargetStep) run(x *exec) error {
	xr, err := x.headset()
	if err != nil {
		return err
	}
	return x.aim(xr, "head", a.Target)
}

// aim turns device, where it stands, so that its -z points at t.
func (x *exec) aim(xr XR, device string, t Target) error {
	at, err := x.worldPoint(t)
	if err != nil {
		return err
	}
	pos, _, err := xr.XRPoseOf(x.ctx, device)
	if err != nil {
		return err
	}
	q, ok := lookRotation([]float64{at[0] - pos[0], at[1] - pos[1], at[2] - pos[2]})
	if !ok {
		return fmt.Errorf("the %s is at %s itself: no direction to face: %w", device, t, target.ErrNotFound)
	}
	return xr.XRPose(x.ctx, device, pos, q)
}
