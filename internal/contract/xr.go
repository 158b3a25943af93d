package contract

import (
	"context"
	"fmt"
	"math"
	"strings"

	"go.yaml.in/yaml/v3"

	"github.com/worldprobe/worldprobe/internal/geom"
	"github.com/worldprobe/worldprobe/internal/target"
)

// This file holds what the XR steps (step_head.go … step_rayclick.go)
// share: reading a hand and an XR target, finding a target's world point,
// and the little quaternion arithmetic that aims a device.

// xrTargetKinds are the target kinds an XR step can aim at: a world point,
// a scene object by name or by semantic tag (its world position), a joint
// of a tracked hand.
var xrTargetKinds = []target.Kind{target.KindWorld, target.KindObject, target.KindTag, target.KindJoint}

// xrTargetForms is how messages list the XR targets.
const xrTargetForms = "{world: [x, y, z]}, {object: name}, {tag: name} or {joint: {hand, name}}"

// handOf reads the required hand field: "left" or "right".
func (p *parser) handOf(v *yaml.Node, fields map[string]field, what string) (string, bool) {
	f, ok := fields["hand"]
	if !ok {
		p.errorf(v, "%s: want hand (left or right)", what)
		return "", false
	}
	h, ok := p.str(f.value, what+": hand")
	if ok && h != "left" && h != "right" {
		p.errorf(f.value, "%s: hand %q: want left or right", what, h)
		return h, false
	}
	return h, ok
}

// amounts reads the optional numeric fields keys (0 when absent), at least
// one of them non-zero: walk's, moveHand's and rotateHand's three axes.
func (p *parser) amounts(v *yaml.Node, fields map[string]field, what string, keys [3]string) ([3]float64, bool) {
	var out [3]float64
	ok := true
	for i, k := range keys {
		if f, has := fields[k]; has {
			n, good := p.num(f.value, what+": "+k)
			out[i], ok = n, ok && good
		}
	}
	if ok && out == [3]float64{} {
		p.errorf(v, "%s: want %s, %s or %s", what, keys[0], keys[1], keys[2])
		ok = false
	}
	return out, ok
}

// xrTarget reads an XR target from fields: exactly one of world: [x, y, z]
// and object: NAME (the step's mapping allows no other target key).
func (p *parser) xrTarget(v *yaml.Node, fields map[string]field, what string) (Target, bool) {
	n := 0
	for _, k := range xrTargetKeys() {
		if _, ok := fields[k]; ok {
			n++
		}
	}
	if n != 1 {
		p.errorf(v, "%s: want one target: %s", what, xrTargetForms)
		return Target{}, false
	}
	if f, ok := fields[string(target.KindJoint)]; ok {
		return p.joint(f.value, what+": joint")
	}
	return p.targetAmong(v, fields, what, xrTargetKeys())
}

// joint reads a hand-joint target's value: {hand: left or right, name:
// one of target.HandJoints}.
func (p *parser) joint(v *yaml.Node, what string) (Target, bool) {
	fields := p.mapping(v, what, "hand", "name")
	if fields == nil {
		return Target{}, false
	}
	h, ok := p.handOf(v, fields, what)
	f, has := fields["name"]
	if !has {
		p.errorf(v, "%s: want name (a WebXR hand joint: wrist, index-finger-tip, …)", what)
		return Target{}, false
	}
	name, good := p.jointName(f.value, what+": name")
	return Target{Joint: &target.Joint{Hand: h, Name: name}}, ok && good
}

// jointName reads one of the 25 WebXR hand joints' names.
func (p *parser) jointName(v *yaml.Node, what string) (string, bool) {
	name, ok := p.str(v, what)
	if ok && !contains(target.HandJoints, name) {
		p.errorf(v, "%s: %q is not a WebXR hand joint (%s)", what, name, strings.Join(target.HandJoints, ", "))
		return name, false
	}
	return name, ok
}

// xrTargetKeys are the keys of xrTargetKinds.
func xrTargetKeys() []string {
	out := make([]string, len(xrTargetKinds))
	for i, k := range xrTargetKinds {
		out[i] = string(k)
	}
	return out
}

// worldPoint is where an XR target is in the world: the point itself, or
// the named object's world position (through the page's Inspector).
func (x *exec) worldPoint(t Target) ([]float64, error) {
	switch t.Kind() {
	case target.KindWorld:
		return t.World, nil
	case target.KindObject:
		in, err := capability[Inspector](x.page, "scene inspection (to find an XR target object)")
		if err != nil {
			return nil, err
		}
		o, err := in.Object(x.ctx, t.Object)
		if err != nil {
			return nil, err
		}
		return objectPosition(o, t)
	case target.KindTag:
		o, err := x.tagged(t.Tag)
		if err != nil {
			return nil, err
		}
		return objectPosition(o, t)
	case target.KindJoint:
		xr, err := x.headset()
		if err != nil {
			return nil, err
		}
		p, _, err := jointPose(x.ctx, x.page, xr, t.Joint.Hand, t.Joint.Name,
			"hand joints (a {joint: …} target)", " (a gesture, hand or setHandPose step switches to hands)")
		return p, err
	}
	return nil, Infra(fmt.Errorf("%s is not an XR target", t))
}

