package contract

import (
	"errors"
	"fmt"
	"math"

	"github.com/google/cel-go/cel"
	"github.com/google/cel-go/common/ast"
	"github.com/google/cel-go/common/types"
	"github.com/google/cel-go/common/types/ref"

	"github.com/worldprobe/worldprobe/internal/geom"
	"github.com/worldprobe/worldprobe/internal/target"
)

// DefaultContactTolerance is contact()'s and contacts()'s tolerance when
// none is given: 1 mm, above the float32 noise of vertex positions and
// below any gap a person would see.
const DefaultContactTolerance = 0.001

func init() {
	registerFunc(funcType{
		Name: "contact", Order: 10, Arities: []int{2, 3}, Result: cel.BoolType, Observes: true,
		Signature: "contact(a, b)`, `contact(a, b, tol)",
		Example:   "`contact(\"cube\", {\"role\": \"surface\"})`",
		Doc: "the two objects (each a name or a semantic tag, as for `object()`) touch or overlap: the **gap** between them is at most " +
			"`tol` metres (default 0.001). The gap is measured between **oriented boxes**: each mesh, line, points or sprite in an " +
			"object's subtree contributes its geometry's own box carried by its full world transform (every parent's rotation, scale " +
			"and translation: a box turned with its object, not the world-aligned `bbox`); the gap between two such boxes is the " +
			"largest gap between their projections on the separating axes of two boxes (each box's three face normals, the nine " +
			"cross products of their edges) and the world axes — 0 when they overlap or touch, never more than their distance — and " +
			"between two objects the smallest over their boxes' pairs, rounded to the micrometre. So a cube turned 45° near a corner " +
			"of another is not in contact where their world `bbox`es overlap (`touching` says they are). An object without geometry, " +
			"the same object twice, or an object and its own ancestor is an error",
		Check: func(args []ast.Expr) []string { return checkContactArgs("contact", args, 2) },
		Call: func(o *observer, args []ref.Val) ref.Val {
			tol, bad := contactTolerance("contact", args, 2)
			if bad != nil {
				return bad
			}
			a, bad := o.body("contact", args[0])
			if bad != nil {
				return bad
			}
			b, bad := o.body("contact", args[1])
			if bad != nil {
				return bad
			}
			switch {
			case a.uuid == b.uuid:
				return errorf("contact: %s and %s are the same object", a, b)
			case contains(b.ancestors, a.uuid):
				return errorf("contact: %s is an ancestor of %s: it contains it", a, b)
			case contains(a.ancestors, b.uuid):
				return errorf("contact: %s is an ancestor of %s: it contains it", b, a)
			}
			for _, x := range []body{a, b} {
				if len(x.solids) == 0 {
					return errorf("contact: %s has no geometry", x)
				}
			}
			return types.Bool(solidsGap(a.solids, b.solids) <= tol)
		},
	})
	registerFunc(funcType{
		Name: "contacts", Order: 11, Arities: []int{1, 2}, Result: cel.ListType(cel.DynType), Observes: true,
		Signature: "contacts(a)`, `contacts(a, tol)",
		Example:   "`contacts(\"cube\").map(c, c.name) == [\"table\"]`",
		Doc: "the objects in contact with `a` (a name or a tag) as `contact(a, b, tol)` judges them: every other object of `a`'s " +
			"scene (its topmost ancestor's subtree) that has a name or a semantic tag and is neither `a`, its ancestor nor its descendant, with geometry, in " +
			"scene-graph order (depth first), each `{name, semantic, gap}` (`gap` in metres, 0 when they overlap). A named group and a " +
			"named mesh in it that both touch `a` are both listed. `a` without geometry is an error",
		Check: func(args []ast.Expr) []string { return checkContactArgs("contacts", args, 1) },
		Call: func(o *observer, args []ref.Val) ref.Val {
			tol, bad := contactTolerance("contacts", args, 1)
			if bad != nil {
				return bad
			}
			r, bad := objectRef(args[0])
			if bad != nil {
				return bad
			}
			raw, bad := o.fetch("bodies", []any{r, true}, func() (any, error) { return o.bodies(r, true) })
			if bad != nil {
				return bad
			}
			all, err := parseBodies(raw)
			if err != nil {
				return o.broken(err)
			}
			a := all[0]
			if len(a.solids) == 0 {
				return errorf("contacts: %s has no geometry", a)
			}
			out := []any{}
			for _, b := range all[1:] {
				if len(b.solids) == 0 {
					continue
				}
				if g := solidsGap(a.solids, b.solids); g <= tol {
					var sem any
					if b.semantic != nil {
						sem = b.semantic
					}
					out = append(out, map[string]any{"name": b.name, "semantic": sem, "gap": g})
				}
			}
			return types.DefaultTypeAdapter.NativeToValue(out)
		},
	})
}

