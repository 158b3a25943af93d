// worldprobe's hand gestures for IWER (package xr, Prelude). IWER 2.5
// ships three hand poses (default: a relaxed hand, pinch, point); a pose
// is the offset matrix (4×4, column-major, in the hand's target-ray frame)
// and radius of each of the 25 WebXR hand joints, for the left hand (IWER
// mirrors it for the right). The gestures below are derived here from the
// relaxed hand, keeping its bone lengths, knuckles and radii:
//
//   open-palm  every finger straight in the plane of the palm, the thumb
//              straight along its proximal phalanx;
//   fist       the fingers curled (85°, 100°, 65° at the three knuckles,
//              towards the palm) and the thumb folded across them (30°, 60°);
//   thumbs-up  the fist with the thumb straight, turned so that the thumb
//              points +y of the hand's frame;
//   palm-up    the open palm turned so that the palm faces +y and the
//              fingers point -z of the hand's frame.
//
// WebXR's joint frames: -z runs along the bone towards the fingertip and
// -y leaves the palm side of the skin, so a finger curls towards the palm
// by turning about its joint's x axis by a negative angle.
//
// The expression is a function of the device; it adds the gestures to the
// pose table both hands share, and returns their names.
(function (device) {
  const FINGERS = ['index-finger', 'middle-finger', 'ring-finger', 'pinky-finger'];
  const CHAIN = ['metacarpal', 'phalanx-proximal', 'phalanx-intermediate', 'phalanx-distal', 'tip'];
  const THUMB = ['thumb-metacarpal', 'thumb-phalanx-proximal', 'thumb-phalanx-distal', 'thumb-tip'];
  const deg = Math.PI / 180;

  const add = (a, b) => [a[0] + b[0], a[1] + b[1], a[2] + b[2]];
  const sub = (a, b) => [a[0] - b[0], a[1] - b[1], a[2] - b[2]];
  const scale = (a, k) => [a[0] * k, a[1] * k, a[2] * k];
  const dot = (a, b) => a[0] * b[0] + a[1] * b[1] + a[2] * b[2];
  const cross = (a, b) => [a[1] * b[2] - a[2] * b[1], a[2] * b[0] - a[0] * b[2], a[0] * b[1] - a[1] * b[0]];
  const norm = (a) => scale(a, 1 / Math.hypot(a[0], a[1], a[2]));

  // A frame is {x, y, z, p}: its axes and origin in the hand's frame.
  const frameOf = (m) => ({ x: [m[0], m[1], m[2]], y: [m[4], m[5], m[6]], z: [m[8], m[9], m[10]], p: [m[12], m[13], m[14]] });
  const matrixOf = (f) => [...f.x, 0, ...f.y, 0, ...f.z, 0, ...f.p, 1];
  // turnX turns a frame's axes about its own x axis by angle a (radians).
  const turnX = (f, a) => {
    const c = Math.cos(a), s = Math.sin(a);
    return { x: f.x, y: add(scale(f.y, c), scale(f.z, s)), z: sub(scale(f.z, c), scale(f.y, s)), p: f.p };
  };
  // orthonormal is f with its axes made exactly orthonormal (IWER's are so
  // to float32 precision only), keeping z's direction.
  const orthonormal = (f) => {
    const z = norm(f.z), y = norm(sub(f.y, scale(z, dot(f.y, z))));
    return { x: cross(y, z), y, z, p: f.p };
  };
  // apply multiplies the 3×3 matrix r (rows) with v.
  const apply = (r, v) => [dot(r[0], v), dot(r[1], v), dot(r[2], v)];
  const turnFrame = (r, f) => ({ x: apply(r, f.x), y: apply(r, f.y), z: apply(r, f.z), p: apply(r, f.p) });
  // basisTurn is the rotation taking the orthonormal a0, a1 to b0, b1.
  const basisTurn = (a0, a1, b0, b1) => {
    const a2 = cross(a0, a1), b2 = cross(b0, b1);
    // R = B · Aᵀ, with the vectors as columns.
    const row = (i) => [
      b0[i] * a0[0] + b1[i] * a1[0] + b2[i] * a2[0],
      b0[i] * a0[1] + b1[i] * a1[1] + b2[i] * a2[1],
      b0[i] * a0[2] + b1[i] * a1[2] + b2[i] * a2[2],
    ];
    return [row(0), row(1), row(2)];
  };
  // shortestTurn is the smallest rotation taking unit u to unit v.
  const shortestTurn = (u, v) => {
    const axis = cross(u, v), s = Math.hypot(axis[0], axis[1], axis[2]), c = dot(u, v);
    if (s < 1e-9) return c > 0 ? [[1, 0, 0], [0, 1, 0], [0, 0, 1]] : [[1, 0, 0], [0, -1, 0], [0, 0, -1]];
    const k = scale(axis, 1 / s), t = 1 - c;
    return [
      [c + k[0] * k[0] * t, k[0] * k[1] * t - k[2] * s, k[0] * k[2] * t + k[1] * s],
      [k[1] * k[0] * t + k[2] * s, c + k[1] * k[1] * t, k[1] * k[2] * t - k[0] * s],
      [k[2] * k[0] * t - k[1] * s, k[2] * k[1] * t + k[0] * s, c + k[2] * k[2] * t],
    ];
  };

  // chain lays out joints from the frame start: each following joint is
  // the bone length further along -z of the one before, its frame turned
  // about x by the next of angles (0 when there are no more).
  const chain = (frames, names, lengths, start, angles) => {
    let f = start;
    frames[names[0]] = f;
    for (let i = 1; i < names.length; i++) {
      const p = add(f.p, scale(f.z, -lengths[i - 1]));
      f = turnX({ x: f.x, y: f.y, z: f.z, p }, -(angles[i] || 0) * deg);
      frames[names[i]] = f;
    }
  };
  const lengthsOf = (frames, names) => names.slice(1).map((n, i) => Math.hypot(...sub(frames[n].p, frames[names[i]].p)));

  // derive builds a pose from the relaxed frames: fingerCurl and thumbCurl
  // are the knuckle angles in degrees (null: as relaxed).
  const derive = (relaxed, fingerCurl, thumbCurl) => {
    const out = {};
    for (const [n, f] of Object.entries(relaxed)) out[n] = f;
    for (const finger of FINGERS) {
      const names = CHAIN.map((c) => finger + '-' + c);
      const meta = relaxed[names[0]], prox = relaxed[names[1]];
      // The finger straight: its proximal direction without the part
      // across the palm.
      const dp = scale(prox.z, -1);
      const d = norm(sub(dp, scale(meta.y, dot(dp, meta.y))));
      const y = norm(sub(meta.y, scale(d, dot(meta.y, d))));
      const z = scale(d, -1);
      const straight = { x: cross(y, z), y, z, p: prox.p };
      const lengths = lengthsOf(relaxed, names.slice(1));
      chain(out, names.slice(1), lengths, turnX(straight, -fingerCurl[0] * deg), [0, fingerCurl[1], fingerCurl[2], 0]);
    }
    const thumb = THUMB.slice(1);
    const lengths = lengthsOf(relaxed, thumb);
    chain(out, thumb, lengths, turnX(orthonormal(relaxed[thumb[0]]), -thumbCurl[0] * deg), [0, thumbCurl[1], 0]);
    return out;
  };

  // A device without tracked hands gets no gestures (a gesture step then
  // fails naming the pose the headset lacks).
  const left = device.hands && device.hands.left;
  if (!left) return [];
  const k = Object.getOwnPropertySymbols(left).find((s) => s.description === '@iwer/xr-hand-input');
  const poses = k ? left[k].poses : null;
  if (!poses || !poses.default) return [];
  const base = poses.default;
  const relaxed = {};
  for (const [n, j] of Object.entries(base.jointTransforms)) relaxed[n] = frameOf(j.offsetMatrix);
  const grip = base.gripOffsetMatrix ? frameOf(base.gripOffsetMatrix) : null;

  const pose = (frames, turn) => {
    const jointTransforms = {};
    for (const [n, f] of Object.entries(frames)) {
      jointTransforms[n] = { offsetMatrix: matrixOf(turn ? turnFrame(turn, f) : f), radius: base.jointTransforms[n].radius };
    }
    const out = { jointTransforms };
    if (grip) out.gripOffsetMatrix = matrixOf(turn ? turnFrame(turn, grip) : grip);
    return out;
  };

  const open = derive(relaxed, [0, 0, 0], [0, 0]);
  const fist = derive(relaxed, [85, 100, 65], [30, 60]);
  const thumbsUp = derive(relaxed, [85, 100, 65], [0, 0]);
  const thumbDir = norm(sub(thumbsUp['thumb-tip'].p, thumbsUp['thumb-metacarpal'].p));
  const wrist = relaxed.wrist;
  const palmNormal = norm(scale(wrist.y, -1)); // IWER's axes are unit to float32 precision only
  const fingerDir = norm(sub(scale(wrist.z, -1), scale(palmNormal, dot(scale(wrist.z, -1), palmNormal))));

  const added = {
    'open-palm': pose(open),
    'fist': pose(fist),
    'thumbs-up': pose(thumbsUp, shortestTurn(thumbDir, [0, 1, 0])),
    'palm-up': pose(open, basisTurn(palmNormal, fingerDir, [0, 1, 0], [0, 0, -1])),
  };
  for (const [n, p] of Object.entries(added)) poses[n] = p;
  return Object.keys(added);
})
