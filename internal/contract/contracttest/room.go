package contracttest

import (
	"context"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/worldprobe/worldprobe/internal/contract"
)

// XRRoomConformance runs the room part of the suite against pages from
// open, which show the XR conformance world with the emulated headset
// standing in a room: boxes are added, replaced, removed and cleared by
// id, in order; an id added twice, or updated or removed without being
// added, is a missing target and changes nothing. A page without
// contract.XRRoom skips it.
func XRRoomConformance(t *testing.T, open Opener) {
	ctx := context.Background()
	p, room := openWith[contract.XRRoom](t, open, "the page's headset has no room")
	require.NoError(t, p.Step(ctx, 1))
	box := func(id string, x float64) contract.RoomObject {
		return contract.RoomObject{ID: id, Label: "table", Position: []float64{x, 0.35, -1}, Size: []float64{1, 0.7, 0.6}}
	}
	ids, err := room.XRRoomObjects(ctx, "add", []contract.RoomObject{box("a", 0), box("b", 1)}, nil)
	require.NoError(t, err)
	require.Equal(t, []string{"a", "b"}, ids)
	_, err = room.XRRoomObjects(ctx, "add", []contract.RoomObject{box("c", 2), box("a", 0)}, nil)
	notFound(t, err, "adding an id already added")
	_, err = room.XRRoomObjects(ctx, "update", []contract.RoomObject{box("z", 0)}, nil)
	notFound(t, err, "updating an id never added")
	_, err = room.XRRoomObjects(ctx, "remove", nil, []string{"b", "z"})
	notFound(t, err, "removing an id never added")
	ids, err = room.XRRoomObjects(ctx, "update", []contract.RoomObject{box("a", 0.5)}, nil)
	require.NoError(t, err)
	require.Equal(t, []string{"b", "a"}, ids, "nothing changed by the failed edits; an update replaces the box")
	require.NoError(t, p.Step(ctx, 1))
	ids, err = room.XRRoomObjects(ctx, "remove", nil, []string{"b"})
	require.NoError(t, err)
	require.Equal(t, []string{"a"}, ids)
	ids, err = room.XRRoomObjects(ctx, "clear", nil, nil)
	require.NoError(t, err)
	require.Equal(t, []string{}, ids)
	require.NoError(t, p.Step(ctx, 1))
}

// XRNoRoomConformance checks that a page whose headset stands in no room
// refuses to furnish it as an infrastructure error (the task's, never the
// page's fault).
func XRNoRoomConformance(t *testing.T, open Opener) {
	ctx := context.Background()
	p, room := openWith[contract.XRRoom](t, open, "the page has no XR room capability")
	require.NoError(t, p.Step(ctx, 1))
	_, err := room.XRRoomObjects(ctx, "clear", nil, nil)
	require.Error(t, err)
	require.True(t, contract.IsInfra(err), "an infrastructure error: %v", err)
	require.Contains(t, err.Error(), "the headset stands in no room: set room: in the task's task.yaml")
	if nav, ok := p.(contract.XRNavigator); ok {
		name, grid, err := nav.XRWalkable(ctx)
		require.NoError(t, err)
		require.Equal(t, "", name, "no room")
		require.Nil(t, grid, "no room bounds the walk")
	}
}
