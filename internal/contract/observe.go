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

	"github.com/worldprobe/worldprobe/internal/target"
)

// observer binds the observation functions (object, pixel, region,
// objectPixel, dom, scene) to one page for one evaluation.
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
	ctx     context.Context
	page    Page
	cache   map[string]ref.Val
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
	return cel.Functions(
		&functions.Overload{Operator: overloadID("object", 1), Unary: func(v ref.Val) ref.Val {
			name, ok := str(v)
			if !ok {
				return errorf("object: want a name, got %s", typeName(v))
			}
			return o.call("object", []any{name}, func() (map[string]any, error) { return o.object(name) })
		}},
		&functions.Overload{Operator: overloadID("pixel", 2), Binary: func(a, b ref.Val) ref.Val {
			x, okx := num(a)
			y, oky := num(b)
			if !okx || !oky {
				return errorf("pixel: want numbers, got %s and %s", typeName(a), typeName(b))
			}
			return o.call("pixel", []any{x, y}, func() (map[string]any, error) { return o.pixel(x, y) })
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
			return o.call("region", []any{f[0], f[1], f[2], f[3]}, func() (map[string]any, error) {
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
			return o.call("objectPixel", []any{name}, func() (map[string]any, error) { return o.objectPixel(name) })
		}},
		&functions.Overload{Operator: overloadID("dom", 1), Unary: func(v ref.Val) ref.Val {
			sel, ok := str(v)
			if !ok {
				return errorf("dom: want a selector, got %s", typeName(v))
			}
			return o.call("dom", []any{sel}, func() (map[string]any, error) {
				in, err := capability[Inspector](o.page, "dom()")
				if err != nil {
					return nil, err
				}
				return in.DOM(o.ctx, sel)
			})
		}},
		&functions.Overload{Operator: overloadID("scene", 0), Function: func(...ref.Val) ref.Val {
			return o.call("scene", nil, func() (map[string]any, error) {
				in, err := capability[Inspector](o.page, "scene()")
				if err != nil {
					return nil, err
				}
				return in.Scene(o.ctx)
			})
		}},
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

// call runs one observation, memoised by function and arguments.
func (o *observer) call(fn string, args []any, read func() (map[string]any, error)) ref.Val {
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
		default:
			parts[i] = fmt.Sprint(x)
		}
	}
	return strings.Join(parts, ", ")
}
