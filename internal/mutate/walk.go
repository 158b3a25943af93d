package mutate

import (
	"bytes"
	"fmt"

	"github.com/tdewolff/parse/v2"
	"github.com/tdewolff/parse/v2/js"
)

// The tdewolff AST has no positions, and its *js.Var nodes are shared by
// every occurrence of a variable, so pointer identity cannot place them. The
// walker below re-lexes the script with the same js.Lexer the parser used and
// consumes its tokens in lock-step with a source-order traversal of the AST,
// mirroring the parser's grammar (including its optional-semicolon rule and
// its on-demand re-lexing of regular expressions). Every node therefore gets
// the exact byte range of its first and last token; a token the AST does not
// account for is an alignment error and the script is left alone.

// kind tells what a node entry stands for.
type kind uint8

const (
	kNode kind = iota // an AST node; n is its (unique) pointer
	kVar              // one occurrence of an identifier; n is the shared *js.Var
	kName             // a property name: after '.', an object key, a method or field name
)

// role is a node's position in its parent, as far as the operators care.
type role uint8

const (
	rOther  role = iota
	rList        // a statement in a statement list (block, case clause, module)
	rBody        // the single statement of an if/else/loop/with/labelled body
	rCallee      // the function of a call
	rArg         // an argument of a call or new
	rLeft        // left operand of a binary expression (or assignment target)
	rRight       // right operand of a binary expression (or assigned value)
	rIndex       // the index of obj[index]
)

// node is one entry of a script's node table, in source order (by start).
type node struct {
	n      js.INode
	kind   kind
	role   role
	parent int    // index of the parent entry, -1 at the top level
	start  int    // byte offset of the first token, in the script
	end    int    // byte offset after the last token
	op     int    // offset of the operator token of a binary/unary/update expression, else -1
	name   string // kVar and kName entries: the identifier or key
	// braceless marks a loop body BlockStmt that the parser synthesised
	// around a single statement (or an empty ';').
	braceless bool
	// implicit marks the ReturnStmt the parser synthesised for an arrow
	// function's expression body.
	implicit bool
	// prev and next are the neighbouring statements of an rList entry, -1 at the ends.
	prev, next int
}

// token is the walker's one-token lookahead.
type token struct {
	tt   js.TokenType
	data []byte
	off  int
	nl   bool // a line terminator precedes the token
}

type alignError struct {
	off int
	msg string
}

func (e *alignError) Error() string { return fmt.Sprintf("offset %d: %s", e.off, e.msg) }

type walker struct {
	buf     []byte
	lx      *js.Lexer
	tok     token
	lastEnd int
	nodes   []node
	index   map[js.INode]int
}

// walkScript aligns ast (parsed from buf) with buf's tokens and returns the
// node table and the index from node pointers (not *js.Var) to entries.
func walkScript(buf []byte, ast *js.AST) (nodes []node, index map[js.INode]int, err error) {
	// buf is the very buffer the AST was parsed from (its tokens are
	// sub-slices of it), so import specifiers can be matched by address.
	w := &walker{buf: buf, index: map[js.INode]int{}}
	in := parse.NewInputBytes(buf)
	if bytes.HasPrefix(buf, []byte("#!")) {
		// the parser reads a shebang line itself, before lexing
		n := bytes.IndexAny(buf, "\r\n")
		if n < 0 {
			n = len(buf)
		}
		in.Move(n)
		in.Skip()
	}
	w.lx = js.NewLexer(in)
	defer func() {
		if r := recover(); r != nil {
			ae, ok := r.(*alignError)
			if !ok {
				panic(r)
			}
			nodes, index, err = nil, nil, ae
		}
	}()
	w.next()
	w.lastEnd = 0
	w.stmtList(ast.BlockStmt.List, -1, true)
	if w.tok.tt != js.ErrorToken {
		w.fail("unexpected token %q after the last statement", w.tok.data)
	}
	return w.nodes, w.index, nil
}

func (w *walker) fail(format string, args ...any) {
	panic(&alignError{off: w.tok.off, msg: fmt.Sprintf(format, args...)})
}

