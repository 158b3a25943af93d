package contract

import (
	"testing"

	"github.com/stretchr/testify/require"
)

// spatialWorld is a state shaped like object() values: positions and world boxes.
// The cube rests on the table (its bottom at the table's top, 0.75), sunk
// is 1 mm into it, aside floats 0.1 m off the table's +x edge.
func spatialWorld() map[string]any {
	obj := func(pos, lo, hi []any) map[string]any {
		return map[string]any{"position": pos, "bbox": map[string]any{"min": lo, "max": hi}}
	}
	return map[string]any{
		"table": obj([]any{0.0, 0.7, -1.0}, []any{-0.5, 0.65, -1.5}, []any{0.5, 0.75, -0.5}),
		"cube":  obj([]any{0.0, 0.8, -1.0}, []any{-0.1, 0.75, -1.1}, []any{0.1, 0.85, -0.9}),
		"sunk":  obj([]any{0.0, 0.799, -1.0}, []any{-0.1, 0.749, -1.1}, []any{0.1, 0.849, -0.9}),
		"aside": obj([]any{0.7, 0.9, -1.0}, []any{0.6, 0.8, -1.1}, []any{0.8, 1.0, -0.9}),
		"head":  map[string]any{"position": []any{0.0, 1.6, 0.0}, "forward": []any{0.0, 0.0, -1.0}},
		"empty": map[string]any{"position": []any{0.0, 0.0, 0.0}, "bbox": nil},
	}
}

func TestSpatialRelations(t *testing.T) {
	cases := []struct {
		expr string
		want bool
	}{
		{`inside([0.5, 0.5, 0.5], {"min": [0, 0, 0], "max": [1, 1, 1]})`, true},
		{`inside([1, 1, 1], {"min": [0, 0, 0], "max": [1, 1, 1]})`, true},
		{`inside([1.0001, 0.5, 0.5], {"min": [0, 0, 0], "max": [1, 1, 1]})`, false},
		{`inside({"x": 0, "y": 0.7, "z": -1}, s.table)`, true},
		{`inside(s.cube, s.table)`, false}, // the cube's position (0.8) is above the table's box
		{`inside(s.cube.position, s.cube)`, true},

		{`above(s.cube, s.table)`, true},
		{`above(s.table, s.cube)`, false},
		{`above(s.sunk, s.table)`, false},
		{`above(s.sunk, s.table, 0.002)`, true},
		{`above(s.sunk, s.table, 0.0005)`, false},
		{`above(s.aside, s.table)`, false}, // higher, but not over the table
		{`above(s.aside, s.table, 0.15)`, true},
		{`above(s.aside, s.table, 0.05)`, false},
		{`above([0, 2, 0], [0, 1, 0])`, true},
		{`above([0.1, 2, 0], [0, 1, 0])`, false},
		{`above([0.1, 2, 0], [0, 1, 0], 0.2)`, true},
		{`above(s.head, s.table)`, false}, // the head is at z = 0, the table ends at -0.5

		{`touching(s.cube, s.table, 0)`, true},
		{`touching(s.sunk, s.table, 0)`, true},
		{`touching({"min": [0, 0, 0], "max": [1, 1, 1]}, {"min": [0.5, 0.5, 0.5], "max": [2, 2, 2]}, 0)`, true},
		{`touching(s.aside, s.table, 0.11)`, false}, // 0.1 apart in x, 0.05 in y: 0.1118
		{`touching(s.aside, s.table, 0.12)`, true},
		{`touching([3, 4, 0], [0, 0, 0], 5)`, true},
		{`touching([3, 4, 0], [0, 0, 0], 4.99)`, false},

		{`facing(s.head, s.head.forward, s.cube, 39)`, true}, // 38.66° below straight ahead
		{`facing(s.head, s.head.forward, s.cube, 38)`, false},
		{`facing([0, 0, 0], [1, 0, 0], [0, 0, 1], 90.1)`, true},
		{`facing([0, 0, 0], [1, 0, 0], [0, 0, 1], 89.9)`, false},
		{`facing([0, 0, 0], [2, 0, 0], [5, 0, 0], 0)`, true},
		{`facing([0, 0, 0], [1, 0, 0], [-1, 0, 0], 179.9)`, false},

		{`withinReach(s.head, s.cube, 1.3)`, true}, // 1.2806 m
		{`withinReach(s.head, s.cube, 1.28)`, false},
		{`withinReach({"position": [0, 1.6, 0]}, [0, 1.6, -0.7], 0.7)`, true},
	}
	for _, c := range cases {
		t.Run(c.expr, func(t *testing.T) {
			out, err := evalPure(t, c.expr, spatialWorld())
			require.NoError(t, err)
			require.Equal(t, c.want, native(t, out))
		})
	}
}

func TestSpatialErrors(t *testing.T) {
	cases := map[string]string{
		`inside([1, 2], {"min": [0, 0, 0], "max": [1, 1, 1]})`:    "inside: want a 3D point, got 2 coordinates",
		`inside([0, 0, 0], {"min": [1, 1, 1], "max": [0, 0, 0]})`: "inside: box min [1, 1, 1] is above its max [0, 0, 0]",
		`touching(s.cube, s.table, -1)`:                           "touching: the tolerance must be a number >= 0, got -1",
		`above(s.empty, s.table)`:                                 "above: the object has no bounding box (no geometry)",
		`above(s.cube, s.table, "a")`:                             `above: the tolerance must be a number >= 0, got "a"`,
		`facing([0, 0, 0], [0, 0, 0], [1, 0, 0], 10)`:             "facing: the forward vector has no length",
		`facing([0, 0, 0], [1, 0, 0], [0, 0, 0], 10)`:             "facing: from and to are the same point [0, 0, 0]",
		`facing([0, 0, 0], [1, 0], [1, 0, 0], 10)`:                "facing: want a 3D forward vector, got 2 coordinates",
		`withinReach("a", [0, 0, 0], 1)`:                          "withinReach: want a vector ([x, y, z] or {x, y, z}), got string",
		`withinReach([0, 0, 0], [0, 0, 0], -0.5)`:                 "withinReach: the radius must be a number >= 0, got -0.5",
		`touching("a", [0, 0, 0], 1)`:                             "touching: want a box ({min, max}, an object with a bbox) or a point: touching: want a vector ([x, y, z] or {x, y, z}), got string",
	}
	for expr, want := range cases {
		t.Run(expr, func(t *testing.T) {
			_, err := evalPure(t, expr, spatialWorld())
			require.EqualError(t, err, want)
		})
	}
}
