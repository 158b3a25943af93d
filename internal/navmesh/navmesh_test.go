package navmesh

import (
	"math"
	"os"
	"path/filepath"
	"runtime"
	"testing"

	"github.com/stretchr/testify/require"
)

// smallRoom is a hand-written room: a 2 m × 1 m floor (x 0..2, z 0..1) at
// y = 0 and a box 0.2 m wide, 0.3 m deep and 0.5 m tall at x 0.9..1.1,
// z 0.5..0.8, standing on it; a ceiling and a box hung at 2 m do not block.
const smallRoom = `{"spatialEntities": [
 {"uuid": "floor", "semanticLabel_META": "FLOOR",
  "locatable_META": {"orientation": {"x": 1, "y": 0, "z": 0, "w": 0}, "position": {"x": 0, "y": 0, "z": 0}},
  "bounded2D_META": {"offset": {"x": 0, "y": -1}, "extent": {"width": 2, "height": 1}}},
 {"uuid": "ceiling", "semanticLabel_META": "CEILING",
  "locatable_META": {"orientation": {"x": 0, "y": 0, "z": 0, "w": 1}, "position": {"x": 0, "y": 2.5, "z": 0}},
  "bounded2D_META": {"offset": {"x": 0, "y": 0}, "extent": {"width": 2, "height": 1}}},
 {"uuid": "crate", "semanticLabel_META": "OTHER",
  "locatable_META": {"orientation": {"x": 0, "y": 0, "z": 0, "w": 1}, "position": {"x": 0, "y": 0, "z": 0}},
  "bounded3D_META": {"offset": {"x": 0.9, "y": 0, "z": 0.5}, "extent": {"width": 0.2, "height": 0.5, "depth": 0.3}}},
 {"uuid": "lamp", "semanticLabel_META": "LAMP",
  "locatable_META": {"orientation": {"x": 0, "y": 0, "z": 0, "w": 1}, "position": {"x": 0.2, "y": 2, "z": 0.2}},
  "bounded3D_META": {"offset": {"x": 0, "y": 0, "z": 0}, "extent": {"width": 1.6, "height": 0.3, "depth": 0.6}}}
]}`

// small is smallRoom's grid with a 0.2 m body (so no cell centre lies on
// a boundary).
func small(t *testing.T, extra ...Entity) *Grid {
	t.Helper()
	r, err := ParseRoom([]byte(smallRoom))
	require.NoError(t, err)
	g, err := Build(r, extra, Options{Cell: 0.1, Radius: 0.2, Low: 0.05, High: 1.8})
	require.NoError(t, err)
	return g
}

func TestGridOfAHandWrittenRoom(t *testing.T) {
	g := small(t)
	require.Equal(t, [4]float64{0, 0, 20, 10}, [4]float64{g.X0, g.Z0, float64(g.W), float64(g.H)})
	require.Equal(t, 0.0, g.FloorY)
	// Rows from z = 0.05 to 0.95; the crate blocks x 0.75..1.25 from the
	// row at z = 0.35 on (at 0.35 and x 0.75 or 1.25 the crate's corner
	// is 0.212 m away: free), the floor's edge the two outer cells.
	require.Equal(t, ""+
		"                    \n"+
		"                    \n"+
		"  ................  \n"+
		"  ......####......  \n"+
		"  .....######.....  \n"+
		"  .....######.....  \n"+
		"  .....######.....  \n"+
		"  .....######.....  \n"+
		"                    \n"+
		"                    \n", g.String())
	require.Equal(t, 16*6-4-4*6, g.Count())
}

