package mutate

import (
	"fmt"
	"math"
	"strconv"
	"strings"
	"unicode"

	"github.com/tdewolff/parse/v2/js"
)

// ---- helpers over the node table ----

// line is the 1-based page line of script offset off.
func (s *script) line(off int) int { return s.lineBase + strings.Count(string(s.src[:off]), "\n") }

func (s *script) text(i int) string { return string(s.src[s.nodes[i].start:s.nodes[i].end]) }

func (s *script) snippet(i int) string { return oneLine(s.text(i), 60) }

func isFunc(n js.INode) bool {
	switch n.(type) {
	case *js.FuncDecl, *js.ArrowFunc, *js.MethodDecl:
		return true
	}
	return false
}

// enclosingFunc is the nearest function (declaration, expression, arrow or
// method) around entry i, or -1 at the top level.
func (s *script) enclosingFunc(i int) int {
	for p := s.nodes[i].parent; p >= 0; p = s.nodes[p].parent {
		if s.nodes[p].kind == kNode && isFunc(s.nodes[p].n) {
			return p
		}
	}
	return -1
}

func (s *script) parentNode(i int) js.INode {
	if p := s.nodes[i].parent; p >= 0 {
		return s.nodes[p].n
	}
	return nil
}

// each calls f for each kNode entry in source order.
func (s *script) each(f func(i int, n js.INode)) {
	for i := range s.nodes {
		if s.nodes[i].kind == kNode {
			f(i, s.nodes[i].n)
		}
	}
}

// resolve follows a variable's links to the variable it refers to.
func resolve(v *js.Var) *js.Var {
	for v.Link != nil {
		v = v.Link
	}
	return v
}

// memberName is the property name of a.b, a?.b or a.#b.
func memberName(d *js.DotExpr) string {
	switch y := d.Y.(type) {
	case js.LiteralExpr:
		return string(y.Data)
	case *js.LiteralExpr:
		return string(y.Data)
	case *js.Var:
		return string(y.Data)
	}
	return ""
}

// calleeName is the last name of a callee or constructor: f, a.b.f.
func calleeName(e js.IExpr) string {
	switch e := e.(type) {
	case *js.Var:
		return string(e.Data)
	case *js.DotExpr:
		return memberName(e)
	}
	return ""
}

var assignOps = map[js.TokenType]bool{
	js.EqToken: true, js.MulEqToken: true, js.DivEqToken: true, js.ModEqToken: true, js.ExpEqToken: true,
	js.AddEqToken: true, js.SubEqToken: true, js.LtLtEqToken: true, js.GtGtEqToken: true, js.GtGtGtEqToken: true,
	js.BitAndEqToken: true, js.BitXorEqToken: true, js.BitOrEqToken: true, js.AndEqToken: true, js.OrEqToken: true,
	js.NullishEqToken: true,
}

func isAssign(e js.IExpr) (*js.BinaryExpr, bool) {
	b, ok := e.(*js.BinaryExpr)
	return b, ok && assignOps[b.Op]
}

// mutators are the method names whose call statement counts as a state
// update: Three.js's in-place vector/quaternion/colour operations and the
// array mutators. Any set<Upper>… name (setX, setRGB, setFromEuler, …) counts too.
var mutators = map[string]bool{
	"set": true, "copy": true, "addScaledVector": true, "multiplyScalar": true,
	"divideScalar": true, "lerp": true, "lerpVectors": true, "slerp": true, "applyQuaternion": true,
	"applyEuler": true, "applyAxisAngle": true, "applyMatrix4": true, "normalize": true, "negate": true,
	"clamp": true, "clampScalar": true, "clampLength": true, "push": true, "pop": true, "shift": true,
	"unshift": true, "splice": true,
}

func isMutatorName(name string) bool {
	if mutators[name] {
		return true
	}
	return len(name) > 3 && strings.HasPrefix(name, "set") && unicode.IsUpper(rune(name[3]))
}

// isStateUpdate: x = …, a.b += …, x++, --x, obj.set(…), v.copy(…), v.setX(…), arr.push(…).
func isStateUpdate(e js.IExpr) bool {
	if _, ok := isAssign(e); ok {
		return true
	}
	switch e := e.(type) {
	case *js.UnaryExpr:
		switch e.Op {
		case js.PreIncrToken, js.PreDecrToken, js.PostIncrToken, js.PostDecrToken:
			return true
		}
	case *js.CallExpr:
		if d, ok := e.X.(*js.DotExpr); ok {
			return isMutatorName(memberName(d))
		}
	}
	return false
}

// memberChain lists the property names of a member expression from the
// outermost: el.style.left gives [left style].
func memberChain(e js.IExpr) []string {
	var out []string
	for {
		switch x := e.(type) {
		case *js.DotExpr:
			out = append(out, memberName(x))
			e = x.X
		case *js.IndexExpr:
			if l, ok := x.Y.(*js.LiteralExpr); ok && l.TokenType == js.StringToken {
				out = append(out, unquote(l.Data))
			} else {
				out = append(out, "")
			}
			e = x.X
		default:
			return out
		}
	}
}

