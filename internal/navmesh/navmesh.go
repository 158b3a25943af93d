// Package navmesh is the walkable area of an XR room: where a person
// standing in an @iwer/sem room (docs/xr.md, "Rooms") can walk, and the
// shortest walk between two points of it. contract's navigateTo step
// walks the user along it.
//
// The area is a grid of square cells on the floor (Options.Cell, 0.1 m by
// default), derived deterministically from the room's scene JSON, the
// format @iwer/sem loads (spatialEntities with locatable_META and
// bounded2D_META, bounded3D_META or triangleMesh_META):
//
//   - The floor is every plane labelled FLOOR, each a rectangle in its own
//     frame, seen from above. A cell is on the floor when its centre is
//     inside a floor plane at least Options.Radius (a body's radius, 0.25 m
//     by default) from that plane's edges: a body must fit on one plane.
//   - Everything else in the room that has a part between Options.Low
//     (5 cm) and Options.High (1.8 m) above the lowest floor plane blocks
//     its footprint: the convex hull of its corners (a box's eight, a
//     plane's four — a wall seen from above is a segment — a mesh's
//     vertices) seen from above. A cell is blocked when its centre is
//     closer to a footprint than Options.Radius. Ceilings, the room's
//     scene mesh (labelled GLOBAL_MESH or UNRECOGNIZED), a rug lower than
//     Low and a lamp hung above High do not block.
//   - A cell is walkable when it is on the floor and not blocked.
//
// Paths join cell centres with 8-connected moves (a diagonal only when
// both cells beside it are walkable), found with A*; the path is then
// straightened (string pulling): a corner is dropped whenever the segment
// that skips it stays on walkable cells, checked every Cell/8.
package navmesh

import (
	"container/heap"
	"encoding/base64"
	"encoding/binary"
	"encoding/json"
	"errors"
	"fmt"
	"math"
	"sort"
	"strings"

	"github.com/worldprobe/worldprobe/internal/geom"
)

// Options size the grid and the body walking on it.
type Options struct {
	// Cell is the side of a grid cell in metres.
	Cell float64
	// Radius is the body's radius: how far a walkable cell's centre stays
	// from an obstacle and from the floor's edge.
	Radius float64
	// Low and High bound the heights above the floor at which something
	// blocks the body.
	Low, High float64
}

// Defaults are the options worldprobe's navigateTo walks with.
var Defaults = Options{Cell: 0.1, Radius: 0.25, Low: 0.05, High: 1.8}

// Errors of Path.
var (
	// ErrOutside: the start is not on a walkable cell.
	ErrOutside = errors.New("the start is outside the walkable area")
	// ErrNoGoal: no walkable cell is within the stop distance of the goal.
	ErrNoGoal = errors.New("no walkable point is near enough to the goal")
	// ErrNoPath: the walkable cells near the goal cannot be reached.
	ErrNoPath = errors.New("no walkable path leads to the goal")
)

// Entity is one spatial entity of a room, in @iwer/sem's scene format.
type Entity struct {
	UUID  string `json:"uuid"`
	Label string `json:"semanticLabel_META"`
	Loc   *struct {
		Orientation struct{ X, Y, Z, W float64 } `json:"orientation"`
		Position    struct{ X, Y, Z float64 }    `json:"position"`
	} `json:"locatable_META"`
	Plane *struct {
		Offset struct{ X, Y float64 }          `json:"offset"`
		Extent struct{ Width, Height float64 } `json:"extent"`
	} `json:"bounded2D_META"`
	Box *struct {
		Offset struct{ X, Y, Z float64 }              `json:"offset"`
		Extent struct{ Width, Height, Depth float64 } `json:"extent"`
	} `json:"bounded3D_META"`
	Mesh *struct {
		Vertices string `json:"vertices"`
	} `json:"triangleMesh_META"`
}

// Room is a room's entities.
type Room struct{ Entities []Entity }

