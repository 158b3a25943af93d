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
  Object.defineProperty(G, '__wpWorker', { value: true });
  const ReflectApply = Reflect.apply;
  const apply = (fn, self, args) => ReflectApply(fn, self, args);
  const ObjectDefine = Object.defineProperty;
  const ObjectCreate = Object.create;
  const ObjectGetProto = Object.getPrototypeOf;
  const ArrayBufferIsView = ArrayBuffer.isView;
  const MathFloor = Math.floor;
  const MathMax = Math.max;
  const RealDate = Date;
  const RealString = String;
  const RealNumber = Number;
  const realReportError = typeof G.reportError === 'function' ? G.reportError.bind(G) : null;

  // ---- randomness: sfc32 seeded through splitmix32, one stream per worker ----
  function splitmix32(a) {
    return function () {
      a |= 0; a = (a + 0x9e3779b9) | 0;
      let t = a ^ (a >>> 16); t = Math.imul(t, 0x21f0aaad);
      t = t ^ (t >>> 15); t = Math.imul(t, 0x735a2d97);
      return (t ^ (t >>> 15)) >>> 0;
    };
  }
  function sfc32(seed) {
    const sm = splitmix32(seed);
    let a = sm(), b = sm(), c = sm(), d = sm();
    const next = function () {
      a >>>= 0; b >>>= 0; c >>>= 0; d >>>= 0;
      let t = (a + b) | 0;
      a = b ^ (b >>> 9);
      b = (c + (c << 3)) | 0;
      c = (c << 21) | (c >>> 11);
      d = (d + 1) | 0;
      t = (t + d) | 0;
      c = (c + t) | 0;
      return (t >>> 0);
    };
    for (let i = 0; i < 12; i++) next();
    return next;
  }
  const seed = ((config.seed >>> 0) ^ Math.imul((config.index >>> 0) + 1, 0x9e3779b9)) >>> 0;
  const randomU32 = sfc32(seed);
  const cryptoU32 = sfc32((seed ^ 0x5bd1e995) >>> 0);
  Math.random = function random() { return randomU32() / 4294967296; };
  if (G.crypto && G.Crypto) {
    const proto = G.Crypto.prototype;
    const origGRV = proto.getRandomValues;
    proto.getRandomValues = function getRandomValues(arr) {
      if (!ArrayBufferIsView(arr)) return apply(origGRV, this, [arr]);
      const bytes = new Uint8Array(arr.buffer, arr.byteOffset, arr.byteLength);
      for (let i = 0; i < bytes.length; i += 4) {
        const v = cryptoU32();
        for (let k = 0; k < 4 && i + k < bytes.length; k++) bytes[i + k] = (v >>> (8 * k)) & 255;
      }
      return arr;
    };
    proto.randomUUID = function randomUUID() {
      const b = new Uint8Array(16);
      proto.getRandomValues.call(this, b);
      b[6] = (b[6] & 0x0f) | 0x40; b[8] = (b[8] & 0x3f) | 0x80;
      let h = '';
      for (let i = 0; i < 16; i++) h += (b[i] + 256).toString(16).slice(1);
      return h.slice(0, 8) + '-' + h.slice(8, 12) + '-' + h.slice(12, 16) + '-' + h.slice(16, 20) + '-' + h.slice(20);
    };
  }

  // ---- the page's virtual clock ----
  const epochMs = config.epochMs;
  let now = RealNumber(config.startMs) || 0; // the page's virtual ms when the worker was made
  const perfProto = G.performance ? ObjectGetProto(G.performance) : null;
  if (perfProto) {
    perfProto.now = function now_() { return now; };
    try { ObjectDefine(perfProto, 'timeOrigin', { get() { return epochMs; }, configurable: true }); } catch (e) { /* ignore */ }
  }
  function VirtualDate(...args) {
    if (!new.target) return new RealDate(epochMs + now).toString();
    if (args.length === 0) return Reflect.construct(RealDate, [epochMs + now], new.target);
    return Reflect.construct(RealDate, args, new.target);
  }
  VirtualDate.prototype = RealDate.prototype;
  VirtualDate.now = function dateNow() { return MathFloor(epochMs + now); };
  VirtualDate.parse = RealDate.parse;
  VirtualDate.UTC = RealDate.UTC;
  ObjectDefine(RealDate.prototype, 'constructor', { value: VirtualDate, writable: true, configurable: true });
  G.Date = VirtualDate;
  if (G.Intl && G.Intl.DateTimeFormat) {
    const proto = G.Intl.DateTimeFormat.prototype;
    const fmt = Object.getOwnPropertyDescriptor(proto, 'format');
    if (fmt && fmt.get && fmt.configurable) {
      ObjectDefine(proto, 'format', { configurable: true, get() {
        const f = apply(fmt.get, this, []);
        return function format(d) { return f(d === undefined ? MathFloor(epochMs + now) : d); };
      } });
    }
    const parts = proto.formatToParts;
    if (typeof parts === 'function') proto.formatToParts = function formatToParts(d) { return apply(parts, this, [d === undefined ? MathFloor(epochMs + now) : d]); };
  }
  if (G.Temporal && G.Temporal.Now && G.Temporal.Instant) {
    const T = G.Temporal, N = T.Now, fromNs = T.Instant.fromEpochNanoseconds;
    const instant = () => apply(fromNs, T.Instant, [BigInt(epochMs) * 1000000n + BigInt(Math.round(now * 1e6))]);
    const zoned = (tz) => instant().toZonedDateTimeISO(tz === undefined ? 'UTC' : tz);
    N.instant = function instant_() { return instant(); };
    N.timeZoneId = function timeZoneId() { return 'UTC'; };
    N.zonedDateTimeISO = function zonedDateTimeISO(tz) { return zoned(tz); };
    N.plainDateTimeISO = function plainDateTimeISO(tz) { return zoned(tz).toPlainDateTime(); };
    N.plainDateISO = function plainDateISO(tz) { return zoned(tz).toPlainDate(); };
    N.plainTimeISO = function plainTimeISO(tz) { return zoned(tz).toPlainTime(); };
  }
  if (G.Event) {
    const d = Object.getOwnPropertyDescriptor(G.Event.prototype, 'timeStamp');
    if (d && d.configurable) ObjectDefine(G.Event.prototype, 'timeStamp', { configurable: true, enumerable: d.enumerable, get() { return now; } });
  }

  // Timers: a heap by (due time, sequence), run when a frame's time arrives.
  const live = ObjectCreate(null);
  const heap = ObjectCreate(null);
  let heapSize = 0, timerSeq = 0, nesting = 0;
  const earlier = (a, b) => a.at < b.at || (a.at === b.at && a.seq < b.seq);
  function heapPush(t) {
    let i = heapSize++;
    heap[i] = t;
    while (i > 0) {
      const up = (i - 1) >> 1;
      if (!earlier(heap[i], heap[up])) break;
      const x = heap[i]; heap[i] = heap[up]; heap[up] = x;
      i = up;
    }
  }
  function heapPop() {
    const top = heap[0];
    heapSize--;
    heap[0] = heap[heapSize];
    delete heap[heapSize];
    let i = 0;
    for (;;) {
      const l = 2 * i + 1, r = l + 1;
      let m = i;
      if (l < heapSize && earlier(heap[l], heap[m])) m = l;
      if (r < heapSize && earlier(heap[r], heap[m])) m = r;
      if (m === i) break;
      const x = heap[i]; heap[i] = heap[m]; heap[m] = x;
      i = m;
    }
    return top;
  }
  function addTimer(fn, delay, args, repeat) {
    if (typeof fn !== 'function') {
      const code = RealString(fn);
      fn = function () { (0, eval)(code); };
    }
    delay = RealNumber(delay) || 0;
    if (delay < 0) delay = 0;
    const level = nesting + 1;
    if (level > 5 && delay < 4) delay = 4;
    const id = ++timerSeq;
    const t = { id, fn, args, at: now + delay, delay, repeat, seq: id, level, dead: false };
    live[id] = t;
    heapPush(t);
    return id;
  }
  function clearTimer(id) {
    const t = live[id];
    if (t === undefined) return;
    t.dead = true;
    delete live[id];
  }
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
    let runs = 0;
    while (heapSize > 0 && runs < MAX_TIMER_RUNS) {
      const next = heap[0];
      if (next.dead) { heapPop(); continue; }
      if (next.at > t) break;
      runs++;
      heapPop();
      if (next.at > now) now = next.at;
      if (next.repeat) {
        next.at = now + MathMax(next.delay, next.level > 5 ? 4 : 1);
        next.seq = ++timerSeq;
        heapPush(next);
      } else {
        delete live[next.id];
      }
      const saved = nesting;
      nesting = next.level;
      try { apply(next.fn, G, next.args); } catch (e) { report(e); } finally { nesting = saved; }
    }
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
  // worker's WebSocket or EventSource) to the page, which records it.
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

  for (const [name, type] of [['WebSocket', 'websocket'], ['EventSource', 'eventsource']]) {
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
      if (d && d.get && d.configurable) ObjectDefine(G.WorkerLocation.prototype, name, { configurable: true, enumerable: d.enumerable, get() { return strip(apply(d.get, this, [])); } });
    }
  }
})(__WP_WORKER__);