// next advances to the next significant token.
func (w *walker) next() {
	w.lastEnd = w.tok.off + len(w.tok.data)
	nl := false
	for {
		tt, data := w.lx.Next()
		switch tt {
		case js.WhitespaceToken, js.CommentToken:
			continue
		case js.LineTerminatorToken, js.CommentLineTerminatorToken:
			nl = true
			continue
		case js.ErrorToken:
			w.tok = token{tt: tt, off: len(w.buf), nl: nl}
			return
		}
		w.tok = token{tt: tt, data: data, off: w.locate(data, w.lastEnd), nl: nl}
		return
	}
}

// locate finds tok, a sub-slice of w.buf, at or after from by address.
func (w *walker) locate(tok []byte, from int) int {
	if len(tok) == 0 {
		return from
	}
	for from < len(w.buf) {
		i := bytes.Index(w.buf[from:], tok)
		if i < 0 {
			break
		}
		if off := from + i; &w.buf[off] == &tok[0] {
			return off
		}
		from += i + 1
	}
	w.fail("token %q is not in the script buffer", tok)
	return -1
}

func (w *walker) is(tt js.TokenType) bool { return w.tok.tt == tt }

func (w *walker) expect(tt js.TokenType) {
	if w.tok.tt != tt {
		w.fail("expected %s, found %s %q", tt, w.tok.tt, w.tok.data)
	}
	w.next()
}

// expectText consumes a token spelled s (contextual keywords: async, get, set, static, of, ...).
func (w *walker) expectText(s string) {
	if string(w.tok.data) != s {
		w.fail("expected %q, found %q", s, w.tok.data)
	}
	w.next()
}

func (w *walker) accept(tt js.TokenType) bool {
	if w.tok.tt == tt {
		w.next()
		return true
	}
	return false
}

func (w *walker) open(n js.INode, k kind, r role, parent int) int {
	w.nodes = append(w.nodes, node{n: n, kind: k, role: r, parent: parent, start: w.tok.off, end: w.tok.off, op: -1, prev: -1, next: -1})
	i := len(w.nodes) - 1
	if k == kNode && n != nil {
		w.index[n] = i
	}
	return i
}

func (w *walker) close(i int) {
	if w.lastEnd > w.nodes[i].start {
		w.nodes[i].end = w.lastEnd
	}
}

// name consumes one token as a kName (or kVar) entry.
func (w *walker) name(k kind, n js.INode, parent int) int {
	i := w.open(n, k, rOther, parent)
	w.nodes[i].name = string(w.tok.data)
	if w.tok.tt == js.StringToken && len(w.tok.data) >= 2 {
		w.nodes[i].name = string(w.tok.data[1 : len(w.tok.data)-1])
	}
	w.next()
	w.close(i)
	return i
}

// ident consumes an identifier occurrence of v.
func (w *walker) ident(v *js.Var, r role, parent int) int {
	if !bytes.Equal(w.tok.data, v.Data) {
		w.fail("expected identifier %s, found %q", v.Data, w.tok.data)
	}
	i := w.name(kVar, v, parent)
	w.nodes[i].role = r
	return i
}

// semicolon mirrors the end of the parser's parseStmt: a ';' on the same
// line as the previous token belongs to the statement.
func (w *walker) semicolon() {
	if !w.tok.nl && w.tok.tt == js.SemicolonToken {
		w.next()
	}
}

func (w *walker) stmtList(list []js.IStmt, parent int, module bool) {
	prev := -1
	for _, s := range list {
		i := w.stmt(s, parent, rList, !module || !isModuleItem(s))
		if _, ok := s.(*js.Comment); ok {
			continue
		}
		w.nodes[i].prev = prev
		if prev >= 0 {
			w.nodes[prev].next = i
		}
		prev = i
	}
}

func isModuleItem(s js.IStmt) bool {
	switch s.(type) {
	case *js.ImportStmt, *js.ExportStmt:
		return true
	}
	return false
}

// block walks a braced statement list the parser read with parseStmtList
// (function bodies, try/catch/finally, class static blocks).
func (w *walker) block(b *js.BlockStmt, parent int) int {
	i := w.open(b, kNode, rOther, parent)
	w.expect(js.OpenBraceToken)
	w.stmtList(b.List, i, false)
	w.expect(js.CloseBraceToken)
	w.close(i)
	return i
}