// ParseRoom reads a room's scene JSON ({"spatialEntities": [...]}).
func ParseRoom(scene []byte) (*Room, error) {
	var s struct {
		SpatialEntities []Entity `json:"spatialEntities"`
	}
	if err := json.Unmarshal(scene, &s); err != nil {
		return nil, fmt.Errorf("navmesh: reading the room: %w", err)
	}
	return &Room{Entities: s.SpatialEntities}, nil
}

// ParseEntity reads one entity (a box the harness added, xr.BoxEntity).
func ParseEntity(b []byte) (Entity, error) {
	var e Entity
	if err := json.Unmarshal(b, &e); err != nil {
		return e, fmt.Errorf("navmesh: reading an entity: %w", err)
	}
	return e, nil
}

// corners are the entity's corners (or vertices) in the world; nil for an
// entity with no locatable pose or no bounds.
func (e Entity) corners() ([][3]float64, error) {
	if e.Loc == nil {
		return nil, nil
	}
	var local [][3]float64
	switch {
	case e.Plane != nil:
		o, x := e.Plane.Offset, e.Plane.Extent
		for _, c := range [][2]float64{{0, 0}, {1, 0}, {1, 1}, {0, 1}} {
			// @iwer/sem lays a plane in its frame's x-z plane (y its normal).
			local = append(local, [3]float64{o.X + c[0]*x.Width, 0, o.Y + c[1]*x.Height})
		}
	case e.Box != nil:
		o, x := e.Box.Offset, e.Box.Extent
		for i := range 8 {
			local = append(local, [3]float64{o.X + float64(i&1)*x.Width, o.Y + float64(i>>1&1)*x.Height, o.Z + float64(i>>2&1)*x.Depth})
		}
	case e.Mesh != nil:
		raw, err := base64.StdEncoding.DecodeString(e.Mesh.Vertices)
		if err != nil {
			return nil, fmt.Errorf("navmesh: entity %s: vertices: %w", e.UUID, err)
		}
		for i := 0; i+12 <= len(raw); i += 12 {
			var v [3]float64
			for k := range 3 {
				v[k] = float64(math.Float32frombits(binary.LittleEndian.Uint32(raw[i+4*k:])))
			}
			local = append(local, v)
		}
	default:
		return nil, nil
	}
	q := e.Loc.Orientation
	n := math.Sqrt(q.X*q.X + q.Y*q.Y + q.Z*q.Z + q.W*q.W)
	if n == 0 {
		return nil, fmt.Errorf("navmesh: entity %s: orientation is not a rotation", e.UUID)
	}
	qq := [4]float64{q.X / n, q.Y / n, q.Z / n, q.W / n}
	p := e.Loc.Position
	out := make([][3]float64, len(local))
	for i, v := range local {
		r := geom.Rotate(qq, v)
		out[i] = [3]float64{r[0] + p.X, r[1] + p.Y, r[2] + p.Z}
	}
	return out, nil
}

// pt is a point on the floor: x and z.
type pt struct{ x, z float64 }

// Grid is a room's walkable area: W × H cells of side Cell, cell (i, j)
// centred at (X0 + (i + ½)·Cell, Z0 + (j + ½)·Cell) on the floor, which is
// at height FloorY.
type Grid struct {
	Cell   float64
	X0, Z0 float64
	W, H   int
	FloorY float64
	floor  []bool // centre on a floor plane, Radius from its edges
	walk   []bool
}

