const bytes = crypto.getRandomValues(new Uint8Array(4));
postMessage({ classicNow: performance.now(), classicDate: Date.now(), classicRandom: Math.random(), classicBytes: Array.from(bytes),
  classicHash: location.hash, classicHref: location.href.endsWith('worker_time.js') });
setTimeout(() => postMessage({ classicLater: performance.now(), classicTemporal: String(Temporal.Now.instant()),
  classicIntl: new Intl.DateTimeFormat('en-US', { timeStyle: 'medium', timeZone: 'UTC' }).format() }), 250);
let ticks = 0;
const id = setInterval(() => { if (++ticks === 10) { clearInterval(id); postMessage({ classicInterval: performance.now() }); } }, 20);