var domProps = map[string]bool{"textContent": true, "innerText": true, "innerHTML": true, "outerHTML": true, "value": true}

// isDOMUpdate: an assignment to el.textContent/innerText/innerHTML/outerHTML/value
// or to el.style / el.style.x (not to a shader uniform's .value).
func isDOMUpdate(e js.IExpr) bool {
	b, ok := isAssign(e)
	if !ok {
		return false
	}
	chain := memberChain(b.X)
	if len(chain) < 1 {
		return false
	}
	for _, n := range chain {
		if n == "uniforms" {
			return false
		}
	}
	if domProps[chain[0]] {
		return true
	}
	for _, n := range chain {
		if n == "style" {
			return true
		}
	}
	return false
}

// deleteStmt returns the edit that deletes statement i: a statement alone on
// its lines goes with its lines; a single-statement body (if (x) f();)
// becomes ';'; and a ';' stays where deleting would join the neighbours
// into one statement by automatic semicolon insertion.
func (s *script) deleteStmt(i int) edit {
	nd := s.nodes[i]
	if nd.role == rBody {
		return edit{nd.start, nd.end, ";"}
	}
	repl := ""
	if nd.prev >= 0 && nd.next >= 0 {
		prev := s.nodes[nd.prev]
		pt := strings.TrimRight(string(s.src[prev.start:prev.end]), " \t")
		safe := strings.HasSuffix(pt, ";")
		if strings.HasSuffix(pt, "}") {
			switch prev.n.(type) {
			case *js.ExprStmt, *js.VarDecl, *js.ReturnStmt, *js.ThrowStmt:
			default:
				safe = true
			}
		}
		if !safe && strings.ContainsRune("([`+-/", rune(s.src[s.nodes[nd.next].start])) {
			repl = ";"
		}
	}
	if repl == "" {
		ls, le := nd.start, nd.end
		for ls > 0 && (s.src[ls-1] == ' ' || s.src[ls-1] == '\t') {
			ls--
		}
		for le < len(s.src) && (s.src[le] == ' ' || s.src[le] == '\t' || s.src[le] == '\r') {
			le++
		}
		atEOL := le == len(s.src) || s.src[le] == '\n'
		switch {
		case (ls == 0 || s.src[ls-1] == '\n') && le < len(s.src) && s.src[le] == '\n':
			return edit{ls, le + 1, ""} // alone on its line(s)
		case atEOL:
			return edit{ls, nd.end, ""} // last on its line: take the blanks before it
		default:
			ae := nd.end
			for ae < len(s.src) && (s.src[ae] == ' ' || s.src[ae] == '\t') {
				ae++
			}
			return edit{nd.start, ae, ""} // more follows: take the blanks after it
		}
	}
	return edit{nd.start, nd.end, repl}
}

func unquote(b []byte) string {
	if len(b) >= 2 && (b[0] == '\'' || b[0] == '"' || b[0] == '`') && b[len(b)-1] == b[0] {
		return string(b[1 : len(b)-1])
	}
	return string(b)
}

// plainString returns the value of a string literal without escapes.
func plainString(l *js.LiteralExpr) (string, bool) {
	if l.TokenType != js.StringToken || len(l.Data) < 2 {
		return "", false
	}
	v := unquote(l.Data)
	if strings.ContainsAny(v, "\\\n\r") {
		return "", false
	}
	return v, true
}

// quoteLike writes v as a string literal, with the quote of orig when it can.
func quoteLike(orig []byte, v string) string {
	q := byte('\'')
	if len(orig) > 0 && (orig[0] == '"' || orig[0] == '\'') {
		q = orig[0]
	}
	if strings.IndexByte(v, q) >= 0 {
		if q == '\'' {
			q = '"'
		} else {
			q = '\''
		}
	}
	if strings.IndexByte(v, q) >= 0 {
		return strconv.Quote(v)
	}
	return string(q) + v + string(q)
}

// ---- 1. delete-state-update ----

func findDeleteStateUpdate(s *script) []candidate {
	var out []candidate
	s.each(func(i int, n js.INode) {
		es, ok := n.(*js.ExprStmt)
		if !ok || s.enclosingFunc(i) < 0 || isDOMUpdate(es.Value) || !isStateUpdate(es.Value) {
			return
		}
		out = append(out, candidate{pos: s.nodes[i].start, desc: "delete state update `" + s.snippet(i) + "`", edits: []edit{s.deleteStmt(i)}})
	})
	return out
}

// ---- 2. scale-constant ----

// physicsStems are matched against the words of identifiers and property
// names (camelCase, snake_case and UPPER_CASE split; case-insensitive): a
// word matches a stem it equals or, for stems of 3 letters or more, starts with.
var physicsStems = []string{"gravity", "grav", "speed", "vel", "accel", "mass", "restitution", "bounce", "damp",
	"friction", "stiff", "spring", "force", "omega", "period", "rate", "duration", "delay", "dt", "delta", "elapsed",
	"time", "angle", "radius", "length", "step", "interval", "limit", "max", "min", "count", "size", "g", "k"}

