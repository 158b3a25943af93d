package contract

import (
	"slices"
	"strings"

	"go.yaml.in/yaml/v3"
)

// StepApplyControl applies a compound XR control at once (GenXR-Test's
// applyControl, XR Blocks EmbodiedControl's XRCompoundControl).
const StepApplyControl StepKind = "applyControl"

// Control is a compound control of the XR user: the body's locomotion and
// each hand's motion, select and pose, applied together. Amounts follow
// XR Blocks' EmbodiedControl: moves are [right, up, forward] metres,
// rotations [pitch, yaw, roll] degrees.
type Control struct {
	// Move moves the user [right, up, forward] in the head's yaw frame
	// (the walk step).
	Move [3]float64
	// Yaw turns the user about the vertical through the head (the rotate
	// step); a body turns only about the vertical, so locomotion's pitch
	// and roll must be 0.
	Yaw float64
	// Left and Right are the hands' controls; nil when absent.
	Left, Right *HandControl
}

// HandControl is one hand's part of a Control.
type HandControl struct {
	// Move moves the hand's active input [right, up, forward] in the head's
	// yaw frame (the moveHand step).
	Move [3]float64
	// Rotate turns it [pitch, yaw, roll] degrees in its own frame (the
	// rotateHand step).
	Rotate [3]float64
	// Select is "start", "end" or "" (none).
	Select string
	// Pose shapes the hand (the gesture step); "" for none.
	Pose string
}

// ApplyControlStep applies Control at once; the page sees it from the next
// frame.
type ApplyControlStep struct{ Control Control }

func init() {
	registerStep(stepType{
		Kind: StepApplyControl, Order: 360,
		Example: "`applyControl: {locomotion: {move: [0, 0, 0.5], rotate: [0, 30, 0]}, rightHand: {move: [0, 0.1, 0], selectStart: true}}`",
		Doc: "applies a compound control of the XR user at once (GenXR-Test's `applyControl`; XR Blocks' `XRCompoundControl`): `locomotion` `move: [right, up, forward]` m in the head's yaw frame " +
			"and `rotate: [pitch, yaw, roll]` degrees (yaw only: the body turns about the vertical through the head), then for `leftHand` and `rightHand` their `move` (as `moveHand`), " +
			"`rotate` (as `rotateHand`), `pose` (as `gesture`) and `selectStart: true` or `selectEnd: true` (the select, with no frame of its own); the page sees it all from the next frame",
		Parse: func(p *parser, v *yaml.Node, c stepContext) (Action, bool) {
			ctl, ok := p.control(v, c.what)
			return &ApplyControlStep{Control: ctl}, ok
		},
	})
}

// control reads a compound control: {locomotion, leftHand, rightHand}, at
// least one of them.
func (p *parser) control(v *yaml.Node, what string) (Control, bool) {
	var c Control
	fields := p.mapping(v, what, "locomotion", "leftHand", "rightHand")
	if fields == nil {
		return c, false
	}
	if len(fields) == 0 {
		p.errorf(v, "%s: want locomotion, leftHand or rightHand", what)
		return c, false
	}
	ok := true
	if f, has := fields["locomotion"]; has {
		lf := p.mapping(f.value, what+": locomotion", "move", "rotate")
		if lf == nil {
			return c, false
		}
		if m, has := lf["move"]; has {
			n, good := p.nums(m.value, what+": locomotion: move [right, up, forward]", 3)
			ok = ok && good
			if good {
				c.Move = [3]float64(n)
			}
		}
		if r, has := lf["rotate"]; has {
			n, good := p.nums(r.value, what+": locomotion: rotate [pitch, yaw, roll]", 3)
			if good && (n[0] != 0 || n[2] != 0) {
				p.errorf(r.value, "%s: locomotion: rotate: the body turns only about the vertical: want pitch and roll 0", what)
				good = false
			}
			ok = ok && good
			if good {
				c.Yaw = n[1]
			}
		}
	}
	for _, k := range []string{"leftHand", "rightHand"} {
		f, has := fields[k]
		if !has {
			continue
		}
		h, good := p.handControl(f.value, what+": "+k)
		ok = ok && good
		if k == "leftHand" {
			c.Left = h
		} else {
			c.Right = h
		}
	}
	return c, ok
}

// handControl reads one hand's control.
func (p *parser) handControl(v *yaml.Node, what string) (*HandControl, bool) {
	h := &HandControl{}
	fields := p.mapping(v, what, "move", "rotate", "selectStart", "selectEnd", "pose")
	if fields == nil {
		return h, false
	}
	ok := true
	if m, has := fields["move"]; has {
		n, good := p.nums(m.value, what+": move [right, up, forward]", 3)
		ok = ok && good
		if good {
			h.Move = [3]float64(n)
		}
	}
	if r, has := fields["rotate"]; has {
		n, good := p.nums(r.value, what+": rotate [pitch, yaw, roll]", 3)
		ok = ok && good
		if good {
			h.Rotate = [3]float64(n)
		}
	}
	for _, k := range []string{"selectStart", "selectEnd"} {
		f, has := fields[k]
		if !has {
			continue
		}
		var b bool
		if err := f.value.Decode(&b); err != nil || !b {
			p.errorf(f.value, "%s: %s: want true", what, k)
			ok = false
			continue
		}
		if h.Select != "" {
			p.errorf(v, "%s: selectStart and selectEnd together", what)
			ok = false
		}
		h.Select = strings.TrimPrefix(strings.ToLower(k), "select")
	}
	if f, has := fields["pose"]; has {
		pose, good := p.str(f.value, what+": pose")
		if good && !slices.Contains(XRGestures, pose) {
			p.errorf(f.value, "%s: pose %q: want one of %s", what, pose, joinList(XRGestures))
			good = false
		}
		if good && h.Select != "" {
			p.errorf(v, "%s: a pose and a select together (XR Blocks' rule: the select is a pose of its own)", what)
			good = false
		}
		ok = ok && good
		h.Pose = pose
	}
	if ok && *h == (HandControl{}) {
		p.errorf(v, "%s: want move, rotate, selectStart, selectEnd or pose", what)
		ok = false
	}
	return h, ok
}