func TestPathGoesAroundTheCrate(t *testing.T) {
	g := small(t)
	p, err := g.Path([2]float64{0.3, 0.7}, [2]float64{1.7, 0.7}, 0.1)
	require.NoError(t, err)
	require.Equal(t, [][2]float64{{0.3, 0.7}, {0.85, 0.25}, {1.25, 0.25}, {1.65, 0.65}}, round(p))
	require.InDelta(t, math.Hypot(0.55, 0.45)+0.4+math.Hypot(0.4, 0.4), Length(p), 1e-9)

	// Within stop already: no walk.
	p, err = g.Path([2]float64{0.3, 0.7}, [2]float64{0.35, 0.7}, 0.1)
	require.NoError(t, err)
	require.Equal(t, [][2]float64{{0.3, 0.7}}, p)

	// A box added across the gap closes the way.
	wall, err := ParseEntity([]byte(`{"uuid": "wall", "semanticLabel_META": "OTHER",
	  "locatable_META": {"orientation": {"x": 0, "y": 0, "z": 0, "w": 1}, "position": {"x": 1, "y": 0, "z": 0.25}},
	  "bounded3D_META": {"offset": {"x": -0.05, "y": 0, "z": -0.25}, "extent": {"width": 0.1, "height": 1, "depth": 0.3}}}`))
	require.NoError(t, err)
	_, err = small(t, wall).Path([2]float64{0.3, 0.7}, [2]float64{1.7, 0.7}, 0.1)
	require.ErrorIs(t, err, ErrNoPath)

	_, err = g.Path([2]float64{0.05, 0.5}, [2]float64{1.7, 0.7}, 0.1)
	require.ErrorIs(t, err, ErrOutside)
	_, err = g.Path([2]float64{0.3, 0.7}, [2]float64{1, 0.65}, 0.1) // inside the crate
	require.ErrorIs(t, err, ErrNoGoal)
	_, err = Build(&Room{}, nil, Defaults)
	require.ErrorContains(t, err, "no FLOOR plane")
}

func round(p [][2]float64) [][2]float64 {
	out := make([][2]float64, len(p))
	for i, q := range p {
		for k := range 2 {
			out[i][k] = float64(int64(q[k]*1e9+0.5*sign(q[k]))) / 1e9
		}
	}
	return out
}

func sign(x float64) float64 {
	if x < 0 {
		return -1
	}
	return 1
}

// capture reads one of @iwer/sem's captures in place (web/node_modules).
func capture(t *testing.T, name string) *Room {
	t.Helper()
	_, file, _, _ := runtime.Caller(0)
	b, err := os.ReadFile(filepath.Join(filepath.Dir(file), "..", "..", "web", "node_modules", "@iwer", "sem", "captures", name+".json"))
	require.NoError(t, err)
	r, err := ParseRoom(b)
	require.NoError(t, err)
	return r
}

// TestGridOfOfficeSmall derives office_small's walkable area: its one
// floor (2.46 m × 2.42 m) less a body's radius from its edge, the table
// (1.6 m × 0.7 m, against the -z wall) and the plant beside it.
func TestGridOfOfficeSmall(t *testing.T) {
	g, err := Build(capture(t, "office_small"), nil, Defaults)
	require.NoError(t, err)
	require.Equal(t, []any{-1.3, -1.1, 26, 25, 217}, []any{math.Round(g.X0*1e9) / 1e9, math.Round(g.Z0*1e9) / 1e9, g.W, g.H, g.Count()})
	require.InDelta(t, 0.0488, g.FloorY, 1e-4)
	require.True(t, g.Walkable(0, 0), "the user starts on the walkable area")
	require.False(t, g.Walkable(0.058, -0.3), "the table's front edge is blocked")

	// From the start to the table's centre: no walkable point within
	// 0.5 m of it (the table is 0.7 m deep), one within 0.75 m.
	_, err = g.Path([2]float64{0, 0}, [2]float64{0.058376, -0.654714}, 0.5)
	require.ErrorIs(t, err, ErrNoGoal)
	p, err := g.Path([2]float64{0.9, 0.9}, [2]float64{0.058376, -0.654714}, 0.75)
	require.NoError(t, err)
	require.Equal(t, [][2]float64{{0.9, 0.9}, {0.25, 0.05}}, round(p)) // straight in sight

}

// TestGridsOfEveryCapture pins the walkable area of each of @iwer/sem's
// five captures: its grid's size, its walkable cells and its floor's
// height; the user's start, the origin, is walkable in every one.
func TestGridsOfEveryCapture(t *testing.T) {
	for _, tc := range []struct {
		name       string
		w, h, walk int
		floorY     float64
	}{
		{"living_room", 61, 48, 1159, -0.0038},
		{"meeting_room", 43, 57, 1143, 0.0396},
		{"music_room", 55, 68, 1704, 0.0553},
		{"office_large", 35, 57, 562, 0.0018},
		{"office_small", 26, 25, 217, 0.0488},
	} {
		g, err := Build(capture(t, tc.name), nil, Defaults)
		require.NoError(t, err, tc.name)
		require.Equal(t, []int{tc.w, tc.h, tc.walk}, []int{g.W, g.H, g.Count()}, tc.name)
		require.InDelta(t, tc.floorY, g.FloorY, 1e-4, tc.name)
		require.True(t, g.Walkable(0, 0), tc.name)
	}
}