// words splits an identifier into lower-case words.
func words(name string) []string {
	var out []string
	var cur []rune
	rs := []rune(name)
	flush := func() {
		if len(cur) > 0 {
			out = append(out, strings.ToLower(string(cur)))
			cur = cur[:0]
		}
	}
	for i, r := range rs {
		switch {
		case !unicode.IsLetter(r) && !unicode.IsDigit(r):
			flush()
			continue
		case unicode.IsDigit(r):
			if len(cur) > 0 && !unicode.IsDigit(cur[len(cur)-1]) {
				flush()
			}
		case unicode.IsUpper(r):
			// a new word starts at an upper-case letter after a lower-case
			// one, or before a lower-case one in a run of capitals (HTMLElement)
			if len(cur) > 0 {
				prev := cur[len(cur)-1]
				nextLower := i+1 < len(rs) && unicode.IsLower(rs[i+1])
				if !unicode.IsUpper(prev) || nextLower {
					flush()
				}
			}
		default:
			if len(cur) > 0 && unicode.IsDigit(cur[len(cur)-1]) {
				flush()
			}
		}
		cur = append(cur, r)
	}
	flush()
	return out
}

func physicsName(name string) bool {
	for _, w := range words(name) {
		for _, st := range physicsStems {
			if w == st || len(st) >= 3 && strings.HasPrefix(w, st) {
				return true
			}
		}
	}
	return false
}

// physicsEntry reports whether entry j is an identifier or property name
// with a physics/timing word. The member .length (of arrays and strings,
// everywhere in event handlers) does not count; a variable or key named
// length does.
func (s *script) physicsEntry(j int) bool {
	nd := &s.nodes[j]
	if nd.kind != kVar && nd.kind != kName {
		return false
	}
	if nd.name == "length" && nd.kind == kName {
		if _, ok := s.parentNode(j).(*js.DotExpr); ok {
			return false
		}
	}
	return physicsName(nd.name)
}

// mentionsPhysics reports whether entry i contains a physics/timing name.
func (s *script) mentionsPhysics(i int) bool {
	end := s.nodes[i].end
	for j := i; j < len(s.nodes) && s.nodes[j].start < end; j++ {
		if s.physicsEntry(j) {
			return true
		}
	}
	return false
}

// unit is the expression a literal belongs to for scale-constant: its
// ancestors up to (not including) the enclosing statement or function, or
// the enclosing variable binding, object property or class field (whose
// name is then part of the unit).
func (s *script) unit(i int) int {
	cur := i
	for {
		switch s.nodes[cur].n.(type) {
		case *js.BindingElement, *js.Property, *js.Field:
			return cur
		}
		p := s.nodes[cur].parent
		if p < 0 {
			return cur
		}
		switch pn := s.nodes[p].n; pn.(type) {
		case *js.ExprStmt, *js.IfStmt, *js.DoWhileStmt, *js.WhileStmt, *js.ForStmt, *js.ForInStmt, *js.ForOfStmt,
			*js.SwitchStmt, *js.CaseClause, *js.ReturnStmt, *js.ThrowStmt, *js.WithStmt, *js.LabelledStmt,
			*js.BlockStmt, *js.VarDecl, *js.ClassDecl, *js.ExportStmt:
			return cur
		default:
			if isFunc(pn) {
				return cur
			}
		}
		cur = p
	}
}

// relevantFunc reports whether function entry f mentions a physics/timing
// name (its own parameters and body, not nested functions).
func (s *script) relevantFunc(f int) bool {
	if f < 0 {
		return false
	}
	if s.relevantFuncs == nil {
		s.relevantFuncs = map[int]bool{}
		for j := range s.nodes {
			if s.physicsEntry(j) {
				if g := s.enclosingFunc(j); g >= 0 {
					s.relevantFuncs[g] = true
				}
			}
		}
	}
	return s.relevantFuncs[f]
}

// skipConstructors: numbers passed to these (THREE.Color, *Geometry, …) are
// colours, tessellation or set-up, not physics.
var skipConstructors = []string{"Color", "Geometry", "Material", "Light", "Camera", "Renderer", "Texture", "Fog", "Helper"}

// colourMethods: numbers passed to these are colours, or the renderer's
// canvas set-up (setSize, setPixelRatio), not physics.
var colourMethods = map[string]bool{"setHex": true, "setRGB": true, "setHSL": true, "setStyle": true, "setColor": true,
	"setClearColor": true, "lerpColors": true, "offsetHSL": true, "setSize": true, "setPixelRatio": true}

var stringMethods = map[string]bool{"toFixed": true, "toPrecision": true, "toString": true, "padStart": true, "padEnd": true,
	"slice": true, "substring": true, "substr": true, "charAt": true, "repeat": true, "toLocaleString": true}

