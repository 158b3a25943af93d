package contract

import (
	"math"
	"reflect"
	"testing"

	"github.com/google/cel-go/common/types"
	"github.com/google/cel-go/common/types/ref"
	"github.com/google/cel-go/common/types/traits"
	"github.com/stretchr/testify/require"
)

// evalPure compiles and evaluates expr in the base environment.
func evalPure(t *testing.T, expr string, s any) (ref.Val, error) {
	t.Helper()
	env, err := Env()
	require.NoError(t, err)
	ast, iss := env.Compile(expr)
	require.NoError(t, iss.Err(), expr)
	prg, err := env.Program(ast)
	require.NoError(t, err)
	out, _, err := prg.Eval(map[string]any{
		VarState: s, VarTrace: map[string][]any{}, VarParams: map[string]any{"g": 9.81}, VarFrame: int64(3), VarTime: 0.05,
	})
	return out, err
}

func native(t *testing.T, v ref.Val) any {
	t.Helper()
	switch x := v.(type) {
	case types.Double:
		return float64(x)
	case types.Int:
		return int64(x)
	case types.Bool:
		return bool(x)
	}
	switch x := v.(type) {
	case traits.Mapper:
		n, err := x.ConvertToNative(reflect.TypeOf(map[string]any{}))
		require.NoError(t, err)
		return n
	case traits.Lister:
		n, err := x.ConvertToNative(reflect.TypeOf([]any{}))
		require.NoError(t, err)
		return n
	}
	return v.Value()
}

func TestHelpers(t *testing.T) {
	cases := []struct {
		expr string
		want any
	}{
		{`approx(1.0, 1.05, 0.1)`, true},
		{`approx(1, 1.2, 0.1)`, false},
		{`approx(2, 2, 0)`, true},
		{`approx([0, 0, 0], [3, 4, 0], 5)`, true},
		{`approx([0, 0, 0], [3, 4, 0], 4.99)`, false},
		{`approx({"x": 1, "y": 2}, [1, 2], 0)`, true},
		{`within(5, 0, 10)`, true},
		{`within(10, 0, 10)`, true},
		{`within(10.5, 0, 10)`, false},
		{`abs(-2.5)`, 2.5},
		{`abs(3)`, 3.0},
		{`sign(-3)`, -1.0},
		{`sign(0.0)`, 0.0},
		{`sign(7u)`, 1.0},
		{`sqrt(16)`, 4.0},
		{`sin(0)`, 0.0},
		{`cos(0)`, 1.0},
		{`tan(0.0)`, 0.0},
		{`atan2(1, 1) == 0.7853981633974483`, true},
		{`atan2(0, -1) == 3.141592653589793`, true},
		{`exp(0)`, 1.0},
		{`log(1)`, 0.0},
		{`pow(2, 10)`, 1024.0},
		{`pow(4, 0.5)`, 2.0},
		{`floor(-1.5)`, -2.0},
		{`round(2.5)`, 3.0},
		{`round(-2.5)`, -3.0},
		{`abs(angleDiff(6.283185307179586, 0)) < 1e-12`, true},
		{`angleDiff(0.1, 6.183185307179586) > 0.19999 && angleDiff(0.1, 6.183185307179586) < 0.20001`, true},
		{`angleDiff(3.0, -3.0) < -0.28`, true},
		{`cel.bind(y, s.y * 2.0, y + y)`, 8.0},
		{`dist([0, 0, 0], [3, 4, 0])`, 5.0},
		{`dist({"x": 0, "y": 0, "z": 0}, [1, 2, 2])`, 3.0},
		{`norm([3, 4])`, 5.0},
		{`norm({"x": 2, "y": 3, "z": 6})`, 7.0},
		{`sub([5, 5, 5], [1, 2, 3])`, []any{4.0, 3.0, 2.0}},
		{`sub([5, 5, 5], [1, 2, 3])[0] == 4`, true},
		{`dot([1, 2, 3], [4, 5, 6])`, 32.0},
		{`monotone([1, 2, 2, 3])`, true},
		{`monotone([3, 2, 2, 1])`, true},
		{`monotone([1, 3, 2])`, false},
		{`monotone([])`, true},
		{`nondecreasing([1, 1, 2])`, true},
		{`nondecreasing([2, 1])`, false},
		{`nonincreasing([2, 2, 1])`, true},
		{`nonincreasing([1, 2])`, false},
		{`minOf([3, 1.5, 2])`, 1.5},
		{`maxOf([3, 1.5, 2])`, 3.0},
		{`mean([1, 2, 3, 4])`, 2.5},
		{`sum([1, 2, 3.5])`, 6.5},
		{`sum([])`, 0.0},
		{`count([true, false, true])`, int64(2)},
		{`count([])`, int64(0)},
		{`rgb("#ff8000")`, map[string]any{"r": 255.0, "g": 128.0, "b": 0.0}},
		{`rgb("f80")`, map[string]any{"r": 255.0, "g": 136.0, "b": 0.0}},
		{`rgb("#FF8000").r == 255`, true},
		{`colorDist({"r": 255, "g": 0, "b": 0}, "#ff0000")`, 0.0},
		{`colorDist("#000", "#030400")`, 5.0},
		{`s.y == 2`, true},
		{`params.g > 9`, true},
		{`frame == 3 && t < 0.1`, true},
	}
	for _, c := range cases {
		t.Run(c.expr, func(t *testing.T) {
			out, err := evalPure(t, c.expr, map[string]any{"y": 2.0})
			require.NoError(t, err)
			require.Equal(t, c.want, native(t, out))
		})
	}
	out, err := evalPure(t, `colorDist("#000000", "#ffffff")`, nil)
	require.NoError(t, err)
	require.InDelta(t, math.Sqrt(3*255*255), float64(out.(types.Double)), 1e-12)
}

