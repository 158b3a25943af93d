package geom

import (
	"math"
	"testing"

	"github.com/stretchr/testify/require"
)

func TestCross(t *testing.T) {
	require.Equal(t, [3]float64{0, 0, 1}, Cross([3]float64{1, 0, 0}, [3]float64{0, 1, 0}))
	require.Equal(t, [3]float64{-3, 6, -3}, Cross([3]float64{1, 2, 3}, [3]float64{4, 5, 6}))
}

// TestRotate: a quarter turn about +y takes -z to -x (counter-clockwise
// seen from above), the identity changes nothing, and a half turn about x
// flips y and z.
func TestRotate(t *testing.T) {
	s := math.Sqrt2 / 2
	r := Rotate([4]float64{0, s, 0, s}, [3]float64{0, 0, -1})
	require.InDelta(t, -1, r[0], 1e-15)
	require.InDelta(t, 0, r[1], 1e-15)
	require.InDelta(t, 0, r[2], 1e-15)
	require.Equal(t, [3]float64{1, 2, 3}, Rotate([4]float64{0, 0, 0, 1}, [3]float64{1, 2, 3}))
	require.Equal(t, [3]float64{1, -2, -3}, Rotate([4]float64{1, 0, 0, 0}, [3]float64{1, 2, 3}))
}