// Build derives the walkable grid of room with the extra entities in it
// (boxes added to the room). A room without a FLOOR plane has no walkable
// area: an error.
func Build(room *Room, extra []Entity, o Options) (*Grid, error) {
	type shape struct {
		hull []pt
		lo   float64
		hi   float64
	}
	var floors [][]pt
	floorY := math.Inf(1)
	var shapes []shape
	for _, e := range append(append([]Entity{}, room.Entities...), extra...) {
		if e.Label == "CEILING" || e.Label == "GLOBAL_MESH" || e.Label == "UNRECOGNIZED" && e.Mesh != nil {
			continue // never in the way (and the scene mesh is the room's largest entity)
		}
		cs, err := e.corners()
		if err != nil {
			return nil, err
		}
		if len(cs) == 0 {
			continue
		}
		lo, hi := math.Inf(1), math.Inf(-1)
		ps := make([]pt, len(cs))
		for i, c := range cs {
			lo, hi = math.Min(lo, c[1]), math.Max(hi, c[1])
			ps[i] = pt{c[0], c[2]}
		}
		switch {
		case e.Label == "FLOOR" && e.Plane != nil:
			floors = append(floors, hull(ps))
			floorY = math.Min(floorY, lo)
		default:
			shapes = append(shapes, shape{hull(ps), lo, hi})
		}
	}
	if len(floors) == 0 {
		return nil, errors.New("navmesh: the room has no FLOOR plane")
	}
	minX, minZ, maxX, maxZ := math.Inf(1), math.Inf(1), math.Inf(-1), math.Inf(-1)
	for _, f := range floors {
		for _, p := range f {
			minX, maxX = math.Min(minX, p.x), math.Max(maxX, p.x)
			minZ, maxZ = math.Min(minZ, p.z), math.Max(maxZ, p.z)
		}
	}
	g := &Grid{Cell: o.Cell, FloorY: floorY}
	// A bound within a nanometre of a cell's edge is on it (the floor's
	// corners come out of a rotation).
	g.X0, g.Z0 = math.Floor(minX/o.Cell+1e-9)*o.Cell, math.Floor(minZ/o.Cell+1e-9)*o.Cell
	g.W, g.H = int(math.Ceil((maxX-g.X0)/o.Cell-1e-9)), int(math.Ceil((maxZ-g.Z0)/o.Cell-1e-9))
	g.floor, g.walk = make([]bool, g.W*g.H), make([]bool, g.W*g.H)
	var blocking [][]pt
	for _, s := range shapes {
		if s.hi > floorY+o.Low && s.lo < floorY+o.High {
			blocking = append(blocking, s.hull)
		}
	}
	for j := range g.H {
		for i := range g.W {
			c := g.centre(i, j)
			on := false
			for _, f := range floors {
				if inside(f, c) && edgeDist(f, c) >= o.Radius {
					on = true
					break
				}
			}
			g.floor[j*g.W+i] = on
			if !on {
				continue
			}
			free := true
			for _, b := range blocking {
				if dist(b, c) < o.Radius {
					free = false
					break
				}
			}
			g.walk[j*g.W+i] = free
		}
	}
	return g, nil
}

// centre is cell (i, j)'s centre.
func (g *Grid) centre(i, j int) pt {
	return pt{g.X0 + (float64(i)+0.5)*g.Cell, g.Z0 + (float64(j)+0.5)*g.Cell}
}

// cellOf is the cell holding the point; ok is false off the grid.
func (g *Grid) cellOf(x, z float64) (int, int, bool) {
	i, j := int(math.Floor((x-g.X0)/g.Cell)), int(math.Floor((z-g.Z0)/g.Cell))
	return i, j, i >= 0 && j >= 0 && i < g.W && j < g.H
}

// Walkable reports whether the point (x, z) is in a walkable cell.
func (g *Grid) Walkable(x, z float64) bool {
	i, j, ok := g.cellOf(x, z)
	return ok && g.walk[j*g.W+i]
}

// Count is the number of walkable cells.
func (g *Grid) Count() int {
	n := 0
	for _, w := range g.walk {
		if w {
			n++
		}
	}
	return n
}

// String draws the grid, one line per row of cells from Z0 (the row
// nearest -z first), x growing to the right: '.' a walkable cell, '#' a
// floor cell that something blocks, ' ' a cell off the floor (or too near
// its edge).
func (g *Grid) String() string {
	var b strings.Builder
	for j := range g.H {
		for i := range g.W {
			switch k := j*g.W + i; {
			case g.walk[k]:
				b.WriteByte('.')
			case g.floor[k]:
				b.WriteByte('#')
			default:
				b.WriteByte(' ')
			}
		}
		b.WriteByte('\n')
	}
	return b.String()
}

