// worldprobe's XR Blocks backend, in the page (see xrblocks.go). It runs
// before the page's scripts: it sets XR Blocks' automation and debug flags
// in the URL, follows window.xbReady, and gives the harness, at the
// non-enumerable, non-writable window.__wpXRB, the actions of contract.XR
// over XR Blocks' simulator and its EmbodiedControl addon. Nothing here
// steps a frame: the page's own animation loop, on worldprobe's virtual
// clock, is XR Blocks' only clock.
(function () {
  if (window !== window.top || Object.prototype.hasOwnProperty.call(window, '__wpXRB')) return;
  try {
    const q = new URLSearchParams(location.search);
    if (q.get('xrAutomation') !== '1' || q.get('debug') !== '1') {
      q.set('xrAutomation', '1');
      q.set('debug', '1');
      history.replaceState(history.state, '', location.pathname + '?' + q.toString() + location.hash);
    }
  } catch (e) { /* the state says the flags are missing */ }

  // XR Blocks always imports its simulator UI, which imports lit. An
  // import map that does not map lit, or maps it to a URL nothing serves
  // offline (XR Blocks' templates use GitHub's lit/dist), makes that import
  // fail after its module was served; the harness never hears it compiled
  // and waits out its idle allowance on every load. The app's import map is
  // therefore given the vendored lit (esm.sh's layout, which the resolver
  // serves whole) before the parser reads it.
  const LIT = { lit: 'https://esm.sh/lit@3.3.3', 'lit/': 'https://esm.sh/lit@3.3.3/' };
  // XR Blocks' UI (UICard, UIText, UIButton) loads its UIKit backend on the
  // first card; that backend imports @pmndrs/uikit, whose ES modules import
  // the bare specifiers below (and three/src/, three/examples/jsm/). A map
  // that leaves one out fails that import the same way, and no card is
  // drawn. Each one the app's map does not name is added, at the version
  // vendored in web/package.json, as a file on jsDelivr's npm layout (raw
  // files: every bare import of theirs goes through this same map, so one
  // three and one @preact/signals-core). What the app maps is kept.
  const NPM = 'https://cdn.jsdelivr.net/npm/';
  const UI = {
    '@pmndrs/uikit': NPM + '@pmndrs/uikit@1.0.76/dist/index.js',
    '@pmndrs/uikit-pub-sub': NPM + '@pmndrs/uikit-pub-sub@1.0.76/dist/index.js',
    '@pmndrs/msdfonts': NPM + '@pmndrs/msdfonts@1.0.76/dist/index.js',
    '@pmndrs/msdfonts/inter': NPM + '@pmndrs/msdfonts@1.0.76/dist/inter.js',
    '@preact/signals-core': NPM + '@preact/signals-core@1.14.5/dist/signals-core.mjs',
    'yoga-layout': NPM + 'yoga-layout@3.2.1/dist/src/index.js',
    'yoga-layout/load': NPM + 'yoga-layout@3.2.1/dist/src/load.js',
    zod: NPM + 'zod@4.6.7/index.js',
    '@zappar/msdf-generator': NPM + '@zappar/msdf-generator@1.2.4/dist/index.js',
    comlink: NPM + 'comlink@4.4.2/dist/esm/comlink.mjs',
  };
  // three/ is the folder of the app's own three when its map gives the
  // build file (…/build/three.module.js), else the three XR Blocks 0.21.1
  // is built for.
  const threeRoot = (m) => {
    const t = typeof m.three === 'string' ? m.three : '';
    const i = t.lastIndexOf('/build/three.module');
    return i > 0 ? t.slice(0, i + 1) : NPM + 'three@0.184.0/';
  };
  try {
    const mo = new MutationObserver((records) => {
      for (const r of records) {
        for (const n of r.addedNodes) {
          if (n.nodeName !== 'SCRIPT' || n.type !== 'importmap') continue;
          try {
            const m = JSON.parse(n.textContent);
            if (!m || typeof m !== 'object') continue;
            const imports = Object.assign({}, m.imports || {}, LIT);
            for (const k of Object.keys(UI)) if (!(k in imports)) imports[k] = UI[k];
            if (!('three/' in imports)) imports['three/'] = threeRoot(imports);
            m.imports = imports;
            n.textContent = JSON.stringify(m);
          } catch (e) { /* a broken map fails as the page wrote it */ }
        }
      }
    });
    mo.observe(document, { childList: true, subtree: true });
    document.addEventListener('DOMContentLoaded', () => mo.disconnect(), { once: true });
  } catch (e) { /* no observer: the page's map as written */ }

  const POSES = { default: 'relaxed', point: 'pointing', pinch: 'pinching', fist: 'fist', 'thumbs-up': 'thumbs_up', 'open-palm': 'neutral' };
  const h = { state: 'pending', error: '', ec: null, loading: null };
  const watch = () => {
    const p = window.xbReady;
    if (!p || typeof p.then !== 'function') {
      h.state = 'absent';
      h.error = 'window.xbReady is not defined after the page\'s modules ran: not an XR Blocks app, or an XR Blocks older than 0.21 (no ?debug=1 globals)';
      return;
    }
    p.then(() => { h.state = 'ready'; }, (e) => { h.state = 'failed'; h.error = String((e && e.message) || e); });
  };
  document.addEventListener('DOMContentLoaded', watch, { once: true });

  const core = () => window.xb.core;
  const sim = () => core().simulator;
  const idx = (hand) => (hand === 'left' ? 0 : hand === 'right' ? 1 : -1);
  const THREE = () => h.THREE;

  // status is where XR Blocks is: pending (xbReady not settled), ready,
  // failed (xbReady rejected: error), absent.
  h.status = () => ({ state: h.state, error: h.error, control: !!h.ec });

  // init loads EmbodiedControl from the page's own import map (the same
  // xrblocks and three instances as the app) once xbReady has resolved,
  // switches the simulator to its hands mode and keeps the core running on
  // the page's animation loop (autoPause: false).
  h.init = () => {
    if (h.ec) return Promise.resolve(h.status());
    if (h.state !== 'ready') return Promise.resolve(h.status());
    if (!h.loading) {
      h.loading = (async () => {
        let url = 'xrblocks/addons/embodied-control/index.js';
        let mod;
        try {
          mod = await import(url);
        } catch (e) {
          // An import map without xrblocks/addons/: next to xrblocks.js.
          const map = document.querySelector('script[type=importmap]');
          const base = map && JSON.parse(map.textContent).imports.xrblocks;
          if (!base) throw e;
          url = new URL('addons/embodied-control/index.js', new URL(base.replace(/[^/]*$/, ''), location.href)).href;
          mod = await import(url);
        }
        const three = await import('three');
        h.THREE = three;
        const c = core();
        if (!c.simulatorRunning || !c.simulator) throw new Error('the XR Blocks simulator is not running (the app runs outside the simulator)');
        const ec = new mod.EmbodiedControl({ autoPause: false });
        ec.init({ core: c, camera: c.camera });
        await ec.ready;
        if (!ec.executor) throw new Error('EmbodiedControl did not start (no simulator)');
        try { c.simulator.controls.setSimulatorMode('Hands'); } catch (e) { /* the mode is the keyboard's only */ }
        h.ec = ec;
      })().catch((e) => { h.state = 'failed'; h.error = 'loading EmbodiedControl: ' + String((e && e.message) || e); });
    }
    return h.loading.then(() => h.status());
  };

  const need = () => {
    if (!h.ec) throw new Error('XR Blocks is not ready (' + h.state + (h.error ? ': ' + h.error : '') + ')');
  };
  const camera = () => core().camera;
  const controller = (i) => core().input.controllers[i];

  // pose places the head (camera) or a hand (its simulated controller) at
  // a world position and orientation; hands are kept camera-relative, as
  // the simulator keeps them.
  h.pose = (device, p, q) => {
    need();
    const T = THREE(), cam = camera();
    if (device === 'head') {
      cam.position.set(p[0], p[1], p[2]);
      if (q) cam.quaternion.set(q[0], q[1], q[2], q[3]);
      cam.updateMatrixWorld(true);
      return {};
    }
    const i = idx(device);
    if (i < 0) return { err: 'the XR Blocks backend has no device ' + device + ' (head, left, right)' };
    cam.updateMatrixWorld(true);
    const st = sim().simulatorControllerState;
    st.localControllerPositions[i].copy(new T.Vector3(p[0], p[1], p[2]).applyMatrix4(cam.matrixWorld.clone().invert()));
    if (q) st.localControllerOrientations[i].copy(cam.quaternion.clone().invert().multiply(new T.Quaternion(q[0], q[1], q[2], q[3])));
    return {};
  };

  // poseOf is where a device will be on the next frame.
  h.poseOf = (device) => {
    need();
    const T = THREE(), cam = camera();
    cam.updateMatrixWorld(true);
    if (device === 'head') {
      return { v: { p: cam.position.toArray(), q: cam.quaternion.toArray() } };
    }
    const i = idx(device);
    if (i < 0) return { err: 'the XR Blocks backend has no device ' + device + ' (head, left, right)' };
    const st = sim().simulatorControllerState;
    const p = st.localControllerPositions[i].clone().applyMatrix4(cam.matrixWorld);
    const q = st.localControllerOrientations[i].clone().premultiply(cam.quaternion);
    return { v: { p: p.toArray(), q: q.toArray() } };
  };

  const hand = (i, c) => (i === 0 ? { leftHand: c } : { rightHand: c });

  // select starts (value >= 0.5) or ends the hand's pinch through
  // EmbodiedControl.applyControl; the simulator fires selectstart/selectend
  // on the input at once and animates the fingers over the next frames.
  h.select = (which, value) => {
    need();
    const i = idx(which);
    if (i < 0) return { err: 'no hand ' + which };
    h.ec.applyControl(hand(i, value >= 0.5 ? { selectStart: true } : { selectEnd: true }));
    return {};
  };

  // gesture shapes the hand with one of the simulator's named poses.
  h.gesture = (which, pose) => {
    need();
    const i = idx(which);
    if (i < 0) return { err: 'no hand ' + which };
    if (!Object.prototype.hasOwnProperty.call(POSES, pose)) return { err: 'the XR Blocks simulator has no hand pose ' + pose + ' (it has ' + Object.keys(POSES).join(', ') + ')' };
    h.ec.applyControl(hand(i, { pose: POSES[pose] }));
    return {};
  };

  // touchOffset is the index fingertip in the frame of the hand's
  // controller (what reachTo puts on a target), as of the last frame.
  h.touchOffset = (which) => {
    need();
    const T = THREE();
    const i = idx(which);
    if (i < 0) return { err: 'no hand ' + which };
    const tip = core().input.hands[i] && core().input.hands[i].joints && core().input.hands[i].joints['index-finger-tip'];
    const c = controller(i);
    if (!tip || !c) return { err: 'the XR Blocks simulator has no ' + which + ' index fingertip' };
    c.updateMatrixWorld(true);
    const w = tip.getWorldPosition(new T.Vector3());
    return { v: w.applyMatrix4(c.matrixWorld.clone().invert()).toArray() };
  };

  // joint is where a joint of a simulated hand (core.input.hands, WebXR's
  // joint names) is in the world, as of the last frame.
  h.joint = (which, name) => {
    need();
    const T = THREE();
    const i = idx(which);
    if (i < 0) return { err: 'no hand ' + which };
    const hand = core().input.hands[i];
    const j = hand && hand.joints && hand.joints[name];
    if (!j) return { err: 'the XR Blocks simulator has no ' + which + ' ' + name + ' joint' };
    j.updateMatrixWorld(true);
    return { v: { p: j.getWorldPosition(new T.Vector3()).toArray(), q: j.getWorldQuaternion(new T.Quaternion()).toArray() } };
  };

  // handPose shapes hand which joint by joint, given rotations {JOINT:
  // [x, y, z, w]}, the joints (WebXR's 25, parents first) and each one's
  // parent ("" for the wrist): each named joint's rotation relative to its
  // parent (the wrist's: to the hand's frame, its simulated controller)
  // becomes the one given, every other joint keeps its rotation relative
  // to its parent in the shape the page saw on the last frame, and every joint keeps its
  // offset in its parent's frame (the bones their lengths). The simulator
  // keeps a hand's joints in the hand's frame (its bones, which
  // core.input.hands copies each frame); the result goes to
  // SimulatorHands.setLeftHandJoints / setRightHandJoints, which sets the
  // bones at once and eases towards them after (already there, they stay).
  h.handPose = (which, rotations, names, parents) => {
    need();
    const T = THREE();
    const i = idx(which);
    if (i < 0) return { err: 'no hand ' + which };
    const hands = sim().hands;
    const bones = hands && (i === 0 ? hands.leftHandBones : hands.rightHandBones);
    if (!bones) return { err: 'the XR Blocks simulator has no ' + which + ' hand' };
    // The shape the page saw on the last frame: the joints of
    // core.input.hands (each frame's copy of the bones, which may have
    // eased on since), each rotation as the page reads it — from the
    // joint's world matrix, in the hand's frame — since XR Blocks' own
    // joint quaternions are not of unit length (up to 1e-4 off), so their
    // matrices are not quite rotations; the ones written here are.
    const hand = core().input.hands[i];
    const seen = hand && hand.joints;
    if (!seen) return { err: 'the XR Blocks simulator has no ' + which + ' hand' };
    hand.updateWorldMatrix(true, true);
    const unhand = hand.getWorldQuaternion(new T.Quaternion()).invert();
    const was = {}, now = {};
    for (const n of names) {
      const j = seen[n];
      if (!j) return { err: 'the XR Blocks simulator\'s ' + which + ' hand has no joint ' + n };
      was[n] = { t: j.position.clone(), r: unhand.clone().multiply(j.getWorldQuaternion(new T.Quaternion())).normalize() };
    }
    for (const n of names) {
      const p = parents[n];
      let lt = was[n].t.clone(), lr = was[n].r.clone();
      if (p) {
        const ip = was[p].r.clone().invert();
        lt = lt.sub(was[p].t).applyQuaternion(ip);
        lr = ip.multiply(lr).normalize();
      }
      if (Object.prototype.hasOwnProperty.call(rotations, n)) {
        const q = rotations[n];
        lr = new T.Quaternion(q[0], q[1], q[2], q[3]).normalize();
      }
      now[n] = p ? { t: lt.applyQuaternion(now[p].r).add(now[p].t), r: now[p].r.clone().multiply(lr).normalize() } : { t: lt, r: lr };
    }
    // The bones in the simulator's own order (its HAND_JOINT_NAMES).
    const joints = bones.map((b) => (b && now[b.name] ? { t: now[b.name].t.toArray(), r: now[b.name].r.toArray(), s: [1, 1, 1] } : undefined));
    if (i === 0) hands.setLeftHandJoints(joints); else hands.setRightHandJoints(joints);
    return {};
  };

  // locomote turns the user by yaw degrees about the vertical through the
  // head and moves them by t (world metres); the hands go with the camera.
  h.locomote = (t, yaw) => {
    need();
    const T = THREE(), cam = camera();
    if (yaw) cam.quaternion.premultiply(new T.Quaternion().setFromAxisAngle(new T.Vector3(0, 1, 0), yaw * Math.PI / 180));
    const to = cam.position.clone().add(new T.Vector3(t[0], t[1], t[2]));
    sim().moveUser(to);
    cam.updateMatrixWorld(true);
    return {};
  };

  // control applies an EmbodiedControl compound control at once (no frame).
  h.control = (c) => {
    need();
    h.ec.applyControl(c);
    return {};
  };

  Object.defineProperty(window, '__wpXRB', { value: h, enumerable: false, writable: false, configurable: false });
})();
