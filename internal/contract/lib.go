package contract

import (
	"math"
	"strconv"
	"strings"
	"sync"

	"github.com/google/cel-go/cel"
	"github.com/google/cel-go/common/types"
	"github.com/google/cel-go/common/types/ref"
	"github.com/google/cel-go/common/types/traits"
	"github.com/google/cel-go/ext"

	"github.com/worldprobe/worldprobe/internal/target"
)

// LibraryVersion is the version of the CEL function library contracts are
// compiled against. It grows when functions are added; an existing
// function never changes meaning within a contract version.
const LibraryVersion = 4

// LibraryName names the StateProbe CEL library in an environment.
const LibraryName = "worldprobe.stateprobe"

// Names of the CEL variables every assertion can use (besides snapshots).
const (
	VarState  = "s"      // the page state, read fresh at each assertion
	VarTrace  = "trace"  // map of trace name → list of sampled states
	VarParams = "params" // map of task parameter values
	VarFrame  = "frame"  // frames stepped since the page (re)loaded
	VarTime   = "t"      // virtual seconds since the page (re)loaded
	// VarFrameTime is the virtual seconds one frame lasts (1 / fps). A page
	// may count its clock from load or from its first animation frame; an
	// assertion accepts both with approx(x, t, e) || approx(x, t - dt, e).
	VarFrameTime = "dt"
)

// Observation functions read the live page; the rest of the library is pure.
var (
	// observingFuncs are the observation functions whose failure points at
	// a state mismatch (see Attribute).
	observingFuncs = []string{"object", "pixel", "region", "objectPixel", "dom", "tagged", "inView", "coverage"}
	// pixelFuncs are the observation functions that read the drawn canvas.
	pixelFuncs = []string{"pixel", "region", "objectPixel"}
	// pageFuncs are all functions that read the page.
	pageFuncs = append(append([]string{}, observingFuncs...), "scene", "xr", "xrEvents", "joint")
)

// lib is the StateProbe function library, see docs/contracts.md.
type lib struct{}

// LibraryName implements cel.SingletonLibrary.
func (lib) LibraryName() string { return LibraryName }

// LibraryVersion implements cel.LibraryVersioner.
func (lib) LibraryVersion() uint32 { return LibraryVersion }

// ProgramOptions implements cel.Library.
func (lib) ProgramOptions() []cel.ProgramOption { return nil }

var (
	dyn     = cel.DynType
	dynList = cel.ListType(cel.DynType)
	dynMap  = cel.MapType(cel.StringType, cel.DynType)
)

