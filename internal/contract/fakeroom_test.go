package contract

import (
	"context"
	"errors"
	"fmt"
	"slices"

	"github.com/worldprobe/worldprobe/internal/target"
)

var _ XRRoom = (*fakePage)(nil)

// XRRoomObjects edits the boxes added to the fake headset's room
// (contract.XRRoom).
func (p *fakePage) XRRoomObjects(ctx context.Context, op string, objects []RoomObject, ids []string) ([]string, error) {
	x, err := p.headset("XRRoomObjects")
	if err != nil {
		return nil, err
	}
	if !x.inRoom {
		return nil, Infra(errors.New("the headset stands in no room: set room: in the task's task.yaml (docs/xr.md)"))
	}
	find := func(id string) int {
		return slices.IndexFunc(x.objects, func(o RoomObject) bool { return o.ID == id })
	}
	switch op {
	case "add":
		for _, o := range objects {
			if find(o.ID) >= 0 {
				return nil, fmt.Errorf("an object %q is already in the room: %w", o.ID, target.ErrNotFound)
			}
		}
		x.objects = append(x.objects, objects...)
	case "update":
		for _, o := range objects {
			if find(o.ID) < 0 {
				return nil, fmt.Errorf("no object %q was added to the room: %w", o.ID, target.ErrNotFound)
			}
		}
		for _, o := range objects {
			i := find(o.ID)
			x.objects = append(slices.Delete(x.objects, i, i+1), o)
		}
	case "remove":
		for _, id := range ids {
			if find(id) < 0 {
				return nil, fmt.Errorf("no object %q was added to the room: %w", id, target.ErrNotFound)
			}
		}
		for _, id := range ids {
			i := find(id)
			x.objects = slices.Delete(x.objects, i, i+1)
		}
	case "clear":
		x.objects = nil
	default:
		return nil, Infra(fmt.Errorf("unknown room edit %q", op))
	}
	out := []string{}
	for _, o := range x.objects {
		out = append(out, o.ID)
	}
	return out, nil
}