// loopBody walks the body of a for, for-in or for-of statement, which the
// parser always stores as a BlockStmt.
func (w *walker) loopBody(b *js.BlockStmt, parent int) {
	if w.is(js.OpenBraceToken) {
		w.block(b, parent)
		return
	}
	i := w.open(b, kNode, rOther, parent)
	w.nodes[i].braceless = true
	if len(b.List) == 0 {
		w.expect(js.SemicolonToken)
	} else {
		for _, s := range b.List {
			w.stmt(s, i, rBody, true)
		}
	}
	w.close(i)
}

// stmt walks one statement; viaParseStmt tells whether the parser read it
// with parseStmt (and so applied its trailing-semicolon rule).
func (w *walker) stmt(s js.IStmt, parent int, r role, viaParseStmt bool) int {
	i := w.open(s, kNode, r, parent)
	switch s := s.(type) {
	case *js.Comment:
		// only /*! comments are kept, and they are not tokens
		return i
	case *js.BlockStmt:
		w.expect(js.OpenBraceToken)
		w.stmtList(s.List, i, false)
		w.expect(js.CloseBraceToken)
	case *js.EmptyStmt:
		w.expect(js.SemicolonToken)
	case *js.ExprStmt:
		w.expr(s.Value, i, rOther)
	case *js.VarDecl:
		w.varDeclBody(s, i)
	case *js.IfStmt:
		w.expect(js.IfToken)
		w.expect(js.OpenParenToken)
		w.expr(s.Cond, i, rOther)
		w.expect(js.CloseParenToken)
		w.stmt(s.Body, i, rBody, true)
		if s.Else != nil {
			w.expect(js.ElseToken)
			w.stmt(s.Else, i, rBody, true)
		}
	case *js.DoWhileStmt:
		w.expect(js.DoToken)
		w.stmt(s.Body, i, rBody, true)
		w.expect(js.WhileToken)
		w.expect(js.OpenParenToken)
		w.expr(s.Cond, i, rOther)
		w.expect(js.CloseParenToken)
	case *js.WhileStmt:
		w.expect(js.WhileToken)
		w.expect(js.OpenParenToken)
		w.expr(s.Cond, i, rOther)
		w.expect(js.CloseParenToken)
		w.stmt(s.Body, i, rBody, true)
	case *js.ForStmt:
		w.expect(js.ForToken)
		w.expect(js.OpenParenToken)
		if v, ok := s.Init.(*js.VarDecl); ok && len(v.List) == 0 {
			// synthesised for an empty init
		} else if s.Init != nil {
			w.expr(s.Init, i, rOther)
		}
		w.expect(js.SemicolonToken)
		if s.Cond != nil {
			w.expr(s.Cond, i, rOther)
		}
		w.expect(js.SemicolonToken)
		if s.Post != nil {
			w.expr(s.Post, i, rOther)
		}
		w.expect(js.CloseParenToken)
		w.loopBody(s.Body, i)
	case *js.ForInStmt:
		w.expect(js.ForToken)
		w.expect(js.OpenParenToken)
		w.expr(s.Init, i, rOther)
		w.expect(js.InToken)
		w.expr(s.Value, i, rOther)
		w.expect(js.CloseParenToken)
		w.loopBody(s.Body, i)
	case *js.ForOfStmt:
		w.expect(js.ForToken)
		if s.Await {
			w.expectText("await")
		}
		w.expect(js.OpenParenToken)
		w.expr(s.Init, i, rOther)
		w.expectText("of")
		w.expr(s.Value, i, rOther)
		w.expect(js.CloseParenToken)
		w.loopBody(s.Body, i)
	case *js.SwitchStmt:
		w.expect(js.SwitchToken)
		w.expect(js.OpenParenToken)
		w.expr(s.Init, i, rOther)
		w.expect(js.CloseParenToken)
		w.expect(js.OpenBraceToken)
		for k := range s.List {
			c := &s.List[k]
			ci := w.open(c, kNode, rOther, i)
			if c.Cond != nil {
				w.expect(js.CaseToken)
				w.expr(c.Cond, ci, rOther)
			} else {
				w.expect(js.DefaultToken)
			}
			w.expect(js.ColonToken)
			w.stmtList(c.List, ci, false)
			w.close(ci)
		}
		w.expect(js.CloseBraceToken)
	case *js.BranchStmt:
		w.expect(s.Type)
		if s.Label != nil {
			w.next()
		}
	case *js.ReturnStmt:
		w.expect(js.ReturnToken)
		if s.Value != nil {
			w.expr(s.Value, i, rOther)
		}
	case *js.WithStmt:
		w.expect(js.WithToken)
		w.expect(js.OpenParenToken)
		w.expr(s.Cond, i, rOther)
		w.expect(js.CloseParenToken)
		w.stmt(s.Body, i, rBody, true)
	case *js.LabelledStmt:
		if !bytes.Equal(w.tok.data, s.Label) {
			w.fail("expected label %s", s.Label)
		}
		w.next()
		w.expect(js.ColonToken)
		w.stmt(s.Value, i, rBody, true)
	case *js.ThrowStmt:
		w.expect(js.ThrowToken)
		w.expr(s.Value, i, rOther)
	case *js.TryStmt:
		w.expect(js.TryToken)
		w.block(s.Body, i)
		if s.Catch != nil {
			w.expect(js.CatchToken)
			if s.Binding != nil {
				w.expect(js.OpenParenToken)
				w.binding(s.Binding, i)
				w.expect(js.CloseParenToken)
			}
			w.block(s.Catch, i)
		}
		if s.Finally != nil {
			w.expect(js.FinallyToken)
			w.block(s.Finally, i)
		}
	case *js.DebuggerStmt:
		w.expect(js.DebuggerToken)
	case *js.ImportStmt:
		w.expect(js.ImportToken)
		w.skipThrough(s.Module)
		w.accept(js.SemicolonToken)
	case *js.ExportStmt:
		w.exportStmt(s, i)
		w.accept(js.SemicolonToken)
	case *js.DirectivePrologueStmt:
		w.expect(js.StringToken)
	case *js.FuncDecl:
		w.funcBody(s, i)
	case *js.ClassDecl:
		w.classBody(s, i)
	default:
		w.fail("unsupported statement %T", s)
	}
	if viaParseStmt {
		w.semicolon()
	}
	w.close(i)
	return i
}

