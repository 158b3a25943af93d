package contract

import (
	"context"
	"errors"
	"fmt"
	"strings"

	"github.com/google/cel-go/cel"
	"github.com/google/cel-go/common/functions"
	"github.com/google/cel-go/common/types"
	"github.com/google/cel-go/common/types/ref"
	"github.com/google/cel-go/common/types/traits"

	"github.com/worldprobe/worldprobe/internal/target"
)

// observer binds the observation functions (object, tagged, pixel, region,
// objectPixel, dom, scene, inView, coverage, xr, xrEvents, joint) to one page for
// one evaluation.
//
// The functions are declared in the environment with late bindings, so
// their calls are type-checked at load time but have no implementation
// there. An assertion that calls one is planned per evaluation with the
// observer's overloads (cel.Functions), which close over the live page and
// the evaluation's context. Pure assertions are planned once at load.
//
// Results are memoised per evaluation, so one assertion sees one consistent
// value for object("ball") however often it names it. A page failure (not a
// missing target) is kept in failure: the evaluation yields an error value
// and the caller reports the failure instead of a verdict.
type observer struct {
	ctx   context.Context
	page  Page
	cache map[string]ref.Val
	// raw keeps reads the registered functions (funcs.go) use as Go values.
	raw     map[string]fetched
	failure error
}

func newObserver(ctx context.Context, p Page) *observer {
	return &observer{ctx: ctx, page: p, cache: map[string]ref.Val{}}
}

// programOption supplies the observation overloads.
func (o *observer) programOption() cel.ProgramOption {
	num := func(v ref.Val) (float64, bool) { return toFloat(v) }
	str := func(v ref.Val) (string, bool) {
		s, ok := v.(types.String)
		return string(s), ok
	}
	return cel.Functions(append([]*functions.Overload{
		&functions.Overload{Operator: overloadID("object", 1), Unary: func(v ref.Val) ref.Val {
			r, bad := objectRef(v)
			if bad != nil {
				return bad
			}
			if r.Tag {
				return o.call("object", []any{r}, func() (any, error) { return o.taggedOne(r) })
			}
			return o.call("object", []any{r.Name}, func() (any, error) { return o.object(r.Name) })
		}},
		&functions.Overload{Operator: overloadID("tagged", 1), Unary: func(v ref.Val) ref.Val {
			role, ok := str(v)
			if !ok {
				return errorf("tagged: want a role, got %s", typeName(v))
			}
			return o.call("tagged", []any{role}, func() (any, error) {
				in, err := capability[Semantics](o.page, "tagged()")
				if err != nil {
					return nil, err
				}
				return in.Tagged(o.ctx, role, "")
			})
		}},
		&functions.Overload{Operator: overloadID("inView", 1), Unary: func(v ref.Val) ref.Val {
			return o.view("inView", v, "in_view")
		}},
		&functions.Overload{Operator: overloadID("coverage", 1), Unary: func(v ref.Val) ref.Val {
			return o.view("coverage", v, "coverage")
		}},
		&functions.Overload{Operator: overloadID("xr", 0), Function: func(...ref.Val) ref.Val {
			return o.call("xr", nil, func() (any, error) {
				x, err := capability[XRViewer](o.page, "xr()")
				if err != nil {
					return nil, err
				}
				return x.XRState(o.ctx)
			})
		}},
		&functions.Overload{Operator: overloadID("xrEvents", 0), Function: func(...ref.Val) ref.Val {
			return o.call("xrEvents", nil, func() (any, error) {
				x, err := capability[XRViewer](o.page, "xrEvents()")
				if err != nil {
					return nil, err
				}
				return x.XREvents(o.ctx)
			})
		}},
		&functions.Overload{Operator: overloadID("joint", 2), Binary: func(a, b ref.Val) ref.Val {
			hand, okh := str(a)
			name, okn := str(b)
			if !okh || !okn {
				return errorf("joint: want a hand and a joint name, got %s and %s", typeName(a), typeName(b))
			}
			return o.call("joint", []any{hand, name}, func() (any, error) { return o.joint(hand, name) })
		}},
		&functions.Overload{Operator: overloadID("pixel", 2), Binary: func(a, b ref.Val) ref.Val {
			x, okx := num(a)
			y, oky := num(b)
			if !okx || !oky {
				return errorf("pixel: want numbers, got %s and %s", typeName(a), typeName(b))
			}
			return o.call("pixel", []any{x, y}, func() (any, error) { return o.pixel(x, y) })
		}},
		&functions.Overload{Operator: overloadID("region", 4), Function: func(args ...ref.Val) ref.Val {
			var f [4]float64
			for i, a := range args {
				n, ok := num(a)
				if !ok {
					return errorf("region: want numbers, got %s", typeName(a))
				}
				f[i] = n
			}
			return o.call("region", []any{f[0], f[1], f[2], f[3]}, func() (any, error) {
				c, err := capability[Canvas](o.page, "region()")
				if err != nil {
					return nil, err
				}
				return c.Region(o.ctx, f[0], f[1], f[2], f[3])
			})
		}},
		&functions.Overload{Operator: overloadID("objectPixel", 1), Unary: func(v ref.Val) ref.Val {
			name, ok := str(v)
			if !ok {
				return errorf("objectPixel: want a name, got %s", typeName(v))
			}
			return o.call("objectPixel", []any{name}, func() (any, error) { return o.objectPixel(name) })
		}},
		&functions.Overload{Operator: overloadID("dom", 1), Unary: func(v ref.Val) ref.Val {
			sel, ok := str(v)
			if !ok {
				return errorf("dom: want a selector, got %s", typeName(v))
			}
			return o.call("dom", []any{sel}, func() (any, error) {
				in, err := capability[Inspector](o.page, "dom()")
				if err != nil {
					return nil, err
				}
				return in.DOM(o.ctx, sel)
			})
		}},
		&functions.Overload{Operator: overloadID("scene", 0), Function: func(...ref.Val) ref.Val {
			return o.call("scene", nil, func() (any, error) {
				in, err := capability[Inspector](o.page, "scene()")
				if err != nil {
					return nil, err
				}
				return in.Scene(o.ctx)
			})
		}},
	}, o.funcOverloads()...)...,
	)
}

