package xr

import (
	"encoding/json"
	"strings"

	"github.com/worldprobe/worldprobe/internal/target"
)

// The joints of IWER's tracked hands, read and shaped one by one (the
// contract's {joint: …} targets and setHandPose). IWER 2.5 keeps a hand
// pose as the offset matrix (4×4, column-major) of each of the 25 WebXR
// joints in the hand's target-ray frame, for the left hand; the right
// hand's are the left's mirrored (XRHandInput's mirrorMatrixToRight:
// M → S·M·S with S = diag(−1, 1, 1), the translation's x negated). Both
// hands share one table of poses, named by id.

// PosePrefix starts the id of the pose setHandPose builds for a hand
// ("__wp-pose-right"), kept in the shared table beside IWER's.
const PosePrefix = "__wp-pose-"

// JointPoseJS reads where a joint of hand a.hand is, given a = {hand,
// joint}, with d the device and priv its private-state reader: {v: {p:
// [x, y, z], q: [x, y, z, w]}} in the device's global (local-floor) space,
// the hand's pose (its target-ray space) composed with the joint's offset
// as IWER recomputes it from the hand's pose id and pinch, which is what
// the page's next XR frame reports.
const JointPoseJS = `if (d.primaryInputMode === 'controller') return {err: 'the ' + a.hand + ' hand is a controller: it has no joints'};
const h = d.hands[a.hand];
if (!h) return {err: 'no ' + a.hand + ' hand'};
h.updateHandPose();
const j = h.inputSource.hand.get(a.joint);
if (!j) return {err: 'the ' + a.hand + ' hand has no joint ' + a.joint};
const m = (priv(j, '@iwer/xr-space') || {}).offsetMatrix;
if (!m) return {err: 'the headset does not expose the ' + a.hand + ' hand\'s ' + a.joint};
` + quatJS + `
const hq = [h.quaternion.x, h.quaternion.y, h.quaternion.z, h.quaternion.w];
const t = rot(hq, [m[12], m[13], m[14]]);
return {v: {p: [h.position.x + t[0], h.position.y + t[1], h.position.z + t[2]], q: qmul(hq, quatOf(m))}};`

// HandPoseJS shapes hand a.hand joint by joint, given a = {hand,
// rotations: {JOINT: [x, y, z, w]}}: each named joint's rotation relative
// to its parent (the wrist's: to the hand's frame) becomes the one given,
// every other joint keeps its rotation relative to its parent in the
// hand's current pose, and every joint keeps its offset in its parent's
// frame (the bones their lengths). The result is a new pose,
// PosePrefix+hand, stored in the left hand's form, and the hand takes it.
var HandPoseJS = `d.primaryInputMode = 'hand';
const h = d.hands[a.hand];
if (!h) return {err: 'no ' + a.hand + ' hand'};
const st = priv(h, '@iwer/xr-hand-input');
if (!st || !st.poses || !st.poses[st.poseId]) return {err: 'the headset does not expose the ' + a.hand + ' hand\'s pose'};
const cur = st.poses[st.poseId];
const JOINTS = ` + mustJSON(target.HandJoints) + `, PARENT = ` + mustJSON(jointParents()) + `;
const MIRROR = [1, -1, -1, 0, -1, 1, 1, 0, -1, 1, 1, 0, -1, 1, 1, 1];
const right = h.inputSource.handedness === 'right';
const side = (m) => Array.from(m, (v, i) => (right ? v * MIRROR[i] : v));
const I = [1, 0, 0, 0, 0, 1, 0, 0, 0, 0, 1, 0, 0, 0, 0, 1];
const mul = (x, y) => { const o = new Array(16); for (let c = 0; c < 4; c++) for (let r = 0; r < 4; r++) { let s = 0; for (let k = 0; k < 4; k++) s += x[k * 4 + r] * y[c * 4 + k]; o[c * 4 + r] = s; } return o; };
const inv = (m) => { const o = [m[0], m[4], m[8], 0, m[1], m[5], m[9], 0, m[2], m[6], m[10], 0, 0, 0, 0, 1];
  for (let r = 0; r < 3; r++) o[12 + r] = -(o[r] * m[12] + o[4 + r] * m[13] + o[8 + r] * m[14]); return o; };
const fromQT = (q, t) => { const [x, y, z, w] = q;
  return [1 - 2 * (y * y + z * z), 2 * (x * y + z * w), 2 * (x * z - y * w), 0,
          2 * (x * y - z * w), 1 - 2 * (x * x + z * z), 2 * (y * z + x * w), 0,
          2 * (x * z + y * w), 2 * (y * z - x * w), 1 - 2 * (x * x + y * y), 0, t[0], t[1], t[2], 1]; };
const was = {}, now = {};
for (const n of JOINTS) { if (!cur.jointTransforms[n]) return {err: 'the ' + a.hand + ' hand\'s pose has no joint ' + n}; was[n] = side(cur.jointTransforms[n].offsetMatrix); }
for (const n of JOINTS) {
  const p = PARENT[n];
  let L = mul(inv(p ? was[p] : I), was[n]);
  if (Object.prototype.hasOwnProperty.call(a.rotations, n)) L = fromQT(a.rotations[n], [L[12], L[13], L[14]]);
  now[n] = mul(p ? now[p] : I, L);
}
const jointTransforms = {};
for (const n of JOINTS) jointTransforms[n] = { offsetMatrix: side(now[n]), radius: cur.jointTransforms[n].radius };
const id = '` + PosePrefix + `' + a.hand;
const pose = { jointTransforms };
if (cur.gripOffsetMatrix) pose.gripOffsetMatrix = cur.gripOffsetMatrix;
st.poses[id] = pose;
h.poseId = id;
return {};`