// Path is the shortest walk on the grid from the point from [x, z] to the
// nearest reachable walkable cell centre within stop metres of goal [x,
// z]: the points to walk through, from first, straightened. When from is
// already within stop of goal the path is [from].
func (g *Grid) Path(from, goal [2]float64, stop float64) ([][2]float64, error) {
	start := pt{from[0], from[1]}
	gp := pt{goal[0], goal[1]}
	if math.Hypot(start.x-gp.x, start.z-gp.z) <= stop {
		return [][2]float64{from}, nil
	}
	si, sj, ok := g.cellOf(start.x, start.z)
	if !ok || !g.walk[sj*g.W+si] {
		return nil, ErrOutside
	}
	isGoal := func(k int) bool {
		c := g.centre(k%g.W, k/g.W)
		return g.walk[k] && math.Hypot(c.x-gp.x, c.z-gp.z) <= stop
	}
	anyGoal := false
	for k := range g.walk {
		if isGoal(k) {
			anyGoal = true
			break
		}
	}
	if !anyGoal {
		return nil, ErrNoGoal
	}
	h := func(k int) float64 {
		c := g.centre(k%g.W, k/g.W)
		return math.Max(0, math.Hypot(c.x-gp.x, c.z-gp.z)-stop)
	}
	cells, ok := g.astar(sj*g.W+si, isGoal, h)
	if !ok {
		return nil, ErrNoPath
	}
	pts := []pt{start}
	for _, k := range cells[1:] {
		pts = append(pts, g.centre(k%g.W, k/g.W))
	}
	if len(cells) == 1 {
		// The start's own cell is the goal: walk to its centre.
		pts = append(pts, g.centre(si, sj))
	}
	pts = g.straighten(pts)
	out := make([][2]float64, len(pts))
	for i, p := range pts {
		out[i] = [2]float64{p.x, p.z}
	}
	return out, nil
}

// astar finds the cheapest 8-connected walk from cell start to a goal
// cell; ties are broken by the lower estimate, then the lower cell index,
// so the path is the same run after run.
func (g *Grid) astar(start int, isGoal func(int) bool, h func(int) float64) ([]int, bool) {
	n := len(g.walk)
	cost := make([]float64, n)
	from := make([]int, n)
	done := make([]bool, n)
	for k := range cost {
		cost[k], from[k] = math.Inf(1), -1
	}
	cost[start] = 0
	open := &openSet{{f: h(start), h: h(start), k: start}}
	for open.Len() > 0 {
		k := heap.Pop(open).(item).k
		if done[k] {
			continue
		}
		done[k] = true
		if isGoal(k) {
			var path []int
			for ; k >= 0; k = from[k] {
				path = append(path, k)
			}
			for a, b := 0, len(path)-1; a < b; a, b = a+1, b-1 {
				path[a], path[b] = path[b], path[a]
			}
			return path, true
		}
		i, j := k%g.W, k/g.W
		for _, d := range [8][2]int{{1, 0}, {-1, 0}, {0, 1}, {0, -1}, {1, 1}, {1, -1}, {-1, 1}, {-1, -1}} {
			ni, nj := i+d[0], j+d[1]
			if ni < 0 || nj < 0 || ni >= g.W || nj >= g.H || !g.walk[nj*g.W+ni] {
				continue
			}
			step := g.Cell
			if d[0] != 0 && d[1] != 0 {
				if !g.walk[j*g.W+ni] || !g.walk[nj*g.W+i] {
					continue
				}
				step = g.Cell * math.Sqrt2
			}
			nk := nj*g.W + ni
			if c := cost[k] + step; c < cost[nk]-1e-12 {
				cost[nk], from[nk] = c, k
				hk := h(nk)
				heap.Push(open, item{f: c + hk, h: hk, k: nk})
			}
		}
	}
	return nil, false
}

// straighten drops every corner whose neighbours see each other over
// walkable cells, greedily from the start: from each kept point, the
// farthest later point in sight is next.
func (g *Grid) straighten(ps []pt) []pt {
	out := []pt{ps[0]}
	for i := 0; i < len(ps)-1; {
		next := i + 1
		for k := len(ps) - 1; k > i+1; k-- {
			if g.clear(ps[i], ps[k]) {
				next = k
				break
			}
		}
		out = append(out, ps[next])
		i = next
	}
	return out
}

