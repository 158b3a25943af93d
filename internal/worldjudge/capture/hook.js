// worldprobe world judge: camera poses for wide views. Runs after the page
// runtime and before any script of the page (a session prelude). It wraps
// every three.js renderer's render, as the runtime does, through the same
// __THREE_DEVTOOLS__ "observe" event: while a pose is set, a render to the
// screen puts the camera at the pose, looking at its target, and puts the
// camera back after the call, so the page's own controls and state never
// see the pose. window.__wj is the harness's handle.
(() => {
  const devtools = window.__THREE_DEVTOOLS__;
  if (!devtools || typeof devtools.addEventListener !== 'function') return;
  let pose = null;
  let last = null;
  const wrap = (r) => {
    const inner = r.render;
    if (typeof inner !== 'function') return;
    try {
      Object.defineProperty(r, 'render', {
        configurable: true, writable: true,
        value: function render(scene, camera) {
          let saved = null;
          const toScreen = !(typeof this.getRenderTarget === 'function' && this.getRenderTarget());
          if (camera && camera.isCamera && toScreen) {
            last = camera;
            if (pose && camera.position && camera.quaternion && typeof camera.lookAt === 'function') {
              saved = [camera.position.clone(), camera.quaternion.clone(), camera.up.clone()];
              camera.position.set(pose[0], pose[1], pose[2]);
              camera.up.set(0, 1, 0);
              camera.lookAt(pose[3], pose[4], pose[5]);
              camera.updateMatrixWorld(true);
            }
          }
          try {
            return inner.apply(this, arguments);
          } finally {
            if (saved) {
              camera.position.copy(saved[0]);
              camera.quaternion.copy(saved[1]);
              camera.up.copy(saved[2]);
              camera.updateMatrixWorld(true);
            }
          }
        },
      });
    } catch (e) { /* a renderer that froze its render keeps it */ }
  };
  devtools.addEventListener('observe', (e) => {
    const o = e.detail;
    if (o && typeof o === 'object' && typeof o.render === 'function' && o.domElement) wrap(o);
  });
  const api = Object.freeze({
    setPose: (p) => { pose = Array.from(p).slice(0, 6).map(Number); return pose.every(Number.isFinite); },
    clearPose: () => { pose = null; },
    camera: () => {
      if (!last || !last.matrixWorld) return 'null';
      const e = last.matrixWorld.elements;
      return JSON.stringify({ position: [e[12], e[13], e[14]], forward: [-e[8], -e[9], -e[10]], fov: typeof last.fov === 'number' ? last.fov : null });
    },
  });
  try { Object.defineProperty(window, '__wj', { value: api, writable: false, configurable: false, enumerable: false }); } catch (e) { /* taken */ }
})();