// CompileOptions implements cel.Library.
//
// Arguments and numeric results are declared dyn. CEL's checker only
// accepts == and != between values of one static type, while at run time
// equality is heterogeneous (2.0 == 2) and, with cross-type comparisons,
// so is ordering. State numbers are dyn (JSON doubles), so declaring the
// helpers' numbers dyn as well lets `abs(x) == 2` and `rgb(c).r == 255`
// check, and int literals, doubles and uints are all accepted as
// arguments; the bindings convert and report type errors at run time.
func (lib) CompileOptions() []cel.EnvOption {
	unary := func(name string, out *cel.Type, f func(ref.Val) ref.Val) cel.EnvOption {
		return cel.Function(name, cel.Overload(name+"_dyn", []*cel.Type{dyn}, out, cel.UnaryBinding(f)))
	}
	binary := func(name string, out *cel.Type, f func(a, b ref.Val) ref.Val) cel.EnvOption {
		return cel.Function(name, cel.Overload(name+"_dyn_dyn", []*cel.Type{dyn, dyn}, out, cel.BinaryBinding(f)))
	}
	ternary := func(name string, out *cel.Type, f func(a, b, c ref.Val) ref.Val) cel.EnvOption {
		return cel.Function(name, cel.Overload(name+"_dyn_dyn_dyn", []*cel.Type{dyn, dyn, dyn}, out,
			cel.FunctionBinding(func(args ...ref.Val) ref.Val { return f(args[0], args[1], args[2]) })))
	}
	late := func(name string, args []*cel.Type, out *cel.Type) cel.EnvOption {
		return cel.Function(name, cel.Overload(overloadID(name, len(args)), args, out, cel.LateFunctionBinding()))
	}
	return append([]cel.EnvOption{
		ternary("approx", cel.BoolType, approx),
		ternary("within", cel.BoolType, within),
		unary("abs", dyn, number(math.Abs)),
		unary("sign", dyn, number(sign)),
		unary("sqrt", dyn, sqrt),
		unary("sin", dyn, number(math.Sin)),
		unary("cos", dyn, number(math.Cos)),
		unary("tan", dyn, number(math.Tan)),
		binary("atan2", dyn, atan2),
		unary("exp", dyn, number(math.Exp)),
		unary("log", dyn, logarithm),
		binary("pow", dyn, pow),
		unary("floor", dyn, number(math.Floor)),
		unary("round", dyn, number(roundHalfAway)),
		binary("angleDiff", dyn, angleDiff),
		binary("dist", dyn, dist),
		unary("norm", dyn, norm),
		binary("sub", dynList, sub),
		binary("dot", dyn, dot),
		unary("monotone", cel.BoolType, series("monotone", monotone)),
		unary("nondecreasing", cel.BoolType, series("nondecreasing", func(xs []float64) ref.Val { return types.Bool(ordered(xs, 1)) })),
		unary("nonincreasing", cel.BoolType, series("nonincreasing", func(xs []float64) ref.Val { return types.Bool(ordered(xs, -1)) })),
		unary("minOf", dyn, series("minOf", nonEmpty("minOf", func(xs []float64) float64 {
			m := xs[0]
			for _, x := range xs[1:] {
				m = math.Min(m, x)
			}
			return m
		}))),
		unary("maxOf", dyn, series("maxOf", nonEmpty("maxOf", func(xs []float64) float64 {
			m := xs[0]
			for _, x := range xs[1:] {
				m = math.Max(m, x)
			}
			return m
		}))),
		unary("mean", dyn, series("mean", nonEmpty("mean", func(xs []float64) float64 { return total(xs) / float64(len(xs)) }))),
		unary("sum", dyn, series("sum", func(xs []float64) ref.Val { return types.Double(total(xs)) })),
		unary("count", dyn, count),
		unary("rgb", dynMap, rgb),
		binary("colorDist", dyn, colorDist),

		binary("inside", cel.BoolType, inside),
		cel.Function("above",
			cel.Overload("above_dyn_dyn", []*cel.Type{dyn, dyn}, cel.BoolType, cel.BinaryBinding(func(a, b ref.Val) ref.Val { return above(a, b, types.Double(0)) })),
			cel.Overload("above_dyn_dyn_dyn", []*cel.Type{dyn, dyn, dyn}, cel.BoolType,
				cel.FunctionBinding(func(args ...ref.Val) ref.Val { return above(args[0], args[1], args[2]) }))),
		ternary("touching", cel.BoolType, touching),
		cel.Function("facing", cel.Overload("facing_dyn_dyn_dyn_dyn", []*cel.Type{dyn, dyn, dyn, dyn}, cel.BoolType,
			cel.FunctionBinding(func(args ...ref.Val) ref.Val { return facing(args[0], args[1], args[2], args[3]) }))),
		ternary("withinReach", cel.BoolType, withinReach),

		// object takes a name or a semantic tag {"role": …, "name": …}.
		late("object", []*cel.Type{dyn}, dynMap),
		late("tagged", []*cel.Type{cel.StringType}, dynList),
		late("inView", []*cel.Type{dyn}, cel.BoolType),
		late("coverage", []*cel.Type{dyn}, dyn),
		late("xr", nil, dynMap),
		late("xrEvents", nil, dynList),
		late("joint", []*cel.Type{cel.StringType, cel.StringType}, dynMap),
		late("pixel", []*cel.Type{dyn, dyn}, dynMap),
		late("region", []*cel.Type{dyn, dyn, dyn, dyn}, dynMap),
		late("objectPixel", []*cel.Type{cel.StringType}, dynMap),
		late("dom", []*cel.Type{cel.StringType}, dynMap),
		late("scene", nil, dynMap),
	}, funcDecls()...)
}

// overloadID names the single overload of an observation function.
func overloadID(name string, args int) string {
	return name + strings.Repeat("_dyn", args)
}

var (
	baseOnce sync.Once
	baseEnv  *cel.Env
	baseErr  error
)

