package contract

import (
	"math"
	"testing"

	"github.com/stretchr/testify/require"
)

// solid is a fake body's solid: an upright box from lo of the given size.
func solid(lo [3]float64, size [3]float64) []any {
	return []any{lo[0], lo[1], lo[2], size[0], 0.0, 0.0, 0.0, size[1], 0.0, 0.0, 0.0, size[2]}
}

// contactScene is a table (top 0.65–0.75 m) with a named top part under
// it, a cube resting on it, a ball 5 cm above the cube, a unit cube turned
// 45° about y near the corner of a crate (their world boxes overlap, the
// boxes 0.4·√2 − 0.5 m apart) and an empty group.
func contactScene(p *fakePage) {
	s := math.Sqrt2 / 2
	p.objects = map[string]map[string]any{
		"table": {"name": "table", "semantic": map[string]any{"role": "surface", "name": "table"},
			"solids": []any{solid([3]float64{-0.5, 0, -1.5}, [3]float64{1, 0.65, 1})}},
		"top":    {"name": "top", "parent": "table", "solids": []any{solid([3]float64{-0.5, 0.65, -1.5}, [3]float64{1, 0.1, 1})}},
		"cube":   {"name": "cube", "semantic": map[string]any{"role": "grabbable", "name": "cube"}, "solids": []any{solid([3]float64{-0.1, 0.75, -1.1}, [3]float64{0.2, 0.2, 0.2})}},
		"ball":   {"name": "ball", "solids": []any{solid([3]float64{-0.05, 1.0, -1.05}, [3]float64{0.1, 0.1, 0.1})}},
		"group":  {"name": "group"},
		"turned": {"name": "turned", "solids": []any{[]any{-s, 3.0, 0.0, s, 0.0, -s, 0.0, 1.0, 0.0, s, 0.0, s}}},
		"crate":  {"name": "crate", "solids": []any{solid([3]float64{0.4, 3.0, 0.4}, [3]float64{1, 1, 1})}},
	}
}

// TestContact: contact() and contacts() on the fake's oriented boxes, with
// exact gaps: resting, hovering, a descendant left out, a turned cube
// whose world box would touch, and the errors.
func TestContact(t *testing.T) {
	o := &opener{tweak: contactScene}
	res := run(t, `
version: 1
probes:
  - name: contacts
    level: state
    steps:
      - assert: 'contact("cube", "top") && contact("cube", {"role": "surface"})'
      - assert: '!contact("cube", "ball") && contact("cube", "ball", 0.05) && !contact("cube", "ball", 0.049)'
      - assert: contacts("cube").map(c, c.name) == ["table", "top"]
      - assert: contacts("cube", 0.05).map(c, c.name + ":" + string(c.gap)) == ["ball:0.05", "table:0", "top:0"]
      - assert: contacts("table").map(c, c.name) == ["cube"]
      - assert: '!contact("turned", "crate") && contact("turned", "crate", 0.066) && !contact("turned", "crate", 0.065)'
      - assert: contacts("crate", 1.0)[0].gap == 0.065685
      - assert: contact("table", "top")
      - assert: contact("cube", "cube")
      - assert: contact("group", "cube")
      - assert: contact("cube", "nothing")
      - assert: size(contacts("group")) == 0
`, o, Options{})
	require.Equal(t, []string{
		`contact("cube", "top") && contact("cube", {"role": "surface"}) | pass | `,
		`!contact("cube", "ball") && contact("cube", "ball", 0.05) && !contact("cube", "ball", 0.049) | pass | `,
		`contacts("cube").map(c, c.name) == ["table", "top"] | pass | `,
		`contacts("cube", 0.05).map(c, c.name + ":" + string(c.gap)) == ["ball:0.05", "table:0", "top:0"] | pass | `,
		`contacts("table").map(c, c.name) == ["cube"] | pass | `,
		`!contact("turned", "crate") && contact("turned", "crate", 0.066) && !contact("turned", "crate", 0.065) | pass | `,
		`contacts("crate", 1.0)[0].gap == 0.065685 | pass | `,
		`contact("table", "top") | error | contact("table", "top"): contact: object "table" is an ancestor of object "top": it contains it`,
		`contact("cube", "cube") | error | contact("cube", "cube"): contact: object "cube" and object "cube" are the same object`,
		`contact("group", "cube") | error | contact("group", "cube"): contact: object "group" has no geometry`,
		`contact("cube", "nothing") | error | contact("cube", "nothing"): no scene object named "nothing": target not found`,
		`size(contacts("group")) == 0 | error | contacts("group"): contacts: object "group" has no geometry`,
	}, messages(res))
	require.True(t, res.Verdicts[0].Observes, "contact() observes the scene")
}

// TestContactParseErrors: literal arguments that cannot be right are
// refused at load with the assertion's file and line.
func TestContactParseErrors(t *testing.T) {
	_, err := Parse("contract.yaml", []byte(`version: 1
probes:
  - name: p
    level: state
    steps:
      - assert: contact("a", "b", -0.1)
      - assert: contact(1, "b")
      - assert: 'size(contacts({"colour": "red"})) == 0'
      - assert: contact("a")
      - assert: size(contacts("a", "far")) == 0
`))
	require.Error(t, err)
	require.Equal(t, `contract.yaml:6: probe p: assert: contact: argument 3, the tolerance, must be a number of metres >= 0
contract.yaml:7: probe p: assert: contact: argument 1 must name an object ("cube") or a tag ({"role": …, "name": …}), got 1
contract.yaml:8: probe p: assert: contacts: argument 1: a tag's keys are role and name
contract.yaml:9: probe p: assert: 1:8: found no matching overload for 'contact' applied to '(string)'
 | contact("a")
 | .......^
contract.yaml:10: probe p: assert: contacts: argument 2, the tolerance, must be a number of metres >= 0`, err.Error())
}