// object describes a named scene object.
func (o *observer) object(name string) (map[string]any, error) {
	in, err := capability[Inspector](o.page, "object()")
	if err != nil {
		return nil, err
	}
	return in.Object(o.ctx, name)
}

// pixel reads one pixel of the drawn canvas.
func (o *observer) pixel(x, y float64) (map[string]any, error) {
	c, err := capability[Canvas](o.page, "pixel()")
	if err != nil {
		return nil, err
	}
	return c.Pixel(o.ctx, x, y)
}

// objectPixel reads the pixel under a named object's screen position.
func (o *observer) objectPixel(name string) (map[string]any, error) {
	obj, err := o.object(name)
	if err != nil {
		return nil, err
	}
	if on, ok := obj["on_screen"].(bool); ok && !on {
		return nil, fmt.Errorf("object %q is off screen: %w", name, target.ErrNotFound)
	}
	xy, ok := obj["screen"].([]any)
	if !ok || len(xy) != 2 {
		return nil, fmt.Errorf("object %q has no screen position: %w", name, target.ErrNotFound)
	}
	x, okx := xy[0].(float64)
	y, oky := xy[1].(float64)
	if !okx || !oky {
		return nil, fmt.Errorf("object %q has no screen position: %w", name, target.ErrNotFound)
	}
	return o.pixel(x, y)
}

// taggedOne describes the one object whose semantic tag matches r.
func (o *observer) taggedOne(r ObjectRef) (map[string]any, error) {
	in, err := capability[Semantics](o.page, "object() by tag")
	if err != nil {
		return nil, err
	}
	found, err := in.Tagged(o.ctx, r.Role, r.Name)
	if err != nil {
		return nil, err
	}
	switch len(found) {
	case 0:
		return nil, fmt.Errorf("no scene object is tagged %s: %w", r, target.ErrNotFound)
	case 1:
		m, ok := found[0].(map[string]any)
		if !ok {
			return nil, fmt.Errorf("the object tagged %s is a %T, not a description", r, found[0])
		}
		return m, nil
	}
	return nil, fmt.Errorf("%d scene objects are tagged %s: name one (tagged() lists them): %w", len(found), r, target.ErrNotFound)
}