// checkContactArgs checks contact's and contacts' literal arguments: the
// objects (the first objects of them), then the tolerance.
func checkContactArgs(fn string, args []ast.Expr, objects int) []string {
	var out []string
	for i, a := range args {
		if i < objects {
			out = append(out, checkObjectArg(fn, i, a)...)
		} else {
			out = append(out, checkTolerance(fn, i, a)...)
		}
	}
	return out
}

// contactTolerance is the tolerance argument at index i, or the default.
func contactTolerance(fn string, args []ref.Val, i int) (float64, ref.Val) {
	if len(args) <= i {
		return DefaultContactTolerance, nil
	}
	return tolerance(fn, "tolerance", args[i])
}

// body is an object as Bodies describes it.
type body struct {
	name      string
	semantic  map[string]any
	uuid      string
	ancestors []string
	solids    []geom.Solid
}

// String names the body in messages: its name, else its tag.
func (b body) String() string {
	if b.name != "" || b.semantic == nil {
		return fmt.Sprintf("object %q", b.name)
	}
	return fmt.Sprintf("the object tagged {role: %q, name: %q}", b.semantic["role"], b.semantic["name"])
}

// body reads the one object an argument names.
func (o *observer) body(fn string, v ref.Val) (body, ref.Val) {
	r, bad := objectRef(v)
	if bad != nil {
		return body{}, bad
	}
	raw, bad := o.fetch("bodies", []any{r, false}, func() (any, error) { return o.bodies(r, false) })
	if bad != nil {
		return body{}, bad
	}
	all, err := parseBodies(raw)
	if err != nil {
		return body{}, o.broken(err)
	}
	return all[0], nil
}

// bodies asks the page for an object's body, and its neighbours' with others.
func (o *observer) bodies(r ObjectRef, others bool) (any, error) {
	in, err := capability[Bodies](o.page, "contact()")
	if err != nil {
		return nil, err
	}
	return in.Bodies(o.ctx, r, others)
}

// parseBodies reads Bodies' answer: at least the object itself.
func parseBodies(raw any) ([]body, error) {
	list, ok := raw.([]any)
	if !ok || len(list) == 0 {
		return nil, fmt.Errorf("the page described no body (%T)", raw)
	}
	out := make([]body, 0, len(list))
	for _, item := range list {
		m, ok := item.(map[string]any)
		if !ok {
			return nil, fmt.Errorf("a body is a %T, not a description", item)
		}
		b := body{}
		b.name, _ = m["name"].(string)
		b.uuid, _ = m["uuid"].(string)
		b.semantic, _ = m["semantic"].(map[string]any)
		if anc, ok := m["ancestors"].([]any); ok {
			for _, a := range anc {
				if s, ok := a.(string); ok {
					b.ancestors = append(b.ancestors, s)
				}
			}
		}
		solids, _ := m["solids"].([]any)
		for _, s := range solids {
			xs, ok := s.([]any)
			if !ok || len(xs) != 12 {
				return nil, fmt.Errorf("%s: a solid is not 12 numbers: %v", b, s)
			}
			var f [12]float64
			for i, x := range xs {
				if f[i], ok = x.(float64); !ok {
					return nil, fmt.Errorf("%s: a solid is not 12 numbers: %v", b, s)
				}
			}
			b.solids = append(b.solids, geom.Solid{
				Origin: [3]float64{f[0], f[1], f[2]},
				Edges:  [3][3]float64{{f[3], f[4], f[5]}, {f[6], f[7], f[8]}, {f[9], f[10], f[11]}},
			})
		}
		out = append(out, b)
	}
	return out, nil
}

// solidsGap is the smallest gap between a solid of as and one of bs,
// rounded to the micrometre.
func solidsGap(as, bs []geom.Solid) float64 {
	g := math.Inf(1)
	for _, a := range as {
		for _, b := range bs {
			g = math.Min(g, geom.Gap(a, b))
		}
	}
	return math.Round(g*1e6) / 1e6
}

// fetched is a page read kept for one evaluation as Go values.
type fetched struct {
	v   any
	bad ref.Val
}

// fetch runs one page read, memoised by function and arguments as call
// does, and keeps its Go value: a missing target is the assertion's
// error value, any other error a page failure.
func (o *observer) fetch(fn string, args []any, read func() (any, error)) (any, ref.Val) {
	key := fn + "(" + formatArgs(args) + ")"
	if f, ok := o.raw[key]; ok {
		return f.v, f.bad
	}
	if o.raw == nil {
		o.raw = map[string]fetched{}
	}
	v, err := read()
	f := fetched{v: v}
	if err != nil {
		f.v = nil
		f.bad = types.NewErr("%s", err.Error())
		if !errors.Is(err, target.ErrNotFound) && o.failure == nil {
			o.failure = err
		}
	}
	o.raw[key] = f
	return f.v, f.bad
}

// broken records a malformed answer from the page as its failure.
func (o *observer) broken(err error) ref.Val {
	if o.failure == nil {
		o.failure = err
	}
	return types.NewErr("%s", err.Error())
}
