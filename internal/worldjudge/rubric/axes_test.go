package rubric

import (
	"testing"

	"github.com/stretchr/testify/require"
)

// TestAxisRules: WorldBench's axis normalisation, aliases and
// compatibility, per test, with exact normal forms.
func TestAxisRules(t *testing.T) {
	for _, c := range []struct {
		rules              AxisRules
		expected, reported string
		norm               string
		ok                 bool
	}{
		{WC004Axes, "falling", "falling", "falling", true},
		{WC004Axes, "falling", "Down", "falling", true},
		{WC004Axes, "falling", "downward", "falling", true},
		{WC004Axes, "falling", "drift", "falling", true},
		{WC004Axes, "falling", "flowing", "flowing", true},
		{WC004Axes, "falling", "flow", "flowing", true},
		{WC004Axes, "falling", "rising", "rising", false},
		{WC004Axes, "falling", "", "n/a", false},
		{WC004Axes, "flowing", "falling", "falling", true},
		{WC004Axes, "flowing", "glow", "pulsing", true},
		{WC004Axes, "flowing", "blowing", "blowing", false},
		{WC004Axes, "blowing", "sideways", "blowing", true},
		{WC004Axes, "blowing", "wind", "blowing", true},
		{WC004Axes, "blowing", "falling", "falling", false},
		{WC004Axes, "rising", "upward", "rising", true},
		{WC004Axes, "rising", "pulse", "pulsing", true},
		{WC004Axes, "pulsing", "rising", "rising", false},
		{WC004Axes, "grounded", "idle", "grounded", true},
		{WC004Axes, "grounded", "walk", "grounded", true},
		{WC004Axes, "grounded", "", "n/a", false},
		{WC004Axes, "still", "hang", "still", true},
		{WC004Axes, "still", "", "n/a", true},
		{WC004Axes, "still", "static", "n/a", true},
		{WC004Axes, "n/a", "still", "still", true},
		{WC004Axes, "n/a", " NONE ", "n/a", true},
		{WC004Axes, "n/a", "falling", "falling", false},
		{WC004Axes, "falling", "zig-zag", "zig_zag", false},
		// WC004 knows no "cyclic", and "orbit" is WC005's alias only.
		{WC004Axes, "falling", "orbit", "orbit", false},
		{WC005Axes, "cyclic", "cyclic", "cyclic", true},
		{WC005Axes, "cyclic", "orbit", "cyclic", true},
		{WC005Axes, "cyclic", "Day", "cyclic", true},
		{WC005Axes, "cyclic", "season", "cyclic", true},
		{WC005Axes, "cyclic", "wrap", "cyclic", true},
		{WC005Axes, "cyclic", "glow", "pulsing", true},
		{WC005Axes, "cyclic", "falling", "falling", false},
		{WC005Axes, "cyclic", "", "n/a", false},
		{WC005Axes, "cyclic", "down", "down", false},
	} {
		require.Equal(t, c.norm, c.rules.Norm(c.reported), "Norm(%q)", c.reported)
		require.Equal(t, c.ok, c.rules.OK(c.expected, c.reported), "OK(%q, %q)", c.expected, c.reported)
	}
}