// Env returns the base CEL environment of assertions: the variables s,
// trace, params, frame, t and dt, cross-type numeric comparisons, and the
// StateProbe library. It is built once; probes extend it with their
// snapshot names.
func Env() (*cel.Env, error) {
	baseOnce.Do(func() {
		baseEnv, baseErr = cel.NewEnv(
			cel.Variable(VarState, cel.DynType),
			cel.Variable(VarTrace, cel.MapType(cel.StringType, cel.ListType(cel.DynType))),
			cel.Variable(VarParams, cel.MapType(cel.StringType, cel.DynType)),
			cel.Variable(VarFrame, cel.DynType), // an int at run time
			cel.Variable(VarTime, cel.DynType),  // a double at run time
			cel.Variable(VarFrameTime, cel.DynType),
			cel.CrossTypeNumericComparisons(true),
			cel.EnableMacroCallTracking(),
			cel.Lib(lib{}),
			ext.Bindings(),
		)
	})
	return baseEnv, baseErr
}

// ---- conversions -----------------------------------------------------------

func errorf(format string, args ...any) ref.Val { return types.NewErr(format, args...) }

// toFloat converts a CEL number to float64.
func toFloat(v ref.Val) (float64, bool) {
	switch n := v.(type) {
	case types.Double:
		return float64(n), true
	case types.Int:
		return float64(n), true
	case types.Uint:
		return float64(n), true
	}
	return 0, false
}

// typeName names a value's CEL type for messages.
func typeName(v ref.Val) string {
	if v == nil {
		return "nothing"
	}
	return v.Type().(ref.Type).TypeName()
}

// toVec converts a list of numbers, or a map with x, y and optionally z
// (and w), to a vector.
func toVec(fn string, v ref.Val) ([]float64, ref.Val) {
	switch c := v.(type) {
	case traits.Mapper:
		var out []float64
		for i, k := range []string{"x", "y", "z", "w"} {
			e, found := c.Find(types.String(k))
			if !found {
				if i < 2 {
					return nil, errorf("%s: vector map has no %q (want [x, y, z] or {x, y, z})", fn, k)
				}
				break
			}
			f, ok := toFloat(e)
			if !ok {
				return nil, errorf("%s: vector component %s is a %s, not a number", fn, k, typeName(e))
			}
			out = append(out, f)
		}
		return out, nil
	case traits.Lister:
		return toFloats(fn, c)
	}
	return nil, errorf("%s: want a vector ([x, y, z] or {x, y, z}), got %s", fn, typeName(v))
}

// toFloats converts a list of numbers.
func toFloats(fn string, v ref.Val) ([]float64, ref.Val) {
	l, ok := v.(traits.Lister)
	if !ok {
		return nil, errorf("%s: want a list of numbers, got %s", fn, typeName(v))
	}
	n, ok := l.Size().(types.Int)
	if !ok {
		return nil, errorf("%s: list has no size", fn)
	}
	out := make([]float64, 0, int(n))
	for i := types.Int(0); i < n; i++ {
		e := l.Get(i)
		f, ok := toFloat(e)
		if !ok {
			if types.IsError(e) {
				return nil, e
			}
			return nil, errorf("%s: element %d is a %s, not a number", fn, int(i), typeName(e))
		}
		out = append(out, f)
	}
	return out, nil
}

func pairVec(fn string, a, b ref.Val) ([]float64, []float64, ref.Val) {
	x, e := toVec(fn, a)
	if e != nil {
		return nil, nil, e
	}
	y, e := toVec(fn, b)
	if e != nil {
		return nil, nil, e
	}
	if len(x) != len(y) {
		return nil, nil, errorf("%s: vectors of different lengths (%d and %d)", fn, len(x), len(y))
	}
	return x, y, nil
}

// ---- numbers ---------------------------------------------------------------

func number(f func(float64) float64) func(ref.Val) ref.Val {
	return func(v ref.Val) ref.Val {
		x, ok := toFloat(v)
		if !ok {
			return errorf("want a number, got %s", typeName(v))
		}
		return types.Double(f(x))
	}
}

func sign(x float64) float64 {
	switch {
	case x > 0:
		return 1
	case x < 0:
		return -1
	}
	return 0
}

func sqrt(v ref.Val) ref.Val {
	x, ok := toFloat(v)
	if !ok {
		return errorf("sqrt: want a number, got %s", typeName(v))
	}
	if x < 0 {
		return errorf("sqrt of a negative number (%s)", formatFloat(x))
	}
	return types.Double(math.Sqrt(x))
}

// roundHalfAway rounds half away from zero (as math.Round does; unlike
// JavaScript's Math.round, which rounds -0.5 to -0).
func roundHalfAway(x float64) float64 { return math.Round(x) }