// Describe renders the control's parts, e.g. "applyControl locomotion
// move [0, 0, 0.5] yaw 30; rightHand move [0, 0.1, 0] selectStart".
func (a *ApplyControlStep) Describe() string { return "applyControl " + a.Control.describe() }

func (c Control) describe() string {
	var parts []string
	if c.Move != [3]float64{} || c.Yaw != 0 {
		parts = append(parts, "locomotion move "+formatFloats(c.Move[:])+" yaw "+formatFloat(c.Yaw))
	}
	for _, h := range []struct {
		name string
		c    *HandControl
	}{{"leftHand", c.Left}, {"rightHand", c.Right}} {
		if h.c == nil {
			continue
		}
		s := h.name
		if h.c.Move != [3]float64{} {
			s += " move " + formatFloats(h.c.Move[:])
		}
		if h.c.Rotate != [3]float64{} {
			s += " rotate " + formatFloats(h.c.Rotate[:])
		}
		if h.c.Pose != "" {
			s += " pose " + h.c.Pose
		}
		if h.c.Select != "" {
			s += " select" + strings.ToUpper(h.c.Select[:1]) + h.c.Select[1:]
		}
		parts = append(parts, s)
	}
	return strings.Join(parts, "; ")
}

// Traits: a control is input.
func (a *ApplyControlStep) Traits() Traits { return Traits{Input: true} }

// FrameCount: none of its own.
func (a *ApplyControlStep) FrameCount(Timing) int { return 0 }

func (a *ApplyControlStep) run(x *exec) error { return a.Control.apply(x, 1, true) }

// apply applies the control's motions scaled by f, and its selects and
// poses when instant is set, in this order: the body's turn and move, then
// each hand's pose or select, move and turn (left, then right).
func (c Control) apply(x *exec, f float64, instant bool) error {
	xr, err := x.headset()
	if err != nil {
		return err
	}
	if c.Yaw != 0 {
		if err := (&RotateStep{Yaw: c.Yaw * f}).run(x); err != nil {
			return err
		}
	}
	if c.Move != [3]float64{} {
		if err := (&WalkStep{Right: c.Move[0] * f, Up: c.Move[1] * f, Forward: c.Move[2] * f}).run(x); err != nil {
			return err
		}
	}
	for _, h := range []struct {
		hand string
		c    *HandControl
	}{{"left", c.Left}, {"right", c.Right}} {
		if h.c == nil {
			continue
		}
		if instant && h.c.Pose != "" {
			if err := (&GestureStep{Hand: h.hand, Pose: h.c.Pose}).run(x); err != nil {
				return err
			}
		}
		if instant && h.c.Select != "" {
			v := 1.0
			if h.c.Select == "end" {
				v = 0
			}
			if err := xr.XRSelect(x.ctx, h.hand, v); err != nil {
				return err
			}
		}
		if h.c.Move != [3]float64{} {
			if err := (&MoveHandStep{Hand: h.hand, Right: h.c.Move[0] * f, Up: h.c.Move[1] * f, Forward: h.c.Move[2] * f}).run(x); err != nil {
				return err
			}
		}
		if h.c.Rotate != [3]float64{} {
			if err := (&RotateHandStep{Hand: h.hand, Pitch: h.c.Rotate[0] * f, Yaw: h.c.Rotate[1] * f, Roll: h.c.Rotate[2] * f}).run(x); err != nil {
				return err
			}
		}
	}
	return nil
}

// mirrored is the control done on the other side by the other hand: the
// hands swapped, moves' right and turns' yaw and roll negated (as walk,
// moveHand, rotate and rotateHand mirror).
func (c Control) mirrored() Control {
	m := Control{Move: [3]float64{neg(c.Move[0]), c.Move[1], c.Move[2]}, Yaw: neg(c.Yaw)}
	mh := func(h *HandControl) *HandControl {
		if h == nil {
			return nil
		}
		return &HandControl{Move: [3]float64{neg(h.Move[0]), h.Move[1], h.Move[2]},
			Rotate: [3]float64{h.Rotate[0], neg(h.Rotate[1]), neg(h.Rotate[2])}, Select: h.Select, Pose: h.Pose}
	}
	m.Left, m.Right = mh(c.Right), mh(c.Left)
	return m
}

// hand is the hand the control names first ("" when none): the right
// hand's, else the left's.
func (c Control) hand() string {
	switch {
	case c.Right != nil:
		return "right"
	case c.Left != nil:
		return "left"
	}
	return ""
}
