// Package geom is the small vector and quaternion arithmetic the harness
// shares (the contract's XR steps, the navigation mesh): quaternions are
// [x, y, z, w], as three.js and WebXR write them.
package geom

// Rotate turns v by the unit quaternion q [x, y, z, w]:
// v' = v + 2w(u×v) + 2u×(u×v), u = q's vector part.
func Rotate(q [4]float64, v [3]float64) [3]float64 {
	u := [3]float64{q[0], q[1], q[2]}
	c := Cross(u, v)
	cc := Cross(u, c)
	return [3]float64{v[0] + 2*(q[3]*c[0]+cc[0]), v[1] + 2*(q[3]*c[1]+cc[1]), v[2] + 2*(q[3]*c[2]+cc[2])}
}

// Cross is the cross product a × b.
func Cross(a, b [3]float64) [3]float64 {
	return [3]float64{a[1]*b[2] - a[2]*b[1], a[2]*b[0] - a[0]*b[2], a[0]*b[1] - a[1]*b[0]}
}
