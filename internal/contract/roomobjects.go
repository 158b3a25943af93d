package contract

import (
	"fmt"
	"regexp"
	"strings"

	"go.yaml.in/yaml/v3"

	"github.com/worldprobe/worldprobe/internal/target"
)

// This file holds what the object steps (step_addobjects.go …
// step_clearobjects.go) share: reading boxes and ids, and their mirror.

// roomObjectIDRE is the form of an added object's id.
var roomObjectIDRE = regexp.MustCompile(`^[A-Za-z0-9_.-]+$`)

// roomObjects reads a non-empty list of boxes: {id, label, position,
// size, yaw}; yaw is optional.
func (p *parser) roomObjects(v *yaml.Node, what string) ([]RoomObject, bool) {
	v = resolve(v)
	if v == nil || v.Kind != yaml.SequenceNode || len(v.Content) == 0 {
		p.errorf(v, "%s: want a list of boxes: [{id, label, position: [x, y, z], size: [w, h, d]}]", what)
		return nil, false
	}
	var out []RoomObject
	ok := true
	seen := map[string]bool{}
	for _, n := range v.Content {
		fields := p.mapping(n, what, "id", "label", "position", "size", "yaw")
		if fields == nil {
			ok = false
			continue
		}
		var o RoomObject
		good := true
		for _, k := range []string{"id", "label", "position", "size"} {
			if _, has := fields[k]; !has {
				p.errorf(n, "%s: a box wants %s", what, k)
				good = false
			}
		}
		if !good {
			ok = false
			continue
		}
		if o.ID, good = p.roomObjectID(fields["id"].value, what); good && seen[o.ID] {
			p.errorf(fields["id"].value, "%s: id %q listed twice", what, o.ID)
			good = false
		}
		seen[o.ID] = true
		var g bool
		if o.Label, g = p.str(fields["label"].value, what+": label"); g && !contains(RoomLabels, o.Label) {
			p.errorf(fields["label"].value, "%s: label %q: want one of %s", what, o.Label, strings.Join(RoomLabels, ", "))
			g = false
		}
		good = good && g
		o.Position, g = p.nums(fields["position"].value, what+": position", 3)
		good = good && g
		if o.Size, g = p.nums(fields["size"].value, what+": size", 3); g {
			for _, x := range o.Size {
				if x <= 0 {
					p.errorf(fields["size"].value, "%s: size %s: want three lengths > 0", what, target.FormatPoint(o.Size))
					g = false
					break
				}
			}
		}
		good = good && g
		if f, has := fields["yaw"]; has {
			o.Yaw, g = p.num(f.value, what+": yaw")
			good = good && g
		}
		ok = ok && good
		out = append(out, o)
	}
	return out, ok
}

// roomObjectID reads one object id.
func (p *parser) roomObjectID(v *yaml.Node, what string) (string, bool) {
	id, ok := p.str(v, what+": id")
	if ok && !roomObjectIDRE.MatchString(id) {
		p.errorf(v, "%s: id %q: use letters, digits, _ . and -", what, id)
		return id, false
	}
	return id, ok
}

// describeObjects renders boxes for messages: [{id: a, label: table, …}].
func describeObjects(objs []RoomObject) string {
	parts := make([]string, len(objs))
	for i, o := range objs {
		parts[i] = fmt.Sprintf("{id: %s, label: %s, position: %s, size: %s", o.ID, o.Label, target.FormatPoint(o.Position), target.FormatPoint(o.Size))
		if o.Yaw != 0 {
			parts[i] += ", yaw: " + formatFloat(o.Yaw)
		}
		parts[i] += "}"
	}
	return "[" + strings.Join(parts, ", ") + "]"
}

// mirrorObjects mirrors boxes across the y–z plane: x negated, yaw negated.
func mirrorObjects(objs []RoomObject) []RoomObject {
	out := make([]RoomObject, len(objs))
	for i, o := range objs {
		o.Position = mirrorPoint(o.Position)
		o.Yaw = neg(o.Yaw)
		out[i] = o
	}
	return out
}

// room finds the page's furnishable XR room.
func (x *exec) room() (XRRoom, error) {
	return capability[XRRoom](x.page, "an XR room (task.yaml room:) to add objects to")
}
