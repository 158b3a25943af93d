package rubric

import "strings"

// AxisRules are one test's motion axes: the valid words, the aliases
// models use for them, and, per expected axis, the reported axes that
// also agree with it.
type AxisRules struct {
	Valid      []string
	Aliases    map[string]string
	Compatible map[string][]string
}

// Norm is WorldBench's axis normalisation: lower case, trimmed, '-' and
// ' ' become '_'; empty is "n/a"; a valid axis stays, else an alias maps
// it, else it stays as it is (and agrees with nothing but itself).
func (a AxisRules) Norm(s string) string {
	s = strings.NewReplacer("-", "_", " ", "_").Replace(strings.ToLower(strings.TrimSpace(s)))
	if s == "" {
		return "n/a"
	}
	for _, v := range a.Valid {
		if v == s {
			return s
		}
	}
	if n, ok := a.Aliases[s]; ok {
		return n
	}
	return s
}

// OK says whether a reported axis agrees with the expected one.
func (a AxisRules) OK(expected, reported string) bool {
	e, r := a.Norm(expected), a.Norm(reported)
	if e == r {
		return true
	}
	for _, c := range a.Compatible[e] {
		if c == r {
			return true
		}
	}
	return false
}

// The axis rules of the tests with motion (WC004's grade.py and WC005's,
// as the shared corpus's rubric records them). The code side (the code
// probe's axis) and the looking side (the visual judge's) use the same.
var (
	// WC004Axes: WC004's VALID_AXES, aliases and compatibility. Empty
	// normalises to "n/a", so an expected n/a or still also accepts "".
	WC004Axes = AxisRules{
		Valid: []string{"n/a", "falling", "blowing", "rising", "still", "flowing", "grounded", "pulsing"},
		Aliases: map[string]string{
			"fall": "falling", "down": "falling", "downward": "falling", "drift": "falling",
			"horizontal": "blowing", "wind": "blowing", "sideways": "blowing",
			"up": "rising", "upward": "rising",
			"static": "n/a", "none": "n/a", "na": "n/a",
			"flow": "flowing", "walk": "grounded", "idle": "grounded",
			"pulse": "pulsing", "glow": "pulsing", "hang": "still",
		},
		Compatible: map[string][]string{
			"n/a": {"still"}, "still": {"n/a"},
			"falling": {"flowing"}, "flowing": {"falling", "pulsing"}, "rising": {"pulsing"},
		},
	}
	// WC005Axes: every WC005 item expects "cyclic"; pulsing agrees.
	WC005Axes = AxisRules{
		Valid: []string{"cyclic", "n/a", "falling", "blowing", "rising", "still", "flowing", "grounded", "pulsing"},
		Aliases: map[string]string{
			"orbit": "cyclic", "orbiting": "cyclic", "loop": "cyclic", "day": "cyclic", "season": "cyclic", "wrap": "cyclic",
			"pulse": "pulsing", "glow": "pulsing",
			"static": "n/a", "none": "n/a", "na": "n/a",
		},
		Compatible: map[string][]string{
			"cyclic": {"pulsing"}, "n/a": {"still"}, "still": {"n/a"},
		},
	}
)
