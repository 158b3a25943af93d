package contracttest

import (
	"context"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/worldprobe/worldprobe/internal/contract"
)

// testBodies: an object's body is its geometry's box under its world
// matrix — the ball's sphere of radius 0.5 where the state says it is —
// and its neighbours are the world's other named objects, hidden ones
// included (contact is about where things are, not whether they are
// drawn).
func testBodies(t *testing.T, open Opener) {
	ctx := context.Background()
	p, b := openWith[contract.Bodies](t, open, "the page offers no bodies")
	require.NoError(t, p.Step(ctx, 10))
	y := ballY(t, state(t, p))
	one, err := b.Bodies(ctx, contract.ObjectRef{Name: "ball"}, false)
	require.NoError(t, err)
	require.Len(t, one, 1)
	ball := one[0].(map[string]any)
	require.Equal(t, "ball", ball["name"])
	require.Equal(t, map[string]any{"role": "target", "name": "ball"}, ball["semantic"])
	solids := ball["solids"].([]any)
	require.Len(t, solids, 1)
	near(t, []float64{-0.5, y - 0.5, -0.5, 1, 0, 0, 0, 1, 0, 0, 0, 1}, solids[0], "the ball's solid")

	all, err := b.Bodies(ctx, contract.ObjectRef{Tag: true, Role: "target"}, true)
	require.NoError(t, err)
	require.Len(t, all, 2)
	require.Equal(t, "ball", all[0].(map[string]any)["name"])
	hidden := all[1].(map[string]any)
	require.Equal(t, "hidden", hidden["name"])
	near(t, []float64{-0.5, -0.5, 29.5, 1, 0, 0, 0, 1, 0, 0, 0, 1}, hidden["solids"].([]any)[0], "the hidden box's solid")

	_, err = b.Bodies(ctx, contract.ObjectRef{Name: "nothing"}, true)
	notFound(t, err, "a missing object's body")
}

// testPanels: the ball holds no text and is seen whole by the camera (its
// centre and eight inner corners in view, none hidden); the hidden box is
// not visible and behind the camera.
func testPanels(t *testing.T, open Opener) {
	ctx := context.Background()
	p, pn := openWith[contract.Panels](t, open, "the page offers no panels")
	require.NoError(t, p.Step(ctx, 10))
	ball, err := pn.Panel(ctx, contract.ObjectRef{Name: "ball"})
	require.NoError(t, err)
	require.Equal(t, map[string]any{"text": "", "texts": []any{}, "unread": []any{}, "visible": true, "in_view": true,
		"occluded": false, "samples": 9.0, "hidden": 0.0}, ball)
	hidden, err := pn.Panel(ctx, contract.ObjectRef{Name: "hidden"})
	require.NoError(t, err)
	require.Equal(t, map[string]any{"text": "", "texts": []any{}, "unread": []any{}, "visible": false, "in_view": false,
		"occluded": false, "samples": 0.0, "hidden": 0.0}, hidden)
	_, err = pn.Panel(ctx, contract.ObjectRef{Tag: true, Role: "nothing"})
	notFound(t, err, "a missing object's panel")
}