// excludedLiteral: colour and set-up constructor arguments, numbers in
// template literals, number formatting arguments and string concatenation.
func (s *script) excludedLiteral(i int) bool {
	if p := s.nodes[i].parent; p >= 0 {
		switch pn := s.nodes[p].n.(type) {
		case *js.CallExpr:
			if d, ok := pn.X.(*js.DotExpr); ok && s.nodes[i].role == rArg && stringMethods[memberName(d)] {
				return true
			}
		case *js.BinaryExpr:
			if pn.Op == js.AddToken && (isStringy(pn.X) || isStringy(pn.Y)) {
				return true
			}
		}
	}
outer:
	for p := s.nodes[i].parent; p >= 0; p = s.nodes[p].parent {
		switch pn := s.nodes[p].n.(type) {
		case *js.TemplateExpr:
			return true
		case *js.NewExpr:
			name := calleeName(pn.X)
			for _, suf := range skipConstructors {
				if strings.HasSuffix(name, suf) {
					return true
				}
			}
		case *js.CallExpr:
			if colourMethods[calleeName(pn.X)] {
				return true
			}
		}
		if isFunc(s.nodes[p].n) {
			break outer
		}
	}
	return false
}

// isStringy: a string or template literal, or a + chain containing one.
func isStringy(e js.IExpr) bool {
	switch e := e.(type) {
	case *js.LiteralExpr:
		return e.TokenType == js.StringToken
	case *js.TemplateExpr:
		return e.Tag == nil
	case *js.BinaryExpr:
		return e.Op == js.AddToken && (isStringy(e.X) || isStringy(e.Y))
	}
	return false
}

// numberValue parses a decimal numeric literal (not hex, octal, binary or BigInt).
func numberValue(l *js.LiteralExpr) (float64, bool) {
	if l.TokenType != js.DecimalToken && l.TokenType != js.IntegerToken || len(l.Data) == 0 || l.Data[len(l.Data)-1] == 'n' {
		return 0, false
	}
	t := strings.ReplaceAll(string(l.Data), "_", "")
	v, err := strconv.ParseFloat(t, 64)
	if err != nil || math.IsInf(v, 0) || math.IsNaN(v) {
		return 0, false
	}
	return v, true
}

// formatNumber writes x compactly, hiding binary noise (9.81*1.5 is 14.715).
func formatNumber(x float64) string {
	r, err := strconv.ParseFloat(strconv.FormatFloat(x, 'g', 12, 64), 64)
	if err != nil {
		r = x
	}
	if a := math.Abs(r); a != 0 && (a < 1e-6 || a >= 1e21) {
		return strconv.FormatFloat(r, 'g', -1, 64)
	}
	return strconv.FormatFloat(r, 'f', -1, 64)
}

// bareOK reports whether a negative number may replace entry i without
// parentheses: as an assigned value, initializer, argument, element,
// property value, returned value or conditional branch.
func (s *script) bareOK(i int) bool {
	switch pn := s.parentNode(i).(type) {
	case *js.BindingElement, *js.ArrayExpr, *js.Property, *js.ReturnStmt, *js.GroupExpr, *js.Field:
		return true
	case *js.CallExpr, *js.NewExpr:
		return s.nodes[i].role == rArg
	case *js.BinaryExpr:
		return assignOps[pn.Op] && s.nodes[i].role == rRight
	case *js.CondExpr:
		return pn.Cond != s.nodes[i].n
	}
	return false
}

func findScaleConstant(s *script) []candidate {
	var out []candidate
	s.each(func(i int, n js.INode) {
		l, ok := n.(*js.LiteralExpr)
		if !ok {
			return
		}
		v, ok := numberValue(l)
		if !ok || v == 0 || s.nodes[i].role == rIndex || s.excludedLiteral(i) {
			return
		}
		if !s.mentionsPhysics(s.unit(i)) && !s.relevantFunc(s.enclosingFunc(i)) {
			return
		}
		nd := s.nodes[i]
		lit := string(l.Data)
		ctx := s.snippet(s.unit(i))
		neg := "-" + lit
		if !s.bareOK(i) {
			neg = "(" + neg + ")"
		}
		for _, m := range []struct{ text, how string }{
			{formatNumber(v * 0.5), "×0.5"},
			{formatNumber(v * 1.5), "×1.5"},
			{neg, "sign flip"},
		} {
			out = append(out, candidate{pos: nd.start,
				desc:  fmt.Sprintf("scale %s %s → %s in `%s`", lit, m.how, m.text, ctx),
				edits: []edit{{nd.start, nd.end, m.text}}})
		}
	})
	return out
}

// ---- 3. break-asset-path ----

var assetExts = map[string]bool{}

func init() {
	for _, e := range strings.Fields(`png jpg jpeg gif webp avif svg bmp ktx2 basis dds tga glb gltf obj mtl fbx stl ply dae
		usdz drc bin json hdr exr mp3 wav ogg m4a aac flac mp4 webm mov ttf otf woff woff2 js mjs wasm txt csv xml
		glsl vert frag`) {
		assetExts[e] = true
	}
}

