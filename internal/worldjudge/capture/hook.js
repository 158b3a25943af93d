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
  // A read armed for the next drawn frame: each render to the screen in
  // it reads the drawing buffer back right after drawing (in the same
  // task, so a buffer that is not preserved is still there); the last
  // one wins.
  let readArmed = false;
  let read = null;
  // A light probe armed for the next drawn frame: the mean luma of the
  // lit pixels (brighter than voidMax in some channel) of the right 80 %
  // of the drawing buffer, every 4th pixel each way, read right after the
  // render to the screen (the day length's samples; see lightProbe).
  let lumaArmed = null;
  let luma = -1;
  // pixelsOf reads renderer r's whole drawing buffer back (rows bottom up).
  const pixelsOf = (r) => {
    const gl = r.getContext();
    const w = gl.drawingBufferWidth, h = gl.drawingBufferHeight;
    const px = new Uint8Array(w * h * 4);
    gl.readPixels(0, 0, w, h, gl.RGBA, gl.UNSIGNED_BYTE, px);
    return { w, h, px };
  };
  const lightProbe = (r) => {
    try {
      const { w, h, px } = pixelsOf(r);
      let sum = 0, n = 0;
      for (let y = 0; y < h; y += 4) {
        for (let x = Math.ceil(w * 0.2); x < w; x += 4) {
          const i = (y * w + x) * 4, R = px[i], G = px[i + 1], B = px[i + 2];
          if (Math.max(R, G, B) > lumaArmed) { sum += 0.299 * R + 0.587 * G + 0.114 * B; n++; }
        }
      }
      luma = n ? sum / n : 0;
    } catch (e) { luma = -1; }
  };
  const readBack = (r) => {
    try {
      read = { canvas: r.domElement, ...pixelsOf(r) };
    } catch (e) { read = { error: String(e) }; }
  };
  // takeRead returns the armed read as {w, h, rgb} (base64, rows top
  // down), or {reason} when a screenshot of the canvas could show other
  // pixels: no read, another size than the canvas's box, a pixel not
  // opaque, a CSS effect on the canvas or an ancestor, or another visible
  // element over it.
  const takeRead = () => {
    readArmed = false;
    const rd = read;
    read = null;
    if (!rd) return JSON.stringify({ reason: 'no render to the screen in the drawn frame' });
    if (rd.error) return JSON.stringify({ reason: 'readPixels failed: ' + rd.error });
    const c = rd.canvas;
    if (!c || !c.isConnected) return JSON.stringify({ reason: 'the canvas is not in the document' });
    const b = c.getBoundingClientRect();
    if (b.width !== rd.w || b.height !== rd.h || b.left < 0 || b.top < 0 || b.right > innerWidth || b.bottom > innerHeight) {
      return JSON.stringify({ reason: 'the canvas box is not its drawing buffer within the viewport' });
    }
    for (let el = c; el && el.nodeType === 1; el = el.parentElement) {
      const cs = getComputedStyle(el);
      if (cs.opacity !== '1' || cs.filter !== 'none' || cs.mixBlendMode !== 'normal' || (el === c && (cs.transform !== 'none' || cs.visibility !== 'visible'))) {
        return JSON.stringify({ reason: 'a CSS effect on the canvas' });
      }
    }
    for (const el of document.querySelectorAll('body *, body')) {
      if (el === c || el.contains(c) || el === document.body) continue;
      const cs = getComputedStyle(el);
      if (cs.visibility !== 'visible' || cs.display === 'none') continue;
      const r = el.getBoundingClientRect();
      if (r.width > 0 && r.height > 0 && r.left < b.right && r.right > b.left && r.top < b.bottom && r.bottom > b.top) {
        return JSON.stringify({ reason: 'another element is visible over the canvas' });
      }
    }
    const { w, h, px } = rd;
    const rgb = new Uint8Array(w * h * 3);
    for (let y = 0; y < h; y++) {
      let i = (h - 1 - y) * w * 4, o = y * w * 3;
      for (let x = 0; x < w; x++, i += 4, o += 3) {
        if (px[i + 3] !== 255) return JSON.stringify({ reason: 'the canvas is not opaque' });
        rgb[o] = px[i]; rgb[o + 1] = px[i + 1]; rgb[o + 2] = px[i + 2];
      }
    }
    let s = '';
    for (let i = 0; i < rgb.length; i += 0x8000) s += String.fromCharCode.apply(null, rgb.subarray(i, i + 0x8000));
    return JSON.stringify({ w, h, rgb: btoa(s) });
  };
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
            const out = inner.apply(this, arguments);
            if (readArmed && toScreen && camera && camera.isCamera) readBack(this);
            if (lumaArmed !== null && toScreen && camera && camera.isCamera) lightProbe(this);
            return out;
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
    armRead: () => { readArmed = true; read = null; return true; },
    armLuma: (voidMax) => { lumaArmed = Number(voidMax) || 0; luma = -1; return true; },
    takeLuma: () => { lumaArmed = null; return luma; },
    takeRead,
    camera: () => {
      if (!last || !last.matrixWorld) return 'null';
      const e = last.matrixWorld.elements;
      return JSON.stringify({ position: [e[12], e[13], e[14]], forward: [-e[8], -e[9], -e[10]], fov: typeof last.fov === 'number' ? last.fov : null });
    },
  });
  try { Object.defineProperty(window, '__wj', { value: api, writable: false, configurable: false, enumerable: false }); } catch (e) { /* taken */ }
})();
