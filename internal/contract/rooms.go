package contract

import (
	"context"
	"fmt"
	"path"
	"strings"

	"go.yaml.in/yaml/v3"

	"github.com/worldprobe/worldprobe/internal/xr"
)

// Rooms: replays of a probe in several rooms (issue 14, item 4).
//
// A probe with `rooms: [living_room, office_small]` runs once per room,
// each run its own probe NAME[ROOM] (NAME[HAND,ROOM] with hands: mirror,
// every combination), in a page whose headset stands in that room: the
// Opener reads the room with RoomOf and loads the page with it, reloads
// included. Its assertions read the CEL variable room.

// VarRoom is the CEL variable naming the room of this run of a probe
// declared with rooms: (the room's label, see RoomLabel).
const VarRoom = "room"

type roomKey struct{}

// RoomOf is the room the page an Opener opens must stand in — one of
// xr.Rooms or a room file's path, relative to the task folder, as the
// probe's rooms: wrote it — from the context Run passes it; "" for the
// task's own room (task.yaml room:, or none).
func RoomOf(ctx context.Context) string {
	room, _ := ctx.Value(roomKey{}).(string)
	return room
}

// withRoom tells the Opener which room the page stands in.
func withRoom(ctx context.Context, room string) context.Context {
	if room == "" {
		return ctx
	}
	return context.WithValue(ctx, roomKey{}, room)
}

// RoomLabel names a room in a probe's run and in the CEL variable room:
// a capture's name, or a room file's name without its folder and .json.
func RoomLabel(room string) string {
	return strings.TrimSuffix(path.Base(room), ".json")
}

// parseRooms reads a probe's rooms: key: a list of distinct rooms, each
// one of xr.Rooms or a .json file in the task folder.
func (p *parser) parseRooms(v *yaml.Node, what string) []string {
	v = resolve(v)
	if v == nil || v.Kind != yaml.SequenceNode || len(v.Content) == 0 {
		p.errorf(v, "%s: rooms: want a list of rooms (%s, or .json files in the task folder)", what, strings.Join(xr.Rooms, ", "))
		return nil
	}
	var out []string
	labels := map[string]string{}
	for _, n := range v.Content {
		room, ok := p.str(n, what+": rooms")
		if !ok {
			continue
		}
		if msg := xr.CheckRoom(room); msg != "" {
			p.errorf(n, "%s: rooms: %s", what, msg)
			continue
		}
		label := RoomLabel(room)
		if prev, dup := labels[label]; dup {
			p.errorf(n, "%s: rooms: %q and %q are both named %s", what, prev, room, label)
			continue
		}
		labels[label] = room
		out = append(out, room)
	}
	return out
}

// roomVariants turns each run of a probe (one, or two with hands: mirror)
// into one run per room, named NAME[ROOM] or NAME[HAND,ROOM].
func (p *parser) roomVariants(runs []*Probe, rooms []string, n *yaml.Node, what string) []*Probe {
	for _, s := range append(append([]Step{}, runs[0].Setup...), runs[0].Steps...) {
		if a, ok := s.Action.(*SnapshotStep); ok && a.Name == VarRoom {
			p.errorf(&yaml.Node{Line: s.Line}, "%s: snapshot %q: with rooms:, %s is the probe's room", what, a.Name, VarRoom)
			return nil
		}
	}
	var out []*Probe
	for _, run := range runs {
		base := run.Base
		if base == "" {
			base = run.Name
		}
		for i, room := range rooms {
			v := *run
			if i > 0 {
				// Each run compiles its own assertions.
				v.Setup, v.Steps = copySteps(run.Setup), copySteps(run.Steps)
			}
			v.Base, v.Room = base, room
			v.later = run.later || i > 0
			if run.Hand != "" {
				v.Name = fmt.Sprintf("%s[%s,%s]", base, run.Hand, RoomLabel(room))
			} else {
				v.Name = fmt.Sprintf("%s[%s]", base, RoomLabel(room))
			}
			out = append(out, &v)
		}
	}
	return out
}

// copySteps copies steps with their assertions uncompiled; the other
// steps are shared.
func copySteps(steps []Step) []Step {
	if steps == nil {
		return nil
	}
	out := make([]Step, len(steps))
	for i, s := range steps {
		if a, ok := s.Action.(*AssertStep); ok {
			s.Action = copyAssert(a)
		}
		out[i] = s
	}
	return out
}