// assetSplit reports whether v looks like an asset path or URL and returns
// the index in v where its file name starts.
func assetSplit(v string) (int, bool) {
	if v == "" || len(v) > 500 || strings.ContainsAny(v, " \t<>{}|^\"'") {
		return 0, false
	}
	low := strings.ToLower(v)
	for _, p := range []string{"data:", "blob:", "javascript:", "mailto:", "#"} {
		if strings.HasPrefix(low, p) {
			return 0, false
		}
	}
	path := v
	if k := strings.IndexAny(path, "?#"); k >= 0 {
		path = path[:k]
	}
	dir := strings.HasPrefix(path, "./") || strings.HasPrefix(path, "../") || strings.HasPrefix(path, "/assets/") || strings.HasPrefix(path, "assets/")
	base := strings.TrimRight(path, "/")
	slash := strings.LastIndexByte(base, '/')
	file := base[slash+1:]
	ext := ""
	if dot := strings.LastIndexByte(file, '.'); dot > 0 {
		ext = strings.ToLower(file[dot+1:])
	}
	if !assetExts[ext] && !dir {
		return 0, false
	}
	if file == "" || file == "." || file == ".." {
		return 0, false
	}
	return slash + 1, true
}

func findBreakAssetPath(s *script) []candidate {
	var out []candidate
	s.each(func(i int, n js.INode) {
		var raw []byte
		switch l := n.(type) {
		case *js.LiteralExpr:
			if l.TokenType != js.StringToken {
				return
			}
			raw = l.Data
		case *js.TemplateExpr:
			if l.Tag != nil || len(l.List) != 0 {
				return
			}
			raw = l.Tail
		default:
			return
		}
		v := unquote(raw)
		if strings.ContainsAny(v, "\\\n") || len(v) != len(raw)-2 {
			return
		}
		k, ok := assetSplit(v)
		if !ok {
			return
		}
		at := s.nodes[i].start + 1 + k
		broken := string(raw[:1+k]) + "missing-" + string(raw[1+k:])
		out = append(out, candidate{pos: s.nodes[i].start,
			desc:  fmt.Sprintf("break asset path %s → %s", raw, broken),
			edits: []edit{{at, at, "missing-"}}})
	})
	return out
}

// ---- 4. swap-key-codes ----

var keyVarNames = map[string]bool{"key": true, "code": true, "k": true, "keycode": true, "keyname": true}

// isKeyExpr: e.key, event.code, e.key.toLowerCase(), or a variable named key/code/k.
func isKeyExpr(e js.IExpr) bool {
	switch e := e.(type) {
	case *js.DotExpr:
		n := memberName(e)
		return n == "key" || n == "code"
	case *js.CallExpr:
		if d, ok := e.X.(*js.DotExpr); ok {
			switch memberName(d) {
			case "toLowerCase", "toUpperCase", "trim":
				return isKeyExpr(d.X)
			}
		}
	case *js.Var:
		return keyVarNames[strings.ToLower(string(e.Data))]
	case *js.GroupExpr:
		return isKeyExpr(e.X)
	}
	return false
}

var equalityOps = map[js.TokenType]bool{js.EqEqToken: true, js.NotEqToken: true, js.EqEqEqToken: true, js.NotEqEqToken: true}

type keySite struct {
	i     int // literal entry
	value string
}

func findSwapKeyCodes(s *script) []candidate {
	var sites []keySite
	add := func(e js.IExpr) {
		l, ok := e.(*js.LiteralExpr)
		if !ok {
			return
		}
		v, ok := plainString(l)
		if !ok {
			return
		}
		if i, ok := s.index[l]; ok {
			sites = append(sites, keySite{i, v})
		}
	}
	s.each(func(i int, n js.INode) {
		switch n := n.(type) {
		case *js.BinaryExpr:
			if !equalityOps[n.Op] {
				return
			}
			if isKeyExpr(n.X) {
				add(n.Y)
			} else if isKeyExpr(n.Y) {
				add(n.X)
			}
		case *js.SwitchStmt:
			if isKeyExpr(n.Init) {
				for _, c := range n.List {
					if c.Cond != nil {
						add(c.Cond)
					}
				}
			}
		}
	})
	// distinct values in first-appearance order
	var values []string
	first := map[string]int{}
	for _, st := range sites {
		if _, ok := first[st.value]; !ok {
			first[st.value] = st.i
			values = append(values, st.value)
		}
	}
	var out []candidate
	for a := 0; a < len(values); a++ {
		for b := a + 1; b < len(values); b++ {
			va, vb := values[a], values[b]
			if strings.EqualFold(va, vb) {
				continue // 'r' and 'R' usually do the same thing
			}
			var edits []edit
			for _, st := range sites {
				nd := s.nodes[st.i]
				raw := s.src[nd.start:nd.end]
				switch st.value {
				case va:
					edits = append(edits, edit{nd.start, nd.end, quoteLike(raw, vb)})
				case vb:
					edits = append(edits, edit{nd.start, nd.end, quoteLike(raw, va)})
				}
			}
			out = append(out, candidate{pos: s.nodes[first[va]].start,
				desc:  fmt.Sprintf("swap key names %s ↔ %s", strconv.Quote(va), strconv.Quote(vb)),
				edits: edits})
		}
	}
	return out
}

// ---- 5. swap-event-bindings ----

