package resolve

import (
	"bytes"
	"fmt"
	"strconv"
	"strings"

	"github.com/tdewolff/parse/v2"
	"github.com/tdewolff/parse/v2/js"

	"github.com/worldprobe/worldprobe/internal/pagescript"
)

// specLoc is one module specifier string literal in a source file.
type specLoc struct {
	start, end int    // byte range of the literal, quotes included
	value      string // the specifier
	quote      byte   // ' or "
}

// analysis is what the JavaScript parser learnt about one file.
type analysis struct {
	err        error     // parse error; nothing else is set then
	isModule   bool      // has import/export statements or import.meta
	hasDefault bool      // exports a binding named default
	specs      []specLoc // static import/export-from and import("…") specifiers, in source order
	cjsNames   []string  // names a CommonJS file may export (exports.X = …, and the like)
}

// analyze parses src as an ES module with tdewolff/parse's JavaScript
// parser and records its module specifiers and exports.
func analyze(src []byte) *analysis {
	// The parser's tokens are sub-slices of its input buffer (given room
	// for the terminating NUL, it does not copy it), so a token's offset is
	// found by pointer identity (see locate).
	buf := make([]byte, len(src), len(src)+1)
	copy(buf, src)
	ast, err := js.Parse(parse.NewInputBytes(buf), js.Options{})
	if err != nil {
		return &analysis{err: fmt.Errorf("parse JavaScript: %w", err)}
	}
	v := &specVisitor{buf: buf, a: &analysis{}}
	js.Walk(v, ast)
	if v.err != nil {
		return &analysis{err: v.err}
	}
	a := v.a
	sortSpecs(a.specs)
	return a
}

type specVisitor struct {
	buf []byte
	a   *analysis
	err error
}

func (v *specVisitor) Enter(n js.INode) js.IVisitor {
	switch n := n.(type) {
	case *js.ImportStmt:
		v.a.isModule = true
		v.add(n.Module)
	case *js.ExportStmt:
		v.a.isModule = true
		if n.Default {
			v.a.hasDefault = true
		}
		for _, al := range n.List {
			if b := string(al.Binding); b == "default" || b == `"default"` || b == `'default'` {
				v.a.hasDefault = true
			}
		}
		if n.Module != nil {
			v.add(n.Module)
		}
	case *js.ImportMetaExpr:
		v.a.isModule = true
	case *js.CallExpr:
		if lit, ok := n.X.(*js.LiteralExpr); ok && lit.TokenType == js.ImportToken && len(n.Args.List) > 0 {
			if s, ok := n.Args.List[0].Value.(*js.LiteralExpr); ok && s.TokenType == js.StringToken && !n.Args.List[0].Rest {
				v.add(s.Data)
			}
		}
		// Object.defineProperty(exports, "name", …)
		if d, ok := n.X.(*js.DotExpr); ok && isName(d.X, "Object") && isName(d.Y, "defineProperty") && len(n.Args.List) >= 2 && isExportsObject(n.Args.List[0].Value) {
			if s, ok := n.Args.List[1].Value.(*js.LiteralExpr); ok && s.TokenType == js.StringToken {
				v.cjsName(s.Data[1 : len(s.Data)-1])
			}
		}
	case *js.BinaryExpr:
		if n.Op != js.EqToken {
			break
		}
		// exports.name = …, module.exports.name = …
		if d, ok := n.X.(*js.DotExpr); ok && isExportsObject(d.X) {
			v.cjsName(nameOf(d.Y))
		}
		// module.exports = { name: …, … }
		if isExportsObject(n.X) {
			if obj, ok := n.Y.(*js.ObjectExpr); ok {
				for _, p := range obj.List {
					if p.Name != nil && !p.Name.IsComputed() {
						b := p.Name.Literal.Data
						if p.Name.Literal.TokenType == js.StringToken && len(b) >= 2 {
							b = b[1 : len(b)-1]
						}
						v.cjsName(b)
					}
				}
			}
		}
	}
	return v
}

// isName reports whether e is the identifier or property name s.
func isName(e js.IExpr, s string) bool {
	return string(nameOf(e)) == s
}

func nameOf(e js.IExpr) []byte {
	switch e := e.(type) {
	case *js.Var:
		return e.Data
	case *js.LiteralExpr:
		return e.Data
	case js.LiteralExpr:
		return e.Data
	}
	return nil
}

// isExportsObject matches "exports" and "module.exports".
func isExportsObject(e js.IExpr) bool {
	if isName(e, "exports") {
		_, isVar := e.(*js.Var)
		return isVar
	}
	d, ok := e.(*js.DotExpr)
	return ok && isName(d.X, "module") && isName(d.Y, "exports")
}

func (v *specVisitor) cjsName(b []byte) {
	name := string(b)
	if name == "default" || name == "__esModule" || !js.AsIdentifierName(b) {
		return
	}
	for _, n := range v.a.cjsNames {
		if n == name {
			return
		}
	}
	v.a.cjsNames = append(v.a.cjsNames, name)
}

func (v *specVisitor) Exit(js.INode) {}