// clear reports whether the segment a–b stays on walkable cells, sampled
// every Cell/8.
func (g *Grid) clear(a, b pt) bool {
	l := math.Hypot(b.x-a.x, b.z-a.z)
	n := int(math.Ceil(l/(g.Cell/8))) + 1
	for s := 0; s <= n; s++ {
		t := float64(s) / float64(n)
		if !g.Walkable(a.x+t*(b.x-a.x), a.z+t*(b.z-a.z)) {
			return false
		}
	}
	return true
}

// Length is the length of a path.
func Length(path [][2]float64) float64 {
	l := 0.0
	for i := 1; i < len(path); i++ {
		l += math.Hypot(path[i][0]-path[i-1][0], path[i][1]-path[i-1][1])
	}
	return l
}

// hull is the convex hull of ps (Andrew's monotone chain),
// counter-clockwise seen with x right and z up; fewer than three points
// when they are collinear.
func hull(ps []pt) []pt {
	ps = append([]pt{}, ps...)
	sort.Slice(ps, func(a, b int) bool {
		if ps[a].x != ps[b].x {
			return ps[a].x < ps[b].x
		}
		return ps[a].z < ps[b].z
	})
	crossZ := func(o, a, b pt) float64 { return (a.x-o.x)*(b.z-o.z) - (a.z-o.z)*(b.x-o.x) }
	var h []pt
	for _, half := range [2]bool{false, true} {
		start := len(h)
		for k := range ps {
			p := ps[k]
			if half {
				p = ps[len(ps)-1-k]
			}
			for len(h) >= start+2 && crossZ(h[len(h)-2], h[len(h)-1], p) <= 1e-12 {
				h = h[:len(h)-1]
			}
			h = append(h, p)
		}
		h = h[:len(h)-1]
	}
	if len(h) == 0 && len(ps) > 0 {
		h = ps[:1]
	}
	return h
}

// inside reports whether c is inside the convex polygon h (on its edge
// counts); a polygon of fewer than three points has no inside.
func inside(h []pt, c pt) bool {
	if len(h) < 3 {
		return false
	}
	for k := range h {
		a, b := h[k], h[(k+1)%len(h)]
		if (b.x-a.x)*(c.z-a.z)-(b.z-a.z)*(c.x-a.x) < 0 {
			return false
		}
	}
	return true
}

// edgeDist is the distance from c to the nearest edge of h.
func edgeDist(h []pt, c pt) float64 {
	d := math.Inf(1)
	for k := range h {
		d = math.Min(d, segDist(h[k], h[(k+1)%len(h)], c))
	}
	return d
}

// dist is the distance from c to the convex polygon h (0 inside it).
func dist(h []pt, c pt) float64 {
	if inside(h, c) {
		return 0
	}
	return edgeDist(h, c)
}

// segDist is the distance from c to the segment a–b.
func segDist(a, b, c pt) float64 {
	dx, dz := b.x-a.x, b.z-a.z
	l2 := dx*dx + dz*dz
	t := 0.0
	if l2 > 0 {
		t = math.Max(0, math.Min(1, ((c.x-a.x)*dx+(c.z-a.z)*dz)/l2))
	}
	return math.Hypot(a.x+t*dx-c.x, a.z+t*dz-c.z)
}

// openSet is A*'s open cells, a min-heap (container/heap) ordered by f,
// then h, then cell index.
type openSet []item

type item struct {
	f, h float64
	k    int
}

func (q openSet) Len() int { return len(q) }

func (q openSet) Less(a, b int) bool {
	if q[a].f != q[b].f {
		return q[a].f < q[b].f
	}
	if q[a].h != q[b].h {
		return q[a].h < q[b].h
	}
	return q[a].k < q[b].k
}

func (q openSet) Swap(a, b int) { q[a], q[b] = q[b], q[a] }

func (q *openSet) Push(x any) { *q = append(*q, x.(item)) }

func (q *openSet) Pop() any {
	it := (*q)[len(*q)-1]
	*q = (*q)[:len(*q)-1]
	return it
}