// numbers2 converts both arguments of a binary numeric function.
func numbers2(fn string, a, b ref.Val) (float64, float64, ref.Val) {
	x, ok := toFloat(a)
	if !ok {
		return 0, 0, errorf("%s: want numbers, got %s", fn, typeName(a))
	}
	y, ok := toFloat(b)
	if !ok {
		return 0, 0, errorf("%s: want numbers, got %s", fn, typeName(b))
	}
	return x, y, nil
}

// atan2(y, x): the angle of the point (x, y) in radians, in [-π, π].
func atan2(a, b ref.Val) ref.Val {
	y, x, err := numbers2("atan2", a, b)
	if err != nil {
		return err
	}
	return types.Double(math.Atan2(y, x))
}

// pow(x, y): x to the power y; an error when the result is not a real number.
func pow(a, b ref.Val) ref.Val {
	x, y, err := numbers2("pow", a, b)
	if err != nil {
		return err
	}
	r := math.Pow(x, y)
	if math.IsNaN(r) {
		return errorf("pow(%s, %s) is not a real number", formatFloat(x), formatFloat(y))
	}
	return types.Double(r)
}

// logarithm is the natural logarithm; an error at or below 0.
func logarithm(v ref.Val) ref.Val {
	x, ok := toFloat(v)
	if !ok {
		return errorf("log: want a number, got %s", typeName(v))
	}
	if x <= 0 {
		return errorf("log of a number <= 0 (%s)", formatFloat(x))
	}
	return types.Double(math.Log(x))
}

// angleDiff(a, b): a - b wrapped into [-π, π), so angles that differ by
// whole turns compare equal: abs(angleDiff(s.yaw, 6.2832)) < 0.01 holds
// for a yaw of 0.
func angleDiff(a, b ref.Val) ref.Val {
	x, y, err := numbers2("angleDiff", a, b)
	if err != nil {
		return err
	}
	d := math.Mod(x-y+math.Pi, 2*math.Pi)
	if d < 0 {
		d += 2 * math.Pi
	}
	return types.Double(d - math.Pi)
}

// approx(a, b, tol): |a - b| <= tol for numbers, dist(a, b) <= tol for vectors.
func approx(a, b, tol ref.Val) ref.Val {
	t, ok := toFloat(tol)
	if !ok || t < 0 {
		return errorf("approx: the tolerance must be a number >= 0, got %s", formatVal(tol))
	}
	d, err := difference("approx", a, b)
	if err != nil {
		return err
	}
	return types.Bool(d <= t)
}

// difference is |a - b| for numbers and the Euclidean distance for vectors.
func difference(fn string, a, b ref.Val) (float64, ref.Val) {
	x, okx := toFloat(a)
	y, oky := toFloat(b)
	if okx && oky {
		return math.Abs(x - y), nil
	}
	if okx != oky {
		return 0, errorf("%s: cannot compare a %s with a %s", fn, typeName(a), typeName(b))
	}
	u, v, err := pairVec(fn, a, b)
	if err != nil {
		return 0, err
	}
	return distance(u, v), nil
}

func within(x, lo, hi ref.Val) ref.Val {
	var f [3]float64
	for i, v := range []ref.Val{x, lo, hi} {
		n, ok := toFloat(v)
		if !ok {
			return errorf("within: want numbers, got %s", typeName(v))
		}
		f[i] = n
	}
	return types.Bool(f[1] <= f[0] && f[0] <= f[2])
}

// ---- vectors ---------------------------------------------------------------

func distance(u, v []float64) float64 {
	s := 0.0
	for i := range u {
		d := u[i] - v[i]
		s += d * d
	}
	return math.Sqrt(s)
}

func dist(a, b ref.Val) ref.Val {
	u, v, err := pairVec("dist", a, b)
	if err != nil {
		return err
	}
	return types.Double(distance(u, v))
}

func norm(a ref.Val) ref.Val {
	u, err := toVec("norm", a)
	if err != nil {
		return err
	}
	return types.Double(distance(u, make([]float64, len(u))))
}

func sub(a, b ref.Val) ref.Val {
	u, v, err := pairVec("sub", a, b)
	if err != nil {
		return err
	}
	out := make([]float64, len(u))
	for i := range u {
		out[i] = u[i] - v[i]
	}
	return types.DefaultTypeAdapter.NativeToValue(out)
}