// view reads where an object is in the XR user's view (memoised once per
// object for inView and coverage) and returns its field key.
func (o *observer) view(fn string, v ref.Val, key string) ref.Val {
	r, bad := objectRef(v)
	if bad != nil {
		return bad
	}
	m := o.call("xrView", []any{r}, func() (any, error) {
		x, err := capability[XRViewer](o.page, fn+"()")
		if err != nil {
			return nil, err
		}
		return x.XRView(o.ctx, r)
	})
	mp, ok := m.(traits.Mapper)
	if !ok {
		return m // the error
	}
	val, found := mp.Find(types.String(key))
	if !found {
		return errorf("%s: the view of %s has no %s", fn, r, key)
	}
	return val
}

// objectRef reads an object reference: a name, or a semantic tag given as
// a map with role and/or name ({"role": "grabbable"}). Its errors need no
// function name: the verdict's message starts with the call.
func objectRef(v ref.Val) (ObjectRef, ref.Val) {
	switch x := v.(type) {
	case types.String:
		return ObjectRef{Name: string(x)}, nil
	case traits.Mapper:
		r := ObjectRef{Tag: true}
		it := x.Iterator()
		for it.HasNext() == types.True {
			k := it.Next()
			ks, ok := k.(types.String)
			if !ok {
				return r, errorf("a tag's keys are role and name, got %s", formatVal(k))
			}
			s, ok := x.Get(k).(types.String)
			if !ok {
				return r, errorf("the tag's %s must be a string, got %s", string(ks), typeName(x.Get(k)))
			}
			switch string(ks) {
			case "role":
				r.Role = string(s)
			case "name":
				r.Name = string(s)
			default:
				return r, errorf("a tag's keys are role and name, got %q", string(ks))
			}
		}
		if r.Role == "" && r.Name == "" {
			return r, errorf("a tag needs a role or a name")
		}
		return r, nil
	}
	return ObjectRef{}, errorf("want an object name or a tag {\"role\": ..., \"name\": ...}, got %s", typeName(v))
}

// joint is a joint of a tracked hand as the page's XR frame reports it:
// {position [x, y, z], orientation [x, y, z, w]} in local-floor space.
func (o *observer) joint(hand, name string) (any, error) {
	if hand != "left" && hand != "right" {
		return nil, fmt.Errorf("hand %q: want left or right: %w", hand, target.ErrNotFound)
	}
	if !contains(target.HandJoints, name) {
		return nil, fmt.Errorf("%q is not a WebXR hand joint (wrist, index-finger-tip, …): %w", name, target.ErrNotFound)
	}
	x, err := capability[XR](o.page, "joint()")
	if err != nil {
		return nil, err
	}
	p, q, err := jointPose(o.ctx, o.page, x, hand, name, "joint()", "")
	if err != nil {
		return nil, err
	}
	return map[string]any{"position": floatsAny(p), "orientation": floatsAny(q)}, nil
}

// floatsAny is xs as a list CEL reads.
func floatsAny(xs []float64) []any {
	out := make([]any, len(xs))
	for i, x := range xs {
		out[i] = x
	}
	return out
}

// call runs one observation, memoised by function and arguments.
func (o *observer) call(fn string, args []any, read func() (any, error)) ref.Val {
	key := fn + "(" + formatArgs(args) + ")"
	if v, ok := o.cache[key]; ok {
		return v
	}
	var v ref.Val
	m, err := read()
	switch {
	case err == nil:
		v = types.DefaultTypeAdapter.NativeToValue(m)
	case errors.Is(err, target.ErrNotFound):
		v = types.NewErr("%s", err.Error())
	default:
		if o.failure == nil {
			o.failure = err
		}
		v = types.NewErr("%s", err.Error())
	}
	o.cache[key] = v
	return v
}

func formatArgs(args []any) string {
	parts := make([]string, len(args))
	for i, a := range args {
		switch x := a.(type) {
		case string:
			parts[i] = fmt.Sprintf("%q", x)
		case float64:
			parts[i] = formatFloat(x)
		case ObjectRef:
			parts[i] = x.String()
		default:
			parts[i] = fmt.Sprint(x)
		}
	}
	return strings.Join(parts, ", ")
}
