package contract

import (
	"fmt"
	"slices"

	"go.yaml.in/yaml/v3"

	"github.com/worldprobe/worldprobe/internal/target"
)

// Hands: replays of a probe for both dominant hands (issue 14, item 4).
//
// A probe with `hands: mirror` runs twice: as written, and as its mirror
// image across the y–z plane of the local-floor space (x → −x), each run
// reported as its own probe, NAME[HAND], HAND being the probe's hand in
// that run. The probe's hand as written is the hand of its first step that
// names one; the mirrored run's is the other.

// HandsMirror is the only value of a probe's hands: key.
const HandsMirror = "mirror"

// CEL variables of a probe declared with hands: mirror.
const (
	// VarHand is the probe's hand in this run: "right" or "left".
	VarHand = "hand"
	// VarMirror is 1.0 in the run as written and -1.0 in the mirrored one.
	VarMirror = "mirror"
)

// mirrorable is an XR step with a mirror image: the same step done by the
// other hand on the other side of the user.
type mirrorable interface {
	// mirrored returns the mirror image; the step itself is not changed.
	mirrored() Action
}

// stepHand is the hand a step names, "" when it names none.
func stepHand(a Action) string {
	switch s := a.(type) {
	case *HandStep:
		return s.Hand
	case *ControllerStep:
		return s.Hand
	case *GestureStep:
		return s.Hand
	case *StartSelectStep:
		return s.Hand
	case *EndSelectStep:
		return s.Hand
	case *ReachToStep:
		return s.Hand
	case *PointToStep:
		return s.Hand
	case *RayClickStep:
		return s.Hand
	case *MoveHandStep:
		return s.Hand
	case *RotateHandStep:
		return s.Hand
	case *ApplyControlStep:
		return s.Control.hand()
	case *StepControlStep:
		return s.Control.hand()
	case *TeleportHandStep:
		return s.Hand
	case *SetHandPoseStep:
		return s.Hand
	}
	return ""
}

// otherHand swaps left and right.
func otherHand(h string) string {
	switch h {
	case "left":
		return "right"
	case "right":
		return "left"
	}
	return h
}

// mirrorPoint negates a point's x.
func mirrorPoint(p []float64) []float64 {
	if p == nil {
		return nil
	}
	out := slices.Clone(p)
	out[0] = -out[0]
	return out
}

// mirrorQuat mirrors an orientation across the y–z plane:
// [x, y, z, w] → [x, −y, −z, w].
func mirrorQuat(q []float64) []float64 {
	if q == nil {
		return nil
	}
	return []float64{q[0], -q[1], -q[2], q[3]}
}

// mirrorTarget mirrors a world target and takes a hand joint of the other
// hand; an object target is where the object is, whichever side that is.
func mirrorTarget(t Target) Target {
	switch t.Kind() {
	case target.KindWorld:
		return target.Set(target.KindWorld, "", mirrorPoint(t.World))
	case target.KindJoint:
		return Target{Joint: &target.Joint{Hand: otherHand(t.Joint.Hand), Name: t.Joint.Name}}
	}
	return t
}

// neg negates an amount, keeping 0 a plain zero (not -0) for Describe.
func neg(v float64) float64 { return 0 - v }

func (a *HeadStep) mirrored() Action {
	return &HeadStep{Position: mirrorPoint(a.Position), Orientation: mirrorQuat(a.Orientation)}
}

func (a *HandStep) mirrored() Action {
	return &HandStep{Hand: otherHand(a.Hand), Position: mirrorPoint(a.Position), Orientation: mirrorQuat(a.Orientation), Pinch: a.Pinch}
}

// mirrorButtons maps the right controller's buttons to the left's and back.
var mirrorButtons = map[string]string{"a-button": "x-button", "b-button": "y-button", "x-button": "a-button", "y-button": "b-button"}

func (a *ControllerStep) mirrored() Action {
	s := &ControllerStep{Hand: otherHand(a.Hand), Position: mirrorPoint(a.Position), Orientation: mirrorQuat(a.Orientation), Buttons: map[string]float64{}}
	for id, v := range a.Buttons {
		if m, ok := mirrorButtons[id]; ok {
			id = m
		}
		s.Buttons[id] = v
	}
	if a.Thumbstick != nil {
		s.Thumbstick = []float64{neg(a.Thumbstick[0]), a.Thumbstick[1]}
	}
	return s
}

func (a *GestureStep) mirrored() Action { return &GestureStep{Hand: otherHand(a.Hand), Pose: a.Pose} }

func (a *StartSelectStep) mirrored() Action { return &StartSelectStep{Hand: otherHand(a.Hand)} }

func (a *EndSelectStep) mirrored() Action { return &EndSelectStep{Hand: otherHand(a.Hand)} }

func (a *TeleportToStep) mirrored() Action { return &TeleportToStep{Point: mirrorPoint(a.Point)} }