// skipThrough consumes tokens up to and including the one that is mod.
func (w *walker) skipThrough(mod []byte) {
	if len(mod) == 0 {
		w.fail("import without a module")
	}
	for w.tok.tt != js.ErrorToken {
		if len(w.tok.data) > 0 && &w.tok.data[0] == &mod[0] {
			w.next()
			return
		}
		w.next()
	}
	w.fail("module specifier %s not found", mod)
}

func (w *walker) exportStmt(s *js.ExportStmt, i int) {
	w.expect(js.ExportToken)
	switch {
	case s.Decl == nil:
		// export * [as x] from '…' | export { a as b, … } [from '…']
		if s.Module != nil {
			w.skipThrough(s.Module)
			return
		}
		w.expect(js.OpenBraceToken)
		for w.tok.tt != js.CloseBraceToken && w.tok.tt != js.ErrorToken {
			w.next()
		}
		w.expect(js.CloseBraceToken)
	case s.Default:
		w.expect(js.DefaultToken)
		w.expr(s.Decl, i, rOther)
	default:
		w.expr(s.Decl, i, rOther)
	}
}

// varDeclBody walks `var|let|const a = …, b` without a trailing semicolon.
func (w *walker) varDeclBody(v *js.VarDecl, i int) {
	if w.tok.tt != v.TokenType {
		w.fail("expected %s, found %q", v.TokenType, w.tok.data)
	}
	w.next()
	for k := range v.List {
		if k > 0 {
			w.expect(js.CommaToken)
		}
		w.bindingElement(&v.List[k], i)
	}
}

func (w *walker) bindingElement(b *js.BindingElement, parent int) {
	i := w.open(b, kNode, rOther, parent)
	if b.Binding != nil {
		w.binding(b.Binding, i)
	}
	if b.Default != nil {
		w.expect(js.EqToken)
		w.expr(b.Default, i, rRight)
	}
	w.close(i)
}

