package geom

import (
	"math"
	"testing"

	"github.com/stretchr/testify/require"
)

// cube is an axis-aligned box from lo, size s on every side.
func cube(lo [3]float64, s float64) Solid {
	return Solid{Origin: lo, Edges: [3][3]float64{{s, 0, 0}, {0, s, 0}, {0, 0, s}}}
}

// turned is a unit cube centred at c, turned by yaw radians about +y.
func turned(c [3]float64, yaw float64) Solid {
	q := [4]float64{0, math.Sin(yaw / 2), 0, math.Cos(yaw / 2)}
	ex, ey, ez := Rotate(q, [3]float64{1, 0, 0}), Rotate(q, [3]float64{0, 1, 0}), Rotate(q, [3]float64{0, 0, 1})
	o := c
	for _, e := range [][3]float64{ex, ey, ez} {
		o = [3]float64{o[0] - e[0]/2, o[1] - e[1]/2, o[2] - e[2]/2}
	}
	return Solid{Origin: o, Edges: [3][3]float64{ex, ey, ez}}
}

// TestGap: the separation of two oriented boxes, exact where it is the
// Euclidean distance: apart, touching, overlapping, a box turned 45° whose
// world-aligned box would overlap the other's, a flat plane, a point.
func TestGap(t *testing.T) {
	a := cube([3]float64{0, 0, 0}, 1)
	require.InDelta(t, 0.5, Gap(a, cube([3]float64{1.5, 0, 0}, 1)), 1e-15)
	require.InDelta(t, 0.5, Gap(cube([3]float64{1.5, 0, 0}, 1), a), 1e-15)
	require.Equal(t, 0.0, Gap(a, cube([3]float64{1, 0, 0}, 1)), "faces touching")
	require.Equal(t, 0.0, Gap(a, cube([3]float64{0.5, 0.5, 0.5}, 1)), "overlapping")
	// Corner to corner, 0.3 apart along each world axis: the Euclidean
	// distance is 0.3·√3, but no axis of two upright boxes runs along
	// (1, 1, 1), so Gap is the largest axis gap, 0.3: a lower bound.
	require.InDelta(t, 0.3, Gap(a, cube([3]float64{1.3, 1.3, 1.3}, 1)), 1e-15)

	// A unit cube turned 45° about y at the origin reaches x = z = 0.7071;
	// an upright unit cube centred at (0.9, 0, 0.9) starts at x = z = 0.4:
	// their world boxes overlap, the boxes do not. The gap is along the
	// turned cube's face normal (1, 0, 1)/√2: 0.4·√2 − 0.5.
	r := turned([3]float64{0, 0, 0}, math.Pi/4)
	b := cube([3]float64{0.4, -0.5, 0.4}, 1)
	require.InDelta(t, 0.4*math.Sqrt2-0.5, Gap(r, b), 1e-12)
	require.InDelta(t, 0.4*math.Sqrt2-0.5, Gap(b, r), 1e-12)
	// moved 0.1 closer along that normal they overlap
	require.Equal(t, 0.0, Gap(r, cube([3]float64{0.4 - 0.1/math.Sqrt2, -0.5, 0.4 - 0.1/math.Sqrt2}, 1)))

	// A plane (a flat box: no depth) facing +z at z = 0, 1 × 1 around the
	// origin, and a cube 0.2 in front of it, then one beside it in the
	// plane's own plane, 0.25 off its edge.
	plane := Solid{Origin: [3]float64{-0.5, -0.5, 0}, Edges: [3][3]float64{{1, 0, 0}, {0, 1, 0}, {0, 0, 0}}}
	require.InDelta(t, 0.2, Gap(plane, cube([3]float64{-0.1, -0.1, 0.2}, 0.2)), 1e-15)
	require.InDelta(t, 0.25, Gap(plane, cube([3]float64{0.75, -0.1, -0.1}, 0.2)), 1e-15)
	require.Equal(t, 0.0, Gap(plane, cube([3]float64{-0.1, -0.1, -0.1}, 0.2)), "through the plane")
	// The same plane turned 45° about y, edge on towards a cube at x ≥ 0.5:
	// its edge reaches x = 0.3536, the gap is 0.5 − 0.5·cos 45°.
	tp := Solid{Origin: [3]float64{-0.5 * math.Sqrt2 / 2, -0.5, 0.5 * math.Sqrt2 / 2},
		Edges: [3][3]float64{{math.Sqrt2 / 2, 0, -math.Sqrt2 / 2}, {0, 1, 0}, {0, 0, 0}}}
	require.InDelta(t, 0.5-0.5*math.Sqrt2/2, Gap(tp, cube([3]float64{0.5, -0.5, -0.5}, 1)), 1e-12)

	// A point 0.1 above a box, and inside it.
	pt := Solid{Origin: [3]float64{0.5, 1.1, 0.5}}
	require.InDelta(t, 0.1, Gap(a, pt), 1e-12)
	require.Equal(t, 0.0, Gap(a, Solid{Origin: [3]float64{0.5, 0.5, 0.5}}))
}

func TestCorners(t *testing.T) {
	c := cube([3]float64{1, 2, 3}, 2).Corners()
	require.Equal(t, [3]float64{1, 2, 3}, c[0])
	require.Equal(t, [3]float64{3, 2, 3}, c[1])
	require.Equal(t, [3]float64{1, 4, 3}, c[2])
	require.Equal(t, [3]float64{3, 4, 5}, c[7])
}

// BenchmarkGap: one separation of two turned boxes (contact() makes one
// per pair of solids of its two objects).
func BenchmarkGap(b *testing.B) {
	r, c := turned([3]float64{0, 0, 0}, math.Pi/4), cube([3]float64{0.4, -0.5, 0.4}, 1)
	for b.Loop() {
		Gap(r, c)
	}
}
