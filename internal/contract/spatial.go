package contract

import (
	"math"

	"github.com/google/cel-go/common/types"
	"github.com/google/cel-go/common/types/ref"
	"github.com/google/cel-go/common/types/traits"
)

// Spatial relations (library version 3): pure functions over points and
// boxes, so they work on object() and xr() values and on state vectors
// alike. A point is a vector [x, y, z] or {x, y, z}, or a map with a
// position (an object, a head pose); a box is a map with min and max, a map
// with a bbox (an object), or a point (a box without size).

// box is an axis-aligned box: min and max corners.
type box struct{ min, max [3]float64 }

// toPoint reads a 3D point.
func toPoint(fn string, v ref.Val) ([3]float64, ref.Val) {
	var p [3]float64
	if m, ok := v.(traits.Mapper); ok {
		if pos, found := m.Find(types.String("position")); found {
			v = pos
		}
	}
	xs, err := toVec(fn, v)
	if err != nil {
		return p, err
	}
	if len(xs) != 3 {
		return p, errorf("%s: want a 3D point, got %d coordinates", fn, len(xs))
	}
	copy(p[:], xs)
	return p, nil
}

// toBox reads a box: {min, max}, a map with a bbox, or a point.
func toBox(fn string, v ref.Val) (box, ref.Val) {
	var b box
	if m, ok := v.(traits.Mapper); ok {
		if bb, found := m.Find(types.String("bbox")); found {
			if _, isNull := bb.(types.Null); isNull {
				return b, errorf("%s: the object has no bounding box (no geometry)", fn)
			}
			return toBox(fn, bb)
		}
		lo, okLo := m.Find(types.String("min"))
		hi, okHi := m.Find(types.String("max"))
		if okLo && okHi {
			var err ref.Val
			if b.min, err = toPoint(fn, lo); err != nil {
				return b, err
			}
			if b.max, err = toPoint(fn, hi); err != nil {
				return b, err
			}
			for i := range 3 {
				if b.min[i] > b.max[i] {
					return b, errorf("%s: box min %s is above its max %s", fn, formatFloats(b.min[:]), formatFloats(b.max[:]))
				}
			}
			return b, nil
		}
	}
	p, err := toPoint(fn, v)
	if err != nil {
		return b, errorf("%s: want a box ({min, max}, an object with a bbox) or a point: %s", fn, errText(err))
	}
	return box{p, p}, nil
}

// tolerance reads a tolerance or radius: a number >= 0.
func tolerance(fn, what string, v ref.Val) (float64, ref.Val) {
	t, ok := toFloat(v)
	if !ok || t < 0 || math.IsNaN(t) {
		return 0, errorf("%s: the %s must be a number >= 0, got %s", fn, what, formatVal(v))
	}
	return t, nil
}

// inside(point, box): min <= point <= max on every axis.
func inside(a, b ref.Val) ref.Val {
	p, err := toPoint("inside", a)
	if err != nil {
		return err
	}
	bx, err := toBox("inside", b)
	if err != nil {
		return err
	}
	for i := range 3 {
		if p[i] < bx.min[i] || p[i] > bx.max[i] {
			return types.False
		}
	}
	return types.True
}

// above(a, b, tol): a's bottom is at or above b's top (less tol), and
// their footprints on the floor (x and z) overlap or are at most tol apart.
func above(a, b, tol ref.Val) ref.Val {
	t, err := tolerance("above", "tolerance", tol)
	if err != nil {
		return err
	}
	x, err := toBox("above", a)
	if err != nil {
		return err
	}
	y, err := toBox("above", b)
	if err != nil {
		return err
	}
	if x.min[1] < y.max[1]-t {
		return types.False
	}
	for _, i := range []int{0, 2} {
		if x.min[i] > y.max[i]+t || y.min[i] > x.max[i]+t {
			return types.False
		}
	}
	return types.True
}

// gap is the Euclidean distance between two boxes: 0 when they overlap.
func gap(x, y box) float64 {
	s := 0.0
	for i := range 3 {
		g := math.Max(0, math.Max(x.min[i]-y.max[i], y.min[i]-x.max[i]))
		s += g * g
	}
	return math.Sqrt(s)
}

// touching(a, b, tol): the boxes overlap or are at most tol apart.
func touching(a, b, tol ref.Val) ref.Val {
	t, err := tolerance("touching", "tolerance", tol)
	if err != nil {
		return err
	}
	x, err := toBox("touching", a)
	if err != nil {
		return err
	}
	y, err := toBox("touching", b)
	if err != nil {
		return err
	}
	return types.Bool(gap(x, y) <= t)
}

// facing(from, forward, to, maxAngleDeg): the angle between forward and
// the direction from from to to is at most maxAngleDeg degrees.
func facing(from, forward, to, maxDeg ref.Val) ref.Val {
	lim, ok := toFloat(maxDeg)
	if !ok || math.IsNaN(lim) {
		return errorf("facing: the angle must be a number of degrees, got %s", formatVal(maxDeg))
	}
	p, err := toPoint("facing", from)
	if err != nil {
		return err
	}
	q, err := toPoint("facing", to)
	if err != nil {
		return err
	}
	fv, err := toVec("facing", forward)
	if err != nil {
		return err
	}
	if len(fv) != 3 {
		return errorf("facing: want a 3D forward vector, got %d coordinates", len(fv))
	}
	d := [3]float64{q[0] - p[0], q[1] - p[1], q[2] - p[2]}
	nf, nd := math.Sqrt(fv[0]*fv[0]+fv[1]*fv[1]+fv[2]*fv[2]), math.Sqrt(d[0]*d[0]+d[1]*d[1]+d[2]*d[2])
	if nf == 0 {
		return errorf("facing: the forward vector has no length")
	}
	if nd == 0 {
		return errorf("facing: from and to are the same point %s", formatFloats(p[:]))
	}
	c := (fv[0]*d[0] + fv[1]*d[1] + fv[2]*d[2]) / (nf * nd)
	c = math.Max(-1, math.Min(1, c))
	return types.Bool(math.Acos(c)*180/math.Pi <= lim)
}

// withinReach(head, point, radius): the point is at most radius from the head.
func withinReach(head, point, radius ref.Val) ref.Val {
	r, err := tolerance("withinReach", "radius", radius)
	if err != nil {
		return err
	}
	h, err := toPoint("withinReach", head)
	if err != nil {
		return err
	}
	p, err := toPoint("withinReach", point)
	if err != nil {
		return err
	}
	return types.Bool(distance(h[:], p[:]) <= r)
}

// errText is an error value's message.
func errText(v ref.Val) string {
	if e, ok := v.(*types.Err); ok {
		return e.Error()
	}
	return formatVal(v)
}