func (w *walker) binding(b js.IBinding, parent int) {
	switch b := b.(type) {
	case *js.Var:
		w.ident(b, rLeft, parent)
	case *js.BindingArray:
		i := w.open(b, kNode, rOther, parent)
		w.expect(js.OpenBracketToken)
		for k := range b.List {
			el := &b.List[k]
			if el.Binding != nil {
				w.bindingElement(el, i)
			}
			w.accept(js.CommaToken)
		}
		for w.accept(js.CommaToken) {
		}
		if b.Rest != nil {
			w.expect(js.EllipsisToken)
			w.binding(b.Rest, i)
		}
		w.expect(js.CloseBracketToken)
		w.close(i)
	case *js.BindingObject:
		i := w.open(b, kNode, rOther, parent)
		w.expect(js.OpenBraceToken)
		for k := range b.List {
			item := &b.List[k]
			if w.is(js.OpenBracketToken) {
				w.expect(js.OpenBracketToken)
				if item.Key == nil || item.Key.Computed == nil {
					w.fail("computed binding key expected")
				}
				w.expr(item.Key.Computed, i, rOther)
				w.expect(js.CloseBracketToken)
				w.expect(js.ColonToken)
				w.bindingElement(&item.Value, i)
			} else {
				key := w.name(kName, nil, i)
				if w.accept(js.ColonToken) {
					w.bindingElement(&item.Value, i)
				} else {
					// shorthand: the key is also the binding
					v, ok := item.Value.Binding.(*js.Var)
					if !ok {
						w.fail("shorthand binding expected")
					}
					ki := w.nodes[key]
					w.nodes = append(w.nodes, node{n: v, kind: kVar, role: rLeft, parent: i, start: ki.start, end: ki.end, op: -1, name: string(v.Data), prev: -1, next: -1})
					if item.Value.Default != nil {
						w.expect(js.EqToken)
						w.expr(item.Value.Default, i, rRight)
					}
				}
			}
			w.accept(js.CommaToken)
		}
		if b.Rest != nil {
			w.expect(js.EllipsisToken)
			w.ident(b.Rest, rLeft, i)
			w.accept(js.CommaToken)
		}
		w.expect(js.CloseBraceToken)
		w.close(i)
	default:
		w.fail("unsupported binding %T", b)
	}
}

func (w *walker) params(p *js.Params, parent int) {
	if !w.is(js.OpenParenToken) {
		// a single arrow-function parameter without parentheses
		if len(p.List) != 1 || p.Rest != nil {
			w.fail("expected (")
		}
		w.bindingElement(&p.List[0], parent)
		return
	}
	w.next()
	for k := range p.List {
		w.bindingElement(&p.List[k], parent)
		w.accept(js.CommaToken)
	}
	if p.Rest != nil {
		w.expect(js.EllipsisToken)
		w.binding(p.Rest, parent)
		w.accept(js.CommaToken)
	}
	w.expect(js.CloseParenToken)
}

func (w *walker) funcBody(f *js.FuncDecl, i int) {
	if f.Async {
		w.expectText("async")
	}
	w.expect(js.FunctionToken)
	if f.Generator {
		w.expect(js.MulToken)
	}
	if f.Name != nil {
		w.ident(f.Name, rOther, i)
	}
	w.params(&f.Params, i)
	w.block(&f.Body, i)
}

func (w *walker) classBody(c *js.ClassDecl, i int) {
	w.expect(js.ClassToken)
	if c.Name != nil {
		w.ident(c.Name, rOther, i)
	}
	if c.Extends != nil {
		w.expect(js.ExtendsToken)
		w.expr(c.Extends, i, rOther)
	}
	w.expect(js.OpenBraceToken)
	for k := range c.List {
		for w.accept(js.SemicolonToken) {
		}
		el := &c.List[k]
		switch {
		case el.StaticBlock != nil:
			w.expectText("static")
			w.block(el.StaticBlock, i)
		case el.Method != nil:
			w.method(el.Method, i)
		default:
			f := &el.Field
			fi := w.open(f, kNode, rOther, i)
			if f.Static {
				w.expectText("static")
			}
			w.elementName(&f.Name, fi)
			if f.Init != nil {
				w.expect(js.EqToken)
				w.expr(f.Init, fi, rRight)
			}
			w.close(fi)
		}
	}
	for w.accept(js.SemicolonToken) {
	}
	w.expect(js.CloseBraceToken)
}

func (w *walker) elementName(n *js.ClassElementName, parent int) {
	if n.Private != nil {
		w.name(kName, nil, parent)
		return
	}
	w.propertyName(&n.PropertyName, parent)
}

func (w *walker) propertyName(p *js.PropertyName, parent int) int {
	if p.Computed != nil {
		w.expect(js.OpenBracketToken)
		w.expr(p.Computed, parent, rOther)
		w.expect(js.CloseBracketToken)
		return -1
	}
	return w.name(kName, nil, parent)
}