// jointPose is where a joint of a tracked hand is now (a {joint: …} target,
// joint()); what names the asker when the page cannot read joints. A hand
// whose active input is a controller has no joints: a failed target, its
// message ended by hint.
func jointPose(ctx context.Context, page Page, xr XR, hand, name, what, hint string) ([]float64, []float64, error) {
	mode, err := xr.XRInputMode(ctx)
	if err != nil {
		return nil, nil, err
	}
	if mode == "controller" {
		return nil, nil, fmt.Errorf("the %s hand's %s is not tracked: its active input is a controller%s: %w", hand, name, hint, target.ErrNotFound)
	}
	hands, err := capability[XRHands](page, what)
	if err != nil {
		return nil, nil, err
	}
	return hands.XRJointPose(ctx, hand, name)
}

// tagged describes the one scene object a {tag: name} target names: the
// object whose semantic tag has that name, or, when no object's has, that
// role. None is a missing target; more than one an error naming them.
func (x *exec) tagged(tag string) (map[string]any, error) {
	sem, err := capability[Semantics](x.page, "semantic tags (to find an XR target by tag)")
	if err != nil {
		return nil, err
	}
	found, err := sem.Tagged(x.ctx, "", tag)
	if err != nil {
		return nil, err
	}
	by := "name"
	if len(found) == 0 {
		if found, err = sem.Tagged(x.ctx, tag, ""); err != nil {
			return nil, err
		}
		by = "role"
	}
	switch len(found) {
	case 0:
		return nil, fmt.Errorf("no scene object's semantic tag has the name or role %q: %w", tag, target.ErrNotFound)
	case 1:
		if m, ok := found[0].(map[string]any); ok {
			return m, nil
		}
		return nil, Infra(fmt.Errorf("the object tagged %q is a %T, not a description", tag, found[0]))
	}
	var names []string
	for _, f := range found {
		m, _ := f.(map[string]any)
		sem, _ := m["semantic"].(map[string]any)
		names = append(names, fmt.Sprintf("object %q {role: %v, name: %v}", m["name"], sem["role"], sem["name"]))
	}
	return nil, fmt.Errorf("{tag: %q} is ambiguous: %d scene objects have the %s %q: %s; tag one by its name: %w",
		tag, len(found), by, tag, strings.Join(names, ", "), target.ErrNotFound)
}

// objectPosition is the world position of a described object.
func objectPosition(o map[string]any, t Target) ([]float64, error) {
	pos, ok := o["position"].([]any)
	if !ok || len(pos) != 3 {
		return nil, Infra(fmt.Errorf("object %s: the page described no position", t))
	}
	out := make([]float64, 3)
	for i, c := range pos {
		f, ok := c.(float64)
		if !ok {
			return nil, Infra(fmt.Errorf("object %s: position %v is not three numbers", t, pos))
		}
		out[i] = f
	}
	return out, nil
}

// activeDevice is the device of a hand's active input: the hand itself
// ("left", "right") or its controller ("left-controller", …).
func (x *exec) activeDevice(xr XR, hand string) (string, error) {
	mode, err := xr.XRInputMode(x.ctx)
	if err != nil {
		return "", err
	}
	if mode == "controller" {
		return hand + "-controller", nil
	}
	return hand, nil
}

// lookRotation is the quaternion [x, y, z, w] that turns -z (where a
// head, a hand's ray or a controller points when not turned) towards
// direction d, with no roll: a yaw about +y, then a pitch about the
// turned x. ok is false when d has no length.
func lookRotation(d []float64) ([]float64, bool) {
	h := math.Hypot(d[0], d[2])
	if h == 0 && d[1] == 0 {
		return nil, false
	}
	yaw := math.Atan2(-d[0], -d[2])
	pitch := math.Atan2(d[1], h)
	if h == 0 {
		yaw = 0 // straight up or down: no heading to keep
	}
	return mulQuat(yawQuat(yaw), []float64{math.Sin(pitch / 2), 0, 0, math.Cos(pitch / 2)}), true
}

// yawQuat is the rotation by yaw radians about +y.
func yawQuat(yaw float64) []float64 {
	return []float64{0, math.Sin(yaw / 2), 0, math.Cos(yaw / 2)}
}

// mulQuat is the Hamilton product a·b (b first, then a).
func mulQuat(a, b []float64) []float64 {
	return []float64{
		a[3]*b[0] + a[0]*b[3] + a[1]*b[2] - a[2]*b[1],
		a[3]*b[1] - a[0]*b[2] + a[1]*b[3] + a[2]*b[0],
		a[3]*b[2] + a[0]*b[1] - a[1]*b[0] + a[2]*b[3],
		a[3]*b[3] - a[0]*b[0] - a[1]*b[1] - a[2]*b[2],
	}
}

// rotate turns v by the unit quaternion q (geom.Rotate over slices).
func rotate(q, v []float64) []float64 {
	r := geom.Rotate([4]float64{q[0], q[1], q[2], q[3]}, [3]float64{v[0], v[1], v[2]})
	return r[:]
}

// cross is a × b (geom.Cross over slices).
func cross(a, b []float64) []float64 {
	r := geom.Cross([3]float64{a[0], a[1], a[2]}, [3]float64{b[0], b[1], b[2]})
	return r[:]
}

// headingOf is the yaw in radians of where orientation q looks: the angle
// about +y from -z to its forward direction's horizontal part (0 when it
// looks straight up or down).
func headingOf(q []float64) float64 {
	f := rotate(q, []float64{0, 0, -1})
	if math.Hypot(f[0], f[2]) < 1e-12 {
		return 0
	}
	return math.Atan2(-f[0], -f[2])
}

// unitQuat is q, or the identity when q is nil (a device never turned).
func unitQuat(q []float64) []float64 {
	if len(q) != 4 {
		return []float64{0, 0, 0, 1}
	}
	return q
}
