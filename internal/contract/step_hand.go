package contract

import (
	"go.yaml.in/yaml/v3"

	"github.com/worldprobe/worldprobe/internal/target"
)

// HandStep moves a tracked hand and sets its pinch.
type HandStep struct {
	// Hand is "left" or "right".
	Hand                  string
	Position, Orientation []float64
	// Pinch is nil when the step leaves the pinch as it is.
	Pinch *float64
}

func init() {
	registerStep(stepType{
		Kind: StepHand, Order: 160, Control: true,
		Example: "`hand: {hand: right, position: [0.1, 1.2, -0.4], pinch: 1}`",
		Doc:     "moves a tracked hand of the XR headset (`left` or `right`; the headset switches to hand input) to `position`, turns it to `orientation`, and sets its `pinch` in [0, 1] (above 0 a select starts; 0 ends it); at least one of position and pinch. As a real hand does, the thumb and index finger meet one frame before the pinch is reported and part one frame after it ends, so a pinch change steps one frame of its own",
		Parse:   parseHand,
	})
}

func parseHand(p *parser, v *yaml.Node, c stepContext) (Action, bool) {
	fields := p.mapping(v, c.what, "hand", "position", "orientation", "pinch")
	if fields == nil {
		return nil, false
	}
	h := &HandStep{}
	f, ok := fields["hand"]
	if !ok {
		p.errorf(v, "%s: want hand (left or right)", c.what)
		return nil, false
	}
	if h.Hand, ok = p.str(f.value, c.what+": hand"); ok && h.Hand != "left" && h.Hand != "right" {
		p.errorf(f.value, "%s: hand %q: want left or right", c.what, h.Hand)
		ok = false
	}
	var good bool
	h.Position, h.Orientation, good = p.pose(fields, c.what)
	ok = ok && good
	if f, has := fields["pinch"]; has {
		n, good := p.num(f.value, c.what+": pinch")
		if good && (n < 0 || n > 1) {
			p.errorf(f.value, "%s: pinch %g: want a value in [0, 1]", c.what, n)
			good = false
		}
		h.Pinch, ok = &n, ok && good
	}
	if ok && h.Position == nil && h.Pinch == nil {
		p.errorf(v, "%s: want position or pinch", c.what)
		ok = false
	}
	return h, ok
}

// Describe renders "hand right [x, y, z] pinch 1".
func (a *HandStep) Describe() string {
	d := "hand " + a.Hand
	if a.Position != nil {
		d += " " + target.FormatPoint(a.Position)
	}
	if a.Pinch != nil {
		d += " pinch " + formatFloat(*a.Pinch)
	}
	return d
}

// Traits: moving a hand is input.
func (a *HandStep) Traits() Traits { return Traits{Input: true} }

// FrameCount: a pinch change steps the frame in which the fingers close
// before the pinch (or have parted after it).
func (a *HandStep) FrameCount(Timing) int {
	if a.Pinch != nil {
		return 1
	}
	return 0
}

func (a *HandStep) run(x *exec) error {
	xr, err := x.headset()
	if err != nil {
		return err
	}
	if a.Position != nil {
		if err := xr.XRPose(x.ctx, a.Hand, a.Position, a.Orientation); err != nil {
			return err
		}
	}
	if a.Pinch == nil {
		return nil
	}
	return x.pinch(xr, a.Hand, *a.Pinch)
}

// pinch sets a tracked hand's pinch as a real hand makes one, stepping one
// frame. Closing: the fingers meet, a frame passes, then the pinch is
// reported. Opening: the pinch ends, a frame passes, then the fingers
// part. Either way the page's select events come on a frame whose joints
// are those of the pinch, and the frame before a selectstart (after a
// selectend) shows them too: IWER alone would snap the whole hand from
// open to pinched in the frame of the event.
func (x *exec) pinch(xr XR, hand string, value float64) error {
	if value > 0 {
		if err := xr.XRPinchPose(x.ctx, hand, true); err != nil {
			return err
		}
		if err := x.advance(1); err != nil {
			return err
		}
		return xr.XRPinch(x.ctx, hand, value)
	}
	if err := xr.XRPinch(x.ctx, hand, 0); err != nil {
		return err
	}
	if err := x.advance(1); err != nil {
		return err
	}
	return xr.XRPinchPose(x.ctx, hand, false)
}

// selectInput starts (1) or ends (0) a select on hand's active input: a
// tracked hand pinches as the hand step does, a controller pulls or
// releases its trigger.
func (x *exec) selectInput(xr XR, hand string, value float64) error {
	mode, err := xr.XRInputMode(x.ctx)
	if err != nil {
		return err
	}
	if mode == "hand" {
		return x.pinch(xr, hand, value)
	}
	return xr.XRSelect(x.ctx, hand, value)
}