func (w *walker) method(m *js.MethodDecl, parent int) {
	i := w.open(m, kNode, rOther, parent)
	if m.Static {
		w.expectText("static")
	}
	if m.Async {
		w.expectText("async")
	}
	if m.Generator {
		w.expect(js.MulToken)
	}
	if m.Get {
		w.expectText("get")
	}
	if m.Set {
		w.expectText("set")
	}
	w.elementName(&m.Name, i)
	w.params(&m.Params, i)
	w.block(&m.Body, i)
	w.close(i)
}

// unaryTokens maps the AST's unary operators to the lexer's tokens.
var unaryTokens = map[js.TokenType]js.TokenType{
	js.NegToken:     js.SubToken,
	js.PosToken:     js.AddToken,
	js.PreIncrToken: js.IncrToken,
	js.PreDecrToken: js.DecrToken,
}

func (w *walker) expr(e js.IExpr, parent int, r role) {
	switch e := e.(type) {
	case *js.Var:
		w.ident(e, r, parent)
		return
	case js.LiteralExpr:
		// a DotExpr's property name is stored by value
		w.name(kName, nil, parent)
		return
	}
	i := w.open(e, kNode, r, parent)
	switch e := e.(type) {
	case *js.LiteralExpr:
		if e.TokenType == js.RegExpToken && (w.tok.tt == js.DivToken || w.tok.tt == js.DivEqToken) {
			tt, data := w.lx.RegExp()
			if tt != js.RegExpToken {
				w.fail("regular expression expected")
			}
			w.tok.tt, w.tok.data = tt, data
		}
		if !bytes.Equal(w.tok.data, e.Data) {
			w.fail("expected literal %s, found %q", e.Data, w.tok.data)
		}
		w.next()
	case *js.ArrayExpr:
		w.expect(js.OpenBracketToken)
		for k := range e.List {
			el := &e.List[k]
			if el.Value != nil {
				if el.Spread {
					w.expect(js.EllipsisToken)
				}
				w.expr(el.Value, i, rOther)
			}
			w.accept(js.CommaToken)
		}
		w.expect(js.CloseBracketToken)
	case *js.ObjectExpr:
		w.expect(js.OpenBraceToken)
		for k := range e.List {
			w.property(&e.List[k], i)
			w.accept(js.CommaToken)
		}
		w.expect(js.CloseBraceToken)
	case *js.TemplateExpr:
		if e.Tag != nil {
			w.expr(e.Tag, i, rOther)
		}
		if e.Optional {
			w.expect(js.OptChainToken)
		}
		if len(e.List) == 0 {
			w.expect(js.TemplateToken)
			break
		}
		for k := range e.List {
			if k == 0 {
				w.expect(js.TemplateStartToken)
			} else {
				w.expect(js.TemplateMiddleToken)
			}
			w.expr(e.List[k].Expr, i, rOther)
		}
		w.expect(js.TemplateEndToken)
	case *js.GroupExpr:
		w.expect(js.OpenParenToken)
		w.expr(e.X, i, rOther)
		w.expect(js.CloseParenToken)
	case *js.IndexExpr:
		w.expr(e.X, i, rOther)
		if e.Optional {
			w.expect(js.OptChainToken)
		}
		w.expect(js.OpenBracketToken)
		w.expr(e.Y, i, rIndex)
		w.expect(js.CloseBracketToken)
	case *js.DotExpr:
		w.expr(e.X, i, rOther)
		if e.Optional {
			w.expect(js.OptChainToken)
		} else {
			w.expect(js.DotToken)
		}
		if v, ok := e.Y.(*js.Var); ok { // #private
			w.ident(v, rOther, i)
		} else {
			w.name(kName, nil, i)
		}
	case *js.NewTargetExpr:
		w.expect(js.NewToken)
		w.expect(js.DotToken)
		w.expectText("target")
	case *js.ImportMetaExpr:
		w.expect(js.ImportToken)
		w.expect(js.DotToken)
		w.expectText("meta")
	case *js.NewExpr:
		w.expect(js.NewToken)
		w.expr(e.X, i, rCallee)
		if e.Args != nil {
			w.args(e.Args, i)
		} else if w.accept(js.OpenParenToken) {
			w.expect(js.CloseParenToken)
		}
	case *js.CallExpr:
		w.expr(e.X, i, rCallee)
		if e.Optional {
			w.expect(js.OptChainToken)
		}
		w.args(&e.Args, i)
	case *js.UnaryExpr:
		switch e.Op {
		case js.PostIncrToken, js.PostDecrToken:
			w.expr(e.X, i, rOther)
			w.nodes[i].op = w.tok.off
			if e.Op == js.PostIncrToken {
				w.expect(js.IncrToken)
			} else {
				w.expect(js.DecrToken)
			}
		default:
			tt, ok := unaryTokens[e.Op]
			if !ok {
				tt = e.Op
			}
			w.nodes[i].op = w.tok.off
			w.expect(tt)
			w.expr(e.X, i, rOther)
		}
	case *js.BinaryExpr:
		w.expr(e.X, i, rLeft)
		w.nodes[i].op = w.tok.off
		w.expect(e.Op)
		w.expr(e.Y, i, rRight)
	case *js.CondExpr:
		w.expr(e.Cond, i, rOther)
		w.expect(js.QuestionToken)
		w.expr(e.X, i, rOther)
		w.expect(js.ColonToken)
		w.expr(e.Y, i, rOther)
	case *js.YieldExpr:
		w.expect(js.YieldToken)
		if e.Generator {
			w.expect(js.MulToken)
		}
		if e.X != nil {
			w.expr(e.X, i, rOther)
		}
	case *js.ArrowFunc:
		if e.Async {
			w.expectText("async")
		}
		w.params(&e.Params, i)
		w.expect(js.ArrowToken)
		if w.is(js.OpenBraceToken) {
			w.block(&e.Body, i)
			break
		}
		ret, ok := singleReturn(e.Body.List)
		if !ok {
			w.fail("arrow function expression body expected")
		}
		bi := w.open(&e.Body, kNode, rOther, i)
		w.nodes[bi].braceless = true
		ri := w.open(ret, kNode, rOther, bi)
		w.nodes[ri].implicit = true
		w.expr(ret.Value, ri, rOther)
		w.close(ri)
		w.close(bi)
	case *js.FuncDecl:
		w.funcBody(e, i)
	case *js.ClassDecl:
		w.classBody(e, i)
	case *js.CommaExpr:
		for k, x := range e.List {
			if k > 0 {
				w.expect(js.CommaToken)
			}
			w.expr(x, i, rOther)
		}
	case *js.VarDecl:
		w.varDeclBody(e, i)
	default:
		w.fail("unsupported expression %T", e)
	}
	w.close(i)
}

