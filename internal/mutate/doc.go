// Package mutate generates mutants of a task's reference page: copies of
// one HTML file, each with one small, plausible bug in its JavaScript. A
// contract that passes the reference should fail (kill) its mutants; the
// ones it does not kill show what it fails to check.
//
// # How pages are edited
//
// Only inline <script> elements of JavaScript are touched: no type, a
// JavaScript MIME type, or type="module". Scripts with src=, import maps,
// application/json and other types are left alone, as is all the HTML.
// Each script is parsed with github.com/tdewolff/parse/v2/js; every site is
// found on that AST, never with regular expressions. The AST has no
// positions (and one *js.Var is shared by all uses of a variable), so the
// script is re-lexed and its tokens are consumed in lock-step with a
// source-order walk of the AST that mirrors the parser's grammar: every node
// gets the exact byte range of its first and last token. A script the walk
// cannot align is skipped and reported in Stats.Skipped. Replacement text is
// spliced into the original source at those offsets, so every byte outside
// the edited spans is unchanged, and Line:Col are true positions in the page.
//
// # Operators
//
// In documentation order (see Operators):
//
//   - delete-state-update: delete an expression statement inside a function
//     body (any nesting) that is an assignment (=, +=, …, ??=), an update
//     (x++, --x), or a call of a mutating method on a member: set, copy,
//     set<Upper>… (setX, setRGB, setFromEuler, …), addScaledVector,
//     multiplyScalar, divideScalar, lerp, lerpVectors, slerp, apply{Quaternion,
//     Euler,AxisAngle,Matrix4}, normalize, negate, clamp, clampScalar,
//     clampLength, push, pop, shift, unshift, splice. DOM updates are left to
//     drop-dom-update.
//   - scale-constant: a decimal numeric literal (not 0, not hex, not an
//     index obj[n]) becomes x*0.5, x*1.5 and -x: three mutants per site,
//     numbers written compactly (9.81 gives 4.905, 14.715, -9.81; a negative
//     number is parenthesised unless it stands alone as a value). Only
//     physics/timing literals count: the literal's expression (up to the
//     statement, or the variable binding, object property or class field,
//     whose name is included) mentions an identifier or property name with a
//     word matching gravity grav speed vel accel mass restitution bounce damp
//     friction stiff spring force omega period rate duration delay dt delta
//     elapsed time angle radius length step interval limit max min count size
//     g k (names split at camelCase and _; a word matches a stem it equals or,
//     for stems of three letters or more, starts with; the member .length
//     does not count), or the nearest enclosing function mentions one.
//     Excluded: arguments of constructors named *Color, *Geometry, *Material,
//     *Light, *Camera, *Renderer, *Texture, *Fog, *Helper and of colour
//     methods (setHex, setRGB, setHSL, setStyle, setColor, setClearColor,
//     lerpColors, offsetHSL) and of the renderer's setSize and
//     setPixelRatio, numbers inside template literals, arguments of
//     toFixed/toPrecision/padStart/… and operands of + next to a string.
//   - break-asset-path: a string literal or plain template literal that
//     looks like an asset path or URL (its file name has an extension such as
//     .png .jpg .glb .gltf .json .hdr .mp3 .wav …, or it starts with ./ ../
//     assets/ or /assets/) gets "missing-" inserted before its file name.
//     Static import specifiers are not literals of the AST and stay; import()
//     and fetch()/loader arguments are included. HTML attributes are out of
//     scope.
//   - swap-key-codes: string literals compared with ==, ===, != or !== to a
//     key expression (e.key, event.code, e.key.toLowerCase(), a variable
//     named key, code or k) or used as case labels of a switch on one. For
//     each pair of distinct values (not equal ignoring case), one mutant
//     swaps every occurrence of the two in the script.
//   - swap-event-bindings: for each pair of addEventListener calls in a
//     script whose first arguments are different string literals, one mutant
//     swaps the two strings.
//   - drop-dom-update: delete an expression statement (anywhere) assigning
//     .textContent, .innerText, .innerHTML, .outerHTML or .value, or anything
//     under .style, except through a .uniforms chain (shader uniforms).
//   - delete-call: delete an expression statement that is a call, at the top
//     level or in a function, including the one that starts the render loop;
//     mutating-method calls inside functions belong to delete-state-update.
//   - dead-function: for a function declared by a function statement or a
//     variable initialised with a function or arrow, called by two or more
//     expression statements f(…) (resolved by scope, not by name), one
//     mutant deletes all those statements and keeps the declaration (with a
//     single call statement this would repeat delete-call). Calls inside
//     expressions and references (requestAnimationFrame(f)) stay.
//   - disable-block: the body of a function, method, getter, arrow function,
//     if or else branch, loop, or try/catch/finally with at least one
//     statement gets "if (false) {" after its "{" and "}" before its "}".
//   - flip-comparison: one comparison operator becomes its neighbour:
//     < and <=, > and >=, === and !==, == and !=.
//   - shift-boundary: a numeric literal operand of a comparison (also under
//     a unary minus) becomes x+1 if it is an integer, else x*1.1.
//   - freeze-time: two mutants per site, the value becoming 0 and 1/60: the
//     initialiser of a variable named dt/delta/elapsed/… (a word dt, delta or
//     elapsed, or frameTime) declared in a function, the right-hand side of
//     an assignment to such a name in a function (not when it is a number
//     literal), a call x.getDelta() or x.getElapsedTime(), and the first
//     parameter of a function passed to requestAnimationFrame or
//     setAnimationLoop (" now = 0;" is inserted at the start of its body).
//
// Deleting a statement removes its whole lines when it is alone on them;
// the single statement of an if/else/loop body becomes ";"; and a ";" is
// left where deleting would let automatic semicolon insertion join its
// neighbours.
//
// # Checks and determinism
//
// Sites are enumerated in a fixed order: operators in documentation order,
// then scripts in page order, then source position. A candidate is dropped
// when its edited script no longer parses, when it leaves the page unchanged,
// or when its page equals an earlier mutant's (the earlier operator keeps
// it); Stats counts each. IDs are "<operator>-<n>", n counting that
// operator's surviving mutants in that order over the whole page, before
// Options.Operators and Options.Max apply, so IDs are stable across
// selections. When Options.Max is set and smaller than the number of
// mutants, each operator's mutants are shuffled with a math/rand/v2 PCG
// seeded from Options.Seed and drawn round-robin over the operators in
// documentation order, so every operator with mutants is represented when
// Max allows; the result is returned in enumeration order. The same page,
// file name and Options always give byte-identical mutants.
package mutate
