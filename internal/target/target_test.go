package target

import (
	"math"
	"testing"

	"github.com/stretchr/testify/require"
)

func TestTargetKindAndString(t *testing.T) {
	cases := []struct {
		t    Target
		kind Kind
		text string
	}{
		{Target{Selector: "#start"}, KindSelector, `{selector: "#start"}`},
		{Target{At: []float64{100, 0.1 + 0.2}}, KindAt, `{at: [100, 0.3]}`},
		{Target{Object: "cube"}, KindObject, `{object: "cube"}`},
		{Target{World: []float64{0, -1.5, 4.1000001}}, KindWorld, `{world: [0, -1.5, 4.1000001]}`},
		{Target{}, "", `{}`},
	}
	for _, c := range cases {
		require.Equal(t, c.kind, c.t.Kind(), c.text)
		require.Equal(t, c.text, c.t.String())
		if c.kind != "" {
			name, point := c.t.Selector+c.t.Object, c.t.At
			if c.kind == KindWorld {
				point = c.t.World
			}
			require.Equal(t, c.t, Set(c.kind, name, point), "Set builds the same target")
		}
	}
	require.Equal(t, []Kind{KindSelector, KindAt, KindObject, KindWorld}, Kinds())
	require.Equal(t, 2, KindAt.Dimensions())
	require.Equal(t, 3, KindWorld.Dimensions())
	require.Equal(t, 0, KindObject.Dimensions())
	require.Equal(t, "[NaN, Infinity, -Infinity]", FormatPoint([]float64{math.NaN(), math.Inf(1), math.Inf(-1)}))
}

// A hand joint hangs from the one before it in its finger, a metacarpal
// from the wrist; the wrist from nothing. A joint target names its hand.
func TestHandJoints(t *testing.T) {
	require.Len(t, HandJoints, 25)
	for joint, parent := range map[string]string{
		"wrist": "", "thumb-metacarpal": "wrist", "thumb-tip": "thumb-phalanx-distal",
		"index-finger-metacarpal": "wrist", "index-finger-phalanx-proximal": "index-finger-metacarpal",
		"pinky-finger-metacarpal": "wrist", "pinky-finger-tip": "pinky-finger-phalanx-distal", "palm": "",
	} {
		require.Equal(t, parent, JointParent(joint), joint)
	}
	j := Target{Joint: &Joint{Hand: "right", Name: "index-finger-tip"}}
	require.Equal(t, KindJoint, j.Kind())
	require.Equal(t, "{joint: {hand: right, name: index-finger-tip}}", j.String())
}

// TestRoundMM: to the millimetre, halves away from zero, never -0 (a
// place printed in a message reads 0, not -0).
func TestRoundMM(t *testing.T) {
	got := RoundMM([]float64{-0.0004, 0.0005, -0.0005, 1.23449, -2.5e-7, 0})
	require.Equal(t, []float64{0, 0.001, -0.001, 1.234, 0, 0}, got)
	for i, x := range got {
		if x == 0 {
			require.False(t, math.Signbit(x), "coordinate %d is -0", i)
		}
	}
	require.Equal(t, "[0, 0.001, -0.001, 1.234, 0, 0]", FormatPoint(got))
	require.Equal(t, "[NaN, Infinity, -Infinity, 0.3]", FormatPoint([]float64{math.NaN(), math.Inf(1), math.Inf(-1), 0.1 + 0.2}))
}
