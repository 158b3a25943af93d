// worldprobe runtime library: the pieces the page runtime (runtime.js) and
// the worker runtime (worker.js) share. The Go side puts this text in front
// of each, inside the same function, so both see `__wpLib`. It runs before
// any page script, so every built-in it keeps is the original.
const __wpLib = (function () {
  'use strict';
  const ReflectApply = Reflect.apply;
  const apply = (fn, self, args) => ReflectApply(fn, self, args);
  const ObjectDefine = Object.defineProperty;
  const ObjectCreate = Object.create;
  const ObjectGetProto = Object.getPrototypeOf;
  const ObjectGetOwnDesc = Object.getOwnPropertyDescriptor;
  const ArrayBufferIsView = ArrayBuffer.isView;
  const MathFloor = Math.floor;
  const MathRound = Math.round;
  const MathImul = Math.imul;
  const RealDate = Date;
  const RealBigInt = BigInt;
  const RealString = String;
  const RealNumber = Number;
  const MathMax = Math.max;

  // defineGetter replaces proto[name] with a getter, keeping whether it
  // was enumerable; a property that cannot be redefined is left alone.
  function defineGetter(proto, name, get) {
    if (!proto) return;
    const d = ObjectGetOwnDesc(proto, name);
    if (d && !d.configurable) return;
    try { ObjectDefine(proto, name, { __proto__: null, configurable: true, enumerable: d ? d.enumerable : true, get }); } catch (e) { /* ignore */ }
  }

  function splitmix32(a) {
    return function () {
      a |= 0; a = (a + 0x9e3779b9) | 0;
      let t = a ^ (a >>> 16); t = MathImul(t, 0x21f0aaad);
      t = t ^ (t >>> 15); t = MathImul(t, 0x735a2d97);
      return (t ^ (t >>> 15)) >>> 0;
    };
  }
  // sfc32: Chris Doty-Humphrey's small fast counter, 128-bit state seeded
  // through splitmix32, first 12 outputs discarded.
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

  // seedRandom replaces Math.random with an sfc32 stream of seed, and
  // crypto.getRandomValues / randomUUID with a second one.
  function seedRandom(G, seed) {
    seed >>>= 0;
    const randomU32 = sfc32(seed);
    const cryptoU32 = sfc32((seed ^ 0x5bd1e995) >>> 0);
    G.Math.random = function random() { return randomU32() / 4294967296; };
    if (!G.crypto || !G.Crypto) return;
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
    const grv = proto.getRandomValues;
    proto.randomUUID = function randomUUID() {
      const b = new Uint8Array(16);
      apply(grv, this, [b]);
      b[6] = (b[6] & 0x0f) | 0x40; b[8] = (b[8] & 0x3f) | 0x80;
      let h = '';
      for (let i = 0; i < 16; i++) h += (b[i] + 256).toString(16).slice(1);
      return h.slice(0, 8) + '-' + h.slice(8, 12) + '-' + h.slice(12, 16) + '-' + h.slice(16, 20) + '-' + h.slice(20);
    };
  }

  // installClock makes performance.now, performance.timeOrigin and Date
  // read the virtual clock: now() is virtual ms, epochMs the Unix ms at 0.
  function installClock(G, epochMs, now) {
    if (G.performance) {
      const perfProto = ObjectGetProto(G.performance);
      perfProto.now = function now_() { return now(); };
      try { ObjectDefine(perfProto, 'timeOrigin', { __proto__: null, get() { return epochMs; }, configurable: true }); } catch (e) { /* ignore */ }
    }
    function VirtualDate(...args) {
      if (!new.target) return new RealDate(epochMs + now()).toString();
      if (args.length === 0) return Reflect.construct(RealDate, [epochMs + now()], new.target);
      return Reflect.construct(RealDate, args, new.target);
    }
    VirtualDate.prototype = RealDate.prototype;
    VirtualDate.now = function dateNow() { return MathFloor(epochMs + now()); };
    VirtualDate.parse = RealDate.parse;
    VirtualDate.UTC = RealDate.UTC;
    ObjectDefine(RealDate.prototype, 'constructor', { __proto__: null, value: VirtualDate, writable: true, configurable: true });
    G.Date = VirtualDate;
  }

  // virtualDates makes the "now" of Intl.DateTimeFormat (format and
  // formatToParts with no date) and of Temporal.Now read the virtual clock.
  function virtualDates(G, epochMs, now) {
    const at = () => MathFloor(epochMs + now());
    if (G.Intl && G.Intl.DateTimeFormat) {
      const proto = G.Intl.DateTimeFormat.prototype;
      const fmt = ObjectGetOwnDesc(proto, 'format');
      if (fmt && fmt.get) {
        defineGetter(proto, 'format', function () {
          const f = apply(fmt.get, this, []);
          return function format(d) { return f(d === undefined ? at() : d); };
        });
      }
      const parts = proto.formatToParts;
      if (typeof parts === 'function') proto.formatToParts = function formatToParts(d) { return apply(parts, this, [d === undefined ? at() : d]); };
    }
    if (G.Temporal && G.Temporal.Now && G.Temporal.Instant) {
      const T = G.Temporal, N = T.Now, fromNs = T.Instant.fromEpochNanoseconds;
      // Nanoseconds in integers: epoch ms × 10⁶ is past 2⁵³.
      const instant = () => apply(fromNs, T.Instant, [RealBigInt(epochMs) * 1000000n + RealBigInt(MathRound(now() * 1e6))]);
      const zoned = (tz) => instant().toZonedDateTimeISO(tz === undefined ? 'UTC' : tz);
      N.instant = function instant_() { return instant(); };
      N.timeZoneId = function timeZoneId() { return 'UTC'; };
      N.zonedDateTimeISO = function zonedDateTimeISO(tz) { return zoned(tz); };
      N.plainDateTimeISO = function plainDateTimeISO(tz) { return zoned(tz).toPlainDateTime(); };
      N.plainDateISO = function plainDateISO(tz) { return zoned(tz).toPlainDate(); };
      N.plainTimeISO = function plainTimeISO(tz) { return zoned(tz).toPlainTime(); };
    }
  }

  // timerHeap is a binary heap of timers ordered by (at, seq), on
  // prototype-less storage: nothing a page does to Array or Object
  // prototypes reaches it. Cleared timers are marked dead by their owner
  // and skipped (or dropped by compact).
  function timerHeap() {
    const heap = ObjectCreate(null);
    let size = 0;
    const earlier = (a, b) => a.at < b.at || (a.at === b.at && a.seq < b.seq);
    function push(t) {
      let i = size++;
      heap[i] = t;
      while (i > 0) {
        const up = (i - 1) >> 1;
        if (!earlier(heap[i], heap[up])) break;
        const x = heap[i]; heap[i] = heap[up]; heap[up] = x;
        i = up;
      }
    }
    function pop() {
      const top = heap[0];
      size--;
      heap[0] = heap[size];
      delete heap[size];
      let i = 0;
      for (;;) {
        const l = 2 * i + 1, r = l + 1;
        let m = i;
        if (l < size && earlier(heap[l], heap[m])) m = l;
        if (r < size && earlier(heap[r], heap[m])) m = r;
        if (m === i) break;
        const x = heap[i]; heap[i] = heap[m]; heap[m] = x;
        i = m;
      }
      return top;
    }
    // compact drops dead timers, keeping the order keys of the others.
    function compact() {
      const keep = ObjectCreate(null);
      let n = 0;
      for (let i = 0; i < size; i++) if (!heap[i].dead) keep[n++] = heap[i];
      for (let i = 0; i < size; i++) delete heap[i];
      size = 0;
      for (let i = 0; i < n; i++) push(keep[i]);
    }
    return { push, pop, compact, peek: () => heap[0], size: () => size };
  }

  // timerQueue gives setTimeout/setInterval semantics in virtual time, as
  // the HTML standard says them: nested deeper than 5, a delay is at least
  // 4 ms; due timers run in (due time, creation) order, each reading its
  // own due time. clock.get/clock.set read and move the virtual ms; report
  // receives what a callback throws. Cleared timers stay in the heap,
  // marked dead, until they come up (or the heap is compacted when most of
  // it is dead).
  function timerQueue(G, clock, report) {
    const live = ObjectCreate(null); // id → timer, pending ones only
    const heap = timerHeap();
    let liveCount = 0, seq = 0, nesting = 0;
    function add(fn, delay, args, repeat) {
      if (typeof fn !== 'function') {
        const code = RealString(fn);
        fn = function () { (0, eval)(code); };
      }
      delay = RealNumber(delay) || 0;
      if (delay < 0) delay = 0;
      const level = nesting + 1;
      if (level > 5 && delay < 4) delay = 4;
      const id = ++seq;
      const t = { id, fn, args, at: clock.get() + delay, delay, repeat, seq: id, level, dead: false };
      live[id] = t;
      liveCount++;
      heap.push(t);
      return id;
    }
    function clear(id) {
      const t = live[id];
      if (t === undefined) return;
      t.dead = true;
      delete live[id];
      liveCount--;
      if (heap.size() > 1024 && heap.size() > 4 * liveCount) heap.compact();
    }
    // runUntil runs the timers due at or before limit; after maxRuns runs
    // it stops and returns false (the rest wait for the next call).
    function runUntil(limit, maxRuns) {
      let runs = 0;
      while (heap.size() > 0) {
        const next = heap.peek();
        if (next.dead) { heap.pop(); continue; }
        if (next.at > limit) return true;
        if (++runs > maxRuns) return false;
        heap.pop();
        if (next.at > clock.get()) clock.set(next.at);
        if (next.repeat) {
          next.at = clock.get() + MathMax(next.delay, next.level > 5 ? 4 : 1);
          next.seq = ++seq;
          heap.push(next);
        } else {
          delete live[next.id];
          liveCount--;
        }
        const saved = nesting;
        nesting = next.level;
        try { apply(next.fn, G, next.args); } catch (e) { report(e); } finally { nesting = saved; }
      }
      return true;
    }
    return { add, clear, runUntil, pending: () => liveCount };
  }

  return { defineGetter, seedRandom, installClock, virtualDates, timerQueue };
})();