func TestHelperErrors(t *testing.T) {
	cases := map[string]string{
		`approx(1, 2, -1)`:            "approx: the tolerance must be a number >= 0, got -1",
		`approx(1, [1], 1)`:           "approx: cannot compare a int with a list",
		`sqrt(-4)`:                    "sqrt of a negative number (-4)",
		`abs("x")`:                    "want a number, got string",
		`dist([1, 2], [1, 2, 3])`:     "dist: vectors of different lengths (2 and 3)",
		`norm({"x": 1})`:              `norm: vector map has no "y" (want [x, y, z] or {x, y, z})`,
		`norm([1, "a"])`:              "norm: element 1 is a string, not a number",
		`minOf([])`:                   "minOf of an empty list",
		`mean([])`:                    "mean of an empty list",
		`count([1])`:                  "count: element 0 is a int, not a boolean",
		`monotone("abc")`:             "monotone: want a list of numbers, got string",
		`rgb("nope")`:                 `rgb: "nope" is not a hex colour (#rgb or #rrggbb)`,
		`colorDist("#fff", {"r": 1})`: `colorDist: colour map has no "g"`,
		`within("a", 0, 1)`:           "within: want numbers, got string",
		`log(0)`:                      "log of a number <= 0 (0)",
		`pow(-8, 0.5)`:                "pow(-8, 0.5) is not a real number",
		`atan2("a", 1)`:               "atan2: want numbers, got string",
	}
	for expr, want := range cases {
		t.Run(expr, func(t *testing.T) {
			_, err := evalPure(t, expr, nil)
			require.EqualError(t, err, want)
		})
	}
}

// JSON numbers are doubles; int literals must compare with them.
func TestCrossTypeNumbers(t *testing.T) {
	s := map[string]any{"bounces": 2.0, "list": []any{1.0, 2.0}}
	for _, expr := range []string{
		`s.bounces == 2`, `2 == s.bounces`, `s.bounces != 3`, `s.bounces < 3`, `s.bounces <= 2`,
		`s.bounces > 1`, `s.bounces >= 2u`, `s.bounces in [1, 2]`,
		`s.list[1] == 2`, `s.list == [1, 2]`, `frame > 2.5`, `frame == 3.0`, `t >= 0`, `t == 0.05`, `abs(-2) == 2`, `sum([1, 1]) == 2`,
	} {
		out, err := evalPure(t, expr, s)
		require.NoError(t, err, expr)
		require.Equal(t, types.True, out, expr)
	}
}

func TestWaitFrames(t *testing.T) {
	cases := []struct {
		ms, fps float64
		want    int
	}{
		{500, 60, 30}, {1000, 60, 60}, {16, 60, 1}, {17, 60, 2}, {1, 60, 1},
		{100, 30, 3}, {101, 30, 4}, {1000.0 / 3, 60, 20}, {250, 24, 6}, {0.1, 1000, 1},
	}
	for _, c := range cases {
		require.Equal(t, c.want, WaitFrames(c.ms, c.fps), "%v ms at %v fps", c.ms, c.fps)
	}
}

func TestTraceSamples(t *testing.T) {
	require.Equal(t, 31, (&TraceStep{Frames: 60, Every: 2}).Samples())
	require.Equal(t, 2, (&TraceStep{Frames: 5, Every: 10}).Samples())
	require.Equal(t, 4, (&TraceStep{Frames: 7, Every: 3}).Samples())
}

func TestEnvVersioned(t *testing.T) {
	env, err := Env()
	require.NoError(t, err)
	require.True(t, env.HasLibrary(LibraryName))
	again, err := Env()
	require.NoError(t, err)
	require.Same(t, env, again)
}