// quatJS defines rot (turn a vector by a quaternion), qmul (Hamilton
// product) and quatOf (the unit quaternion of a column-major matrix's
// rotation, w >= 0).
const quatJS = `const rot = (q, v) => { const [x, y, z, w] = q;
  const c = [y * v[2] - z * v[1], z * v[0] - x * v[2], x * v[1] - y * v[0]];
  const cc = [y * c[2] - z * c[1], z * c[0] - x * c[2], x * c[1] - y * c[0]];
  return [v[0] + 2 * (w * c[0] + cc[0]), v[1] + 2 * (w * c[1] + cc[1]), v[2] + 2 * (w * c[2] + cc[2])]; };
const qmul = (a, b) => [a[3] * b[0] + a[0] * b[3] + a[1] * b[2] - a[2] * b[1], a[3] * b[1] - a[0] * b[2] + a[1] * b[3] + a[2] * b[0],
  a[3] * b[2] + a[0] * b[1] - a[1] * b[0] + a[2] * b[3], a[3] * b[3] - a[0] * b[0] - a[1] * b[1] - a[2] * b[2]];
const quatOf = (m) => { const m00 = m[0], m11 = m[5], m22 = m[10], tr = m00 + m11 + m22; let q;
  if (tr > 0) { const s = Math.sqrt(tr + 1) * 2; q = [(m[6] - m[9]) / s, (m[8] - m[2]) / s, (m[1] - m[4]) / s, s / 4]; }
  else if (m00 > m11 && m00 > m22) { const s = Math.sqrt(1 + m00 - m11 - m22) * 2; q = [s / 4, (m[4] + m[1]) / s, (m[8] + m[2]) / s, (m[6] - m[9]) / s]; }
  else if (m11 > m22) { const s = Math.sqrt(1 + m11 - m00 - m22) * 2; q = [(m[4] + m[1]) / s, s / 4, (m[9] + m[6]) / s, (m[8] - m[2]) / s]; }
  else { const s = Math.sqrt(1 + m22 - m00 - m11) * 2; q = [(m[8] + m[2]) / s, (m[9] + m[6]) / s, s / 4, (m[1] - m[4]) / s]; }
  const n = Math.hypot(q[0], q[1], q[2], q[3]) * (q[3] < 0 ? -1 : 1); return q.map((c) => c / n); };`

// jointParents maps each joint to its parent ("" for the wrist).
func jointParents() map[string]string {
	out := map[string]string{}
	for _, j := range target.HandJoints {
		out[j] = target.JointParent(j)
	}
	return out
}

func mustJSON(v any) string {
	b, err := json.Marshal(v)
	if err != nil {
		panic(err)
	}
	return strings.ReplaceAll(string(b), "`", "")
}