func findSwapEventBindings(s *script) []candidate {
	var sites []keySite
	s.each(func(i int, n js.INode) {
		c, ok := n.(*js.CallExpr)
		if !ok || calleeName(c.X) != "addEventListener" || len(c.Args.List) == 0 || c.Args.List[0].Rest {
			return
		}
		l, ok := c.Args.List[0].Value.(*js.LiteralExpr)
		if !ok {
			return
		}
		v, ok := plainString(l)
		if !ok {
			return
		}
		if li, ok := s.index[l]; ok {
			sites = append(sites, keySite{li, v})
		}
	})
	var out []candidate
	for a := 0; a < len(sites); a++ {
		for b := a + 1; b < len(sites); b++ {
			sa, sb := sites[a], sites[b]
			if sa.value == sb.value {
				continue
			}
			na, nb := s.nodes[sa.i], s.nodes[sb.i]
			out = append(out, candidate{pos: na.start,
				desc: fmt.Sprintf("swap the event types of addEventListener(%s) (line %d) and addEventListener(%s) (line %d)",
					strconv.Quote(sa.value), s.line(na.start), strconv.Quote(sb.value), s.line(nb.start)),
				edits: []edit{
					{na.start, na.end, quoteLike(s.src[na.start:na.end], sb.value)},
					{nb.start, nb.end, quoteLike(s.src[nb.start:nb.end], sa.value)},
				}})
		}
	}
	return out
}

// ---- 6. drop-dom-update ----

func findDropDOMUpdate(s *script) []candidate {
	var out []candidate
	s.each(func(i int, n js.INode) {
		if es, ok := n.(*js.ExprStmt); ok && isDOMUpdate(es.Value) {
			out = append(out, candidate{pos: s.nodes[i].start, desc: "drop DOM update `" + s.snippet(i) + "`", edits: []edit{s.deleteStmt(i)}})
		}
	})
	return out
}

// ---- 7. delete-call ----

func findDeleteCall(s *script) []candidate {
	var out []candidate
	s.each(func(i int, n js.INode) {
		es, ok := n.(*js.ExprStmt)
		if !ok {
			return
		}
		if _, ok := es.Value.(*js.CallExpr); !ok {
			return
		}
		if s.enclosingFunc(i) >= 0 && isStateUpdate(es.Value) {
			return // delete-state-update's
		}
		out = append(out, candidate{pos: s.nodes[i].start, desc: "delete call `" + s.snippet(i) + "`", edits: []edit{s.deleteStmt(i)}})
	})
	return out
}

// ---- 8. dead-function ----

// funcDef is a named function definition of a script: a function
// declaration in a statement list, or a binding whose default is a
// function or arrow function.
type funcDef struct {
	name string
	decl int           // its entry: the declaration or the binding
	body *js.BlockStmt // the function's body
}

// funcDefs lists the script's named function definitions in source order,
// the first of each variable that keep accepts (nil: all), by resolved
// variable.
func (s *script) funcDefs(keep func(funcDef) bool) (order []*js.Var, defs map[*js.Var]funcDef) {
	defs = map[*js.Var]funcDef{}
	add := func(v *js.Var, d funcDef) {
		if keep != nil && !keep(d) {
			return
		}
		if _, dup := defs[v]; !dup {
			order = append(order, v)
			defs[v] = d
		}
	}
	s.each(func(i int, n js.INode) {
		switch n := n.(type) {
		case *js.FuncDecl:
			if n.Name != nil && (s.nodes[i].role == rList || s.nodes[i].role == rBody) {
				add(resolve(n.Name), funcDef{string(n.Name.Data), i, &n.Body})
			}
		case *js.BindingElement:
			v, ok := n.Binding.(*js.Var)
			if !ok || n.Default == nil {
				return
			}
			switch f := n.Default.(type) {
			case *js.FuncDecl:
				add(resolve(v), funcDef{string(v.Data), i, &f.Body})
			case *js.ArrowFunc:
				add(resolve(v), funcDef{string(v.Data), i, &f.Body})
			}
		}
	})
	return order, defs
}

// deleteStmts are the edits deleting statements in order: two deletions
// on one line may both claim the blanks between them, so each starts
// where the one before ended.
func (s *script) deleteStmts(stmts []int) []edit {
	var edits []edit
	for _, i := range stmts {
		e := s.deleteStmt(i)
		if k := len(edits) - 1; k >= 0 && e.start < edits[k].end {
			e.start = edits[k].end
		}
		edits = append(edits, e)
	}
	return edits
}

func findDeadFunction(s *script) []candidate {
	fns, info := s.funcDefs(nil)
	calls := map[*js.Var][]int{}
	s.each(func(i int, n js.INode) {
		if n, ok := n.(*js.ExprStmt); ok {
			if c, ok := n.Value.(*js.CallExpr); ok {
				if v, ok := c.X.(*js.Var); ok {
					rv := resolve(v)
					calls[rv] = append(calls[rv], i)
				}
			}
		}
	})
	var out []candidate
	for _, v := range fns {
		sites := calls[v]
		// drop call statements nested in another one
		var top []int
		for _, c := range sites {
			nested := false
			for _, o := range sites {
				if o != c && s.nodes[o].start <= s.nodes[c].start && s.nodes[c].end <= s.nodes[o].end {
					nested = true
				}
			}
			if !nested {
				top = append(top, c)
			}
		}
		if len(top) < 2 {
			continue
		}
		edits := s.deleteStmts(top)
		f := info[v]
		out = append(out, candidate{pos: s.nodes[top[0]].start,
			desc:  fmt.Sprintf("dead function %s() (line %d): delete its %d call statements, keep the declaration", f.name, s.line(s.nodes[f.decl].start), len(top)),
			edits: edits})
	}
	return out
}

