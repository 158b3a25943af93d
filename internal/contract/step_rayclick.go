package contract

import "go.yaml.in/yaml/v3"

// StepRayClick points a hand's ray at a target and selects.
const StepRayClick StepKind = "rayClick"

// RayClickStep is pointTo (when it has a Target), then a select held for
// the contract's hold.
type RayClickStep struct {
	Hand   string
	Target Target
}

func init() {
	registerStep(stepType{
		Kind: StepRayClick, Order: 270,
		Example: "`rayClick: {hand: right, object: button}`",
		Doc: "`pointTo` the target, then a select on the hand's active XR input held for the contract's hold (as `click` holds the button): " +
			"`selectstart` on the first frame, `selectend` once the select is let go. Without a target (`rayClick: {hand: right}`, GenXR-Test's `click(hand)`) it selects where the input points",
		Parse: parseRayClick,
	})
}

// parseRayClick reads {hand, TARGET} or {hand}.
func parseRayClick(p *parser, v *yaml.Node, c stepContext) (Action, bool) {
	fields := p.mapping(v, c.what, append([]string{"hand"}, xrTargetKeys()...)...)
	if fields == nil {
		return nil, false
	}
	r := &RayClickStep{}
	var ok bool
	r.Hand, ok = p.handOf(v, fields, c.what)
	for _, k := range xrTargetKeys() {
		if _, has := fields[k]; has {
			var good bool
			r.Target, good = p.xrTarget(v, fields, c.what)
			ok = ok && good
			break
		}
	}
	return r, ok
}

// Describe renders "rayClick right TARGET", or "rayClick right" without one.
func (a *RayClickStep) Describe() string {
	if a.Target.Kind() == "" {
		return "rayClick " + a.Hand
	}
	return "rayClick " + a.Hand + " " + a.Target.String()
}

// Traits: input, with its hold stepped in run (FrameCount).
func (a *RayClickStep) Traits() Traits { return Traits{Input: true} }

// FrameCount is the hold, at least one frame (a select needs a frame with
// it down).
func (a *RayClickStep) FrameCount(t Timing) int { return max(t.Hold(0), 1) }

func (a *RayClickStep) run(x *exec) error {
	xr, err := x.headset()
	if err != nil {
		return err
	}
	if a.Target.Kind() != "" {
		device, err := x.activeDevice(xr, a.Hand)
		if err != nil {
			return err
		}
		if err := x.aim(xr, device, a.Target); err != nil {
			return err
		}
	}
	if err := xr.XRSelect(x.ctx, a.Hand, 1); err != nil {
		return err
	}
	if err := x.advance(a.FrameCount(x.timing())); err != nil {
		return err
	}
	return xr.XRSelect(x.ctx, a.Hand, 0)
}
