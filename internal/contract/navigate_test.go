package contract

import (
	"math"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/worldprobe/worldprobe/internal/navmesh"
)

// cornerRoom is a hand-written room: a floor 2 m wide (x −1..1) from
// z = −2 to 0.5, and a crate 0.6 m wide and 0.3 m deep (x −0.3..0.3,
// z −1.2..−0.9) standing on it, between the user (at the origin) and the
// far end of the room.
const cornerRoom = `{"spatialEntities": [
 {"uuid": "floor", "semanticLabel_META": "FLOOR",
  "locatable_META": {"orientation": {"x": 0, "y": 0, "z": 0, "w": 1}, "position": {"x": 0, "y": 0, "z": 0}},
  "bounded2D_META": {"offset": {"x": -1, "y": -2}, "extent": {"width": 2, "height": 2.5}}},
 {"uuid": "crate", "semanticLabel_META": "OTHER",
  "locatable_META": {"orientation": {"x": 0, "y": 0, "z": 0, "w": 1}, "position": {"x": 0, "y": 0, "z": 0}},
  "bounded3D_META": {"offset": {"x": -0.3, "y": 0, "z": -1.2}, "extent": {"width": 0.6, "height": 0.8, "depth": 0.3}}}
]}`

// navOpener is xrOpener with the fake headset standing in cornerRoom
// (grid nil: no room).
func navOpener(t *testing.T, withRoom bool) *opener {
	o := xrOpener()
	var g *navmesh.Grid
	if withRoom {
		r, err := navmesh.ParseRoom([]byte(cornerRoom))
		require.NoError(t, err)
		g, err = navmesh.Build(r, nil, navmesh.Options{Cell: 0.1, Radius: 0.2, Low: 0.05, High: 1.8})
		require.NoError(t, err)
	}
	tweak := o.tweak
	o.tweak = func(p *fakePage) {
		tweak(p)
		if g != nil {
			p.xr.walkRoom, p.xr.walk = "corner", g
		}
	}
	return o
}

func TestNavigateToWalksAroundTheCrate(t *testing.T) {
	o := navOpener(t, true)
	res := run(t, `
version: 1
probes:
  - name: walk
    level: transition
    steps:
      - navigateTo: {world: [0, 1, -1.8], stop: 0.1, speed: 2}
      - assert: abs(s.head[0]) < 0.06 && abs(s.head[2] + 1.75) < 0.06 && s.head[1] == 1.6
`, o, Options{FPS: 60})
	require.Equal(t, []string{`abs(s.head[0]) < 0.06 && abs(s.head[2] + 1.75) < 0.06 && s.head[1] == 1.6 | pass | `}, messages(res))
	// The path: from the origin past the crate's corner (x 0.3 + the body's
	// 0.2 m: the cell centred at x 0.55), along it and in to the cell
	// centre (0.05, -1.75), 0.07 m from the target: 2.1527 m in 65 frames
	// of 3.31 cm at 2 m/s (⌈2.1527 × 60 / 2⌉), after the settle frame; the
	// head faces the way it walks, then the target (45° to its left).
	trail := o.pages[0].xr.trail
	length := math.Hypot(0.55, 0.85) + 0.5 + math.Hypot(0.5, 0.4)
	require.Len(t, trail, 1+int(math.Ceil(length*30)))
	require.Equal(t, []float64{0, 1.6, 0, 0}, trail[0])
	require.Equal(t, []float64{0.017992, 1.6, -0.027806, -32.905243}, trail[1]) // atan2(0.55, 0.85)
	require.Equal(t, []float64{0.55, 1.6, -1.162337, 0}, trail[40])
	require.Equal(t, []float64{0.05, 1.6, -1.75, 45}, trail[65])
}

func TestNavigateToWithoutARoomWalksStraight(t *testing.T) {
	o := navOpener(t, false)
	res := run(t, `
version: 1
probes:
  - name: walk
    level: transition
    steps:
      - navigateTo: {world: [0, 1, -2]}
      - assert: s.head == [0.0, 1.6, -1.5] && frame == 91
`, o, Options{FPS: 60})
	require.Equal(t, []string{`s.head == [0.0, 1.6, -1.5] && frame == 91 | pass | `}, messages(res))
	trail := o.pages[0].xr.trail
	// One settle frame, then 90 frames of 1/60 m each, facing -z.
	require.Len(t, trail, 91)
	require.Equal(t, []float64{0, 1.6, -0.016667, 0}, trail[1])
	require.Equal(t, []float64{0, 1.6, -1.5, 0}, trail[90])
}

func TestNavigateToFailsWithoutAWay(t *testing.T) {
	for _, tc := range []struct{ steps, want string }{
		{"- navigateTo: {world: [0, 1, -1.05], stop: 0.05}",
			`navigateTo {world: [0, 1, -1.05]} (line 6): no walkable point of room "corner" lies within 0.05 m of {world: [0, 1, -1.05]} at [0, 1, -1.05] (stop: a larger stop reaches further): target not found`},
		{"- teleportTo: [0.95, 1.6, 0]\n      - navigateTo: {world: [0, 1, -1.8]}",
			`navigateTo {world: [0, 1, -1.8]} (line 7): the user stands at [0.95, 0] on the floor, outside the walkable area of room "corner": target not found`},
		{"- navigateTo: {world: [0, 1, -1.8], stop: 0.1, frames: 3}",
			`navigateTo {world: [0, 1, -1.8]} (line 6): the walk to {world: [0, 1, -1.8]} is `},
	} {
		o := navOpener(t, true)
		res := run(t, `
version: 1
probes:
  - name: walk
    level: transition
    steps:
      `+tc.steps+`
      - assert: s.head[1] == 1.6
`, o, Options{FPS: 60})
		require.Len(t, res.Verdicts, 1)
		require.Equal(t, StatusError, res.Verdicts[0].Status)
		require.Contains(t, res.Verdicts[0].Message, tc.want)
		// Nothing moved.
		require.InDelta(t, 1.6, o.pages[0].xr.poses["head"].p[1], 0)
	}
}

func TestNavigateToCountsItsFrameBound(t *testing.T) {
	c := mustParse(t, `
version: 1
probes:
  - name: walk
    level: transition
    steps:
      - navigateTo: {tag: table}
      - navigateTo: {object: cube, speed: 0.5, stop: 0}
      - navigateTo: {joint: {hand: left, name: wrist}, frames: 12}
      - assert: "true"
`)
	require.Equal(t, 1+300+600+12, c.Probes[0].Frames(60))
	require.Equal(t, 1+150+300+12, c.Probes[0].Frames(30))
	require.Equal(t, "navigateTo {joint: {hand: left, name: wrist}}", c.Probes[0].Steps[2].Describe())
}
