package xr

import "strconv"

// HookGlobal is the window property that holds the XR hook's reader: what
// the page sees of the headset (state()) and the session events it was sent
// (events()), each as a JSON string. It is not enumerable, not writable and
// not configurable.
const HookGlobal = "__wpXRHook"

// MaxEvents bounds the hook's event log: a page that floods its session
// with events keeps its first MaxEvents.
const MaxEvents = 10000

// hookJS watches the page's XR sessions from inside: every session the page
// is granted (requestSession, or an offer the emulated user accepts) gets
// listeners for its input and visibility events before the page sees it,
// and its requestAnimationFrame samples the viewer and input poses each XR
// frame, as the page's own callback will see them, in the session's
// local-floor space. Plane and mesh counts (frame.detectedPlanes,
// detectedMeshes) are logged when they change.
//
// A hostile page cannot hide from it or break it: every built-in it uses
// is captured before page scripts run, the wrapped requestSession and
// offerSession are non-writable, non-configurable properties of the XR
// system's prototype and instance, the session's wrapped
// requestAnimationFrame is an own non-writable property, and the listeners
// are added first (a page listener that stops propagation runs after them).
var hookJS = `;(function () {
  'use strict';
  const G = window;
  if (G !== G.top || !G.` + DeviceGlobal + ` || Object.prototype.hasOwnProperty.call(G, '` + HookGlobal + `')) return;
  const xr = navigator.xr;
  if (!xr) return;
  const ReflectApply = Reflect.apply;
  const ObjectDefine = Object.defineProperty;
  const ObjectGetProto = Object.getPrototypeOf;
  const JSONStringify = JSON.stringify;
  const RealString = String;
  const NumberIsFinite = Number.isFinite;
  const MathRound = Math.round;
  const PromiseThen = Promise.prototype.then;
  const addListener = EventTarget.prototype.addEventListener;
  const WeakSetHas = WeakSet.prototype.has, WeakSetAdd = WeakSet.prototype.add;
  const hooked = new WeakSet();
  const wp = G.__wp;
  const frameNow = () => { try { return wp.frame(); } catch (e) { return -1; } };
  const put = (a, v) => { ObjectDefine(a, a.length, { value: v, writable: true, enumerable: true, configurable: true }); };
  const r6 = (x) => (typeof x === 'number' && NumberIsFinite(x) ? MathRound(x * 1e6) / 1e6 : null);
  const MAX = ` + strconv.Itoa(MaxEvents) + `;

  const events = [];
  let state = null; // the last session the page was granted
  function log(entry) { if (events.length < MAX) put(events, entry); }
  function inputOf(src) {
    if (!src) return { hand: '', input: '' };
    let hand = '', input = '';
    try { hand = RealString(src.handedness); input = src.hand ? 'hand' : 'controller'; } catch (e) { /* a hostile source */ }
    return { hand, input };
  }
  // pose turns an XRRigidTransform into position, orientation [x, y, z, w]
  // and forward (the transform's -Z axis: where a viewer looks).
  function pose(t) {
    const p = t.position, q = t.orientation;
    const x = q.x, y = q.y, z = q.z, w = q.w;
    return {
      position: [r6(p.x), r6(p.y), r6(p.z)],
      orientation: [r6(x), r6(y), r6(z), r6(w)],
      forward: [r6(-2 * (x * z + w * y)), r6(-2 * (y * z - w * x)), r6(-(1 - 2 * (x * x + y * y)))],
    };
  }
  function sample(st, frame) {
    const f = frameNow();
    if (f === st.sampled) return;
    st.sampled = f;
    st.frames++;
    if (!st.space) return;
    try {
      const vp = frame.getViewerPose(st.space);
      st.head = vp ? pose(vp.transform) : null;
    } catch (e) { st.head = null; }
    const inputs = [];
    try {
      const list = st.session.inputSources;
      for (let i = 0; i < list.length; i++) {
        const src = list[i];
        const io = inputOf(src);
        let p = null;
        try { p = frame.getPose(src.gripSpace || src.targetRaySpace, st.space); } catch (e) { p = null; }
        put(inputs, { hand: io.hand, input: io.input, tracked: !!p, position: p ? pose(p.transform).position : null });
      }
    } catch (e) { /* no input sources */ }
    st.inputs = inputs;
    for (let i = 0; i < 2; i++) {
      const kind = i === 0 ? 'planes' : 'meshes';
      let n = -1;
      try {
        const set = kind === 'planes' ? frame.detectedPlanes : frame.detectedMeshes;
        if (set && typeof set.size === 'number') n = set.size;
      } catch (e) { n = -1; }
      if (n >= 0 && n !== st[kind]) { st[kind] = n; log({ type: kind + 'change', hand: '', input: '', frame: f, count: n }); }
    }
  }
  const TYPES = ['select', 'selectstart', 'selectend', 'squeeze', 'squeezestart', 'squeezeend', 'inputsourceschange', 'visibilitychange', 'end'];
  function hook(session, mode) {
    if (!session || typeof session !== 'object' || ReflectApply(WeakSetHas, hooked, [session])) return session;
    ReflectApply(WeakSetAdd, hooked, [session]);
    const st = { session, mode: RealString(mode), presenting: true, visibility: '', frames: 0, sampled: -1,
      space: null, head: null, inputs: [], planes: 0, meshes: 0 };
    state = st;
    try { st.visibility = RealString(session.visibilityState); } catch (e) { /* unknown */ }
    for (let i = 0; i < TYPES.length; i++) {
      const type = TYPES[i];
      ReflectApply(addListener, session, [type, (e) => {
        const f = frameNow();
        if (type === 'inputsourceschange') {
          for (let c = 0; c < 2; c++) {
            const change = c === 0 ? 'added' : 'removed';
            const list = e[change];
            if (list) for (let k = 0; k < list.length; k++) {
              const io = inputOf(list[k]);
              log({ type, hand: io.hand, input: io.input, frame: f, change });
            }
          }
          return;
        }
        if (type === 'visibilitychange') {
          try { st.visibility = RealString(session.visibilityState); } catch (err) { /* unknown */ }
          log({ type, hand: '', input: '', frame: f, visibility: st.visibility });
          return;
        }
        if (type === 'end') st.presenting = false;
        const io = inputOf(e.inputSource);
        log({ type, hand: io.hand, input: io.input, frame: f });
      }]);
    }
    const raf = session.requestAnimationFrame;
    if (typeof raf === 'function') {
      ObjectDefine(session, 'requestAnimationFrame', {
        value: function requestAnimationFrame(cb) {
          if (typeof cb !== 'function') return ReflectApply(raf, this, arguments);
          return ReflectApply(raf, this, [function (time, frame) {
            try { sample(st, frame); } catch (e) { /* never the page's problem */ }
            return ReflectApply(cb, this, arguments);
          }]);
        },
        writable: false, configurable: false, enumerable: false,
      });
    }
    const refSpace = (type) => ReflectApply(session.requestReferenceSpace, session, [type]);
    try {
      ReflectApply(PromiseThen, refSpace('local-floor'), [(s) => { st.space = s; }, () => {
        ReflectApply(PromiseThen, refSpace('local'), [(s) => { st.space = s; }, () => {}]);
      }]);
    } catch (e) { /* no reference space: poses stay null */ }
    return session;
  }
  // wrap makes a session request of the XR system hook the session it
  // resolves to before the page's own callbacks run.
  function wrap(owner, name) {
    const orig = owner[name];
    if (typeof orig !== 'function') return;
    try {
      ObjectDefine(owner, name, {
        value: function (mode) {
          const p = ReflectApply(orig, this, arguments);
          return ReflectApply(PromiseThen, p, [(s) => hook(s, mode), undefined]);
        },
        writable: false, configurable: false, enumerable: false,
      });
    } catch (e) { /* already locked */ }
  }
  wrap(ObjectGetProto(xr), 'requestSession');
  wrap(xr, 'requestSession');
  wrap(xr, 'offerSession');
  wrap(ObjectGetProto(xr), 'offerSession');

  const reader = Object.freeze({
    state: () => {
      const st = state;
      if (!st) return JSONStringify({ session: false, mode: '', presenting: false, visibility: '', frames: 0, head: null, inputs: [] });
      return JSONStringify({ session: true, mode: st.mode, presenting: st.presenting, visibility: st.visibility,
        frames: st.frames, head: st.head, inputs: st.inputs });
    },
    events: () => JSONStringify(events),
  });
  ObjectDefine(G, '` + HookGlobal + `', { value: reader, enumerable: false, writable: false, configurable: false });
})();
`
