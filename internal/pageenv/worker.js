// worldprobe worker runtime. Runs before a dedicated or shared worker's own
// script: the page's runtime wraps blob: workers with it, the harness puts
// it in front of worker scripts it serves. It seeds Math.random and crypto
// from the page's seed and the worker's creation number, and gives the
// worker the page's virtual clock: performance.now, Date, Event.timeStamp
// and timers move only when the page steps a frame (the page sends each
// frame's time on the worker's port).
//
// The Go side (or the page runtime) prepends `const __WP_WORKER__ = {...};`.
(function (config) {
  'use strict';
  const G = globalThis;
  if (Object.prototype.hasOwnProperty.call(G, '__wpWorker')) return;
  Object.defineProperty(G, '__wpWorker', { __proto__: null, value: true });
  const ReflectApply = Reflect.apply;
  const apply = (fn, self, args) => ReflectApply(fn, self, args);
  const ObjectDefine = Object.defineProperty;
  const ObjectCreate = Object.create;
  const MathMax = Math.max;
  const RealString = String;
  const RealNumber = Number;
  const realReportError = typeof G.reportError === 'function' ? G.reportError.bind(G) : null;

  // ---- randomness: sfc32 seeded through splitmix32 (lib.js), one stream per worker ----
  __wpLib.seedRandom(G, ((config.seed >>> 0) ^ Math.imul((config.index >>> 0) + 1, 0x9e3779b9)) >>> 0);

  // ---- the page's virtual clock ----
  const epochMs = config.epochMs;
  let now = RealNumber(config.startMs) || 0; // the page's virtual ms when the worker was made
  __wpLib.installClock(G, epochMs, () => now);
  __wpLib.virtualDates(G, epochMs, () => now);
  if (G.Event) __wpLib.defineGetter(G.Event.prototype, 'timeStamp', () => now);

  // Timers (lib.js timerQueue) run when a frame's time arrives.
  const timers = __wpLib.timerQueue(G, { get: () => now, set: (v) => { now = v; } }, (e) => report(e));
  const addTimer = timers.add, clearTimer = timers.clear;
  G.setTimeout = function setTimeout(fn, delay, ...args) { return addTimer(fn, delay, args, false); };
  G.setInterval = function setInterval(fn, delay, ...args) { return addTimer(fn, delay, args, true); };
  G.clearTimeout = function clearTimeout(id) { clearTimer(id); };
  G.clearInterval = function clearInterval(id) { clearTimer(id); };
  let rafSeq = 0;
  let rafs = ObjectCreate(null);
  if (typeof G.requestAnimationFrame === 'function') {
    G.requestAnimationFrame = function requestAnimationFrame(fn) { const id = ++rafSeq; rafs[id] = fn; return id; };
    G.cancelAnimationFrame = function cancelAnimationFrame(id) { delete rafs[id]; };
  }
  function report(err) {
    if (realReportError) realReportError(err);
  }
  const MAX_TIMER_RUNS = 100000;
  // tick brings the clock to the page's frame time t: due timers run in
  // order (each reading its own due time), then animation-frame callbacks.
  function tick(t) {
    if (typeof t !== 'number' || !(t >= now)) return;
    timers.runUntil(t, MAX_TIMER_RUNS);
    now = t;
    const cbs = rafs;
    rafs = ObjectCreate(null);
    for (const id in cbs) {
      try { apply(cbs[id], G, [now]); } catch (e) { report(e); }
    }
  }

  // The page sends each frame's time ({__wp_tick: ms}) on the worker's own
  // port, ordered with its other messages, and after the frame a sync
  // ({__wp_sync: n}) that the worker answers ({__wp_ack: n}) once it has
  // handled everything before it: the page waits for that answer, so
  // whatever the worker sent back meanwhile is handled before the next
  // frame. None of these reach the worker's own handlers.
  const PortPost = MessagePort.prototype.postMessage;
  const GlobalPost = typeof G.postMessage === 'function' ? G.postMessage : null;
  const control = (e, answer) => {
    const d = e.data;
    if (d === null || typeof d !== 'object') return;
    if (typeof d.__wp_tick === 'number') { e.stopImmediatePropagation(); tick(d.__wp_tick); return; }
    if (typeof d.__wp_sync === 'number') { e.stopImmediatePropagation(); answer({ __wp_ack: d.__wp_sync }); }
  };
  // tell reports a connection the page cannot see from its side (a
  // worker's WebSocket, EventSource or WebTransport) to the page, which records it.
  let tell = () => {};
  if (typeof G.SharedWorkerGlobalScope === 'function' && G instanceof G.SharedWorkerGlobalScope) {
    let first = null;
    G.addEventListener('connect', (e) => {
      const p = e.ports && e.ports[0];
      if (!p) return;
      if (first === null) first = p;
      p.addEventListener('message', (m) => control(m, (v) => apply(PortPost, p, [v])));
      p.start();
    });
    tell = (v) => { if (first !== null) apply(PortPost, first, [v]); };
  } else {
    tell = (v) => apply(GlobalPost, G, [v]);
    G.addEventListener('message', (m) => control(m, (v) => apply(GlobalPost, G, [v])));
    const realClose = G.close;
    if (typeof realClose === 'function') {
      G.close = function close() { try { apply(GlobalPost, G, [{ __wp_closed: true }]); } catch (e) { /* ignore */ } return apply(realClose, G, []); };
    }
  }

  for (const [name, type] of [['WebSocket', 'websocket'], ['EventSource', 'eventsource'], ['WebTransport', 'webtransport']]) {
    const Real = G[name];
    if (typeof Real !== 'function' || typeof Proxy !== 'function') continue;
    G[name] = new Proxy(Real, {
      construct(target, args, newTarget) {
        try { tell({ __wp_blocked: { url: RealString(args[0]), type: 'worker ' + type } }); } catch (e) { /* ignore */ }
        return Reflect.construct(target, args, newTarget);
      },
    });
  }

  // The harness marks the worker's URL (#__wp_worker=…); the worker's own
  // code sees it without the mark.
  if (G.WorkerLocation) {
    const strip = (s) => RealString(s).replace(/[#&]__wp_worker=[^&#]*$/, '');
    for (const name of ['href', 'hash']) {
      const d = Object.getOwnPropertyDescriptor(G.WorkerLocation.prototype, name);
      if (d && d.get) __wpLib.defineGetter(G.WorkerLocation.prototype, name, function () { return strip(apply(d.get, this, [])); });
    }
  }
})(__WP_WORKER__);