// ---- 9. disable-block ----

func (s *script) blockLabel(b *js.BlockStmt, parent int) string {
	switch p := s.nodes[parent].n.(type) {
	case *js.FuncDecl:
		if p.Name != nil {
			return "function " + string(p.Name.Data) + "()"
		}
		return "function expression"
	case *js.ArrowFunc:
		return "arrow function"
	case *js.MethodDecl:
		name := string(p.Name.Literal.Data)
		switch {
		case p.Get:
			return "getter " + name
		case p.Set:
			return "setter " + name
		}
		return "method " + name + "()"
	case *js.IfStmt:
		if p.Else == js.IStmt(b) {
			return "else branch of `if (" + oneLine(s.condText(parent), 40) + ")`"
		}
		return "`if (" + oneLine(s.condText(parent), 40) + ")` branch"
	case *js.ForStmt, *js.ForInStmt, *js.ForOfStmt:
		return "for loop"
	case *js.WhileStmt:
		return "while loop"
	case *js.DoWhileStmt:
		return "do-while loop"
	case *js.TryStmt:
		switch b {
		case p.Catch:
			return "catch block"
		case p.Finally:
			return "finally block"
		}
		return "try block"
	}
	return ""
}

// condText is the source of an if statement's condition, its first child.
func (s *script) condText(ifEntry int) string {
	for j := ifEntry + 1; j < len(s.nodes) && s.nodes[j].start < s.nodes[ifEntry].end; j++ {
		if s.nodes[j].parent == ifEntry {
			return s.text(j)
		}
	}
	return "…"
}

func findDisableBlock(s *script) []candidate {
	var out []candidate
	s.each(func(i int, n js.INode) {
		b, ok := n.(*js.BlockStmt)
		nd := s.nodes[i]
		if !ok || nd.braceless || nd.parent < 0 {
			return
		}
		real := 0
		for _, st := range b.List {
			switch st.(type) {
			case *js.Comment, *js.EmptyStmt:
			default:
				real++
			}
		}
		if real == 0 {
			return
		}
		label := s.blockLabel(b, nd.parent)
		if label == "" {
			return
		}
		out = append(out, candidate{pos: nd.start,
			desc:  "disable the body of " + label + " with if (false)",
			edits: []edit{{nd.start + 1, nd.start + 1, " if (false) {"}, {nd.end - 1, nd.end - 1, "} "}}})
	})
	return out
}

// ---- 10. flip-comparison, 11. shift-boundary ----

var flipped = map[js.TokenType]string{
	js.LtToken: "<=", js.LtEqToken: "<", js.GtToken: ">=", js.GtEqToken: ">",
	js.EqEqToken: "!=", js.NotEqToken: "==", js.EqEqEqToken: "!==", js.NotEqEqToken: "===",
}

func findFlipComparison(s *script) []candidate {
	var out []candidate
	s.each(func(i int, n js.INode) {
		b, ok := n.(*js.BinaryExpr)
		if !ok {
			return
		}
		to, ok := flipped[b.Op]
		if !ok {
			return
		}
		op := s.nodes[i].op
		from := b.Op.String()
		out = append(out, candidate{pos: op,
			desc:  fmt.Sprintf("flip %s to %s in `%s`", from, to, s.snippet(i)),
			edits: []edit{{op, op + len(from), to}}})
	})
	return out
}

func findShiftBoundary(s *script) []candidate {
	var out []candidate
	s.each(func(i int, n js.INode) {
		b, ok := n.(*js.BinaryExpr)
		if !ok {
			return
		}
		if _, ok := flipped[b.Op]; !ok {
			return
		}
		for _, side := range []js.IExpr{b.X, b.Y} {
			if u, ok := side.(*js.UnaryExpr); ok && (u.Op == js.NegToken || u.Op == js.PosToken) {
				side = u.X
			}
			l, ok := side.(*js.LiteralExpr)
			if !ok {
				continue
			}
			v, ok := numberValue(l)
			li, found := s.index[l]
			if !ok || !found {
				continue
			}
			nv, how := v+1, "+1"
			if v != math.Trunc(v) {
				nv, how = v*1.1, "×1.1"
			}
			text := formatNumber(nv)
			nd := s.nodes[li]
			out = append(out, candidate{pos: nd.start,
				desc:  fmt.Sprintf("shift boundary %s %s → %s in `%s`", l.Data, how, text, s.snippet(i)),
				edits: []edit{{nd.start, nd.end, text}}})
		}
	})
	return out
}

// ---- 12. freeze-time ----

