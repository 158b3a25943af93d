package geom

import "math"

// Solid is an oriented box in the world: a geometry's own axis-aligned box
// carried by an object's full world transform (every parent's rotation,
// scale and translation, so a parallelepiped when a parent's scale is not
// uniform). Origin is the corner the box's minimum maps to and Edges the
// images of its three edges from that corner; an edge is zero for a flat
// geometry (a plane) and all three for a point.
type Solid struct {
	Origin [3]float64
	Edges  [3][3]float64
}

// Corners are the solid's eight corners.
func (s Solid) Corners() [8][3]float64 {
	var out [8][3]float64
	for c := range 8 {
		p := s.Origin
		for k := range 3 {
			if c&(1<<k) != 0 {
				p = add(p, s.Edges[k])
			}
		}
		out[c] = p
	}
	return out
}

// eps is below which a vector counts as zero: an edge of a flat geometry,
// the cross product of parallel edges.
const eps = 1e-12

// Gap is the separation of two solids: the greatest gap between their
// projections on any of the axes the separating axis theorem needs for
// two boxes — each solid's three face normals and the nine cross products
// of their edges — and the world axes x, y and z. It is 0 when the solids
// overlap or touch (for boxes the theorem makes this exact), and never
// more than the Euclidean distance between them (a projection on a unit
// axis does not lengthen a segment), so Gap ≤ tol holds for every pair of
// boxes at most tol apart. A flat or degenerate solid's missing edges are
// completed by unit vectors perpendicular to the others when the axes are
// built, so a plane's own normal and in-plane edge normals are among them.
func Gap(a, b Solid) float64 {
	ea, eb := completed(a.Edges), completed(b.Edges)
	axes := make([][3]float64, 0, 18)
	axes = append(axes, [3]float64{1, 0, 0}, [3]float64{0, 1, 0}, [3]float64{0, 0, 1})
	for _, e := range [][3][3]float64{ea, eb} {
		for i := range 3 {
			axes = append(axes, Cross(e[(i+1)%3], e[(i+2)%3]))
		}
	}
	for i := range 3 {
		for j := range 3 {
			axes = append(axes, Cross(ea[i], eb[j]))
		}
	}
	ca, cb := a.Corners(), b.Corners()
	worst := 0.0
	for _, ax := range axes {
		n := length(ax)
		if n < eps {
			continue
		}
		u := [3]float64{ax[0] / n, ax[1] / n, ax[2] / n}
		loA, hiA := project(ca, u)
		loB, hiB := project(cb, u)
		worst = math.Max(worst, math.Max(loB-hiA, loA-hiB))
	}
	return worst
}

// completed replaces zero edges by unit vectors perpendicular to the
// others (any for a point), for building axes only.
func completed(e [3][3]float64) [3][3]float64 {
	var nonzero [][3]float64
	for _, v := range e {
		if length(v) >= eps {
			nonzero = append(nonzero, v)
		}
	}
	switch len(nonzero) {
	case 3:
		return e
	case 2:
		return [3][3]float64{nonzero[0], nonzero[1], Cross(nonzero[0], nonzero[1])}
	case 1:
		v := nonzero[0]
		// a vector not parallel to v: the world axis v leans on least
		w := [3]float64{1, 0, 0}
		if math.Abs(v[1]) < math.Abs(v[0]) && math.Abs(v[1]) <= math.Abs(v[2]) {
			w = [3]float64{0, 1, 0}
		} else if math.Abs(v[2]) < math.Abs(v[0]) {
			w = [3]float64{0, 0, 1}
		}
		p := Cross(v, w)
		return [3][3]float64{v, p, Cross(v, p)}
	}
	return [3][3]float64{{1, 0, 0}, {0, 1, 0}, {0, 0, 1}}
}

func project(cs [8][3]float64, u [3]float64) (lo, hi float64) {
	lo, hi = math.Inf(1), math.Inf(-1)
	for _, c := range cs {
		d := c[0]*u[0] + c[1]*u[1] + c[2]*u[2]
		lo, hi = math.Min(lo, d), math.Max(hi, d)
	}
	return lo, hi
}

func add(a, b [3]float64) [3]float64 { return [3]float64{a[0] + b[0], a[1] + b[1], a[2] + b[2]} }

func length(v [3]float64) float64 { return math.Sqrt(v[0]*v[0] + v[1]*v[1] + v[2]*v[2]) }