// A walk to the right is, mirrored, a walk to the left: the head's yaw is
// mirrored too, so the world displacement is the original's with x negated.
func (a *WalkStep) mirrored() Action {
	return &WalkStep{Forward: a.Forward, Right: neg(a.Right), Up: a.Up}
}

// A turn to the left is, mirrored, a turn to the right.
func (a *RotateStep) mirrored() Action { return &RotateStep{Yaw: neg(a.Yaw)} }

func (a *LookAtTargetStep) mirrored() Action {
	return &LookAtTargetStep{Target: mirrorTarget(a.Target)}
}

func (a *PointToStep) mirrored() Action {
	return &PointToStep{Hand: otherHand(a.Hand), Target: mirrorTarget(a.Target)}
}

func (a *ReachToStep) mirrored() Action {
	return &ReachToStep{Hand: otherHand(a.Hand), Target: mirrorTarget(a.Target)}
}

func (a *RayClickStep) mirrored() Action {
	return &RayClickStep{Hand: otherHand(a.Hand), Target: mirrorTarget(a.Target)}
}

func (a *MoveHandStep) mirrored() Action {
	return &MoveHandStep{Hand: otherHand(a.Hand), Forward: a.Forward, Right: neg(a.Right), Up: a.Up}
}

// Mirrored, a turn about the device's own y (yaw) or z (roll) goes the
// other way; one about its x (pitch), the axis the mirror flips, does not:
// S·R_y(a)·S = R_y(−a), S·R_z(a)·S = R_z(−a), S·R_x(a)·S = R_x(a).
func (a *RotateHandStep) mirrored() Action {
	return &RotateHandStep{Hand: otherHand(a.Hand), Yaw: neg(a.Yaw), Pitch: a.Pitch, Roll: neg(a.Roll)}
}

// mirrorSteps returns the steps' mirror image: XR steps mirrored, assertions
// copied (each run compiles its own), the other steps shared.
func mirrorSteps(steps []Step) []Step {
	if steps == nil {
		return nil
	}
	out := make([]Step, len(steps))
	for i, s := range steps {
		switch a := s.Action.(type) {
		case mirrorable:
			s.Action = a.mirrored()
		case *AssertStep:
			s.Action = copyAssert(a)
		}
		out[i] = s
	}
	return out
}

// copyAssert copies an assertion as written, before it is compiled.
func copyAssert(a *AssertStep) *AssertStep {
	if a.Assertion == nil {
		return a
	}
	return &AssertStep{Assertion: &Assertion{Expr: a.Expr, Message: a.Message, Attribution: a.Attribution, Line: a.Line}}
}

// parseHands reads a probe's hands: key; only "mirror" is known.
func (p *parser) parseHands(v *yaml.Node, what string) bool {
	s, ok := p.str(v, what+": hands")
	if ok && s != HandsMirror {
		p.errorf(v, "%s: hands %q: want %s (the probe as written and mirrored, left and right swapped)", what, s, HandsMirror)
		return false
	}
	return ok
}

// firstHand is the hand of the probe's first step that names one.
func firstHand(pr *Probe) string {
	for _, s := range append(slices.Clone(pr.Setup), pr.Steps...) {
		if h := stepHand(s.Action); h != "" {
			return h
		}
	}
	return ""
}

// handVariants turns a parsed probe declared with hands: mirror into its
// two runs, as written and mirrored, or reports why it cannot. It runs
// before the assertions are compiled.
func (p *parser) handVariants(pr *Probe, n *yaml.Node, what string) []*Probe {
	hand := firstHand(pr)
	if hand == "" {
		p.errorf(n, "%s: hands: %s needs an XR step that names a hand (hand, controller, gesture, startSelect, …); this probe has none", what, HandsMirror)
		return nil
	}
	for _, s := range append(slices.Clone(pr.Setup), pr.Steps...) {
		if a, ok := s.Action.(*SnapshotStep); ok && (a.Name == VarHand || a.Name == VarMirror) {
			p.errorf(&yaml.Node{Line: s.Line}, "%s: snapshot %q: with hands: %s, %s and %s are the probe's hand and side", what, a.Name, HandsMirror, VarHand, VarMirror)
			return nil
		}
	}
	base := pr.Name
	m := *pr
	m.Setup, m.Steps = mirrorSteps(pr.Setup), mirrorSteps(pr.Steps)
	pr.Name, pr.Base, pr.Hand, pr.Mirror = variantName(base, hand), base, hand, 1
	m.Name, m.Base, m.Hand, m.Mirror = variantName(base, otherHand(hand)), base, otherHand(hand), -1
	m.later = true
	return []*Probe{pr, &m}
}

// variantName names one run of a probe declared with hands: mirror.
func variantName(base, hand string) string { return fmt.Sprintf("%s[%s]", base, hand) }

func (a *ApplyControlStep) mirrored() Action { return &ApplyControlStep{Control: a.Control.mirrored()} }

func (a *StepControlStep) mirrored() Action {
	return &StepControlStep{Control: a.Control.mirrored(), Frames: a.Frames}
}
