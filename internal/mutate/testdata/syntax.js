#!/usr/bin/env node
'use strict';
/*! kept comment */
import def, { a as b, c } from './x.js';
import * as ns from "./y.js";
import './side.js';
export const ex = 1, ey = [1, , 2, ...rest];
export default function () { return 0; }
export { b as bee, c };
export * from './z.js';
label: for (const [k, { v = 2, w: [x1] }, ...more] of pairs) { if (k) continue label; else break label; }
for (let i = 0, j = 10; i < j; i++, j--) ;
for (;;) break;
for (const key in obj) if (key) count++;
for await (const chunk of stream) total += chunk.length;
do x++; while (x < 10)
do { y-- } while (y > 0);
while (z) z = z >> 1
var re = /ab+c/gi.test(s) ? /[/]\//.source : a / b / c;
const tpl = `a${b}c${`nested ${d}`}e`, tag = html`<p>${1}</p>`, plain = `none`;
let opt = obj?.a?.[0]?.(1) ?? null;
let { p = 1, q: { r }, ...others } = src;
const arrow = async (a1, b1 = 2, ...cs) => { await a1; };
const one = x => x * 2, noArgs = () => ({ o: 1 }), asyncOne = async y => y;
const objLit = { a, b: 1, [c]: 2, 'd-e': 3, 4: 5, get g() { return 1; }, set g(v) {}, async m() {}, *gen() { yield* other(); yield 1; }, async *ag() {}, ...spread, get: 1, set: 2, async: 3 };
class A extends (B ?? C) {
  static #count = 0;
  #priv = 1;
  static { A.#count++; }
  field;
  static field2 = 2;
  constructor(...args) { super(...args); this.#priv = new.target; }
  get value() { return this.#priv; }
  set value(v) { this.#priv = v; }
  static async *gen() {}
  async method() { return #priv in this; }
  'quoted'() {}
  [Symbol.iterator]() {}
};
switch (e.key) { case 'a': case "b": f(); break; default: g() }
try { risky() } catch { recover() } finally { done() }
try { risky() } catch ({ message }) { log(message) }
if (a) { } else if (b) c(); else d()
throw new Error(`bad ${thing}`)
function* gen2() { const x = yield; yield x }
async function af() { for await (const v of it) await v; }
new Foo;
new Foo.Bar(1)(2);
new (getClass())();
x = a ? b : c ? d : e;
x **= 2 ** 3;
x ||= 1; x &&= 2; x ??= 3;
y = (a, b, c);
z = typeof a === 'undefined' || void 0 || delete o.p || !a || ~b || -c || +d || --e || ++f;
w = a++ + ++b - -c;
v = a instanceof B && 'k' in o;
u = a << 1 | b >>> 2 & c ^ d >> 3;
const m = import.meta.url; const dyn = import('./d.js');
debugger;
;[1, 2].forEach(n => n)
;(function iife() {})()
let async = 1; async = async + 1;
let of = [], get = 1, set = 2, let_ = 3;
x
++y
a = b
/hi/g.exec(c)
const last = 1 /* trailing */
