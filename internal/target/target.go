// Package target is where an action lands: one type shared by the contract
// language, which parses targets, and the browser session, which resolves
// them to viewport points. It is a leaf package, so that both can name the
// same type and the same not-found error without importing each other.
//
// A target is exactly one of its fields. [Kinds] are those of a mouse on
// a canvas page; [KindTag] and [KindJoint] are for XR steps only.
package target

import (
	"errors"
	"fmt"
	"math"
	"slices"
	"strconv"
	"strings"
)

// ErrNotFound is wrapped by whatever resolves a target (a session, a fake
// page) when it does not resolve: no such element or object, or a point
// off the canvas. In a contract it fails the probe: its remaining
// assertions get status error.
var ErrNotFound = errors.New("target not found")

// Target is where an action lands. Exactly one field is set:
//
//   - Selector: the centre of the first element matching a CSS selector;
//   - At: [x, y] in CSS pixels relative to the page's largest canvas;
//   - Object: the screen position of the named scene object;
//   - World: [x, y, z] in world space, projected with the active camera;
//   - Tag: the one scene object whose semantic tag (userData.semantic)
//     has this name or, when none has, this role (XR steps only);
//   - Joint: a joint of a tracked hand of the XR user, where the page's
//     XR frame puts it (XR steps only).
type Target struct {
	Selector string    `json:"selector,omitempty"`
	At       []float64 `json:"at,omitempty"`
	Object   string    `json:"object,omitempty"`
	World    []float64 `json:"world,omitempty"`
	Tag      string    `json:"tag,omitempty"`
	Joint    *Joint    `json:"joint,omitempty"`
}

// Joint names a joint of a tracked hand: Hand "left" or "right", Name one
// of HandJoints.
type Joint struct {
	Hand string `json:"hand"`
	Name string `json:"name"`
}

// HandJoints are the 25 joints of a WebXR hand (XRHandJoint), in the
// specification's order.
var HandJoints = []string{
	"wrist",
	"thumb-metacarpal", "thumb-phalanx-proximal", "thumb-phalanx-distal", "thumb-tip",
	"index-finger-metacarpal", "index-finger-phalanx-proximal", "index-finger-phalanx-intermediate", "index-finger-phalanx-distal", "index-finger-tip",
	"middle-finger-metacarpal", "middle-finger-phalanx-proximal", "middle-finger-phalanx-intermediate", "middle-finger-phalanx-distal", "middle-finger-tip",
	"ring-finger-metacarpal", "ring-finger-phalanx-proximal", "ring-finger-phalanx-intermediate", "ring-finger-phalanx-distal", "ring-finger-tip",
	"pinky-finger-metacarpal", "pinky-finger-phalanx-proximal", "pinky-finger-phalanx-intermediate", "pinky-finger-phalanx-distal", "pinky-finger-tip",
}

// JointParent is the joint a hand joint hangs from: the one before it in
// its finger (or thumb), the wrist for a metacarpal, "" for the wrist.
func JointParent(name string) string {
	i := slices.Index(HandJoints, name)
	switch {
	case i <= 0:
		return ""
	case strings.HasSuffix(name, "-metacarpal"):
		return "wrist"
	}
	return HandJoints[i-1]
}

// Kind names a way of placing a target; it is the target's key in YAML.
type Kind string

// Target kinds.
const (
	KindSelector Kind = "selector"
	KindAt       Kind = "at"
	KindObject   Kind = "object"
	KindWorld    Kind = "world"
	// KindTag places an XR step's target at a semantically tagged object;
	// it is not one of Kinds (a pointer does not take it).
	KindTag Kind = "tag"
	// KindJoint places an XR step's target at a joint of a tracked hand;
	// it is not one of Kinds.
	KindJoint Kind = "joint"
)

// Kinds lists every target kind of a pointer, in documentation order.
func Kinds() []Kind { return []Kind{KindSelector, KindAt, KindObject, KindWorld} }

// Dimensions is how many numbers a point kind takes (at: 2, world: 3); 0
// for kinds that take a name.
func (k Kind) Dimensions() int {
	switch k {
	case KindAt:
		return 2
	case KindWorld:
		return 3
	}
	return 0
}

// Kind says which field of the target is set; "" when none is.
func (t Target) Kind() Kind {
	switch {
	case t.Selector != "":
		return KindSelector
	case t.At != nil:
		return KindAt
	case t.Object != "":
		return KindObject
	case t.World != nil:
		return KindWorld
	case t.Tag != "":
		return KindTag
	case t.Joint != nil:
		return KindJoint
	}
	return ""
}

// Set returns the target of kind k named name (selector, object) or at
// point (at, world).
func Set(k Kind, name string, point []float64) Target {
	switch k {
	case KindSelector:
		return Target{Selector: name}
	case KindObject:
		return Target{Object: name}
	case KindTag:
		return Target{Tag: name}
	case KindAt:
		return Target{At: point}
	case KindWorld:
		return Target{World: point}
	}
	return Target{}
}

// String renders the target as a contract writes it, e.g.
// {selector: "#start"} or {at: [100, 200]}.
func (t Target) String() string {
	switch t.Kind() {
	case KindSelector:
		return fmt.Sprintf("{selector: %q}", t.Selector)
	case KindAt:
		return "{at: " + FormatPoint(t.At) + "}"
	case KindObject:
		return fmt.Sprintf("{object: %q}", t.Object)
	case KindWorld:
		return "{world: " + FormatPoint(t.World) + "}"
	case KindTag:
		return fmt.Sprintf("{tag: %q}", t.Tag)
	case KindJoint:
		return fmt.Sprintf("{joint: {hand: %s, name: %s}}", t.Joint.Hand, t.Joint.Name)
	}
	return "{}"
}

// FormatPoint renders coordinates as a YAML flow list with at most 10
// significant digits each (FormatFloat): [0.3, 4.1000001].
func FormatPoint(xs []float64) string {
	parts := make([]string, len(xs))
	for i, x := range xs {
		parts[i] = FormatFloat(x)
	}
	return "[" + strings.Join(parts, ", ") + "]"
}

// FormatFloat renders a number with at most 10 significant digits, so that
// 0.1+0.2 reads 0.3 while 4.1000001 stays distinguishable from 4.1; NaN
// and the infinities as YAML-ish words (NaN, Infinity, -Infinity).
func FormatFloat(x float64) string {
	switch {
	case math.IsNaN(x):
		return "NaN"
	case math.IsInf(x, 1):
		return "Infinity"
	case math.IsInf(x, -1):
		return "-Infinity"
	}
	return strconv.FormatFloat(x, 'g', 10, 64)
}

// RoundMM rounds coordinates to the millimetre (halves away from zero)
// and never gives -0, so that a place in a message or a state reads the
// same run after run: [-0.0004, 0.0005] → [0, 0.001].
func RoundMM(xs []float64) []float64 {
	out := make([]float64, len(xs))
	for i, x := range xs {
		out[i] = math.Round(x*1000)/1000 + 0 // -0 + 0 is +0
	}
	return out
}
