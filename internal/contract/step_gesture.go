package contract

import (
	"slices"

	"go.yaml.in/yaml/v3"
)

// StepGesture shapes a tracked hand.
const StepGesture StepKind = "gesture"

// GestureStep shapes a tracked hand as one of XRGestures.
type GestureStep struct{ Hand, Pose string }

func init() {
	registerStep(stepType{
		Kind: StepGesture, Order: 180,
		Example: "`gesture: {hand: left, pose: palm-up}`",
		Doc: "switches the XR headset to tracked hands and shapes one as `pose`: `point`, `pinch` (the shape; the select is `startSelect` or `hand: {pinch: 1}`), " +
			"`fist`, `thumbs-up` (the thumb along +y of the hand's frame), `open-palm`, `palm-up` (the palm facing +y and the fingers -z of the hand's frame), or `default` (IWER's relaxed hand); the page reads the joints from the next frame",
		Parse: parseGesture,
	})
}

func parseGesture(p *parser, v *yaml.Node, c stepContext) (Action, bool) {
	fields := p.mapping(v, c.what, "hand", "pose")
	if fields == nil {
		return nil, false
	}
	g := &GestureStep{}
	var ok bool
	g.Hand, ok = p.handOf(v, fields, c.what)
	f, has := fields["pose"]
	if !has {
		p.errorf(v, "%s: want pose (one of %s)", c.what, joinList(XRGestures))
		return g, false
	}
	pose, good := p.str(f.value, c.what+": pose")
	if good && !slices.Contains(XRGestures, pose) {
		p.errorf(f.value, "%s: pose %q: want one of %s", c.what, pose, joinList(XRGestures))
		good = false
	}
	g.Pose = pose
	return g, ok && good
}

// Describe renders "gesture right fist".
func (a *GestureStep) Describe() string { return "gesture " + a.Hand + " " + a.Pose }

// Traits: shaping a hand is input.
func (a *GestureStep) Traits() Traits { return Traits{Input: true} }

// FrameCount: none of its own.
func (a *GestureStep) FrameCount(Timing) int { return 0 }

func (a *GestureStep) run(x *exec) error {
	xr, err := x.headset()
	if err != nil {
		return err
	}
	return xr.XRGesture(x.ctx, a.Hand, a.Pose)
}