// timeName: dt, delta, elapsed, deltaTime, frameTime, elapsedMs, …
func timeName(name string) bool {
	ws := words(name)
	for _, w := range ws {
		if w == "dt" || w == "delta" || w == "elapsed" {
			return true
		}
	}
	return strings.EqualFold(name, "frameTime") || strings.EqualFold(name, "frame_time")
}

func isFunctionValue(e js.IExpr) bool {
	switch e.(type) {
	case *js.ArrowFunc, *js.FuncDecl, *js.ClassDecl:
		return true
	}
	return false
}

func isNumberLiteral(e js.IExpr) bool {
	l, ok := e.(*js.LiteralExpr)
	return ok && js.IsNumeric(l.TokenType)
}

func findFreezeTime(s *script) []candidate {
	var out []candidate
	freeze := func(target int, what string) {
		nd := s.nodes[target]
		for _, v := range []string{"0", "1/60"} {
			text := v
			if !s.bareOK(target) {
				text = "(" + v + ")"
			}
			out = append(out, candidate{pos: nd.start,
				desc:  fmt.Sprintf("freeze time: %s → %s", what, text),
				edits: []edit{{nd.start, nd.end, text}}})
		}
	}
	rafFuncs := map[*js.Var]bool{}
	var rafInline []js.INode
	s.each(func(i int, n js.INode) {
		c, ok := n.(*js.CallExpr)
		if !ok || len(c.Args.List) == 0 {
			return
		}
		if name := calleeName(c.X); name != "requestAnimationFrame" && name != "setAnimationLoop" {
			return
		}
		switch a := c.Args.List[0].Value.(type) {
		case *js.Var:
			rafFuncs[resolve(a)] = true
		case *js.ArrowFunc, *js.FuncDecl:
			rafInline = append(rafInline, a)
		}
	})
	isRAF := func(n js.INode) bool {
		if f, ok := n.(*js.FuncDecl); ok && f.Name != nil && rafFuncs[resolve(f.Name)] {
			return true
		}
		for _, r := range rafInline {
			if r == n {
				return true
			}
		}
		return false
	}
	s.each(func(i int, n js.INode) {
		switch n := n.(type) {
		case *js.BindingElement:
			v, ok := n.Binding.(*js.Var)
			if !ok || n.Default == nil || !timeName(string(v.Data)) || isFunctionValue(n.Default) || isNumberLiteral(n.Default) || s.enclosingFunc(i) < 0 {
				return
			}
			if d, ok := s.index[n.Default]; ok {
				freeze(d, fmt.Sprintf("the value of %s (`%s`)", v.Data, s.snippet(d)))
			} else if dv, ok := n.Default.(*js.Var); ok {
				// a bare variable: its entry is the next kVar after the binding
				for j := i + 1; j < len(s.nodes) && s.nodes[j].start < s.nodes[i].end; j++ {
					if s.nodes[j].kind == kVar && s.nodes[j].n == dv && s.nodes[j].role == rRight {
						freeze(j, fmt.Sprintf("the value of %s (`%s`)", v.Data, dv.Data))
						break
					}
				}
			}
		case *js.BinaryExpr:
			if !assignOps[n.Op] || s.enclosingFunc(i) < 0 || isNumberLiteral(n.Y) || isFunctionValue(n.Y) {
				return
			}
			var name string
			switch x := n.X.(type) {
			case *js.Var:
				name = string(x.Data)
			case *js.DotExpr:
				name = memberName(x)
			default:
				return
			}
			if !timeName(name) {
				return
			}
			// the right-hand side is the last child entry of the assignment
			rhs := -1
			for j := i + 1; j < len(s.nodes) && s.nodes[j].start < s.nodes[i].end; j++ {
				if s.nodes[j].parent == i && s.nodes[j].role == rRight {
					rhs = j
				}
			}
			if rhs >= 0 {
				freeze(rhs, fmt.Sprintf("the value assigned to %s (`%s`)", name, s.snippet(rhs)))
			}
		case *js.CallExpr:
			d, ok := n.X.(*js.DotExpr)
			if !ok || len(n.Args.List) != 0 {
				return
			}
			if m := memberName(d); m == "getDelta" || m == "getElapsedTime" {
				freeze(i, "`"+s.snippet(i)+"`")
			}
		case *js.FuncDecl, *js.ArrowFunc:
			if !isRAF(n) {
				return
			}
			var params *js.Params
			var body *js.BlockStmt
			switch f := n.(type) {
			case *js.FuncDecl:
				params, body = &f.Params, &f.Body
			case *js.ArrowFunc:
				params, body = &f.Params, &f.Body
			}
			if len(params.List) == 0 {
				return
			}
			p, ok := params.List[0].Binding.(*js.Var)
			bi, found := s.index[body]
			if !ok || !found || s.nodes[bi].braceless {
				return
			}
			at := s.nodes[bi].start + 1
			for _, v := range []string{"0", "1/60"} {
				out = append(out, candidate{pos: s.nodes[bi].start,
					desc:  fmt.Sprintf("freeze time: the animation-frame timestamp %s → %s", p.Data, v),
					edits: []edit{{at, at, " " + string(p.Data) + " = " + v + ";"}}})
			}
		}
	})
	return out
}