func dot(a, b ref.Val) ref.Val {
	u, v, err := pairVec("dot", a, b)
	if err != nil {
		return err
	}
	s := 0.0
	for i := range u {
		s += u[i] * v[i]
	}
	return types.Double(s)
}

// ---- series ----------------------------------------------------------------

func series(fn string, f func([]float64) ref.Val) func(ref.Val) ref.Val {
	return func(v ref.Val) ref.Val {
		xs, err := toFloats(fn, v)
		if err != nil {
			return err
		}
		return f(xs)
	}
}

func nonEmpty(fn string, f func([]float64) float64) func([]float64) ref.Val {
	return func(xs []float64) ref.Val {
		if len(xs) == 0 {
			return errorf("%s of an empty list", fn)
		}
		return types.Double(f(xs))
	}
}

// ordered reports whether xs never goes down (dir 1) or never goes up (dir -1).
func ordered(xs []float64, dir float64) bool {
	for i := 1; i < len(xs); i++ {
		if (xs[i]-xs[i-1])*dir < 0 {
			return false
		}
	}
	return true
}

func monotone(xs []float64) ref.Val { return types.Bool(ordered(xs, 1) || ordered(xs, -1)) }

func total(xs []float64) float64 {
	s := 0.0
	for _, x := range xs {
		s += x
	}
	return s
}

// count returns how many elements of a list of booleans are true.
func count(v ref.Val) ref.Val {
	l, ok := v.(traits.Lister)
	if !ok {
		return errorf("count: want a list of booleans, got %s", typeName(v))
	}
	n := 0
	it := l.Iterator()
	for i := 0; it.HasNext() == types.True; i++ {
		e := it.Next()
		b, ok := e.(types.Bool)
		if !ok {
			if types.IsError(e) {
				return e
			}
			return errorf("count: element %d is a %s, not a boolean", i, typeName(e))
		}
		if b {
			n++
		}
	}
	return types.Int(n)
}

// ---- colours ---------------------------------------------------------------

// parseHex parses "#rgb", "#rrggbb" (the # is optional).
func parseHex(s string) ([3]float64, bool) {
	h := strings.TrimPrefix(strings.TrimSpace(s), "#")
	if len(h) == 3 {
		h = string([]byte{h[0], h[0], h[1], h[1], h[2], h[2]})
	}
	var c [3]float64
	if len(h) != 6 {
		return c, false
	}
	for i := range 3 {
		n, err := strconv.ParseUint(h[2*i:2*i+2], 16, 8)
		if err != nil {
			return c, false
		}
		c[i] = float64(n)
	}
	return c, true
}

func rgb(v ref.Val) ref.Val {
	s, ok := v.(types.String)
	if !ok {
		return errorf("rgb: want a hex colour string, got %s", typeName(v))
	}
	c, ok := parseHex(string(s))
	if !ok {
		return errorf("rgb: %q is not a hex colour (#rgb or #rrggbb)", string(s))
	}
	return types.DefaultTypeAdapter.NativeToValue(map[string]float64{"r": c[0], "g": c[1], "b": c[2]})
}

// toColor accepts a hex string or a map with r, g, b (0–255).
func toColor(v ref.Val) ([3]float64, ref.Val) {
	var c [3]float64
	switch x := v.(type) {
	case types.String:
		c, ok := parseHex(string(x))
		if !ok {
			return c, errorf("colorDist: %q is not a hex colour (#rgb or #rrggbb)", string(x))
		}
		return c, nil
	case traits.Mapper:
		for i, k := range []string{"r", "g", "b"} {
			e, found := x.Find(types.String(k))
			if !found {
				return c, errorf("colorDist: colour map has no %q", k)
			}
			f, ok := toFloat(e)
			if !ok {
				return c, errorf("colorDist: colour component %s is a %s, not a number", k, typeName(e))
			}
			c[i] = f
		}
		return c, nil
	}
	return c, errorf("colorDist: want a hex string or {r, g, b}, got %s", typeName(v))
}

func colorDist(a, b ref.Val) ref.Val {
	x, err := toColor(a)
	if err != nil {
		return err
	}
	y, err := toColor(b)
	if err != nil {
		return err
	}
	return types.Double(distance(x[:], y[:]))
}

// formatFloats renders numbers as a YAML-style flow list
// (target.FormatPoint).
func formatFloats(xs []float64) string { return target.FormatPoint(xs) }

// formatFloat renders a number with at most 10 significant digits
// (target.FormatFloat).
func formatFloat(x float64) string { return target.FormatFloat(x) }
