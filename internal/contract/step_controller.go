package contract

import (
	"maps"
	"slices"
	"strings"

	"go.yaml.in/yaml/v3"

	"github.com/worldprobe/worldprobe/internal/target"
)

// StepController drives a controller of the XR headset.
const StepController StepKind = "controller"

// ControllerStep places a controller and sets its buttons and thumbstick.
type ControllerStep struct {
	// Hand is "left" or "right".
	Hand                  string
	Position, Orientation []float64
	// Buttons are IWER's button ids (trigger, squeeze, a-button, …) and
	// their values; Thumbstick is [x, y] or nil.
	Buttons    map[string]float64
	Thumbstick []float64
}

// controllerButtons maps the names a contract writes to IWER's button ids,
// by hand (Meta's Touch controllers: A and B on the right, X and Y on the
// left).
var controllerButtons = map[string]map[string]string{
	"left":  {"x": "x-button", "y": "y-button", "thumbstick": "thumbstick", "thumbrest": "thumbrest"},
	"right": {"a": "a-button", "b": "b-button", "thumbstick": "thumbstick", "thumbrest": "thumbrest"},
}

func init() {
	registerStep(stepType{
		Kind: StepController, Order: 170, Control: true,
		Example: "`controller: {hand: right, position: [0.2, 1.3, -0.3], trigger: 1, thumbstick: [0, 1], buttons: {a: 1}}`",
		Doc: "switches the XR headset to controllers and drives one (`left` or `right`): `position`/`orientation` as for `head`, " +
			"`trigger` and `squeeze` in [0, 1] (the trigger is the select, the squeeze the squeeze: their events fire on the next frame), " +
			"`thumbstick: [x, y]` in [-1, 1], and `buttons` pressed (1) or released (0): `a`, `b` on the right, `x`, `y` on the left, `thumbstick`, `thumbrest`",
		Parse: parseController,
	})
}

func parseController(p *parser, v *yaml.Node, c stepContext) (Action, bool) {
	fields := p.mapping(v, c.what, "hand", "position", "orientation", "trigger", "squeeze", "thumbstick", "buttons")
	if fields == nil {
		return nil, false
	}
	s := &ControllerStep{Buttons: map[string]float64{}}
	var ok, good bool
	s.Hand, ok = p.handOf(v, fields, c.what)
	s.Position, s.Orientation, good = p.pose(fields, c.what)
	ok = ok && good
	for _, k := range []string{"trigger", "squeeze"} {
		if f, has := fields[k]; has {
			n, good := p.num(f.value, c.what+": "+k)
			if good && (n < 0 || n > 1) {
				p.errorf(f.value, "%s: %s %g: want a value in [0, 1]", c.what, k, n)
				good = false
			}
			s.Buttons[k], ok = n, ok && good
		}
	}
	if f, has := fields["thumbstick"]; has {
		xy, good := p.nums(f.value, c.what+": thumbstick", 2)
		if good && (xy[0] < -1 || xy[0] > 1 || xy[1] < -1 || xy[1] > 1) {
			p.errorf(f.value, "%s: thumbstick %s: want x and y in [-1, 1]", c.what, target.FormatPoint(xy))
			good = false
		}
		s.Thumbstick, ok = xy, ok && good
	}
	if f, has := fields["buttons"]; has && controllerButtons[s.Hand] != nil {
		names := controllerButtons[s.Hand]
		allowed := slices.Sorted(maps.Keys(names))
		bs := p.mapping(f.value, c.what+": buttons", allowed...)
		if bs == nil {
			ok = false
		}
		for name, b := range bs {
			n, good := p.num(b.value, c.what+": buttons: "+name)
			if good && n != 0 && n != 1 {
				p.errorf(b.value, "%s: buttons: %s %g: want 1 (pressed) or 0 (released)", c.what, name, n)
				good = false
			}
			s.Buttons[names[name]], ok = n, ok && good
		}
	}
	if ok && s.Position == nil && len(s.Buttons) == 0 && s.Thumbstick == nil {
		p.errorf(v, "%s: want position, trigger, squeeze, thumbstick or buttons", c.what)
		ok = false
	}
	return s, ok
}

// Describe renders "controller right [x, y, z] trigger 1 a-button 1".
func (a *ControllerStep) Describe() string {
	d := "controller " + a.Hand
	if a.Position != nil {
		d += " " + target.FormatPoint(a.Position)
	}
	for _, id := range slices.Sorted(maps.Keys(a.Buttons)) {
		d += " " + id + " " + formatFloat(a.Buttons[id])
	}
	if a.Thumbstick != nil {
		d += " thumbstick " + target.FormatPoint(a.Thumbstick)
	}
	return strings.TrimSpace(d)
}

// Traits: driving a controller is input.
func (a *ControllerStep) Traits() Traits { return Traits{Input: true} }

// FrameCount: none of its own.
func (a *ControllerStep) FrameCount(Timing) int { return 0 }

func (a *ControllerStep) run(x *exec) error {
	xr, err := x.headset()
	if err != nil {
		return err
	}
	if a.Position != nil {
		if err := xr.XRPose(x.ctx, a.Hand+"-controller", a.Position, a.Orientation); err != nil {
			return err
		}
	}
	return xr.XRController(x.ctx, a.Hand, a.Buttons, a.Thumbstick)
}
