// worldprobe page runtime. Injected before any page script in every frame.
// It makes the page deterministic (seeded randomness, a virtual clock that only
// the harness advances), guards it (dialogs, popups, window.close), and lets the
// harness observe it (state, scene graph, WebGL activity). The harness talks to
// it through window.__wp, which the page cannot replace.
//
// The Go side prepends `const __WP_CONFIG__ = {...};` before this text.
(function (config) {
  'use strict';
  const G = globalThis;
  if (Object.prototype.hasOwnProperty.call(G, '__wp')) return;

  // ---- captured built-ins (a hostile page may replace the originals) ----
  const ObjectKeys = Object.keys;
  const ObjectDefine = Object.defineProperty;
  const ObjectGetProto = Object.getPrototypeOf;
  const ArrayIsArray = Array.isArray;
  const ArrayBufferIsView = ArrayBuffer.isView;
  const JSONStringify = JSON.stringify;
  const FunctionToString = Function.prototype.toString;
  const RegExpTest = RegExp.prototype.test;
  const NumberIsFinite = Number.isFinite;
  const MathFround = Math.fround;
  const RealDate = Date;
  const RealMap = Map;
  const RealSet = Set;
  const RealPromise = Promise;
  const RealMessageChannel = MessageChannel;
  const PromiseThen = Promise.prototype.then;
  const realRAF = G.requestAnimationFrame ? G.requestAnimationFrame.bind(G) : null;
  const realReportError = typeof G.reportError === 'function' ? G.reportError.bind(G) : null;
  const realSetTimeout = G.setTimeout.bind(G);
  const ReflectApply = Reflect.apply;
  const ReflectConstruct = Reflect.construct;
  const ObjectCreate = Object.create;
  const ObjectOwnNames = Object.getOwnPropertyNames;
  const RealObjectProto = Object.prototype;
  const RealArrayProto = Array.prototype;
  const HasOwn = Object.prototype.hasOwnProperty;
  const MathMax = Math.max;
  const MathFloor = Math.floor;
  const MathRound = Math.round;
  const MathSqrt = Math.sqrt;
  const RealNumber = Number;
  const RealString = String;
  const StringSlice = String.prototype.slice;
  const DateGetTime = Date.prototype.getTime;
  const DateToISO = Date.prototype.toISOString;
  const MapEntries = Map.prototype.entries;
  const MapIterNext = ObjectGetProto(new Map().entries()).next;
  const SetValues = Set.prototype.values;
  const SetIterNext = ObjectGetProto(new Set().values()).next;
  const PortPostMessage = MessagePort.prototype.postMessage;
  // The runtime's own DOM insertions go through the browser's appendChild,
  // not the page-visible one that counts network-capable calls.
  const NodeAppendChild = G.Node ? G.Node.prototype.appendChild : null;
  // apply calls fn without looking anything up on Function.prototype, which
  // a page may have replaced.
  const apply = (fn, self, args) => ReflectApply(fn, self, args);
  // put appends v to the array a as an own property: no setter a page put
  // on Array.prototype (or a replaced push) runs.
  const put = (a, v) => { ObjectDefine(a, a.length, { __proto__: null, value: v, writable: true, enumerable: true, configurable: true }); };
  const putDefined = put;

  const log = { dialogs: [], blocked: [], events: [] };
  // clipText keeps the first 500 characters of a page-chosen text the runtime
  // records (a dialog's message, a refused URL): its status is read by the
  // harness within a deadline, and 200 alerts of a 3 MiB message would
  // make it hundreds of megabytes.
  const clipText = (v) => {
    const t = RealString(v ?? '');
    return t.length > 500 ? apply(StringSlice, t, [0, 500]) + '\u2026' : t;
  };
  // forward passes what a child frame records to the frame above it, so a
  // dialog or popup tried in a same-origin iframe is the page's (set once the
  // parent's runtime is found).
  let forward = null;
  function record(list, entry) {
    if (list.length < 200) put(list, entry);
    if (forward !== null && list !== log.events) {
      try { forward(list === log.dialogs ? 'dialogs' : 'blocked', entry); } catch (e) { /* the parent went away */ }
    }
  }
  function childRecord(kind, entry) {
    if (kind === 'console') { consoleDropped++; return; }
    if (entry === null || typeof entry !== 'object') return;
    if (kind === 'dialogs') record(log.dialogs, { type: clipText(entry.type), message: clipText(entry.message) });
    else if (kind === 'blocked') record(log.blocked, { url: clipText(entry.url), type: clipText(entry.type) });
  }
  function report(err) {
    if (realReportError) realReportError(err);
    else realSetTimeout(() => { throw err; }, 0);
  }
  function lock(obj, name, value) {
    try {
      ObjectDefine(obj, name, { __proto__: null, value, writable: false, configurable: false, enumerable: false });
    } catch (e) { /* already locked */ }
  }

  // ---- seeded randomness: sfc32 seeded through splitmix32 (lib.js) ----
  __wpLib.seedRandom(G, config.seed);

  // ---- virtual clock ----
  const epochMs = config.epochMs;
  let now = 0;          // virtual ms since the page started
  // A same-origin child frame takes its parent's clock (see adoptFrame).
  let parentWp = null;
  try {
    if (G.parent && G.parent !== G && G.parent.__wp && G.parent.__wp.version === 1 && typeof G.parent.__wp.adoptFrame === 'function') {
      parentWp = G.parent.__wp;
      now = parentWp.clock();
    }
  } catch (e) { parentWp = null; /* cross-origin: its own clock */ }
  let frame = 0;        // frames stepped so far

  const perfProto = ObjectGetProto(G.performance);
  let deliverPerformance = () => {};
  // In realtime mode (benchmarks only) the page keeps the real clock.
  const realtime = config.realtime === true;
  if (!realtime) __wpLib.installClock(G, epochMs, () => now);

  // ---- every other clock a page can read ----
  // Event times, the animation timeline and animations, performance
  // entries, Intl and Temporal "now", document.lastModified, observer
  // entry times and the audio clock all read the virtual clock. CSS and
  // Web Animations move only when a frame is stepped: the harness freezes
  // the document timeline (CDP Animation.setPlaybackRate 0) and stepOne
  // advances every running animation by the frame's virtual time.
  const ObjectGetOwnDesc = Object.getOwnPropertyDescriptor;
  const defineGetter = __wpLib.defineGetter;
  let advanceAnimations = () => {};
  if (!realtime) {
    if (G.Event) {
      // The virtual time the event was first looked at: input the harness
      // sends arrives between frames, at the current virtual time.
      const stamps = new WeakMap();
      const WeakGet = WeakMap.prototype.get, WeakSet_ = WeakMap.prototype.set;
      defineGetter(G.Event.prototype, 'timeStamp', function () {
        let t = apply(WeakGet, stamps, [this]);
        if (t === undefined) { t = now; apply(WeakSet_, stamps, [this, t]); }
        return t;
      });
    }
    if (G.DocumentTimeline) defineGetter(G.DocumentTimeline.prototype, 'currentTime', function () { return now; });
    const getAnimations = G.Document && G.Document.prototype.getAnimations;
    const animTime = G.Animation && ObjectGetOwnDesc(G.Animation.prototype, 'currentTime');
    const animState = G.Animation && ObjectGetOwnDesc(G.Animation.prototype, 'playState');
    const animRate = G.Animation && ObjectGetOwnDesc(G.Animation.prototype, 'playbackRate');
    if (getAnimations && animTime && animTime.set && animState && animRate) {
      advanceAnimations = (dt) => {
        let list;
        try { list = apply(getAnimations, document, []); } catch (e) { return; }
        for (let i = 0; i < list.length; i++) {
          const a = list[i];
          try {
            if (apply(animState.get, a, []) !== 'running') continue;
            const t = apply(animTime.get, a, []);
            if (t === null || typeof t !== 'number') continue;
            apply(animTime.set, a, [t + dt * apply(animRate.get, a, [])]);
          } catch (e) { /* an animation the page broke */ }
        }
      };
    }
    // Performance entries: user marks and measures keep virtual times; the
    // browser's own entries (navigation, resource, paint, long tasks) hold
    // real times and are not shown.
    const perf = G.performance;
    if (perf && perfProto) {
      const entries = [];
      const RealPerformanceMark = G.PerformanceMark;
      const byName = (name) => { for (let i = entries.length - 1; i >= 0; i--) if (entries[i].name === name) return entries[i]; return null; };
      const timeOf = (v, fallback) => {
        if (v === undefined || v === null) return fallback;
        if (typeof v === 'number') return v;
        const e = byName(RealString(v));
        if (!e) throw new DOMException("The mark '" + RealString(v) + "' does not exist.", 'SyntaxError');
        return e.startTime;
      };
      const observers = [];
      const notify = (e) => {
        for (let i = 0; i < observers.length; i++) {
          const o = observers[i];
          if (o.types !== null && o.types[e.entryType]) put(o.queue, e);
        }
      };
      const add = (e) => { if (entries.length < 10000) put(entries, e); notify(e); return e; };
      perfProto.mark = function mark(name, opts) {
        const start = opts && opts.startTime !== undefined ? RealNumber(opts.startTime) : now;
        const detail = opts && opts.detail !== undefined ? opts.detail : null;
        let e;
        if (typeof RealPerformanceMark === 'function') e = new RealPerformanceMark(RealString(name), { startTime: start, detail });
        else e = { name: RealString(name), entryType: 'mark', startTime: start, duration: 0, detail };
        return add(e);
      };
      perfProto.measure = function measure(name, a, b) {
        let start = 0, end = now, detail = null;
        if (a && typeof a === 'object') {
          start = timeOf(a.start, a.duration !== undefined && a.end !== undefined ? timeOf(a.end, now) - RealNumber(a.duration) : 0);
          end = timeOf(a.end, a.duration !== undefined ? start + RealNumber(a.duration) : now);
          detail = a.detail !== undefined ? a.detail : null;
        } else {
          start = timeOf(a, 0);
          end = timeOf(b, now);
        }
        const e = { name: RealString(name), entryType: 'measure', startTime: start, duration: end - start, detail,
          toJSON() { return { name: this.name, entryType: this.entryType, startTime: this.startTime, duration: this.duration, detail: this.detail }; } };
        return add(e);
      };
      const list = (keep) => { const out = []; for (let i = 0; i < entries.length; i++) if (keep(entries[i])) put(out, entries[i]); return out; };
      perfProto.getEntries = function getEntries() { return list(() => true); };
      perfProto.getEntriesByType = function getEntriesByType(type) { const t = RealString(type); return list((e) => e.entryType === t); };
      perfProto.getEntriesByName = function getEntriesByName(name, type) {
        const n = RealString(name), t = type === undefined ? null : RealString(type);
        return list((e) => e.name === n && (t === null || e.entryType === t));
      };
      const clear = (type) => function (name) {
        const keep = list((e) => e.entryType !== type || (name !== undefined && e.name !== RealString(name)));
        entries.length = 0;
        for (let i = 0; i < keep.length; i++) put(entries, keep[i]);
      };
      perfProto.clearMarks = clear('mark');
      perfProto.clearMeasures = clear('measure');
      perfProto.clearResourceTimings = function clearResourceTimings() {};
      const timing = {};
      for (const k of ['navigationStart', 'unloadEventStart', 'unloadEventEnd', 'redirectStart', 'redirectEnd', 'fetchStart',
        'domainLookupStart', 'domainLookupEnd', 'connectStart', 'connectEnd', 'secureConnectionStart', 'requestStart',
        'responseStart', 'responseEnd', 'domLoading', 'domInteractive', 'domContentLoadedEventStart',
        'domContentLoadedEventEnd', 'domComplete', 'loadEventStart', 'loadEventEnd']) timing[k] = epochMs;
      timing.toJSON = function () { return Object.assign({}, this); };
      defineGetter(perfProto, 'timing', () => timing);
      defineGetter(perfProto, 'navigation', () => ({ type: 0, redirectCount: 0, TYPE_NAVIGATE: 0, TYPE_RELOAD: 1, TYPE_BACK_FORWARD: 2 }));
      defineGetter(perfProto, 'memory', () => ({ jsHeapSizeLimit: 4294705152, totalJSHeapSize: 33554432, usedJSHeapSize: 16777216 }));
      if (G.PerformanceObserver) {
        const supported = ['mark', 'measure'];
        const VirtualPerformanceObserver = function PerformanceObserver(callback) {
          if (!new.target) throw new TypeError("Failed to construct 'PerformanceObserver': Please use the 'new' operator");
          if (typeof callback !== 'function') throw new TypeError("Failed to construct 'PerformanceObserver': parameter 1 is not of type 'Function'.");
          const o = { callback, self: this, types: null, queue: [] };
          ObjectDefine(this, '__wpObserver', { __proto__: null, value: o });
        };
        VirtualPerformanceObserver.prototype.observe = function observe(opts) {
          const o = this.__wpObserver;
          const types = opts && opts.entryTypes ? opts.entryTypes : opts && opts.type ? [opts.type] : [];
          if (o.types === null) { o.types = ObjectCreate(null); put(observers, o); }
          for (let i = 0; i < types.length; i++) o.types[RealString(types[i])] = true;
          if (opts && opts.buffered) for (let i = 0; i < entries.length; i++) if (o.types[entries[i].entryType]) put(o.queue, entries[i]);
        };
        VirtualPerformanceObserver.prototype.disconnect = function disconnect() {
          const o = this.__wpObserver;
          o.types = null; o.queue.length = 0;
          for (let i = 0; i < observers.length; i++) if (observers[i] === o) { observers.splice(i, 1); break; }
        };
        VirtualPerformanceObserver.prototype.takeRecords = function takeRecords() {
          const o = this.__wpObserver; const out = o.queue; o.queue = []; return out;
        };
        ObjectDefine(VirtualPerformanceObserver, 'supportedEntryTypes', { __proto__: null, get: () => supported.slice() });
        G.PerformanceObserver = VirtualPerformanceObserver;
        // Observers are called at the start of the next stepped frame.
        deliverPerformance = () => {
          for (let i = 0; i < observers.length; i++) {
            const o = observers[i];
            if (!o.queue.length) continue;
            const got = o.queue; o.queue = [];
            const l = { getEntries: () => got.slice(), getEntriesByType: (t) => got.filter((e) => e.entryType === t),
              getEntriesByName: (n, t) => got.filter((e) => e.name === n && (t === undefined || e.entryType === t)) };
            try { apply(o.callback, o.self, [l, o.self]); } catch (e) { report(e); }
          }
        };
      }
    }
    __wpLib.virtualDates(G, epochMs, () => now);
    if (G.Document) {
      defineGetter(G.Document.prototype, 'lastModified', () => {
        const d = new RealDate(epochMs);
        const two = (n) => (n < 10 ? '0' : '') + n;
        return two(d.getUTCMonth() + 1) + '/' + two(d.getUTCDate()) + '/' + d.getUTCFullYear() + ' ' +
          two(d.getUTCHours()) + ':' + two(d.getUTCMinutes()) + ':' + two(d.getUTCSeconds());
      });
    }
    if (G.IntersectionObserverEntry) defineGetter(G.IntersectionObserverEntry.prototype, 'time', () => now);
    if (G.BaseAudioContext) defineGetter(G.BaseAudioContext.prototype, 'currentTime', () => now / 1000);
    if (G.Gamepad) defineGetter(G.Gamepad.prototype, 'timestamp', () => now);
  }

  // Timers (lib.js timerQueue): a binary heap ordered by (due time,
  // sequence), so a frame costs log(n) per timer run however many are
  // pending, on prototype-less storage nothing a page does reaches.
  const timers = __wpLib.timerQueue(G, { get: () => now, set: (v) => { now = v; } }, report);
  const addTimer = timers.add, clearTimer = timers.clear;
  if (!realtime) {
    G.setTimeout = function setTimeout(fn, delay, ...args) { return addTimer(fn, delay, args, false); };
    G.setInterval = function setInterval(fn, delay, ...args) { return addTimer(fn, delay, args, true); };
    G.clearTimeout = function clearTimeout(id) { clearTimer(id); };
    G.clearInterval = function clearInterval(id) { clearTimer(id); };
    G.requestIdleCallback = function requestIdleCallback(fn) {
      return addTimer(() => fn({ didTimeout: false, timeRemaining: () => 0 }), 0, [], false);
    };
    G.cancelIdleCallback = function cancelIdleCallback(id) { clearTimer(id); };
  }

  const MAX_TIMER_RUNS = 100000;
  function runTimersUntil(limit) {
    if (!timers.runUntil(limit, MAX_TIMER_RUNS)) record(log.events, { kind: 'timer_flood', frame, pending: timers.pending() });
  }

  // Animation-frame callbacks, by id (ids only grow, so the numeric keys of
  // a prototype-less object keep their order).
  let rafSeq = 0;
  let rafs = ObjectCreate(null);
  let rafCount = 0;
  let runningRafs = null; // this frame's callbacks while they run
  if (!realtime) {
    G.requestAnimationFrame = function requestAnimationFrame(fn) {
      const id = ++rafSeq;
      rafs[id] = fn;
      rafCount++;
      return id;
    };
    G.cancelAnimationFrame = function cancelAnimationFrame(id) {
      if (rafs[id] !== undefined) { delete rafs[id]; rafCount--; }
      if (runningRafs !== null) delete runningRafs[id]; // cancelled before its turn this frame: it does not run
    };
  }

  // ---- WebGL: count draws, skip them on frames nobody observes ----
  // Draws before the first observation are nobody's to see either.
  let skipDraw = config.skipDraw === true;
  let drawsThisFrame = 0;
  // clearsThisFrame counts clear calls: a frame that only clears (a
  // three.js render whose objects are all outside the view) still renders.
  let clearsThisFrame = 0;
  const gl = { contexts: 0, failed: 0, lost: 0, restored: 0, kinds: [] };
  const drawNames = ['drawArrays', 'drawElements', 'drawArraysInstanced', 'drawElementsInstanced',
    'drawRangeElements', 'clear', 'blitFramebuffer'];
  for (const ctor of [G.WebGLRenderingContext, G.WebGL2RenderingContext]) {
    if (!ctor) continue;
    for (const name of drawNames) {
      const orig = ctor.prototype[name];
      if (typeof orig !== 'function') continue;
      ctor.prototype[name] = function () {
        if (name !== 'clear' && name !== 'blitFramebuffer') drawsThisFrame++;
        else if (name === 'clear') clearsThisFrame++;
        if (skipDraw) return undefined;
        return apply(orig, this, arguments);
      };
    }
  }
  const watchCanvas = new WeakSet();
  function hookGetContext(proto) {
    const orig = proto.getContext;
    proto.getContext = function getContext(type, attrs) {
      const ctx = apply(orig, this, arguments);
      const t = String(type);
      if (/^(webgl|webgl2|experimental-webgl)$/.test(t)) {
        if (ctx) {
          if (!watchCanvas.has(this)) {
            watchCanvas.add(this);
            gl.contexts++;
            record(gl.kinds, t);
            this.addEventListener('webglcontextlost', () => { gl.lost++; }, true);
            this.addEventListener('webglcontextrestored', () => { gl.restored++; }, true);
          }
        } else {
          gl.failed++;
        }
      }
      return ctx;
    };
  }
  if (G.HTMLCanvasElement) hookGetContext(G.HTMLCanvasElement.prototype);
  if (G.OffscreenCanvas) hookGetContext(G.OffscreenCanvas.prototype);

  // ---- guards: dialogs, popups, closing ----
  G.alert = function alert(message) { record(log.dialogs, { type: 'alert', message: clipText(message) }); };
  G.confirm = function confirm(message) { record(log.dialogs, { type: 'confirm', message: clipText(message) }); return false; };
  G.prompt = function prompt(message) { record(log.dialogs, { type: 'prompt', message: clipText(message) }); return null; };
  G.print = function print() { record(log.dialogs, { type: 'print', message: '' }); };
  G.open = function open(url) { record(log.blocked, { url: clipText(url), type: 'window.open' }); return null; };
  G.close = function close() { record(log.blocked, { url: '', type: 'window.close' }); };
  for (const name of ['showOpenFilePicker', 'showSaveFilePicker', 'showDirectoryPicker']) {
    if (typeof G[name] !== 'function') continue;
    G[name] = function () {
      record(log.dialogs, { type: 'file_picker', message: name });
      return RealPromise.reject(new DOMException('file pickers are disabled by worldprobe', 'AbortError'));
    };
  }
  if (G.ServiceWorkerContainer) {
    // A service worker could answer the page's requests itself and outlive
    // it: refused, and recorded.
    G.ServiceWorkerContainer.prototype.register = function register(url) {
      record(log.blocked, { url: clipText(url), type: 'service_worker' });
      return RealPromise.reject(new DOMException('service workers are disabled by worldprobe', 'SecurityError'));
    };
  }
  if (G.RTCPeerConnection) {
    const RealRTC = G.RTCPeerConnection;
    G.RTCPeerConnection = function RTCPeerConnection() {
      record(log.blocked, { url: '', type: 'webrtc' });
      throw new DOMException('WebRTC is disabled by worldprobe', 'NotSupportedError');
    };
    G.RTCPeerConnection.prototype = RealRTC.prototype;
    if (G.webkitRTCPeerConnection) G.webkitRTCPeerConnection = G.RTCPeerConnection;
  }

  // ---- console: at most 500 calls per document reach DevTools ----
  // Each console call becomes a DevTools event the renderer serialises and
  // the harness decodes; the harness keeps the first 500 (maxConsole in
  // internal/session) and only counts the rest. A page that logs thousands
  // of times a frame made that traffic the slowest part of its frame, and
  // under load a harness deadline ran out (infra_error). Past the cap a
  // call only counts: the count is in status() (consoleDropped), and a
  // same-origin child frame adds its own to the page's.
  const consoleCap = 500;
  let consoleDropped = 0;
  const dropConsole = () => {
    if (forward !== null) {
      try { forward('console', null); return; } catch (e) { /* the parent went away */ }
    }
    consoleDropped++;
  };
  // capCalls replaces the named methods of obj by ones that together call
  // the real methods cap times, and after that only call over(); self,
  // when given, is the receiver of every real call (else the caller's),
  // and skip(name, args) says a call does nothing and is not counted.
  const capCalls = (obj, names, cap, over, self, skip) => {
    let calls = 0;
    for (const name of names) {
      const real = obj[name];
      if (typeof real !== 'function') continue;
      const wrapped = {
        [name](...args) {
          if (skip && skip(name, args)) return undefined;
          if (calls >= cap) { over(); return undefined; }
          calls++;
          return apply(real, self === undefined ? this : self, args);
        },
      }[name];
      try { ObjectDefine(obj, name, { __proto__: null, value: wrapped, writable: true, enumerable: true, configurable: true }); } catch (e) { /* leave it */ }
    }
  };
  if (G.console !== null && typeof G.console === 'object') {
    capCalls(G.console, ['log', 'info', 'warn', 'error', 'debug', 'trace', 'dir', 'dirxml', 'table', 'assert',
      'count', 'countReset', 'group', 'groupCollapsed', 'groupEnd', 'time', 'timeLog', 'timeEnd', 'timeStamp', 'clear'],
      consoleCap, dropConsole, G.console,
      // A passing assertion prints nothing.
      (name, args) => name === 'assert' && args[0]);
  }

  // ---- Blobs: a budget of live bytes a page ----
  // Chromium keeps a Blob's bytes in the browser process, outside the
  // renderer whose memory the harness caps, under one limit for the whole
  // browser; a page hoarding Blobs would escape its share and make its
  // neighbours' Blobs unreadable. The Blob and File constructors count the
  // bytes of the Blobs they make (a Blob the page drops stops counting once
  // collected) and past config.blobBudget throw QuotaExceededError,
  // recording blob_quota once. A same-origin child frame charges its
  // page's budget (blobCharge), for good: releasing through the page's
  // __wp would let the page reset its own count.
  let blobLive = 0;
  let blobRefused = false;
  const blobBudget = config.blobBudget > 0 ? config.blobBudget : 0;
  function blobCharge(size) {
    if (!(blobBudget > 0)) return true;
    size = RealNumber(size);
    if (!(size >= 0)) return true;
    if (blobLive + size > blobBudget) {
      if (!blobRefused) { blobRefused = true; record(log.events, { kind: 'blob_quota', frame, budget: blobBudget }); }
      return false;
    }
    blobLive += size;
    return true;
  }
  if (blobBudget > 0 && typeof G.Blob === 'function' && typeof G.FinalizationRegistry === 'function' && typeof Proxy === 'function') {
    const registry = new G.FinalizationRegistry((size) => { blobLive -= size; });
    const register = G.FinalizationRegistry.prototype.register;
    const sizeOf = Object.getOwnPropertyDescriptor(G.Blob.prototype, 'size').get;
    const refusal = () => new DOMException('worldprobe: a page may hold ' + blobBudget + ' bytes of Blobs', 'QuotaExceededError');
    // admit charges the Blob b to the budget (the page's, for a child
    // frame), keeping the charge while b lives; false past the budget.
    const admit = (b) => {
      const size = apply(sizeOf, b, []);
      if (parentWp !== null) {
        try { return parentWp.blobCharge(size) !== false; } catch (e) { return blobCharge(size); /* the page went away */ }
      }
      const ok = blobCharge(size);
      if (ok) apply(register, registry, [b, size]);
      return ok;
    };
    const guard = (name) => {
      const Real = G[name];
      if (typeof Real !== 'function') return;
      const Guarded = new Proxy(Real, {
        __proto__: null,
        construct(target, args, newTarget) {
          const b = ReflectConstruct(target, args, newTarget);
          if (!admit(b)) throw refusal();
          return b;
        },
      });
      G[name] = Guarded;
      try { ObjectDefine(Real.prototype, 'constructor', { __proto__: null, value: Guarded, writable: true, enumerable: false, configurable: true }); } catch (e) { /* leave it */ }
    };
    guard('Blob');
    guard('File');
    // Blobs that reading or encoding makes count too: a body read as a
    // Blob (Response, Request) and a canvas encoded (convertToBlob) reject
    // with QuotaExceededError past the budget; canvas.toBlob then calls
    // back with null, as it does when encoding fails.
    // admitRead is admit for what a read resolved with: anything that is
    // not a Blob (null, a page's forgery) passes untouched.
    const admitRead = (b) => {
      try { apply(sizeOf, b, []); } catch (e) { return true; }
      return admit(b);
    };
    const readsBlob = (proto, name) => {
      const read = proto && proto[name];
      if (typeof read !== 'function') return;
      proto[name] = function () {
        const p = apply(read, this, arguments);
        if (!(p instanceof RealPromise)) return p;
        return apply(PromiseThen, p, [(b) => {
          if (!admitRead(b)) throw refusal();
          return b;
        }]);
      };
    };
    if (G.Response) readsBlob(G.Response.prototype, 'blob');
    if (G.Request) readsBlob(G.Request.prototype, 'blob');
    if (G.OffscreenCanvas) readsBlob(G.OffscreenCanvas.prototype, 'convertToBlob');
    if (G.HTMLCanvasElement && typeof G.HTMLCanvasElement.prototype.toBlob === 'function') {
      const toBlob = G.HTMLCanvasElement.prototype.toBlob;
      G.HTMLCanvasElement.prototype.toBlob = function (callback) {
        if (typeof callback !== 'function') return apply(toBlob, this, arguments);
        const args = [function (b) { return apply(callback, this, [admitRead(b) ? b : null]); }];
        for (let i = 1; i < arguments.length; i++) put(args, arguments[i]);
        return apply(toBlob, this, args);
      };
    }
  }

  // ---- storage.estimate(): the quota the harness enforces ----
  // The harness sets the origin's storage quota to the Blob budget
  // (Storage.overrideQuotaForOrigin), but Chromium's estimate() still
  // reports its default of 10 GiB; a page sizing a cache by it would plan
  // for room it does not have. The estimate's quota is the budget.
  if (blobBudget > 0 && G.StorageManager && typeof G.StorageManager.prototype.estimate === 'function') {
    const estimate = G.StorageManager.prototype.estimate;
    G.StorageManager.prototype.estimate = function () {
      const p = apply(estimate, this, arguments);
      if (!(p instanceof RealPromise)) return p;
      return apply(PromiseThen, p, [(e) => {
        try { if (e !== null && typeof e === 'object' && e.quota > blobBudget) e.quota = blobBudget; } catch (x) { /* leave it */ }
        return e;
      }]);
    };
  }

  // ---- history: at most 200 pushState/replaceState calls a document ----
  // Each call is a same-document navigation the browser process commits
  // and reports to DevTools. Chromium's own limit (200 in 10 s of real
  // time) depends on the machine's pace, and without it 5,000 calls a frame
  // kept the browser process busy for minutes: the page hung, and the next
  // tab of the run waited for the browser. Past 200 in a document the runtime
  // drops the call (the URL and the state stay as they were) and records a
  // history_flood once; the count does not depend on real time.
  if (G.History && G.History.prototype) {
    let historyFlooded = false;
    capCalls(G.History.prototype, ['pushState', 'replaceState'], 200, () => {
      if (!historyFlooded) { historyFlooded = true; record(log.events, { kind: 'history_flood', frame }); }
    });
  }

  // ---- the synthetic microphone (docs/audio.md) ----
  // getUserMedia({audio}) is granted without a prompt and answers a live
  // MediaStream whose one audio track is worldprobe's microphone; the
  // harness injects sounds into it (__wp.micInject) at the current virtual
  // time. What the page reads of it through AnalyserNodes fed by the
  // microphone (directly or through GainNodes and other analysers) is
  // computed here from the injected samples at the virtual currentTime, as
  // the Web Audio specification defines the analyser, and ScriptProcessorNodes
  // fed the same way get their audioprocess events from here, so both
  // depend on virtual time only. The stream itself is a
  // MediaStreamAudioDestinationNode of a hidden AudioContext the injected
  // sounds also play into in real time, for the ways of listening that are
  // not emulated (AudioWorklet, MediaRecorder): those hear the sound at the
  // real pace.
  const MIC_RATE = 48000;
  const MIC_MAX_TRACKS = 16;
  const MIC_LABEL = 'worldprobe synthetic microphone';
  const MIC_ID = 'worldprobe-microphone';
  const micClips = []; // {start: first sample at MIC_RATE, data: Float32Array}
  const micClipsOf = parentWp !== null && typeof parentWp.micClips === 'function'
    ? () => { try { return parentWp.micClips(); } catch (e) { return micClips; } }
    : () => micClips;
  let micInject = () => '{"error":"this page has no Web Audio"}';
  // deliverAudio runs, at the start of each frame, the audioprocess events
  // of ScriptProcessorNodes fed by the microphone.
  let deliverAudio = () => {};
  const RealAudioContext = G.AudioContext;
  const RealAudioNode = G.AudioNode;
  const RealAnalyser = G.AnalyserNode;
  const RealGain = G.GainNode;
  const RealMSSN = G.MediaStreamAudioSourceNode;
  const RealStream = G.MediaStream;
  const RealTrack = G.MediaStreamTrack;
  if (!realtime && RealAudioContext && RealAudioNode && RealAnalyser && RealMSSN && RealStream && RealTrack && G.navigator && G.MediaDevices) {
    const WeakGet = WeakMap.prototype.get, WeakSetM = WeakMap.prototype.set, WeakHas = WeakMap.prototype.has;
    const wget = (m, k) => apply(WeakGet, m, [k]);
    const wset = (m, k, v) => { apply(WeakSetM, m, [k, v]); };
    const whas = (m, k) => apply(WeakHas, m, [k]);
    const getter = (proto, name) => { const d = ObjectGetOwnDesc(proto, name); return d && d.get; };
    const ObjectAssign = Object.assign;
    const MathCos = Math.cos, MathSin = Math.sin, MathLog10 = Math.log10, MathMin = Math.min;
    const RealAtob = G.atob;
    const RealDOMException = G.DOMException;
    const RealFloat32Array = Float32Array, RealFloat64Array = Float64Array, RealDataView = DataView;
    const DVGetFloat32 = DataView.prototype.getFloat32;
    const StringCharCode = String.prototype.charCodeAt;
    const realConnect = RealAudioNode.prototype.connect;
    const realDisconnect = RealAudioNode.prototype.disconnect;
    const nodeContext = getter(RealAudioNode.prototype, 'context');
    const ctxRate = getter(G.BaseAudioContext.prototype, 'sampleRate');
    const fftSizeOf = getter(RealAnalyser.prototype, 'fftSize');
    const smoothingOf = getter(RealAnalyser.prototype, 'smoothingTimeConstant');
    const minDbOf = getter(RealAnalyser.prototype, 'minDecibels');
    const maxDbOf = getter(RealAnalyser.prototype, 'maxDecibels');
    const gainParam = RealGain && getter(RealGain.prototype, 'gain');
    const paramValue = G.AudioParam && getter(G.AudioParam.prototype, 'value');
    const trackEnabled = getter(RealTrack.prototype, 'enabled');
    const trackState = getter(RealTrack.prototype, 'readyState');
    const trackStop = RealTrack.prototype.stop;
    const trackClone = RealTrack.prototype.clone;
    const audioTracksOf = RealStream.prototype.getAudioTracks;
    const realCreateDest = G.AudioContext.prototype.createMediaStreamDestination;
    const realCreateGain = G.BaseAudioContext.prototype.createGain;
    const realCreateBuffer = G.BaseAudioContext.prototype.createBuffer;
    const realCreateBufferSource = G.BaseAudioContext.prototype.createBufferSource;
    const bufferCopyTo = G.AudioBuffer.prototype.copyToChannel;
    const bufferSourceBuffer = ObjectGetOwnDesc(G.AudioBufferSourceNode.prototype, 'buffer').set;
    const bufferSourceStart = G.AudioBufferSourceNode.prototype.start;
    const destStream = getter(G.MediaStreamAudioDestinationNode.prototype, 'stream');
    const isNode = (v) => { try { apply(nodeContext, v, []); return true; } catch (e) { return false; } };
    const isA = (v, C) => { try { return v instanceof C; } catch (e) { return false; } };

    // The microphone's tracks (and their clones) → {dest}; source nodes
    // built on a stream holding one → the track.
    const micTracks = new WeakMap();
    const micSources = new WeakMap();
    let liveTracks = [];
    let hidden = null; // {ctx, bus}: the hidden context the stream comes from
    let micFlooded = false, cameraAsked = false, realtimeNoted = false;
    const fail = (msg, name) => RealPromise.reject(new RealDOMException(msg, name));

    function openTrack() {
      if (hidden === null) {
        const ctx = new RealAudioContext({ sampleRate: MIC_RATE });
        hidden = { ctx, bus: apply(realCreateGain, ctx, []) };
      }
      const dest = apply(realCreateDest, hidden.ctx, []);
      apply(realConnect, hidden.bus, [dest]);
      const stream = apply(destStream, dest, []);
      const track = apply(audioTracksOf, stream, [])[0];
      wset(micTracks, track, { dest });
      ObjectDefine(track, 'label', { __proto__: null, get: () => MIC_LABEL, configurable: true });
      const settings = () => ({ deviceId: MIC_ID, groupId: 'worldprobe', sampleRate: MIC_RATE, sampleSize: 32, channelCount: 1,
        echoCancellation: false, autoGainControl: false, noiseSuppression: false, latency: 0 });
      ObjectDefine(track, 'getSettings', { __proto__: null, value: function getSettings() { return settings(); }, configurable: true, writable: true });
      put(liveTracks, track);
      return stream;
    }
    // pruneTracks forgets stopped tracks (their destination leaves the bus).
    function pruneTracks() {
      const keep = [];
      for (let i = 0; i < liveTracks.length; i++) {
        const t = liveTracks[i];
        if (apply(trackState, t, []) === 'live') { put(keep, t); continue; }
        const m = wget(micTracks, t);
        try { apply(realDisconnect, hidden.bus, [m.dest]); } catch (e) { /* already gone */ }
      }
      liveTracks = keep;
    }
    G.MediaDevices.prototype.getUserMedia = function getUserMedia(constraints) {
      if (constraints === null || typeof constraints !== 'object' || (!constraints.audio && !constraints.video)) {
        return RealPromise.reject(new TypeError("Failed to execute 'getUserMedia' on 'MediaDevices': At least one of audio and video must be requested"));
      }
      if (constraints.video) {
        // worldprobe's pages have a microphone and no camera: as a browser
        // on a machine without one, the whole request is refused.
        if (!cameraAsked) { cameraAsked = true; record(log.events, { kind: 'camera_refused', frame }); }
        return fail('Requested device not found', 'NotFoundError');
      }
      pruneTracks();
      if (liveTracks.length >= MIC_MAX_TRACKS) {
        if (!micFlooded) { micFlooded = true; record(log.events, { kind: 'mic_flood', frame, live: liveTracks.length }); }
        return fail('worldprobe: at most ' + MIC_MAX_TRACKS + ' microphone tracks may be live at once; stop() one first', 'NotReadableError');
      }
      let stream;
      try { stream = openTrack(); } catch (e) { return fail('worldprobe: the microphone could not start: ' + RealString(e && e.message), 'NotReadableError'); }
      return RealPromise.resolve(stream);
    };
    // The old callback forms go the same way.
    const gum = G.MediaDevices.prototype.getUserMedia;
    for (const name of ['getUserMedia', 'webkitGetUserMedia']) {
      if (typeof G.navigator[name] !== 'function') continue;
      const legacy = function (constraints, ok, err) {
        RealPromise.prototype.then.call(apply(gum, G.navigator.mediaDevices, [constraints]),
          (s) => { if (typeof ok === 'function') ok(s); }, (e) => { if (typeof err === 'function') err(e); });
      };
      try { ObjectDefine(G.Navigator.prototype, name, { __proto__: null, value: legacy, writable: true, configurable: true }); } catch (e) { /* left as it was */ }
    }
    G.MediaDevices.prototype.enumerateDevices = function enumerateDevices() {
      const d = { deviceId: MIC_ID, kind: 'audioinput', label: MIC_LABEL, groupId: 'worldprobe' };
      ObjectDefine(d, 'toJSON', { __proto__: null, value: function toJSON() { return { deviceId: this.deviceId, kind: this.kind, label: this.label, groupId: this.groupId }; } });
      return RealPromise.resolve([d]);
    };
    G.MediaDevices.prototype.getDisplayMedia = function getDisplayMedia() {
      return fail('worldprobe: screen capture is not available', 'NotAllowedError');
    };
    RealTrack.prototype.clone = function clone() {
      const c = apply(trackClone, this, []);
      const m = wget(micTracks, this);
      if (m !== undefined) wset(micTracks, c, m);
      return c;
    };
    if (G.Permissions && typeof G.Permissions.prototype.query === 'function') {
      const realQuery = G.Permissions.prototype.query;
      G.Permissions.prototype.query = function query(desc) {
        const name = desc && typeof desc === 'object' ? RealString(desc.name) : '';
        if (name === 'microphone' || name === 'camera') {
          const st = { name, state: name === 'microphone' ? 'granted' : 'denied', onchange: null,
            addEventListener() {}, removeEventListener() {}, dispatchEvent() { return true; } };
          return RealPromise.resolve(st);
        }
        return apply(realQuery, this, [desc]);
      };
    }

    // An AudioContext made without a sampleRate runs at MIC_RATE rather
    // than the output device's rate, which differs between machines
    // (44.1 kHz on a headless one, 48 kHz behind many sound servers): what
    // the page computes from sampleRate, and the analyser's bins, are then
    // the same everywhere.
    const ACtx = function AudioContext(opts) {
      if (!new.target) throw new TypeError("Failed to construct 'AudioContext': Please use the 'new' operator, this DOM object constructor cannot be called as a function.");
      let o = opts;
      if (o === undefined || o === null) o = { sampleRate: MIC_RATE };
      else if (typeof o === 'object' && o.sampleRate === undefined) o = ObjectAssign({}, o, { sampleRate: MIC_RATE });
      return ReflectConstruct(RealAudioContext, [o], new.target);
    };
    ACtx.prototype = RealAudioContext.prototype;
    ObjectDefine(RealAudioContext.prototype, 'constructor', { __proto__: null, value: ACtx, writable: true, configurable: true, enumerable: false });
    G.AudioContext = ACtx;
    if (G.webkitAudioContext === RealAudioContext) G.webkitAudioContext = ACtx;

    // The page's source nodes on the microphone.
    const micTrackOf = (stream) => {
      let tracks;
      try { tracks = apply(audioTracksOf, stream, []); } catch (e) { return null; }
      for (let i = 0; i < tracks.length; i++) if (whas(micTracks, tracks[i])) return tracks[i];
      return null;
    };
    const realCreateSource = G.AudioContext.prototype.createMediaStreamSource;
    G.AudioContext.prototype.createMediaStreamSource = function createMediaStreamSource(stream) {
      const node = apply(realCreateSource, this, [stream]);
      const t = micTrackOf(stream);
      if (t !== null) wset(micSources, node, t);
      return node;
    };
    const MSSN = function MediaStreamAudioSourceNode(ctx, opts) {
      if (!new.target) throw new TypeError("Failed to construct 'MediaStreamAudioSourceNode': Please use the 'new' operator");
      const node = ReflectConstruct(RealMSSN, [ctx, opts], new.target);
      const t = opts && typeof opts === 'object' ? micTrackOf(opts.mediaStream) : null;
      if (t !== null) wset(micSources, node, t);
      return node;
    };
    MSSN.prototype = RealMSSN.prototype;
    G.MediaStreamAudioSourceNode = MSSN;

    // The audio graph as the page wires it: node → the nodes feeding it.
    const inputs = new WeakMap();
    const outputs = new WeakMap();
    const edgeAdd = (m, a, b) => { let l = wget(m, a); if (l === undefined) { l = []; wset(m, a, l); } for (let i = 0; i < l.length; i++) if (l[i] === b) return; put(l, b); };
    const edgeDel = (m, a, b) => { const l = wget(m, a); if (l === undefined) return; for (let i = 0; i < l.length; i++) if (l[i] === b) { for (let j = i; j < l.length - 1; j++) l[j] = l[j + 1]; l.length--; return; } };
    RealAudioNode.prototype.connect = function connect(dest, ...rest) {
      const r = apply(realConnect, this, [dest, ...rest]);
      if (isNode(dest)) { edgeAdd(inputs, dest, this); edgeAdd(outputs, this, dest); }
      return r;
    };
    RealAudioNode.prototype.disconnect = function disconnect(...args) {
      const r = apply(realDisconnect, this, args);
      const outs = wget(outputs, this);
      if (outs !== undefined) {
        const to = args.length > 0 && isNode(args[0]) ? args[0] : null;
        if (to !== null || args.length === 0 || typeof args[0] === 'number') {
          const list = [];
          for (let i = 0; i < outs.length; i++) put(list, outs[i]);
          for (let i = 0; i < list.length; i++) {
            if (to !== null && list[i] !== to) continue;
            edgeDel(outputs, this, list[i]); edgeDel(inputs, list[i], this);
          }
        }
      }
      return r;
    };

    // plan lists what feeds node as {track, gain} terms, and sets
    // found.other when something other than the microphone, a gain or an
    // analyser feeds it too (then the real analyser answers).
    function plan(node, gain, terms, found, depth) {
      if (depth > 64) { found.other = true; return; }
      const ins = wget(inputs, node);
      if (ins === undefined) return;
      for (let i = 0; i < ins.length; i++) {
        const u = ins[i];
        const t = wget(micSources, u);
        if (t !== undefined) { put(terms, { track: t, gain }); continue; }
        if (isA(u, RealGain)) {
          let g;
          try { g = apply(paramValue, apply(gainParam, u, []), []); } catch (e) { found.other = true; continue; }
          plan(u, gain * g, terms, found, depth + 1);
          continue;
        }
        if (isA(u, RealAnalyser)) { plan(u, gain, terms, found, depth + 1); continue; }
        found.other = true;
      }
    }
    // micAt is the microphone's sample n at rate rate (linear
    // interpolation between the 48 kHz samples when the rates differ).
    function micSample(clips, i) {
      let v = 0;
      for (let c = 0; c < clips.length; c++) {
        const k = i - clips[c].start;
        if (k >= 0 && k < clips[c].data.length) v += clips[c].data[k];
      }
      return v;
    }
    function micAt(clips, n, rate) {
      if (rate === MIC_RATE) return micSample(clips, n);
      const pos = n * MIC_RATE / rate;
      const j = MathFloor(pos), f = pos - j;
      const a = micSample(clips, j);
      return f === 0 ? a : a + (micSample(clips, j + 1) - a) * f;
    }
    // Per analyser: its last time-domain window and smoothed magnitudes.
    const analysers = new WeakMap();
    // windowOf returns the analyser's state with x, its fftSize most recent
    // samples at the virtual time, or null when the real analyser answers.
    function windowOf(node) {
      if (hidden === null) return null; // no microphone was ever opened
      const terms = [], found = { other: false };
      plan(node, 1, terms, found, 0);
      if (terms.length === 0) return null;
      if (found.other) {
        if (!realtimeNoted) { realtimeNoted = true; record(log.events, { kind: 'audio_realtime', frame }); }
        return null;
      }
      const n = apply(fftSizeOf, node, []);
      let st = wget(analysers, node);
      if (st === undefined || st.n !== n) {
        st = { n, t: -1, x: new RealFloat64Array(n), magT: -1, mag: new RealFloat64Array(n / 2), re: new RealFloat64Array(n), im: new RealFloat64Array(n) };
        wset(analysers, node, st);
      }
      if (st.t === now) return st;
      const rate = apply(ctxRate, apply(nodeContext, node, []), []);
      const end = MathRound(now * rate / 1000);
      fillFrom(terms, rate, end - n, st.x);
      st.t = now;
      return st;
    }
    // fillFrom writes into x what the terms hear from sample from on, at rate.
    // fillFrom writes into x (a Float64Array or a Float32Array) the
    // samples from..from+x.length of the terms' live tracks, each sample
    // summed in double precision, term by term in order, and stored once
    // (so a Float32Array gets the double sum rounded once, as a copy of a
    // Float64Array would give it).
    function fillFrom(terms, rate, from, x) {
      const n = x.length;
      const clips = micClipsOf();
      const live = [];
      for (let ti = 0; ti < terms.length; ti++) {
        const tr = terms[ti].track;
        if (apply(trackState, tr, []) !== 'live' || !apply(trackEnabled, tr, [])) continue;
        if (terms[ti].gain === 0) continue;
        put(live, terms[ti].gain);
      }
      for (let k = 0; k < n; k++) {
        let v = 0;
        for (let ti = 0; ti < live.length; ti++) v += live[ti] * micAt(clips, from + k, rate);
        x[k] = v;
      }
    }

    // ScriptProcessorNodes fed by the microphone (through gains and
    // analysers only): their audioprocess events are the runtime's, one
    // per bufferSize samples of virtual time, delivered at the start of the
    // frame whose time reaches the block's end (before the animation-frame
    // callbacks), with the block in every input channel. Other processors
    // get Chromium's real-time events.
    const SPN = G.ScriptProcessorNode;
    const realCreateSP = G.BaseAudioContext.prototype.createScriptProcessor;
    const RealAudioBuffer = G.AudioBuffer;
    const RealAPE = G.AudioProcessingEvent;
    const realAdd = G.EventTarget.prototype.addEventListener;
    const spBufferSize = SPN && getter(SPN.prototype, 'bufferSize');
    const processorOf = new WeakMap();
    const processors = [];
    const SP_MAX_BLOCKS = 64; // per frame: a longer gap is skipped, not replayed
    function spTerms(rec) {
      const terms = [], found = { other: false };
      plan(rec.node, 1, terms, found, 0);
      return terms.length > 0 && !found.other ? terms : null;
    }
    function spDeliver(rec, e) {
      if (rec.on !== null) { try { apply(rec.on, rec.node, [e]); } catch (err) { report(err); } }
      const ls = [];
      for (let i = 0; i < rec.listeners.length; i++) put(ls, rec.listeners[i]);
      for (let i = 0; i < ls.length; i++) {
        const l = ls[i];
        try {
          if (typeof l === 'function') apply(l, rec.node, [e]);
          else if (l && typeof l.handleEvent === 'function') apply(l.handleEvent, l, [e]);
        } catch (err) { report(err); }
      }
    }
    deliverAudio = () => {
      // Until a microphone opens, nothing can be fed by it: a page without
      // one pays nothing per frame.
      if (hidden === null) return;
      for (let i = 0; i < processors.length; i++) {
        const rec = processors[i];
        const terms = spTerms(rec);
        rec.emulated = terms !== null;
        if (terms === null) { rec.next = -1; continue; }
        const end = MathRound(now * rec.rate / 1000);
        if (rec.next < 0) rec.next = (MathFloor(end / rec.size) + 1) * rec.size;
        if (rec.next + (SP_MAX_BLOCKS - 1) * rec.size < end) rec.next = (MathFloor(end / rec.size) - SP_MAX_BLOCKS + 1) * rec.size;
        while (rec.next <= end) {
          const x = new RealFloat32Array(rec.size);
          fillFrom(terms, rec.rate, rec.next - rec.size, x);
          let e;
          try {
            const input = new RealAudioBuffer({ length: rec.size, numberOfChannels: rec.inCh, sampleRate: rec.rate });
            for (let c = 0; c < rec.inCh; c++) apply(bufferCopyTo, input, [x, c]);
            const output = new RealAudioBuffer({ length: rec.size, numberOfChannels: rec.outCh, sampleRate: rec.rate });
            const init = { playbackTime: rec.next / rec.rate, inputBuffer: input, outputBuffer: output };
            e = RealAPE ? new RealAPE('audioprocess', init) : init;
          } catch (err) { report(err); break; }
          rec.next += rec.size;
          spDeliver(rec, e);
        }
      }
    };
    if (SPN && realCreateSP && RealAudioBuffer && spBufferSize) {
      G.BaseAudioContext.prototype.createScriptProcessor = function createScriptProcessor(...args) {
        const node = apply(realCreateSP, this, args);
        const inCh = args.length > 1 && args[1] !== undefined ? RealNumber(args[1]) : 2;
        const outCh = args.length > 2 && args[2] !== undefined ? RealNumber(args[2]) : 2;
        const rec = { node, size: apply(spBufferSize, node, []), inCh: MathMax(inCh, 1), outCh: MathMax(outCh, 1),
          rate: apply(ctxRate, this, []), next: -1, on: null, listeners: [], emulated: false };
        wset(processorOf, node, rec);
        put(processors, rec);
        apply(realAdd, node, ['audioprocess', (e) => { if (!rec.emulated && spTerms(rec) === null) spDeliver(rec, e); }]);
        ObjectDefine(node, 'onaudioprocess', { __proto__: null, get: () => rec.on, set: (f) => { rec.on = typeof f === 'function' ? f : null; }, configurable: true });
        return node;
      };
      const realRemove = G.EventTarget.prototype.removeEventListener;
      SPN.prototype.addEventListener = function addEventListener(type, fn, opts) {
        const rec = wget(processorOf, this);
        if (rec === undefined || RealString(type) !== 'audioprocess') return apply(realAdd, this, [type, fn, opts]);
        if (fn === null || fn === undefined) return undefined;
        for (let i = 0; i < rec.listeners.length; i++) if (rec.listeners[i] === fn) return undefined;
        put(rec.listeners, fn);
        return undefined;
      };
      SPN.prototype.removeEventListener = function removeEventListener(type, fn, opts) {
        const rec = wget(processorOf, this);
        if (rec === undefined || RealString(type) !== 'audioprocess') return apply(realRemove, this, [type, fn, opts]);
        const keep = [];
        for (let i = 0; i < rec.listeners.length; i++) if (rec.listeners[i] !== fn) put(keep, rec.listeners[i]);
        rec.listeners = keep;
        return undefined;
      };
    }
    // Radix-2 FFT tables by size.
    const twiddles = ObjectCreate(null);
    const blackman = ObjectCreate(null); // Blackman windows by size
    function fft(re, im) {
      const n = re.length;
      let tw = twiddles[n];
      if (tw === undefined) {
        tw = { c: new RealFloat64Array(n / 2), s: new RealFloat64Array(n / 2) };
        for (let k = 0; k < n / 2; k++) { tw.c[k] = MathCos(2 * Math.PI * k / n); tw.s[k] = -MathSin(2 * Math.PI * k / n); }
        twiddles[n] = tw;
      }
      for (let i = 1, j = 0; i < n; i++) {
        let bit = n >> 1;
        for (; j & bit; bit >>= 1) j ^= bit;
        j ^= bit;
        if (i < j) { let t = re[i]; re[i] = re[j]; re[j] = t; t = im[i]; im[i] = im[j]; im[j] = t; }
      }
      for (let len = 2; len <= n; len <<= 1) {
        const half = len >> 1, step = n / len;
        for (let i = 0; i < n; i += len) {
          for (let k = 0; k < half; k++) {
            const wr = tw.c[k * step], wi = tw.s[k * step];
            const a = i + k, b = a + half;
            const xr = re[b] * wr - im[b] * wi, xi = re[b] * wi + im[b] * wr;
            re[b] = re[a] - xr; im[b] = im[a] - xi;
            re[a] += xr; im[a] += xi;
          }
        }
      }
    }
    // magnitudes computes the smoothed spectrum (Web Audio §1.8 "FFT
    // windowing and smoothing over time"): Blackman window (α = 0.16), the
    // FFT scaled by 1/N, then X̂[k] = τ·X̂₋₁[k] + (1 − τ)·|X[k]|; a second
    // read at the same time returns the same values without smoothing again.
    function magnitudes(node, st) {
      if (st.magT === now) return st.mag;
      const n = st.n, re = st.re, im = st.im, x = st.x;
      let w = blackman[n];
      if (w === undefined) {
        w = new RealFloat64Array(n);
        for (let i = 0; i < n; i++) w[i] = 0.42 - 0.5 * MathCos(2 * Math.PI * i / n) + 0.08 * MathCos(4 * Math.PI * i / n);
        blackman[n] = w;
      }
      for (let i = 0; i < n; i++) { re[i] = x[i] * w[i]; im[i] = 0; }
      fft(re, im);
      const tau = apply(smoothingOf, node, []);
      for (let k = 0; k < n / 2; k++) {
        const m = MathSqrt(re[k] * re[k] + im[k] * im[k]) / n;
        let v = tau * st.mag[k] + (1 - tau) * m;
        if (!NumberIsFinite(v)) v = 0;
        st.mag[k] = v;
      }
      st.magT = now;
      return st.mag;
    }
    const AP = RealAnalyser.prototype;
    const realFloatFreq = AP.getFloatFrequencyData, realByteFreq = AP.getByteFrequencyData;
    const realFloatTime = AP.getFloatTimeDomainData, realByteTime = AP.getByteTimeDomainData;
    const clampByte = (v) => (v < 0 ? 0 : v > 255 ? 255 : MathFloor(v));
    AP.getFloatFrequencyData = function getFloatFrequencyData(arr) {
      apply(realFloatFreq, this, [arr]);
      const st = windowOf(this);
      if (st === null) return;
      const mag = magnitudes(this, st);
      const m = MathMin(arr.length, st.n / 2);
      for (let k = 0; k < m; k++) arr[k] = 20 * MathLog10(mag[k]);
    };
    AP.getByteFrequencyData = function getByteFrequencyData(arr) {
      apply(realByteFreq, this, [arr]);
      const st = windowOf(this);
      if (st === null) return;
      const mag = magnitudes(this, st);
      const lo = apply(minDbOf, this, []), hi = apply(maxDbOf, this, []);
      const scale = 1 / (hi - lo);
      const m = MathMin(arr.length, st.n / 2);
      for (let k = 0; k < m; k++) arr[k] = clampByte(255 * (20 * MathLog10(mag[k]) - lo) * scale);
    };
    AP.getFloatTimeDomainData = function getFloatTimeDomainData(arr) {
      apply(realFloatTime, this, [arr]);
      const st = windowOf(this);
      if (st === null) return;
      const m = MathMin(arr.length, st.n);
      for (let k = 0; k < m; k++) arr[k] = st.x[k];
    };
    AP.getByteTimeDomainData = function getByteTimeDomainData(arr) {
      apply(realByteTime, this, [arr]);
      const st = windowOf(this);
      if (st === null) return;
      const m = MathMin(arr.length, st.n);
      for (let k = 0; k < m; k++) arr[k] = clampByte(128 * (st.x[k] + 1));
    };

    // micInject plays a sound (base64 of little-endian float32 samples at
    // MIC_RATE, mono) from the current virtual time on.
    micInject = (b64) => {
      const bin = apply(RealAtob, G, [b64]);
      const bytes = new Uint8Array(bin.length);
      for (let i = 0; i < bin.length; i++) bytes[i] = apply(StringCharCode, bin, [i]);
      const n = bytes.length >> 2;
      const dv = new RealDataView(bytes.buffer);
      const data = new RealFloat32Array(n);
      for (let i = 0; i < n; i++) data[i] = apply(DVGetFloat32, dv, [i * 4, true]);
      const start = MathRound(now * MIC_RATE / 1000);
      put(micClips, { start, data });
      if (hidden !== null && n > 0) {
        try {
          const buf = apply(realCreateBuffer, hidden.ctx, [1, n, MIC_RATE]);
          apply(bufferCopyTo, buf, [data, 0]);
          const src = apply(realCreateBufferSource, hidden.ctx, []);
          apply(bufferSourceBuffer, src, [buf]);
          apply(realConnect, src, [hidden.bus]);
          apply(bufferSourceStart, src, []);
        } catch (e) { /* the real-time copy is a courtesy */ }
      }
      return JSONStringify({ start, samples: n, tracks: liveTracks.length });
    };
  }

  // ---- asynchronous loads that finish in real time ----
  // The harness waits for these before stepping, so that their results land
  // on the same frame on any machine.
  let pendingLoads = 0;
  function track(promise) {
    pendingLoads++;
    const done = () => { pendingLoads--; };
    RealPromise.prototype.then.call(promise, done, done);
    return promise;
  }
  if (G.WebAssembly) {
    for (const name of ['compile', 'instantiate', 'compileStreaming', 'instantiateStreaming']) {
      const orig = G.WebAssembly[name];
      if (typeof orig !== 'function') continue;
      G.WebAssembly[name] = function () { return track(apply(orig, this, arguments)); };
    }
  }
  // ---- workers: the page's seed and the page's clock ----
  // A worker gets the worker runtime (worker.js) before its own script: a
  // blob: worker is wrapped here, a worker served by the harness gets it in
  // front of its script (its URL carries #__wp_worker=INDEX,START). Every
  // stepped frame sends the frame's virtual time to each worker. A shared
  // worker keeps one mark per URL, so pages that connect to it twice still
  // share it.
  const workerClocks = [];
  const MAX_WORKER_CLOCKS = 256;
  let workerSeq = 0;
  const sharedMarks = ObjectCreate(null);
  const RealURL = G.URL;
  const RealBlob = G.Blob;
  const createObjectURL = RealURL && RealURL.createObjectURL;
  const WorkerPostMessage = G.Worker && G.Worker.prototype.postMessage;
  const WorkerTerminate = G.Worker && G.Worker.prototype.terminate;
  const AddListener = EventTarget.prototype.addEventListener;
  const PortStart = MessagePort.prototype.start;
  let workerCount = 0;
  if (typeof WorkerTerminate === 'function') {
    G.Worker.prototype.terminate = function terminate() {
      for (let i = 0; i < workerClocks.length; i++) if (workerClocks[i].w === this) workerClocks[i].dead = true;
      syncProgress();
      return apply(WorkerTerminate, this, []);
    };
  }
  function workerPrelude(index, startMs) {
    const cfg = JSONStringify({ seed: config.seed >>> 0, index, startMs, epochMs });
    return '(0,eval)(' + JSONStringify('(function(){const __WP_WORKER__ = ' + cfg + ';\n' + config.workerRuntime + '\n})();') + ');';
  }
  function wrapWorker(name, shared) {
    const Real = G[name];
    if (typeof Real !== 'function' || typeof Proxy !== 'function') return;
    if (realtime || !config.workerRuntime || !RealURL || !RealBlob) { countConstruct(name); return; }
    G[name] = new Proxy(Real, {
      construct(target, args, newTarget) {
        netCalls++;
        let call = args;
        try {
          const opts = args[1];
          const module = opts !== null && typeof opts === 'object' && opts.type === 'module';
          const u = new RealURL(RealString(args[0]), document.baseURI);
          let mark = shared ? sharedMarks[u.href] : undefined;
          if (mark === undefined) {
            mark = { index: ++workerSeq, startMs: now };
            if (shared) sharedMarks[u.href] = mark;
          }
          let url;
          if (u.protocol === 'blob:') {
            const src = workerPrelude(mark.index, mark.startMs) +
              (module ? 'await import(' + JSONStringify(u.href) + ');' : 'importScripts(' + JSONStringify(u.href) + ');');
            url = apply(createObjectURL, RealURL, [new RealBlob([src], { type: 'text/javascript' })]);
          } else if (u.protocol === 'https:' || u.protocol === 'http:') {
            const h = u.hash ? u.hash.slice(1) + '&' : '';
            u.hash = h + '__wp_worker=' + mark.index + ',' + mark.startMs;
            url = u.href;
          }
          if (url !== undefined) {
            call = [url];
            for (let i = 1; i < args.length; i++) put(call, args[i]);
          }
        } catch (e) { call = args; }
        const w = ReflectConstruct(target, call, newTarget);
        if (workerClocks.length < MAX_WORKER_CLOCKS) {
          const c = { w, shared, port: shared ? w.port : w, dead: false, acked: 0, waiting: 0, index: ++workerCount };
          const onMessage = (e) => {
            const d = e.data;
            if (d === null || typeof d !== 'object') return;
            if (typeof d.__wp_ack === 'number') { e.stopImmediatePropagation(); c.acked = d.__wp_ack; syncProgress(); return; }
            if (d.__wp_closed === true) { e.stopImmediatePropagation(); c.dead = true; syncProgress(); return; }
            if (d.__wp_blocked !== null && typeof d.__wp_blocked === 'object') { e.stopImmediatePropagation(); childRecord('blocked', d.__wp_blocked); }
          };
          try {
            apply(AddListener, c.port, ['message', onMessage]);
            if (shared) apply(PortStart, c.port, []);
            apply(AddListener, w, ['error', () => { if (c.acked === 0) { c.dead = true; syncProgress(); } }]);
            put(workerClocks, c);
          } catch (e) { /* a worker that cannot be followed keeps its start time */ }
        }
        return w;
      },
    });
  }
  // Each frame's time goes to every worker through the worker's own port,
  // so it is ordered with the page's own messages: a message the page sends
  // in frame k reaches the worker after frame k's time, on any machine.
  function postTo(c, msg) {
    try {
      if (c.shared) apply(PortPostMessage, c.port, [msg]);
      else apply(WorkerPostMessage, c.w, [msg]);
    } catch (e) { c.dead = true; }
  }
  function tickWorkers() {
    for (let i = 0; i < workerClocks.length; i++) if (!workerClocks[i].dead) postTo(workerClocks[i], { __wp_tick: now });
  }
  // syncWorkers asks every live worker to answer once it has handled all
  // the page sent it, and resolves when all have (a worker that takes
  // longer than WORKER_SYNC_MS of real time is recorded and no longer
  // waited for).
  const WORKER_SYNC_MS = 10000;
  let syncSeq = 0;
  let syncDone = null;
  function syncPending() {
    for (let i = 0; i < workerClocks.length; i++) {
      const c = workerClocks[i];
      if (!c.dead && c.acked < c.waiting) return true;
    }
    return false;
  }
  function syncProgress() {
    if (syncDone !== null && !syncPending()) { const r = syncDone; syncDone = null; r(); }
  }
  function syncWorkers() {
    if (workerClocks.length === 0) return null;
    const n = ++syncSeq;
    let any = false;
    for (let i = 0; i < workerClocks.length; i++) {
      const c = workerClocks[i];
      if (c.dead) continue;
      c.waiting = n;
      postTo(c, { __wp_sync: n });
      any = true;
    }
    if (!any || !syncPending()) return null;
    return new RealPromise((resolve) => {
      syncDone = resolve;
      realSetTimeout(() => {
        if (syncDone !== resolve) return;
        for (let i = 0; i < workerClocks.length; i++) {
          const c = workerClocks[i];
          if (!c.dead && c.acked < c.waiting) {
            c.dead = true;
            record(log.events, { kind: 'worker_unresponsive', frame, worker: c.index });
          }
        }
        syncProgress();
      }, WORKER_SYNC_MS);
    });
  }

  // ---- calls that may start a request ----
  // netCalls counts every call through which page code can ask for the
  // network (fetch, XHR, workers, media and element URLs). While it does
  // not change and no request has reached the harness, the harness steps
  // the next frames without first waiting for the network to settle; a
  // change makes it wait (see step's opts.since).
  let netCalls = 0;
  const always = () => true;
  // countCall wraps obj[name] so that a call counts when mayLoad(arg, i)
  // holds for one of its arguments (every call by default).
  function countCall(obj, name, mayLoad = always) {
    const orig = obj && obj[name];
    if (typeof orig !== 'function') return;
    obj[name] = function () {
      if (mayLoad === always) netCalls++;
      else for (let i = 0; i < arguments.length; i++) if (mayLoad(arguments[i], i)) { netCalls++; break; }
      return apply(orig, this, arguments);
    };
  }
  function countConstruct(name) {
    const Real = G[name];
    if (typeof Real !== 'function' || typeof Proxy !== 'function') return;
    G[name] = new Proxy(Real, { construct(target, args, newTarget) { netCalls++; return ReflectConstruct(target, args, newTarget); } });
  }
  function countSetter(Ctor, prop, mayLoad = always) {
    if (!Ctor) return;
    const desc = Object.getOwnPropertyDescriptor(Ctor.prototype, prop);
    if (!desc || !desc.set || !desc.configurable) return;
    ObjectDefine(Ctor.prototype, prop, { __proto__: null,
      configurable: true, enumerable: desc.enumerable, get: desc.get,
      set: function (v) { if (mayLoad(v, 0)) netCalls++; return apply(desc.set, this, [v]); },
    });
  }
  countCall(G, 'fetch');
  // fetch() resolves when the headers arrive; the page reads the body after
  // (r.json(), r.text(), …). Both are tracked, so that the harness's wait
  // before the next frame covers fetch(url).then((r) => r.json()).then(use)
  // up to `use` on any machine, however slowly the body comes. Only bodies
  // of fetched responses are tracked: a Response the page builds on a
  // stream of its own may never end.
  if (typeof G.fetch === 'function' && G.Response && typeof WeakSet === 'function') {
    const countedFetch = G.fetch;
    const fetched = new WeakSet();
    const FetchedAdd = WeakSet.prototype.add, FetchedHas = WeakSet.prototype.has;
    const remember = (r) => { try { apply(FetchedAdd, fetched, [r]); } catch (e) { /* not an object */ } };
    G.fetch = function fetch() {
      const p = apply(countedFetch, this, arguments);
      if (p instanceof RealPromise) {
        track(p);
        RealPromise.prototype.then.call(p, remember, () => {});
      }
      return p;
    };
    for (const name of ['json', 'text', 'arrayBuffer', 'blob', 'formData', 'bytes']) {
      const read = G.Response.prototype[name];
      if (typeof read !== 'function') continue;
      G.Response.prototype[name] = function () {
        const p = apply(read, this, arguments);
        if (p instanceof RealPromise && apply(FetchedHas, fetched, [this])) track(p);
        return p;
      };
    }
  }
  if (G.XMLHttpRequest) countCall(G.XMLHttpRequest.prototype, 'send');
  if (G.navigator) countCall(G.navigator, 'sendBeacon');
  for (const name of ['EventSource', 'WebSocket', 'Audio', 'FontFace']) countConstruct(name);
  wrapWorker('Worker', false);
  wrapWorker('SharedWorker', true);
  countSetter(G.HTMLScriptElement, 'src');
  countSetter(G.HTMLLinkElement, 'href');
  countSetter(G.HTMLMediaElement, 'src');
  countSetter(G.HTMLSourceElement, 'src');
  countSetter(G.HTMLIFrameElement, 'src');
  countSetter(G.HTMLImageElement, 'srcset');
  countSetter(G.HTMLObjectElement, 'data');
  if (G.Element) {
    const loading = { src: 1, href: 1, srcset: 1, data: 1, poster: 1, 'xlink:href': 1 };
    countCall(G.Element.prototype, 'setAttribute', (name, i) => i === 0 && loading[String(name).toLowerCase()] === 1);
  }
  if (G.Node && G.Element) {
    // Inserting markup or nodes can start loads (<script>, <link>, <img>…),
    // but a HUD that rewrites its text every frame must not make every
    // frame wait: only markup and nodes that can load something count.
    const loadsMarkup = /<\s*(img|script|link|iframe|frame|video|audio|source|object|embed|style|image|input|track)\b|url\s*\(|\b(src|srcset|href|poster|data)\s*=/i;
    const RegExpTest = RegExp.prototype.test;
    const loadingTags = 'img,script,link,iframe,frame,video,audio,source,object,embed,style,image,input,track';
    const ElementMatches = G.Element.prototype.matches;
    const ElementQuery = G.Element.prototype.querySelector;
    const FragmentQuery = G.DocumentFragment && G.DocumentFragment.prototype.querySelector;
    const markupMayLoad = (v) => apply(RegExpTest, loadsMarkup, [String(v)]);
    const nodeMayLoad = (n) => {
      if (n === null || typeof n !== 'object') return false; // text
      try {
        if (n.nodeType === 1) return apply(ElementMatches, n, [loadingTags]) || apply(ElementQuery, n, [loadingTags]) !== null;
        if (n.nodeType === 11 && FragmentQuery) return apply(FragmentQuery, n, [loadingTags]) !== null;
        return false; // text, comment
      } catch (e) { return true; }
    };
    countCall(G.Element.prototype, 'insertAdjacentHTML', (v, i) => i === 1 && markupMayLoad(v));
    for (const name of ['appendChild', 'insertBefore', 'replaceChild']) countCall(G.Node.prototype, name, (n, i) => i === 0 && nodeMayLoad(n));
    for (const name of ['append', 'prepend', 'after', 'before', 'replaceWith']) countCall(G.Element.prototype, name, nodeMayLoad);
    countSetter(G.Element, 'innerHTML', markupMayLoad);
    countSetter(G.Element, 'outerHTML', markupMayLoad);
  }
  if (G.HTMLImageElement) {
    const desc = Object.getOwnPropertyDescriptor(G.HTMLImageElement.prototype, 'src');
    if (desc && desc.set) {
      ObjectDefine(G.HTMLImageElement.prototype, 'src', { __proto__: null,
        configurable: true, enumerable: desc.enumerable, get: desc.get,
        set: function (v) {
          netCalls++;
          const img = this;
          // A lazy image loads only when it comes into view, maybe never:
          // the harness waits for its request, not for its decoding.
          if (String(img.loading).toLowerCase() !== 'lazy') track(new RealPromise((resolve) => {
            img.addEventListener('load', resolve, { once: true });
            img.addEventListener('error', resolve, { once: true });
          }));
          return apply(desc.set, this, [v]);
        },
      });
    }
  }

  // ---- three.js devtools hook: scenes, renderers, last camera ----
  const scenes = [];
  const renderers = [];
  let threeRevision = '';
  let lastScene = null;
  let lastCamera = null;
  let renderCalls = 0;
  // views: the (camera, viewport) pairs rendered to the screen in the
  // current frame, for projecting into split-screen layouts. draws: every
  // render call of the frame, in order — its scene, its camera and, when it
  // drew to the screen, its view (null for a render target) — for
  // projecting an object with the camera that drew its scene (a
  // post-processed page draws the scene into a render target, then the
  // canvas with a full-screen quad and an orthographic camera).
  // recordView runs in the page's frame loop (every render call), so it
  // reuses one viewport receiver instead of allocating per call.
  let views = [], draws = [], viewsFrame = -1;
  const DRAWS_KEPT = 32;
  const vp = { x: 0, y: 0, z: 0, w: 0, copy(v) { this.x = v.x; this.y = v.y; this.z = v.z; this.w = v.w; return this; } };
  function recordView(renderer, scene, camera) {
    if (viewsFrame !== frame) { views = []; draws = []; viewsFrame = frame; }
    let view = null, toTarget = false;
    try {
      toTarget = typeof renderer.getRenderTarget === 'function' && !!renderer.getRenderTarget();
      if (!toTarget) {
        vp.x = 0; vp.y = 0; vp.z = 0; vp.w = 0;
        if (typeof renderer.getViewport === 'function') renderer.getViewport(vp);
        const pr = typeof renderer.getPixelRatio === 'function' ? renderer.getPixelRatio() : 1;
        const el = renderer.domElement;
        view = { camera, x: vp.x, y: vp.y, w: vp.z, h: vp.w, lw: el.width / pr, lh: el.height / pr };
        if (views.length < 16) put(views, view);
      }
    } catch (e) { /* a renderer without viewport queries */ }
    if (!scene || !scene.isObject3D || (!view && !toTarget)) return;
    // A frame with more render calls keeps its last DRAWS_KEPT.
    if (draws.length >= DRAWS_KEPT) {
      for (let i = 1; i < draws.length; i++) draws[i - 1] = draws[i];
      draws.length = draws.length - 1;
    }
    put(draws, { scene, camera, view });
  }
  const devtools = new EventTarget();
  devtools.addEventListener('register', (e) => {
    if (e.detail && e.detail.revision) threeRevision = apply(StringSlice, RealString(e.detail.revision), [0, 32]);
  });
  devtools.addEventListener('observe', (e) => {
    const o = e.detail;
    if (!o || typeof o !== 'object') return;
    if (o.isScene) { if (scenes.length < 64) put(scenes, o); return; }
    if (typeof o.render === 'function' && o.domElement) {
      if (renderers.length >= 16) return;
      put(renderers, o);
      const orig = o.render;
      try {
        ObjectDefine(o, 'render', { __proto__: null,
          configurable: true, writable: true,
          value: function render(scene, camera) {
            renderCalls++;
            if (scene && scene.isObject3D) lastScene = scene;
            if (camera && camera.isCamera) { lastCamera = camera; recordView(this, scene, camera); }
            return apply(orig, this, arguments);
          },
        });
      } catch (err) { /* renderer froze its render */ }
    }
  });
  lock(G, '__THREE_DEVTOOLS__', devtools);

  // ---- stepping ----
  // One step at a time waits for a macrotask (the harness never overlaps
  // steps), so one slot holds its continuation.
  const channel = new RealMessageChannel();
  let waiting = null;
  channel.port1.onmessage = () => { const r = waiting; waiting = null; if (r) r(); };
  function macrotask() {
    return new RealPromise((resolve) => { waiting = resolve; apply(PortPostMessage, channel.port2, [0]); });
  }

  // Same-origin child frames (iframes, srcdoc, about:blank) run the page's
  // clock: each registers with the runtime of the frame above it, which
  // brings it to every frame's time right after its own callbacks (tree
  // order, as browsers run animation frames). A frame registers when its
  // runtime starts, taking the parent's current virtual time.
  let children = [];
  function adoptFrame(child) {
    if (child && typeof child.advanceTo === 'function' && children.length < 64) put(children, child);
  }
  function stepChildren(skip) {
    if (children.length === 0) return;
    const keep = [];
    for (let i = 0; i < children.length; i++) {
      const c = children[i];
      let alive = false;
      try { alive = c.alive(); } catch (e) { alive = false; }
      if (!alive) continue;
      put(keep, c);
      try { c.advanceTo(now, skip); } catch (e) { report(e); }
    }
    children = keep;
  }

  // A page that floods its document is recorded once (the memory cap is
  // what stops it); checked every 30 frames, cheap on ordinary pages.
  const DOM_FLOOD_NODES = 200000;
  const GetByTag = G.Document && G.Document.prototype.getElementsByTagName;
  let domFlood = false;
  function checkDOM() {
    if (domFlood || !GetByTag || frame % 30 !== 0) return;
    try {
      const n = apply(GetByTag, document, ['*']).length;
      if (n > DOM_FLOOD_NODES) { domFlood = true; record(log.events, { kind: 'dom_flood', frame, nodes: n }); }
    } catch (e) { /* no document */ }
  }

  function stepOne() {
    frame++;
    const r = advanceTo((frame * 1000) / config.fps);
    stepChildren(skipDraw);
    checkDOM();
    return r;
  }

  // advanceTo runs one frame at virtual time target: performance entries,
  // due timers, animations, workers, then the animation-frame callbacks.
  function advanceTo(target) {
    const before = now;
    deliverPerformance();
    runTimersUntil(target);
    now = target;
    advanceAnimations(now - before);
    tickWorkers();
    deliverAudio();
    drawsThisFrame = 0;
    clearsThisFrame = 0;
    const cbs = rafs;
    const n = rafCount;
    rafs = ObjectCreate(null);
    rafCount = 0;
    runningRafs = cbs;
    for (const id in cbs) {
      try { apply(cbs[id], G, [now]); } catch (e) { report(e); }
    }
    runningRafs = null;
    return { callbacks: n, draws: drawsThisFrame, clears: clearsThisFrame };
  }

  // step advances n frames. Draw calls are skipped on every frame but the
  // last when opts.skip is true and opts.draw asks for the last frame drawn.
  //
  // opts.since is the netCalls count the harness saw when the network was
  // last settled; when calls were made since, or a tracked load is pending,
  // step returns {dirty: true} without stepping, so the harness waits first.
  // The reply's netBefore and net say whether the stepped frames made calls;
  // the first frame that makes one (or starts a tracked load) is the last
  // stepped, so fewer than n frames may be stepped.
  async function step(n, opts) {
    opts = opts || {};
    const perFrame = [];
    if (typeof opts.since === 'number' && opts.since >= 0 && (opts.since !== netCalls || pendingLoads > 0)) {
      return { dirty: true, frame, virtualMs: now, perFrame, netBefore: netCalls, net: netCalls, pending: pendingLoads };
    }
    const netBefore = netCalls;
    if (realtime) {
      // Wait n real animation frames, as a harness without a virtual clock does.
      skipDraw = false;
      for (let i = 0; i < n; i++) {
        drawsThisFrame = 0;
        clearsThisFrame = 0;
        await new RealPromise((resolve) => realRAF(resolve));
        frame++;
        put(perFrame, [1, drawsThisFrame, clearsThisFrame]);
      }
      now = performance.now();
      return { frame, virtualMs: now, perFrame, netBefore, net: netCalls, pending: pendingLoads };
    }
    for (let i = 0; i < n; i++) {
      const last = i === n - 1;
      skipDraw = opts.skip === true && !(last && opts.draw === true);
      const r = stepOne();
      put(perFrame, [r.callbacks, r.draws, r.clears]);
      // A frame that may have asked for the network ends the chunk, so the
      // harness settles the network before the next frame.
      const synced = syncWorkers();
      if (synced !== null) await synced;
      if (netCalls !== netBefore || pendingLoads > 0) break;
      await macrotask();
    }
    skipDraw = opts.skip === true;
    return { frame, virtualMs: now, perFrame, netBefore, net: netCalls, pending: pendingLoads };
  }

  // realFrame waits for two real compositor frames, so the drawing of the
  // last stepped frame has reached the screen.
  // hideCarets makes text carets transparent. A caret blinks on the
  // browser's real-time timer, so a focused input over the canvas would make
  // two captures of the same frame differ. Re-added if the page removes it.
  function hideCarets() {
    try {
      const d = document;
      if (!d.documentElement || d.getElementById('__wp-no-caret')) return;
      const st = d.createElement('style');
      st.id = '__wp-no-caret';
      st.textContent = '*, *::before, *::after { caret-color: transparent !important; }';
      apply(NodeAppendChild, d.head || d.documentElement, [st]);
    } catch (e) { /* a hostile document; captures may then show a caret */ }
  }

  function realFrame() {
    hideCarets();
    return new RealPromise((resolve) => {
      if (!realRAF) { resolve(); return; }
      realRAF(() => realRAF(() => resolve()));
    });
  }

  // ---- input delivery ----
  // The browser's trusted input events that reached this document, by type,
  // counted in the capture phase on the window (the runtime's listener is
  // the first there: it is added before any page script runs). The harness
  // compares them with what it sent to know its input has been dispatched
  // without waiting for real frames; events that land elsewhere (an iframe,
  // outside the viewport) leave the count short and the wait falls back to
  // two real frames.
  const INPUT_TYPES = ['mousemove', 'mousedown', 'mouseup', 'keydown', 'keyup', 'wheel'];
  const inputSeen = ObjectCreate(null);
  for (let i = 0; i < INPUT_TYPES.length; i++) {
    const type = INPUT_TYPES[i];
    inputSeen[type] = 0;
    apply(AddListener, G, [type, (e) => { if (e.isTrusted) inputSeen[type]++; }, { capture: true, passive: true }]);
  }
  function inputCounts() {
    const out = {};
    for (let i = 0; i < INPUT_TYPES.length; i++) out[INPUT_TYPES[i]] = inputSeen[INPUT_TYPES[i]];
    return out;
  }
  // inputSettled resolves with the counts ({seen, waited}: real frames
  // waited) once every type has reached the count in want, or after two
  // real frames (by then rAF-aligned input has been dispatched wherever it
  // went).
  function inputSettled(want) {
    hideCarets();
    const reached = () => {
      for (let i = 0; i < INPUT_TYPES.length; i++) {
        const type = INPUT_TYPES[i];
        if (want && typeof want[type] === 'number' && inputSeen[type] < want[type]) return false;
      }
      return true;
    };
    return new RealPromise((resolve) => {
      let waited = 0;
      const check = () => {
        if (reached() || !realRAF || waited >= 2) { resolve({ seen: inputCounts(), waited }); return; }
        waited++;
        realRAF(check);
      };
      check();
    });
  }

  // ---- observation: state ----
  const NONFINITE = { NaN: 'NaN', Infinity: 'Infinity', '-Infinity': '-Infinity' };
  // indexKeyed says whether o has an own property named like an array
  // index ("0", "17"), read without running page code.
  function indexKeyed(o) {
    const names = ObjectOwnNames(o);
    for (let i = 0; i < names.length; i++) {
      const k = names[i];
      let digits = k.length > 0 && (k.length === 1 || k[0] !== '0');
      for (let j = 0; digits && j < k.length; j++) digits = k[j] >= '0' && k[j] <= '9';
      if (digits) return true;
    }
    return false;
  }
  // readState reads __3D_STATE__ into canonical JSON. With untouched, it is
  // meant for V8's side-effect-free evaluation (the harness's
  // ReadStateUntouched), where Object.defineProperty counts as a side
  // effect: results are then built by plain assignment, which gives the same
  // result only while no array index is an accessor or a key inherited by
  // the result arrays; otherwise it returns {untouchable: true} at once.
  function readState(maxBytes, untouched) {
    if (untouched && (ObjectGetProto(RealArrayProto) !== RealObjectProto || indexKeyed(RealArrayProto) || indexKeyed(RealObjectProto))) {
      return JSONStringify({ untouchable: true });
    }
    // (Each variable is assigned once: V8's side-effect-free mode refuses
    // to reassign a variable that a nested function can see.)
    const put = untouched ? (a, v) => { a[a.length] = v; } : putDefined;
    const setKey = untouched
      ? (o, k, v) => { o[k] = v; } // o has no prototype
      : (o, k, v) => { ObjectDefine(o, k, { __proto__: null, value: v, writable: true, enumerable: true, configurable: true }); };
    const issues = { nonfinite: [], cycles: [], errors: [], truncated: false };
    // What the nested readers change lives in an object of this read:
    // V8's side-effect-free mode refuses writes to an enclosing function's
    // variables.
    const S = ObjectCreate(null);
    S.budget = maxBytes;
    S.depth = 0;
    let raw;
    let present = true;
    try {
      if (!apply(HasOwn, G, ['__3D_STATE__']) && G.__3D_STATE__ === undefined) present = false;
      raw = G.__3D_STATE__;
      if (typeof raw === 'function') raw = raw();
    } catch (e) {
      put(issues.errors, { path: '$', message: (() => { try { return RealString(e && e.message || e); } catch (e2) { return 'unreadable error'; } })() });
      raw = undefined;
    }
    // The page's objects are read through guarded steps only: a getter or
    // Proxy trap that throws becomes an error at its path, strings and
    // nesting count against the size budget, and nothing on a prototype
    // the page may have changed is used (results are built with put and
    // define, the cycle check is a plain loop).
    const stack = ObjectCreate(null);
    const fail = (path, e) => {
      let msg;
      try { msg = RealString(e && e.message || e); } catch (e2) { msg = 'unreadable error'; }
      if (issues.errors.length < 100) put(issues.errors, { path, message: msg });
    };
    function conv(v, path, depth) {
      if (S.budget <= 0) { issues.truncated = true; return undefined; }
      if (v === null) { S.budget -= 4; return null; }
      const t = typeof v;
      if (t === 'number') {
        if (!NumberIsFinite(v)) { if (issues.nonfinite.length < 100) put(issues.nonfinite, path); S.budget -= 10; return NONFINITE[RealString(v)]; }
        S.budget -= 8; return v;
      }
      if (t === 'string') {
        if (v.length + 2 > S.budget) { issues.truncated = true; v = apply(StringSlice, v, [0, MathMax(0, S.budget - 2)]); }
        S.budget -= v.length + 2; return v;
      }
      if (t === 'boolean') { S.budget -= 5; return v; }
      if (t === 'bigint') { S.budget -= 10; return RealString(v); }
      if (t !== 'object' && t !== 'function') return undefined;
      if (t === 'function') return undefined;
      for (let i = 0; i < S.depth; i++) {
        if (stack[i] === v) { if (issues.cycles.length < 100) put(issues.cycles, path); S.budget -= 12; return '[Circular]'; }
      }
      if (depth > 32) { issues.truncated = true; return '[Depth]'; }
      S.budget -= 2;
      stack[S.depth++] = v;
      try {
        return convObject(v, path, depth);
      } catch (e) {
        fail(path, e);
        return undefined;
      } finally {
        // (delete counts as a side effect there too; entries past the
        // depth are never read)
        S.depth--;
        stack[S.depth] = undefined;
      }
    }
    function convList(v, path, depth, isView) {
      const out = [];
      const n = v.length >>> 0;
      for (let i = 0; i < n; i++) {
        let item;
        try { item = v[i]; } catch (e) { fail(path + '[' + i + ']', e); item = null; }
        if (isView && typeof item === 'bigint') item = RealString(item);
        const c = conv(item, path + '[' + i + ']', depth + 1);
        put(out, c === undefined ? null : c);
        if (S.budget <= 0) { issues.truncated = true; break; }
      }
      return out;
    }
    function convObject(v, path, depth) {
      if (ArrayBufferIsView(v)) return v instanceof DataView ? undefined : convList(v, path, depth, true);
      if (ArrayIsArray(v)) return convList(v, path, depth, false);
      if (v instanceof RealDate) { S.budget -= 26; const ms = apply(DateGetTime, v, []); return ms !== ms ? null : apply(DateToISO, v, []); }
      const three = (keys) => {
        const out = ObjectCreate(null);
        for (let i = 0; i < keys.length; i++) {
          const k = keys[i];
          let val;
          try { val = v[k]; } catch (e) { fail(path + '.' + k, e); continue; }
          const c = conv(val, path + '.' + k, depth + 1);
          if (c !== undefined) setKey(out, k, c);
        }
        return out;
      };
      if (v.isQuaternion) return three(['x', 'y', 'z', 'w']);
      if (v.isEuler) { const o = three(['x', 'y', 'z']); setKey(o, 'order', conv(v.order, path + '.order', depth + 1)); return o; }
      if (v.isColor) return three(['r', 'g', 'b']);
      if (v.isMatrix3 || v.isMatrix4) return conv(v.elements, path + '.elements', depth + 1);
      if (v.isObject3D) {
        const p = v.position || {};
        const out = ObjectCreate(null);
        setKey(out, 'type', conv(RealString(v.type), path + '.type', depth + 1));
        setKey(out, 'name', conv(RealString(v.name || ''), path + '.name', depth + 1));
        setKey(out, 'position', [conv(p.x, path + '.position.x', depth + 1), conv(p.y, path + '.position.y', depth + 1), conv(p.z, path + '.position.z', depth + 1)]);
        setKey(out, 'visible', !!v.visible);
        return out;
      }
      if (typeof Node !== 'undefined' && v instanceof Node) { S.budget -= 16; return '[' + RealString(v.nodeName || 'Node') + ']'; }
      if (v instanceof RealMap) {
        const out = ObjectCreate(null);
        const it = apply(MapEntries, v, []);
        for (let e = apply(MapIterNext, it, []); !e.done; e = apply(MapIterNext, it, [])) {
          const k = RealString(e.value[0]);
          const c = conv(e.value[1], path + '.' + k, depth + 1);
          if (c !== undefined) setKey(out, k, c);
          if (S.budget <= 0) { issues.truncated = true; break; }
        }
        return out;
      }
      if (v instanceof RealSet) {
        const out = [];
        const it = apply(SetValues, v, []);
        let i = 0;
        for (let e = apply(SetIterNext, it, []); !e.done; e = apply(SetIterNext, it, [])) {
          const c = conv(e.value, path + '[' + i + ']', depth + 1);
          put(out, c === undefined ? null : c);
          i++;
          if (S.budget <= 0) { issues.truncated = true; break; }
        }
        return out;
      }
      const out = ObjectCreate(null);
      const keys = ObjectKeys(v);
      for (let i = 0; i < keys.length; i++) {
        const k = keys[i];
        let val;
        try { val = v[k]; } catch (e) { fail(path + '.' + k, e); continue; }
        const c = conv(val, path + '.' + k, depth + 1);
        if (c !== undefined) { setKey(out, k, c); S.budget -= k.length + 3; }
        if (S.budget <= 0) { issues.truncated = true; break; }
      }
      return out;
    }
    const value = present ? conv(raw, '$', 0) : undefined;
    return JSONStringify({ present: present && raw !== undefined, value: value === undefined ? null : value, issues });
  }

  // ---- observation: scene ----
  function box3Of(geo) {
    if (geo.boundingBox && geo.boundingBox.min && geo.boundingBox.max) return geo.boundingBox;
    const pos = geo.attributes && geo.attributes.position;
    if (!pos || !pos.array || !pos.count) return null;
    const a = pos.array, stride = pos.isInterleavedBufferAttribute ? pos.data.stride : (pos.itemSize || 3);
    const off = pos.isInterleavedBufferAttribute ? pos.offset : 0;
    const min = { x: Infinity, y: Infinity, z: Infinity }, max = { x: -Infinity, y: -Infinity, z: -Infinity };
    for (let i = 0; i < pos.count; i++) {
      const j = i * stride + off;
      const x = a[j], y = a[j + 1], z = a[j + 2];
      if (x < min.x) min.x = x; if (y < min.y) min.y = y; if (z < min.z) min.z = z;
      if (x > max.x) max.x = x; if (y > max.y) max.y = y; if (z > max.z) max.z = z;
    }
    return { min, max };
  }
  // Scene walks stop after this many objects: a page's fake scene with
  // children.length = 2**31 cannot keep the harness walking.
  const SCENE_WALK_LIMIT = 200000;
  const SCENE_WALK_DEPTH = 4096;
  const SCENE_WALK_READS = 2 * SCENE_WALK_LIMIT;
  // walkScene is the bounded walk of a page's scene graph behind object()'s
  // box, tagged(), contact()'s bodies and panel()'s texts, samples and
  // occluders (worldBox, taggedIn, solidsOf, bodiesInfo, panelTexts,
  // occluders). It visits root and its descendants depth first, in
  // scene-graph order (an object, then each child's subtree in turn),
  // calling visit(o) once for each: visit returns false to leave o's
  // descendants out (a hidden subtree), anything else to walk them.
  // Bounds and guards against a hostile scene, all here:
  // - at most SCENE_WALK_LIMIT objects are visited, and at most
  //   SCENE_WALK_LIMIT wait on the stack: children are pushed last first,
  //   so when the stack is full a parent's first children are the ones
  //   left out (children that claim to number 2**31, each the same object,
  //   cost one stack's worth: testdata/hostile/fake_scene.html);
  // - at most SCENE_WALK_READS children entries are read in all: children
  //   that claim to number 2**31 but hold nothing (a Proxy, {length}) would
  //   otherwise be read 2**31 times, a trap call each, and keep the page
  //   and the harness's call busy for minutes. A scene whose children are
  //   all objects never reaches it (each entry read is pushed, and at most
  //   SCENE_WALK_LIMIT are visited and SCENE_WALK_LIMIT left on the stack);
  // - an object's visit and the read of its children are in one try: a
  //   getter that throws (in visit or on children, its length or an
  //   entry) loses that object's descendants, not the walk; falsy
  //   entries (null, undefined, 0) are skipped;
  // - the walk is iterative, so a scene nested 100,000 deep cannot
  //   overflow the JavaScript stack; it reads no field of its own objects
  //   that may be missing, so getters a page puts on Object.prototype
  //   (testdata/hostile/proto_getters.html) change nothing: opts is read
  //   by own property, the result has no prototype.
  // opts (optional, a prototype-less object): enough, a function checked
  // before each object, ends the walk when it returns true (a caller's own
  // cap on what it gathers). The result says how many objects were
  // visited and whether the bounds above cut the walk short (truncated:
  // objects left unvisited on the stack, or children left unread because
  // the stack was full or the reads ran out); none of the six callers
  // reports it (their results have no such field).
  // The scene summary (sceneSummary) and object() by name (findIn) keep
  // walks of their own, iterative too and bounded by the same
  // SCENE_WALK_LIMIT objects and SCENE_WALK_READS entries read, but in
  // another order (first child first, nothing left off a stack): the
  // summary's also stops at SCENE_WALK_DEPTH levels and passes visibility
  // down, findIn's stops at the first match; their truncation points are
  // documented (docs/runtime.md, docs/schemas.md) and tested
  // (fake_scene.html: 4,097 objects; walkbounds.html) as they are.
  function walkScene(root, visit, opts) {
    const enough = opts && apply(HasOwn, opts, ['enough']) ? opts.enough : null;
    let visited = 0, truncated = false, reads = 0;
    const stack = [root];
    while (stack.length > 0 && visited < SCENE_WALK_LIMIT && !(enough !== null && enough())) {
      const o = stack[stack.length - 1];
      stack.length--;
      visited++;
      try {
        if (visit(o) === false) continue;
        const k = o.children;
        if (k) {
          let i = k.length - 1;
          for (; i >= 0 && stack.length < SCENE_WALK_LIMIT && reads < SCENE_WALK_READS; i--, reads++) if (k[i]) put(stack, k[i]);
          if (i >= 0) truncated = true;
        }
      } catch (err) { /* a hostile object: its descendants are unknown */ }
    }
    if (stack.length > 0 && visited >= SCENE_WALK_LIMIT) truncated = true;
    return { __proto__: null, visited, truncated };
  }
  function sceneSummary() {
    const s = lastScene || scenes[scenes.length - 1] || null;
    // out has no prototype: a setter a page puts on Object.prototype
    // (truncated, error, mesh_bounds…) would otherwise swallow the
    // assignments below, and a getter there answer for a field never set
    // (testdata/hostile/proto_getters.html; JSON.stringify reads own fields
    // only, in the order written).
    const out = {
      __proto__: null, three_revision: threeRevision, scenes: scenes.length, renderers: renderers.length, render_calls: renderCalls,
      objects: 0, meshes: 0, lights: 0, triangles: 0, points: 0, lines: 0,
      visible_meshes: 0, visible_triangles: 0, instances: 0,
      bounds: null, camera: null, rendered: lastScene !== null && s === lastScene,
    };
    if (!s) return JSONStringify(out);
    const lo = [Infinity, Infinity, Infinity], hi = [-Infinity, -Infinity, -Infinity];
    const mlo = [Infinity, Infinity, Infinity], mhi = [-Infinity, -Infinity, -Infinity];
    // grow widens the box [l, h] to hold (x, y, z); boxOf renders a box.
    const grow = (l, h, x, y, z) => {
      if (x < l[0]) l[0] = x; if (y < l[1]) l[1] = y; if (z < l[2]) l[2] = z;
      if (x > h[0]) h[0] = x; if (y > h[1]) h[1] = y; if (z > h[2]) h[2] = z;
    };
    const boxOf = (l, h) => ({ min: [round6(l[0]), round6(l[1]), round6(l[2])], max: [round6(h[0]), round6(h[1]), round6(h[2])] });
    let visited = 0, truncated = false, reads = 0;
    // visit counts one object and returns whether it is visible; the walk
    // is iterative (a scene nested 100,000 deep cannot overflow the stack)
    // and stops at SCENE_WALK_LIMIT objects, SCENE_WALK_DEPTH levels or
    // SCENE_WALK_READS children entries read (children that claim 2**31
    // entries and hold none; a scene whose children are all objects stops
    // at SCENE_WALK_LIMIT objects first).
    const visit = (o, visible) => {
      visited++;
      out.objects++;
      const vis = visible && o.visible !== false;
      if (o.isLight) out.lights++;
      if (o.isMesh || o.isPoints || o.isLine || o.isSprite) {
        const geo = o.geometry;
        const inst = o.isInstancedMesh ? (o.count || 0) : 1;
        if (o.isMesh) {
          out.meshes++;
          if (o.isInstancedMesh) out.instances += inst;
          let tris = 0;
          if (geo) {
            const idx = geo.index ? geo.index.count : (geo.attributes && geo.attributes.position ? geo.attributes.position.count : 0);
            tris = MathFloor(idx / 3) * inst;
          }
          out.triangles += tris;
          if (vis) { out.visible_meshes++; out.visible_triangles += tris; }
        } else if (o.isPoints) out.points++;
        else if (o.isLine) out.lines++;
        if (vis && geo && o.matrixWorld && !o.isInstancedMesh) {
          const b = box3Of(geo);
          if (b) {
            const e = o.matrixWorld.elements;
            for (let c = 0; c < 8; c++) {
              const x = c & 1 ? b.max.x : b.min.x, y = c & 2 ? b.max.y : b.min.y, z = c & 4 ? b.max.z : b.min.z;
              if (!NumberIsFinite(x + y + z)) continue;
              const wx = e[0] * x + e[4] * y + e[8] * z + e[12];
              const wy = e[1] * x + e[5] * y + e[9] * z + e[13];
              const wz = e[2] * x + e[6] * y + e[10] * z + e[14];
              grow(lo, hi, wx, wy, wz);
              if (o.isMesh) grow(mlo, mhi, wx, wy, wz);
            }
          }
        }
      }
      return vis;
    };
    const walk = (root) => {
      const frames = ObjectCreate(null);
      let top = 0;
      const enter = (o, visible) => {
        if (!o) return;
        if (visited >= SCENE_WALK_LIMIT) { truncated = true; return; }
        const vis = visit(o, visible);
        const kids = o.children;
        const n = kids ? kids.length : 0;
        if (n > 0) {
          if (top >= SCENE_WALK_DEPTH) { truncated = true; return; }
          frames[top++] = { kids, n, i: 0, vis };
        }
      };
      enter(root, true);
      while (top > 0 && !truncated) {
        const f = frames[top - 1];
        if (f.i >= f.n) { delete frames[--top]; continue; }
        if (reads >= SCENE_WALK_READS) { truncated = true; break; }
        reads++;
        enter(f.kids[f.i++], f.vis);
      }
    };
    try { walk(s); } catch (e) { out.error = String(e && e.message || e); }
    if (truncated) out.truncated = true;
    if (lo[0] <= hi[0]) out.bounds = boxOf(lo, hi);
    if (mlo[0] <= mhi[0]) out.mesh_bounds = boxOf(mlo, mhi);
    const cam = lastCamera;
    if (cam) {
      const e = cam.matrixWorld ? cam.matrixWorld.elements : null;
      out.camera = { type: String(cam.type), name: String(cam.name || ''), position: e ? [round6(e[12]), round6(e[13]), round6(e[14])] : null, fov: typeof cam.fov === 'number' ? cam.fov : null };
    }
    return JSONStringify(out);
  }
  function round6(x) { return MathRound(x * 1e6) / 1e6; }

  // largestCanvas returns the bounding box of the largest visible canvas.
  function largestCanvas() {
    let best = null, area = 0;
    for (const c of document.querySelectorAll('canvas')) {
      const r = c.getBoundingClientRect();
      const a = Math.max(0, r.width) * Math.max(0, r.height);
      if (a > area) { area = a; best = { x: r.left, y: r.top, width: r.width, height: r.height, pixelWidth: c.width, pixelHeight: c.height }; }
    }
    return best;
  }

  // ---- objects, projection, DOM: for actions and contract checks ----
  function canvasRect() {
    const r = lastRendererCanvas();
    if (!r) return null;
    const b = r.getBoundingClientRect();
    return { left: b.left, top: b.top, width: b.width, height: b.height };
  }
  function lastRendererCanvas() {
    for (let i = renderers.length - 1; i >= 0; i--) {
      const c = renderers[i].domElement;
      if (c && c.isConnected) return c;
    }
    let best = null, area = 0;
    for (const c of document.querySelectorAll('canvas')) {
      const b = c.getBoundingClientRect();
      if (b.width * b.height > area) { area = b.width * b.height; best = c; }
    }
    return best;
  }
  function mul4(e, x, y, z, w) {
    return [e[0] * x + e[4] * y + e[8] * z + e[12] * w, e[1] * x + e[5] * y + e[9] * z + e[13] * w,
      e[2] * x + e[6] * y + e[10] * z + e[14] * w, e[3] * x + e[7] * y + e[11] * z + e[15] * w];
  }
  // project maps a world point to canvas CSS pixels with the camera last
  // rendered with, inside the viewport it was rendered to (the whole canvas
  // unless the page split it with setViewport). While a three.js renderer
  // presents an XR session, what the canvas shows is the eyes' views, not
  // the camera the page passed to render (three.js swaps in its XR camera,
  // and before r153 left the page's camera with its own projection), so
  // the point is projected with the first eye's camera into that eye's
  // viewport.
  function project(p) {
    const eyes = xrEyes();
    if (eyes && eyes[0] && eyes[0].viewport) {
      const c = lastRendererCanvas();
      const vp = eyes[0].viewport;
      if (c && c.width > 0 && c.height > 0 && vp.z > 0 && vp.w > 0) {
        return projectWith(p, eyes[0], { x: vp.x, y: vp.y, w: vp.z, h: vp.w, lw: c.width, lh: c.height });
      }
    }
    const v = views.length && views[views.length - 1].camera === lastCamera ? views[views.length - 1] : null;
    return projectWith(p, lastCamera, v);
  }
  // projectObject projects an object's world position like project, but
  // with the camera that last drew the object's scene in the frame (a
  // scene that contains it): into that draw's viewport when it drew to the
  // screen; when it drew into a render target, into the viewport of the
  // first draw after it that reached the screen (the full-screen pass of a
  // post-processing composer), and not at all when none did (a reflection
  // or depth pass). An object no draw of the frame contains is projected
  // by project's rule.
  function projectObject(o, p) {
    const eyes = xrEyes();
    if (!(eyes && eyes[0] && eyes[0].viewport)) {
      try {
        for (let i = draws.length - 1; i >= 0; i--) {
          const d = draws[i];
          if (!contains(d.scene, o)) continue;
          if (d.view) return projectWith(p, d.camera, d.view);
          for (let j = i + 1; j < draws.length; j++) {
            if (draws[j].view) return projectWith(p, d.camera, draws[j].view);
          }
        }
      } catch (e) { /* a hostile scene graph: project's rule */ }
    }
    return project(p);
  }
  // contains says whether o is root or one of its descendants.
  function contains(root, o) {
    for (let q = o, n = 0; q && n < 1000; q = q.parent, n++) if (q === root) return true;
    return false;
  }
  function projectWith(p, cam, view) {
    const rect = canvasRect();
    if (!cam || !rect || !cam.projectionMatrix) return null;
    const inv = cam.matrixWorldInverse ? cam.matrixWorldInverse.elements : null;
    if (!inv) return null;
    const v = mul4(inv, p[0], p[1], p[2], 1);
    const c = mul4(cam.projectionMatrix.elements, v[0], v[1], v[2], v[3]);
    if (c[3] === 0) return null;
    const nx = c[0] / c[3], ny = c[1] / c[3], nz = c[2] / c[3];
    // The viewport in canvas CSS pixels (three.js viewports start bottom-left).
    let vx = 0, vy = 0, vw = rect.width, vh = rect.height;
    if (view && view.lw > 0 && view.lh > 0 && view.w > 0 && view.h > 0) {
      const sx = rect.width / view.lw, sy = rect.height / view.lh;
      vx = view.x * sx; vy = (view.lh - view.y - view.h) * sy; vw = view.w * sx; vh = view.h * sy;
    }
    return {
      x: vx + (nx + 1) / 2 * vw, y: vy + (1 - ny) / 2 * vh,
      on_screen: c[3] > 0 && nx >= -1 && nx <= 1 && ny >= -1 && ny <= 1 && nz >= -1 && nz <= 1,
    };
  }
  // findObject returns the first object named name: the last rendered
  // scene searched first, then each announced scene in turn (the last
  // rendered one is not searched twice), or null.
  function findObject(name) {
    for (let j = -1; j < scenes.length; j++) {
      const sc = j < 0 ? lastScene : scenes[j];
      if (!sc || (j >= 0 && sc === lastScene)) continue;
      let found = null;
      try { found = findIn(sc, name); } catch (e) { /* a hostile scene: not found in it */ }
      if (found) return found;
    }
    return null;
  }
  // findIn searches root and its descendants depth first, in scene-graph
  // order (an object, then each child's subtree, first child first), for
  // the first object named name. It gives up (null) after
  // SCENE_WALK_LIMIT objects (falsy entries do not count) or
  // SCENE_WALK_READS children entries read: children that claim 2**31
  // entries and hold none return after those reads. It is iterative, so
  // a name 20,000 levels deep is found (walkbounds.html; the recursive
  // walk before it lost a name deeper than about 9,600 levels to the
  // JavaScript stack, and went on to the next scene).
  // A getter that throws ends the search of the scene (findObject's
  // catch). Its stack is a chain of frames (f.up the one below), object
  // literals whose fields are all their own, so getters on
  // Object.prototype are never read; a literal without a prototype or a
  // container with deletes made the search four times slower per object
  // (V8's dictionary mode).
  function findIn(root, name) {
    let top = null, seen = 0, reads = 0;
    // enter checks o and, when it has children, puts them on the stack;
    // it returns true when o is the object sought.
    const enter = (o) => {
      if (++seen > SCENE_WALK_LIMIT) return false;
      if (o.name === name) return true;
      const k = o.children;
      if (k) top = { k, i: 0, up: top };
      return false;
    };
    if (!root) return null;
    if (enter(root)) return root;
    while (top !== null && seen <= SCENE_WALK_LIMIT) {
      const f = top;
      if (!(f.i < f.k.length)) { top = f.up; continue; }
      if (reads >= SCENE_WALK_READS) return null;
      reads++;
      const o = f.k[f.i++];
      if (o && enter(o)) return o;
    }
    return null;
  }
  // hex is a THREE.Color as #rrggbb, rounded to the nearest byte. three.js
  // up to r151 truncates in getHex (r128: this.r * 255 << 16), so
  // setHSL(1/6, 1, 0.5) reads #feff00 there and #ffff00 in later versions;
  // for those the components are rounded here instead: the sRGB ones from
  // getRGB where the version has colour management (r139+; a no-op in its
  // legacy mode), the page's own values before that. Later versions round
  // (and convert to sRGB) in getHex itself.
  // A page has one three.js, so the verdict on the last getHex seen is
  // kept rather than its source read again for every colour.
  let lastGetHex = null, lastTruncates = false;
  function truncatingGetHex(fn) {
    if (fn !== lastGetHex) {
      lastGetHex = fn;
      lastTruncates = false;
      try { lastTruncates = !ReflectApply(RegExpTest, /round/, [ReflectApply(FunctionToString, fn, [])]); } catch (e) { /* a native or hostile getHex */ }
    }
    return lastTruncates;
  }
  function hex(c) {
    if (!c || typeof c.getHex !== 'function') return '';
    if (truncatingGetHex(c.getHex)) {
      let rgb = c;
      if (typeof c.getRGB === 'function') {
        try { rgb = c.getRGB({ r: 0, g: 0, b: 0 }, 'srgb'); } catch (e) { rgb = c; }
      }
      if (rgb && typeof rgb.r === 'number' && typeof rgb.g === 'number' && typeof rgb.b === 'number') {
        const byte = (v) => MathRound((v < 0 ? 0 : v > 1 ? 1 : v) * 255);
        return '#' + ((byte(rgb.r) << 16 | byte(rgb.g) << 8 | byte(rgb.b)) >>> 0).toString(16).padStart(6, '0');
      }
    }
    return '#' + (c.getHex() >>> 0).toString(16).padStart(6, '0');
  }
  function objectInfo(name) {
    const o = findObject(name);
    if (!o) return JSONStringify(null);
    return JSONStringify(describe(o));
  }
  // describe is what object() reports of a scene object: its world
  // position, visibility, colour and screen position, and (world frame too)
  // its rotation, scale, forward direction, bounding box and semantic tag.
  function describe(o) {
    const name = RealString(o.name === undefined ? '' : o.name);
    let visible = true;
    for (let p = o; p; p = p.parent) if (p.visible === false) visible = false;
    const e = o.matrixWorld ? o.matrixWorld.elements : null;
    const pos = e ? [e[12], e[13], e[14]] : [o.position.x, o.position.y, o.position.z];
    const mat = Array.isArray(o.material) ? o.material[0] : o.material;
    const scr = projectObject(o, pos);
    const out = {
      name, type: String(o.type), position: pos.map(round6), visible,
      color: mat && mat.color ? hex(mat.color) : (o.color ? hex(o.color) : ''),
      intensity: typeof o.intensity === 'number' ? o.intensity : null,
      screen: scr ? [round6(scr.x), round6(scr.y)] : null, on_screen: !!(scr && scr.on_screen),
    };
    // With more than one view in the frame (split screen, picture in
    // picture), where the object is in each, in render order.
    if (views.length > 1) {
      out.views = views.map((v) => {
        const q = projectWith(pos, v.camera, v);
        return { camera: String(v.camera.name || v.camera.type), screen: q ? [round6(q.x), round6(q.y)] : null, on_screen: !!(q && q.on_screen) };
      });
    }
    const tr = e ? decompose(e) : null;
    out.quaternion = tr ? tr.quaternion : null;
    out.scale = tr ? tr.scale : null;
    // three's getWorldDirection: +Z of the object, -Z of a camera.
    out.forward = tr ? (o.isCamera ? [-tr.z[0], -tr.z[1], -tr.z[2]] : tr.z) : null;
    const box = worldBox(o);
    out.bbox = box ? { min: [round6(box[0]), round6(box[1]), round6(box[2])], max: [round6(box[3]), round6(box[4]), round6(box[5])] } : null;
    out.semantic = semanticOf(o);
    return out;
  }

  // ---- world frame: transforms, boxes, semantic tags (XR assertions) ----
  // decompose splits a world matrix (three's column-major elements) into
  // a unit quaternion [x, y, z, w], a scale and the unit +Z axis, as
  // three's Matrix4.decompose does (a negative determinant flips x).
  function decompose(e) {
    let sx = MathSqrt(e[0] * e[0] + e[1] * e[1] + e[2] * e[2]);
    const sy = MathSqrt(e[4] * e[4] + e[5] * e[5] + e[6] * e[6]);
    const sz = MathSqrt(e[8] * e[8] + e[9] * e[9] + e[10] * e[10]);
    const det = e[0] * (e[5] * e[10] - e[9] * e[6]) - e[4] * (e[1] * e[10] - e[9] * e[2]) + e[8] * (e[1] * e[6] - e[5] * e[2]);
    if (det < 0) sx = -sx;
    if (!(sx !== 0 && sy !== 0 && sz !== 0) || !NumberIsFinite(sx + sy + sz)) {
      return { quaternion: [0, 0, 0, 1], scale: [round6(sx), round6(sy), round6(sz)], z: [0, 0, 1] };
    }
    const m11 = e[0] / sx, m21 = e[1] / sx, m31 = e[2] / sx;
    const m12 = e[4] / sy, m22 = e[5] / sy, m32 = e[6] / sy;
    const m13 = e[8] / sz, m23 = e[9] / sz, m33 = e[10] / sz;
    const tr = m11 + m22 + m33;
    let x, y, z, w;
    if (tr > 0) {
      const k = 0.5 / MathSqrt(tr + 1);
      w = 0.25 / k; x = (m32 - m23) * k; y = (m13 - m31) * k; z = (m21 - m12) * k;
    } else if (m11 > m22 && m11 > m33) {
      const k = 2 * MathSqrt(1 + m11 - m22 - m33);
      w = (m32 - m23) / k; x = 0.25 * k; y = (m12 + m21) / k; z = (m13 + m31) / k;
    } else if (m22 > m33) {
      const k = 2 * MathSqrt(1 + m22 - m11 - m33);
      w = (m13 - m31) / k; x = (m12 + m21) / k; y = 0.25 * k; z = (m23 + m32) / k;
    } else {
      const k = 2 * MathSqrt(1 + m33 - m11 - m22);
      w = (m21 - m12) / k; x = (m13 + m31) / k; y = (m23 + m32) / k; z = 0.25 * k;
    }
    // One sign for one rotation: w >= 0 (q and -q are the same rotation).
    if (w < 0) { x = -x; y = -y; z = -z; w = -w; }
    return {
      quaternion: [round6(x), round6(y), round6(z), round6(w)],
      scale: [round6(sx), round6(sy), round6(sz)],
      z: [round6(m13), round6(m23), round6(m33)],
    };
  }
  // worldBox is the world-axis-aligned box around the geometry of o and
  // all its descendants (as three's Box3.setFromObject, from each
  // geometry's own box), [minx, miny, minz, maxx, maxy, maxz], or null
  // when none has geometry. InstancedMeshes are left out (their instances
  // are not walked), as in the scene summary.
  // geoBox is a geometry's own box, its computed boundingBox if it has one;
  // else the box of its positions, kept per position attribute until the
  // page marks it changed (version) or resizes it: an object() read in
  // every probe step does not walk a large mesh's vertices each time.
  const geoBoxes = new WeakMap();
  const WeakMapGet = WeakMap.prototype.get, WeakMapSet = WeakMap.prototype.set;
  function geoBox(geo) {
    if (geo.boundingBox && geo.boundingBox.min && geo.boundingBox.max) return geo.boundingBox;
    const pos = geo.attributes && geo.attributes.position;
    if (!pos || typeof pos !== 'object') return box3Of(geo);
    const c = apply(WeakMapGet, geoBoxes, [pos]);
    if (c && c.v === pos.version && c.n === pos.count) return c.b;
    const b = box3Of(geo);
    apply(WeakMapSet, geoBoxes, [pos, { v: pos.version, n: pos.count, b }]);
    return b;
  }
  function worldBox(root) {
    const b = [Infinity, Infinity, Infinity, -Infinity, -Infinity, -Infinity];
    // A hostile object's part of the box is unknown (walkScene).
    walkScene(root, (o) => {
      const geo = o.geometry;
      if (geo && o.matrixWorld && !o.isInstancedMesh && (o.isMesh || o.isPoints || o.isLine || o.isSprite)) {
        const g = geoBox(geo);
        const e = o.matrixWorld.elements;
        if (g) for (let c = 0; c < 8; c++) {
          const x = c & 1 ? g.max.x : g.min.x, y = c & 2 ? g.max.y : g.min.y, z = c & 4 ? g.max.z : g.min.z;
          if (!NumberIsFinite(x + y + z)) continue;
          const wx = e[0] * x + e[4] * y + e[8] * z + e[12];
          const wy = e[1] * x + e[5] * y + e[9] * z + e[13];
          const wz = e[2] * x + e[6] * y + e[10] * z + e[14];
          if (wx < b[0]) b[0] = wx; if (wy < b[1]) b[1] = wy; if (wz < b[2]) b[2] = wz;
          if (wx > b[3]) b[3] = wx; if (wy > b[4]) b[4] = wy; if (wz > b[5]) b[5] = wz;
        }
      }
    });
    return b[0] <= b[3] ? b : null;
  }
  // semanticOf reads userData.semantic's role and name (XR Blocks' tags).
  function semanticOf(o) {
    try {
      const t = o.userData && o.userData.semantic;
      if (!t || typeof t !== 'object') return null;
      const role = typeof t.role === 'string' ? t.role : '', name = typeof t.name === 'string' ? t.name : '';
      return role || name ? { role, name } : null;
    } catch (err) { return null; }
  }
  // findTagged lists the objects of the last rendered scene whose semantic
  // tag matches role and name ('' matches any), in scene-graph order; when
  // it holds none, those of the first other scene of the page that does
  // (XR Blocks' simulator draws its own scene after the app's).
  function findTagged(role, name) {
    const first = lastScene || scenes[scenes.length - 1] || null;
    let found = taggedIn(first, role, name);
    for (let j = 0; j < scenes.length && found.length === 0; j++) {
      if (scenes[j] !== first) found = taggedIn(scenes[j], role, name);
    }
    return found;
  }
  function taggedIn(s, role, name) {
    const found = [];
    if (!s) return found;
    walkScene(s, (o) => {
      const t = semanticOf(o);
      if (t && (role === '' || t.role === role) && (name === '' || t.name === name)) put(found, o);
    }, { __proto__: null, enough: () => found.length >= 1000 });
    return found;
  }
  function taggedInfo(role, name) {
    const found = findTagged(RealString(role), RealString(name));
    const out = [];
    for (let i = 0; i < found.length; i++) put(out, describe(found[i]));
    return JSONStringify(out);
  }
  // resolveRef finds the object a reference names: {name} or {tag: true,
  // role, name}. A tag must match exactly one object.
  function resolveRef(ref) {
    if (!ref || !ref.tag) {
      const o = findObject(RealString(ref && ref.name));
      return o ? { o } : { error: 'no scene object named ' + JSONStringify(RealString(ref && ref.name)) };
    }
    const found = findTagged(RealString(ref.role || ''), RealString(ref.name || ''));
    const what = 'tagged ' + JSONStringify({ role: RealString(ref.role || ''), name: RealString(ref.name || '') });
    if (found.length === 0) return { error: 'no scene object is ' + what };
    if (found.length > 1) return { error: found.length + ' scene objects are ' + what + ': name one (tagged() lists them)' };
    return { o: found[0] };
  }
  // xrEyes returns the cameras three.js renders the XR session's views
  // with (world frame, the user's rig included), or null when no hooked
  // renderer is presenting.
  function xrEyes() {
    for (let i = renderers.length - 1; i >= 0; i--) {
      try {
        const xr = renderers[i].xr;
        if (!xr || !xr.isPresenting || typeof xr.getCamera !== 'function') continue;
        const cams = xr.getCamera().cameras;
        if (cams && cams.length > 0) return cams;
      } catch (err) { /* a hostile renderer */ }
    }
    return null;
  }
  // xrView says whether an object is in the field of view of the user's
  // eyes (the centre of its world box, else its origin, inside an eye's
  // frustum) and which fraction of an eye's view the screen rectangle
  // around its box covers (the largest over the eyes; the part of the box
  // behind the near plane is cut off).
  function xrView(ref) {
    const r = resolveRef(ref);
    if (!r.o) return JSONStringify({ error: r.error, missing: true });
    const eyes = xrEyes();
    if (!eyes) return JSONStringify({ error: 'no XR view: the page is not presenting an XR session with a three.js renderer', missing: true });
    const o = r.o;
    const e = o.matrixWorld ? o.matrixWorld.elements : null;
    const box = worldBox(o);
    const centre = box ? [(box[0] + box[3]) / 2, (box[1] + box[4]) / 2, (box[2] + box[5]) / 2]
      : e ? [e[12], e[13], e[14]] : [o.position.x, o.position.y, o.position.z];
    let inView = false, coverage = 0;
    for (let i = 0; i < eyes.length; i++) {
      const cam = eyes[i];
      if (!cam || !cam.matrixWorldInverse || !cam.projectionMatrix) continue;
      const v = cam.matrixWorldInverse.elements, p = cam.projectionMatrix.elements;
      const clip = (x, y, z) => { const q = mul4(v, x, y, z, 1); return mul4(p, q[0], q[1], q[2], q[3]); };
      const c = clip(centre[0], centre[1], centre[2]);
      if (c[3] > 0 && c[0] >= -c[3] && c[0] <= c[3] && c[1] >= -c[3] && c[1] <= c[3] && c[2] >= -c[3] && c[2] <= c[3]) inView = true;
      if (!box) continue;
      const corners = [];
      for (let k = 0; k < 8; k++) put(corners, clip(k & 1 ? box[3] : box[0], k & 2 ? box[4] : box[1], k & 4 ? box[5] : box[2]));
      // Keep what is in front of the near plane (z >= -w), adding where
      // the box's edges cross it.
      const pts = [];
      const d = (q) => q[2] + q[3];
      for (let k = 0; k < 8; k++) {
        if (d(corners[k]) >= 0 && corners[k][3] > 0) put(pts, corners[k]);
        for (let bit = 1; bit < 8; bit <<= 1) {
          if (k & bit) continue;
          const a = corners[k], b = corners[k | bit];
          const da = d(a), db = d(b);
          if ((da < 0) === (db < 0)) continue;
          const t = da / (da - db);
          const q = [a[0] + (b[0] - a[0]) * t, a[1] + (b[1] - a[1]) * t, a[2] + (b[2] - a[2]) * t, a[3] + (b[3] - a[3]) * t];
          if (q[3] > 0) put(pts, q);
        }
      }
      if (pts.length === 0) continue;
      let x0 = Infinity, y0 = Infinity, x1 = -Infinity, y1 = -Infinity;
      for (let k = 0; k < pts.length; k++) {
        const x = pts[k][0] / pts[k][3], y = pts[k][1] / pts[k][3];
        if (x < x0) x0 = x; if (x > x1) x1 = x; if (y < y0) y0 = y; if (y > y1) y1 = y;
      }
      const cx0 = x0 < -1 ? -1 : x0 > 1 ? 1 : x0, cx1 = x1 < -1 ? -1 : x1 > 1 ? 1 : x1;
      const cy0 = y0 < -1 ? -1 : y0 > 1 ? 1 : y0, cy1 = y1 < -1 ? -1 : y1 > 1 ? 1 : y1;
      const area = (cx1 - cx0) * (cy1 - cy0) / 4;
      if (area > coverage) coverage = area;
    }
    return JSONStringify({ in_view: inView, coverage: round6(coverage) });
  }
  // ---- contacts and 3D panels (contact, contacts, panel, panelText, uiVisible) ----
  // solidsOf lists the oriented boxes of root's subtree, in scene-graph
  // order: each mesh's, line's, points' or sprite's geometry box (geoBox)
  // under its world matrix, as 12 numbers — the corner the box's minimum
  // maps to, then the images of its x, y and z edges. visibleOnly leaves
  // out hidden objects and their subtrees.
  function solidsOf(root, visibleOnly) {
    const out = [];
    // A hostile object's solids are unknown (walkScene).
    walkScene(root, (o) => {
      if (visibleOnly && o !== root && o.visible === false) return false;
      const geo = o.geometry;
      if (geo && o.matrixWorld && !o.isInstancedMesh && (o.isMesh || o.isPoints || o.isLine || o.isSprite)) {
        const g = geoBox(geo);
        if (g && NumberIsFinite(g.min.x + g.min.y + g.min.z + g.max.x + g.max.y + g.max.z) &&
          g.min.x <= g.max.x && g.min.y <= g.max.y && g.min.z <= g.max.z) {
          const e = o.matrixWorld.elements;
          const p = mul4(e, g.min.x, g.min.y, g.min.z, 1);
          const dx = g.max.x - g.min.x, dy = g.max.y - g.min.y, dz = g.max.z - g.min.z;
          put(out, [p[0], p[1], p[2], e[0] * dx, e[1] * dx, e[2] * dx, e[4] * dy, e[5] * dy, e[6] * dy, e[8] * dz, e[9] * dz, e[10] * dz]);
        }
      }
    }, { __proto__: null, enough: () => out.length >= 100000 });
    return out;
  }
  function topOf(o) {
    let r = o;
    for (let n = 0; r.parent && n < SCENE_WALK_DEPTH; n++) r = r.parent;
    return r;
  }
  function bodyOf(o) {
    const ancestors = [];
    for (let p = o.parent, n = 0; p && n < SCENE_WALK_DEPTH; p = p.parent, n++) put(ancestors, RealString(p.uuid));
    return {
      name: RealString(o.name === undefined ? '' : o.name), semantic: semanticOf(o), uuid: RealString(o.uuid),
      ancestors, solids: solidsOf(o, false),
    };
  }
  // bodiesInfo describes the object ref names as a body and, with others,
  // every other named or tagged object of its scene that is neither it,
  // its ancestor nor its descendant (contract.Bodies).
  function bodiesInfo(ref, others) {
    const r = resolveRef(ref);
    if (!r.o) return JSONStringify({ error: r.error });
    const out = [bodyOf(r.o)];
    if (others) {
      walkScene(topOf(r.o), (o) => {
        const named = typeof o.name === 'string' && o.name !== '';
        if (o !== r.o && (named || semanticOf(o)) && !contains(r.o, o) && !contains(o, r.o)) put(out, bodyOf(o));
      }, { __proto__: null, enough: () => out.length >= 10000 });
    }
    return JSONStringify({ bodies: out });
  }

  // inverse of an affine world matrix (column-major elements), or null.
  function invAffine(e) {
    const a = e[0], b = e[4], c = e[8], d = e[1], f = e[5], g = e[9], h = e[2], i = e[6], j = e[10];
    const det = a * (f * j - g * i) - b * (d * j - g * h) + c * (d * i - f * h);
    if (!(det !== 0) || !NumberIsFinite(det)) return null;
    const m = [(f * j - g * i) / det, (c * i - b * j) / det, (b * g - c * f) / det,
      (g * h - d * j) / det, (a * j - c * h) / det, (c * d - a * g) / det,
      (d * i - f * h) / det, (b * h - a * i) / det, (a * f - b * d) / det];
    const tx = e[12], ty = e[13], tz = e[14];
    return { det, r: m, t: [-(m[0] * tx + m[1] * ty + m[2] * tz), -(m[3] * tx + m[4] * ty + m[5] * tz), -(m[6] * tx + m[7] * ty + m[8] * tz)] };
  }
  function toLocal(inv, p) {
    const m = inv.r;
    return [m[0] * p[0] + m[1] * p[1] + m[2] * p[2] + inv.t[0], m[3] * p[0] + m[4] * p[1] + m[5] * p[2] + inv.t[1], m[6] * p[0] + m[7] * p[1] + m[8] * p[2] + inv.t[2]];
  }
  // segHitsBox: does the segment a→b cross the box [min, max] (slabs)?
  function segHitsBox(a, b, lo, hi) {
    let t0 = 0, t1 = 1;
    for (let k = 0; k < 3; k++) {
      const d = b[k] - a[k];
      if (d === 0) { if (a[k] < lo[k] || a[k] > hi[k]) return false; continue; }
      let u = (lo[k] - a[k]) / d, v = (hi[k] - a[k]) / d;
      if (u > v) { const w = u; u = v; v = w; }
      if (u > t0) t0 = u; if (v < t1) t1 = v;
      if (t0 > t1) return false;
    }
    return true;
  }
  // occluders lists the meshes of the scene that can hide what is behind
  // them: visible with their ancestors, outside skip's subtree, with an
  // opaque material (neither transparent with opacity below 1, nor
  // visible: false, nor colorWrite: false), not instanced.
  function occluders(scene, skip) {
    const out = [];
    // A hostile object hides nothing (walkScene).
    walkScene(scene, (o) => {
      if (o === skip || o.visible === false) return false;
      if (o.isMesh && !o.isInstancedMesh && o.geometry && o.matrixWorld) {
        const mats = ArrayIsArray(o.material) ? o.material : [o.material];
        let side = -1;
        for (let i = 0; i < mats.length; i++) {
          const m = mats[i];
          if (!m || m.visible === false || m.colorWrite === false || (m.transparent === true && typeof m.opacity === 'number' && m.opacity < 1)) continue;
          const s = m.side === 1 || m.side === 2 ? m.side : 0;
          side = side < 0 ? s : (side === s ? s : 2);
        }
        const pos = o.geometry.attributes && o.geometry.attributes.position;
        const g = geoBox(o.geometry);
        const inv = invAffine(o.matrixWorld.elements);
        if (side >= 0 && pos && pos.count > 0 && g && inv) {
          const e = o.matrixWorld.elements;
          const lo = [Infinity, Infinity, Infinity], hi = [-Infinity, -Infinity, -Infinity];
          for (let c = 0; c < 8; c++) {
            const w = mul4(e, c & 1 ? g.max.x : g.min.x, c & 2 ? g.max.y : g.min.y, c & 4 ? g.max.z : g.min.z, 1);
            for (let k = 0; k < 3; k++) { if (w[k] < lo[k]) lo[k] = w[k]; if (w[k] > hi[k]) hi[k] = w[k]; }
          }
          put(out, { o, pos, index: o.geometry.index, inv, side, lo, hi });
        }
      }
    });
    return out;
  }
  const OCCLUSION_TESTS = 2000000;
  // vertexOf reads vertex i of a position attribute (interleaved or not).
  function vertexOf(pos, i) {
    if (pos.isInterleavedBufferAttribute) {
      const a = pos.data.array, j = i * pos.data.stride + pos.offset;
      return [a[j], a[j + 1], a[j + 2]];
    }
    const a = pos.array, j = i * (pos.itemSize || 3);
    return [a[j], a[j + 1], a[j + 2]];
  }
  // hides says whether a triangle of occluder m crosses the segment from
  // eye to p (world) before p; budget counts triangle tests.
  function hides(m, eye, p, budget) {
    if (!segHitsBox(eye, p, m.lo, m.hi)) return false;
    const a = toLocal(m.inv, eye), b = toLocal(m.inv, p);
    const d = [b[0] - a[0], b[1] - a[1], b[2] - a[2]];
    const idx = m.index && m.index.array ? m.index.array : null;
    const n = idx ? MathFloor(m.index.count / 3) : MathFloor(m.pos.count / 3);
    // A mirrored object (negative determinant) turns its faces over.
    const flip = m.inv.det < 0;
    for (let t = 0; t < n; t++) {
      if (++budget.n > OCCLUSION_TESTS) return false;
      const v0 = vertexOf(m.pos, idx ? idx[3 * t] : 3 * t), v1 = vertexOf(m.pos, idx ? idx[3 * t + 1] : 3 * t + 1), v2 = vertexOf(m.pos, idx ? idx[3 * t + 2] : 3 * t + 2);
      const e1 = [v1[0] - v0[0], v1[1] - v0[1], v1[2] - v0[2]], e2 = [v2[0] - v0[0], v2[1] - v0[1], v2[2] - v0[2]];
      const q = [d[1] * e2[2] - d[2] * e2[1], d[2] * e2[0] - d[0] * e2[2], d[0] * e2[1] - d[1] * e2[0]];
      const det = e1[0] * q[0] + e1[1] * q[1] + e1[2] * q[2];
      if (det === 0 || !NumberIsFinite(det)) continue;
      // det > 0: the segment meets the triangle's front face.
      const front = flip ? det < 0 : det > 0;
      if ((m.side === 0 && !front) || (m.side === 1 && front)) continue;
      const s = [a[0] - v0[0], a[1] - v0[1], a[2] - v0[2]];
      const u = (s[0] * q[0] + s[1] * q[1] + s[2] * q[2]) / det;
      if (u < 0 || u > 1) continue;
      const r = [s[1] * e1[2] - s[2] * e1[1], s[2] * e1[0] - s[0] * e1[2], s[0] * e1[1] - s[1] * e1[0]];
      const v = (d[0] * r[0] + d[1] * r[1] + d[2] * r[2]) / det;
      if (v < 0 || u + v > 1) continue;
      const tt = (e2[0] * r[0] + e2[1] * r[1] + e2[2] * r[2]) / det;
      if (tt > 0 && tt < 1 - 1e-4) return true;
    }
    return false;
  }
  // eyePosition is a camera's place in the world, from its view matrix.
  function eyePosition(cam) {
    const e = cam.matrixWorldInverse.elements, t = [e[12], e[13], e[14]];
    return [-(e[0] * t[0] + e[1] * t[1] + e[2] * t[2]), -(e[4] * t[0] + e[5] * t[1] + e[6] * t[2]), -(e[8] * t[0] + e[9] * t[1] + e[10] * t[2])];
  }
  // panelTexts collects the text the page holds for root's visible subtree.
  function panelTexts(root) {
    const texts = [], unread = [];
    walkScene(root, (o) => {
      let name = '';
      try { name = RealString(o.name === undefined ? '' : o.name); } catch (err) { /* a hostile name */ }
      try { if (o !== root && o.visible === false) return false; } catch (err) { return false; }
      let gave = false;
      const add = (source, text) => { put(texts, { object: name, source, text }); gave = true; };
      try { const t = o.text; if (typeof t === 'string') add('text', t); } catch (err) { /* a throwing getter */ }
      try { if (o.isUI === true) { const l = o.label; if (typeof l === 'string' && l !== '') add('label', l); } } catch (err) { /* likewise */ }
      try {
        if ((o.isCSS2DObject || o.isCSS3DObject) && o.element && typeof o.element.innerText === 'string') add('element', o.element.innerText.trim());
      } catch (err) { /* likewise */ }
      try { const u = o.userData && o.userData.text; if (typeof u === 'string') add('userData.text', u); } catch (err) { /* likewise */ }
      // A throw here loses the object's descendants (walkScene), as a
      // throw reading its children does.
      if (!gave && o.isMesh) {
        const mats = ArrayIsArray(o.material) ? o.material : [o.material];
        for (let i = 0; i < mats.length; i++) {
          const map = mats[i] && mats[i].map;
          if (map && (map.isCanvasTexture || (typeof HTMLCanvasElement !== 'undefined' && map.image instanceof HTMLCanvasElement) ||
            (typeof OffscreenCanvas !== 'undefined' && map.image instanceof OffscreenCanvas))) { put(unread, name); break; }
        }
      }
    }, { __proto__: null, enough: () => texts.length >= 10000 });
    return { texts, unread };
  }
  // panelInfo describes the UI under the object ref names (contract.Panels).
  // drewIt is the camera that last drew a scene holding o this frame (as
  // projectObject takes it: XR Blocks' simulator draws its own pass after
  // the app's, with an orthographic camera at the origin), else the last
  // camera, as a list of eyes; null when no camera drew.
  function drewIt(o) {
    try {
      for (let i = draws.length - 1; i >= 0; i--) if (contains(draws[i].scene, o)) return [draws[i].camera];
    } catch (e) { /* a hostile scene: the last camera */ }
    return lastCamera ? [lastCamera] : null;
  }
  function panelInfo(ref) {
    const r = resolveRef(ref);
    if (!r.o) return JSONStringify({ error: r.error });
    const root = r.o;
    let visible = true;
    for (let p = root, n = 0; p && n < SCENE_WALK_DEPTH; p = p.parent, n++) if (p.visible === false) visible = false;
    const { texts, unread } = panelTexts(root);
    let text = '';
    for (let i = 0; i < texts.length; i++) text += (i > 0 ? '\n' : '') + texts[i].text;
    const out = { text, texts, unread, visible, in_view: false, occluded: false, samples: 0, hidden: 0 };
    const eyes = xrEyes() || drewIt(root);
    if (!eyes) return JSONStringify({ error: 'no camera has drawn the scene' });
    // The samples: each solid's centre and its corners drawn 10% in.
    const pts = [];
    const solids = solidsOf(root, true);
    for (let i = 0; i < solids.length; i++) {
      const s = solids[i];
      const c = [s[0] + (s[3] + s[6] + s[9]) / 2, s[1] + (s[4] + s[7] + s[10]) / 2, s[2] + (s[5] + s[8] + s[11]) / 2];
      put(pts, c);
      for (let k = 0; k < 8; k++) {
        const p = [s[0], s[1], s[2]];
        for (let bit = 0; bit < 3; bit++) if (k & (1 << bit)) { p[0] += s[3 + 3 * bit]; p[1] += s[4 + 3 * bit]; p[2] += s[5 + 3 * bit]; }
        put(pts, [c[0] + 0.9 * (p[0] - c[0]), c[1] + 0.9 * (p[1] - c[1]), c[2] + 0.9 * (p[2] - c[2])]);
      }
    }
    // Without geometry (an HTML label, an empty group) the sample is the
    // object's origin, as inView takes it.
    if (solids.length === 0 && root.matrixWorld) {
      const e = root.matrixWorld.elements;
      put(pts, [e[12], e[13], e[14]]);
    }
    let occ = null;
    const budget = { n: 0 };
    for (let i = 0; i < eyes.length; i++) {
      const cam = eyes[i];
      if (!cam || !cam.matrixWorldInverse || !cam.projectionMatrix) continue;
      const v = cam.matrixWorldInverse.elements, pm = cam.projectionMatrix.elements;
      const eye = eyePosition(cam);
      for (let j = 0; j < pts.length; j++) {
        const p = pts[j];
        const q = mul4(v, p[0], p[1], p[2], 1), c = mul4(pm, q[0], q[1], q[2], q[3]);
        if (!(c[3] > 0 && c[0] >= -c[3] && c[0] <= c[3] && c[1] >= -c[3] && c[1] <= c[3] && c[2] >= -c[3] && c[2] <= c[3])) continue;
        out.in_view = true;
        out.samples++;
        if (occ === null) occ = occluders(topOf(root), root);
        let hidden = false;
        for (let k = 0; k < occ.length && !hidden; k++) hidden = hides(occ[k], eye, p, budget);
        if (budget.n > OCCLUSION_TESTS) {
          out.occluded = null;
          out.occlusion_error = 'the scene has more than ' + OCCLUSION_TESTS + ' triangle tests to make';
          return JSONStringify(out);
        }
        if (hidden) out.hidden++;
      }
    }
    out.occluded = out.samples > 0 && out.hidden === out.samples;
    return JSONStringify(out);
  }
  function projectPoint(p) { return JSONStringify(project(p)); }
  function domInfo(sel) {
    let el = null;
    try { el = document.querySelector(sel); } catch (e) { return JSONStringify({ exists: false, error: String(e.message) }); }
    if (!el) return JSONStringify({ exists: false, text: '', value: '', visible: false });
    const r = el.getBoundingClientRect();
    const cs = getComputedStyle(el);
    const visible = r.width > 0 && r.height > 0 && cs.visibility !== 'hidden' && cs.display !== 'none' && Number(cs.opacity) > 0;
    return JSONStringify({
      exists: true, text: String(el.innerText !== undefined ? el.innerText : el.textContent).trim(),
      value: 'value' in el ? String(el.value) : '', checked: !!el.checked, visible,
      rect: { x: r.left, y: r.top, width: r.width, height: r.height },
    });
  }

  function status() {
    return JSONStringify({
      frame, virtualMs: now, timers: timers.pending(), rafs: rafCount, gl, threeRevision,
      dialogs: log.dialogs, blocked: log.blocked, events: log.events, consoleDropped,
    });
  }

  const api = Object.freeze({
    version: 1,
    step,
    realFrame,
    inputSettled,
    readState,
    pending: () => pendingLoads,
    netCalls: () => netCalls,
    canvasRect: () => JSONStringify(canvasRect()),
    // captureRect is canvasRect before a screenshot: carets are hidden
    // first. The screenshot itself waits for a frame that shows the
    // canvas's last drawing (Page.captureScreenshot forces a redraw).
    captureRect: () => { hideCarets(); return JSONStringify(canvasRect()); },
    objectInfo,
    taggedInfo,
    xrView: (ref) => xrView(ref),
    bodiesInfo: (ref, others) => bodiesInfo(ref, !!others),
    panelInfo: (ref) => panelInfo(ref),
    frame: () => frame,
    projectPoint,
    domInfo,
    sceneSummary,
    largestCanvas,
    status,
    clock: () => now,
    adoptFrame,
    childRecord,
    blobCharge: (size) => blobCharge(size),
    micInject: (b64) => micInject(b64),
    micClips: () => micClipsOf(),
  });
  lock(G, '__wp', api);
  if (parentWp !== null) forward = (kind, entry) => parentWp.childRecord(kind, entry);
  if (parentWp !== null && !realtime) {
    try {
      parentWp.adoptFrame({
        // Alive while the frame is in the page and still runs this runtime
        // (a navigation to another document gives the frame a new one; the
        // initial about:blank keeps its window, and so this runtime).
        alive: () => { const fe = G.frameElement; return fe !== null && fe !== undefined && fe.isConnected && G.__wp === api; },
        advanceTo: (target, skip) => {
          if (!(target > now)) return;
          frame++;
          skipDraw = skip === true;
          advanceTo(target);
          stepChildren(skipDraw);
        },
      });
    } catch (e) { /* the parent went away */ }
  }
})(__WP_CONFIG__);