func singleReturn(list []js.IStmt) (*js.ReturnStmt, bool) {
	if len(list) != 1 {
		return nil, false
	}
	r, ok := list[0].(*js.ReturnStmt)
	return r, ok && r.Value != nil
}

func (w *walker) args(a *js.Args, parent int) {
	w.expect(js.OpenParenToken)
	for k := range a.List {
		if a.List[k].Rest {
			w.expect(js.EllipsisToken)
		}
		w.expr(a.List[k].Value, parent, rArg)
		w.accept(js.CommaToken)
	}
	w.expect(js.CloseParenToken)
}

func (w *walker) property(p *js.Property, parent int) {
	if p.Spread {
		w.expect(js.EllipsisToken)
		w.expr(p.Value, parent, rOther)
		return
	}
	if m, ok := p.Value.(*js.MethodDecl); ok {
		w.method(m, parent)
		return
	}
	if p.Name == nil {
		w.fail("property without a name")
	}
	pi := w.open(p, kNode, rOther, parent)
	key := w.propertyName(p.Name, pi)
	if w.accept(js.ColonToken) {
		w.expr(p.Value, pi, rRight)
	} else {
		// shorthand {a} or {a = init}: the key is also the value
		v, ok := p.Value.(*js.Var)
		if !ok || key < 0 {
			w.fail("shorthand property expected")
		}
		ki := w.nodes[key]
		w.nodes = append(w.nodes, node{n: v, kind: kVar, role: rRight, parent: pi, start: ki.start, end: ki.end, op: -1, name: string(v.Data), prev: -1, next: -1})
		if p.Init != nil {
			w.expect(js.EqToken)
			w.expr(p.Init, pi, rRight)
		}
	}
	w.close(pi)
}