// add records a string token found in the AST.
func (v *specVisitor) add(tok []byte) {
	if v.err != nil || len(tok) < 2 {
		return
	}
	off := pagescript.Offset(v.buf, tok, 0)
	if off < 0 {
		v.err = fmt.Errorf("locate specifier %s in source", tok)
		return
	}
	q := tok[0]
	if (q != '\'' && q != '"') || tok[len(tok)-1] != q {
		return
	}
	inner := string(tok[1 : len(tok)-1])
	if strings.ContainsAny(inner, "\\\n") {
		return // escapes in a specifier: leave it to the browser
	}
	v.a.specs = append(v.a.specs, specLoc{start: off, end: off + len(tok), value: inner, quote: q})
}

func sortSpecs(s []specLoc) {
	// Insertion sort: the walk is nearly in source order.
	for i := 1; i < len(s); i++ {
		for j := i; j > 0 && s[j].start < s[j-1].start; j-- {
			s[j], s[j-1] = s[j-1], s[j]
		}
	}
}

// isBare reports whether a module specifier is bare (a package name), as
// opposed to a relative or absolute URL.
func isBare(s string) bool {
	if s == "" || strings.HasPrefix(s, "/") || strings.HasPrefix(s, "./") || strings.HasPrefix(s, "../") || s == "." || s == ".." {
		return false
	}
	if i := strings.IndexByte(s, ':'); i > 0 && !strings.Contains(s[:i], "/") {
		return false // has a scheme: https:, data:, node:, …
	}
	return true
}

// splitBare splits a bare specifier into package name, version (for the
// "name@version/sub" form some CDN output uses) and subpath.
func splitBare(s string) (name, ver, sub string) {
	rest := s
	scope := ""
	if strings.HasPrefix(rest, "@") {
		i := strings.IndexByte(rest, '/')
		if i < 0 {
			return s, "", ""
		}
		scope, rest = rest[:i+1], rest[i+1:]
	}
	first, sub, _ := strings.Cut(rest, "/")
	name, ver, _ = strings.Cut(first, "@")
	return scope + name, ver, sub
}

// replaceSpecs returns src with each specifier literal for which repl
// returns a non-empty string replaced by that string, quoted with the
// literal's own quote. It returns nil when nothing changed.
func replaceSpecs(src []byte, specs []specLoc, repl func(string) string) []byte {
	var out []byte
	last := 0
	for _, s := range specs {
		r := repl(s.value)
		if r == "" || r == s.value {
			continue
		}
		if out == nil {
			out = make([]byte, 0, len(src)+len(specs)*48)
		}
		out = append(out, src[last:s.start]...)
		out = append(out, quoteSpec(r, s.quote)...)
		last = s.end
	}
	if out == nil {
		return nil
	}
	return append(out, src[last:]...)
}

// quoteSpec quotes a URL as a JavaScript string literal with quote q.
func quoteSpec(s string, q byte) string {
	if strings.ContainsAny(s, "\\'\"\n\r\u2028\u2029") {
		return strconv.Quote(s)
	}
	return string(q) + s + string(q)
}

// stubModule is a module that re-exports everything from target, so that
// every URL naming the same file ends in one module instance (ES modules
// are keyed by URL) whose import.meta.url is the canonical one.
func stubModule(target string, hasDefault bool) []byte {
	q := strconv.Quote(target)
	s := "// worldprobe: re-export of the canonical module URL\nexport * from " + q + ";\n"
	if hasDefault {
		s += "export { default } from " + q + ";\n"
	}
	return []byte(s)
}

// wrapCommonJS turns a CommonJS or UMD script into an ES module with the
// script's module.exports as default export (its default member if it is
// marked __esModule) and the names found by analyze as named exports —
// roughly what module CDNs do for packages that ship no ES module.
// require() is not supported.
func wrapCommonJS(src []byte, name string, names []string) []byte {
	var b bytes.Buffer
	b.WriteString("// worldprobe: CommonJS/UMD file served as an ES module\n")
	b.WriteString("const module = { exports: {} };\nconst exports = module.exports;\n")
	b.WriteString("const process = globalThis.process || { env: { NODE_ENV: \"production\" } };\n")
	b.WriteString("const require = (id) => { throw new Error(\"worldprobe: require(\" + JSON.stringify(id) + \") in \" + " + strconv.Quote(name) + " + \" is not available offline\"); };\n")
	b.WriteString("(function (module, exports, require, process) {\n")
	b.Write(src)
	b.WriteString("\n}).call(globalThis, module, exports, require, process);\n")
	b.WriteString("const __cjs = module.exports;\n")
	b.WriteString("export default (__cjs && __cjs.__esModule && \"default\" in __cjs) ? __cjs.default : __cjs;\n")
	if len(names) > 0 {
		var list []string
		for i, n := range names {
			fmt.Fprintf(&b, "const __n%d = __cjs == null ? undefined : __cjs[%s];\n", i, strconv.Quote(n))
			list = append(list, fmt.Sprintf("__n%d as %s", i, n))
		}
		b.WriteString("export { " + strings.Join(list, ", ") + " };\n")
	}
	return b.Bytes()
}
