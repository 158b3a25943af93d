package mutate

import (
	"fmt"
	"strings"

	"github.com/tdewolff/parse/v2/js"
)

// Removals of a feature by construction (worldprobe judge mutate): each
// takes away what a named builder function builds, in one of three ways
// that a judge reading the code should all see as "not built".
const (
	// RemoveDelete empties the builder's body: the function and its calls
	// stay, the code that built the feature is gone from the source.
	RemoveDelete = "delete"
	// RemoveDead deletes every statement that calls the builder and keeps
	// its definition: the code is still in the source, and never runs.
	RemoveDead = "dead"
	// RemoveDisabled wraps every statement that calls the builder in
	// if (false) { … }: the code and its call are in the source, and never
	// run.
	RemoveDisabled = "disabled"
)

// Removals lists the removal kinds in the order reports use.
var Removals = []string{RemoveDelete, RemoveDead, RemoveDisabled}

// Builder is a named function of a page: a function declaration, or a
// variable initialised with a function expression or an arrow function
// with a braced body. Lines are the page's, 1-based.
type Builder struct {
	Name string `json:"name"`
	// From and To are the lines of the definition; BodyFrom and BodyTo
	// those of its braced body.
	From     int `json:"from"`
	To       int `json:"to"`
	BodyFrom int `json:"body_from"`
	BodyTo   int `json:"body_to"`
	// Calls are the lines of the statements f(…) that call it (outside its
	// own body); Refs the lines of every other use of its name outside its
	// body (a callback, a call inside an expression). A builder with refs
	// cannot be made dead or disabled by its call statements alone.
	Calls []int `json:"calls,omitempty"`
	Refs  []int `json:"refs,omitempty"`

	sc    *script
	body  int   // node entry of the body
	calls []int // node entries of the call statements
}

// Builders lists the page's named functions in page order, with their
// call statements and other references resolved by scope (a local of the
// same name is another variable). Scripts that do not parse are listed in
// skipped and left out.
func Builders(page []byte) (out []Builder, skipped []string) {
	var st Stats
	for _, s := range loadScripts(page, &st) {
		out = append(out, s.builders()...)
	}
	return out, st.Skipped
}

func (s *script) builders() []Builder {
	// A function bound to a name counts when its body is a block (an
	// expression-bodied arrow function has none to empty).
	order, defs := s.funcDefs(func(d funcDef) bool {
		if _, isDecl := s.nodes[d.decl].n.(*js.FuncDecl); isDecl {
			return true
		}
		b, ok := s.index[d.body]
		return ok && !s.nodes[b].braceless
	})
	out := make([]Builder, 0, len(order))
	byVar := map[*js.Var]int{}
	for _, v := range order {
		d := defs[v]
		body := s.index[d.body]
		b := s.nodes[body]
		byVar[v] = len(out)
		out = append(out, Builder{Name: d.name, From: s.line(s.nodes[d.decl].start), To: s.line(s.nodes[d.decl].end - 1),
			BodyFrom: s.line(b.start), BodyTo: s.line(b.end - 1), sc: s, body: body})
	}
	inside := func(i, body int) bool {
		return s.nodes[body].start <= s.nodes[i].start && s.nodes[i].end <= s.nodes[body].end
	}
	callStmt := map[int]bool{} // kVar entries that are the callee of a call statement
	for i := range s.nodes {
		es, ok := s.nodes[i].n.(*js.ExprStmt)
		if !ok || s.nodes[i].kind != kNode {
			continue
		}
		c, ok := es.Value.(*js.CallExpr)
		if !ok {
			continue
		}
		v, ok := c.X.(*js.Var)
		if !ok {
			continue
		}
		k, ok := byVar[resolve(v)]
		if !ok || inside(i, out[k].body) || s.nestedCall(i, byVar) {
			continue
		}
		out[k].calls = append(out[k].calls, i)
		out[k].Calls = append(out[k].Calls, s.line(s.nodes[i].start))
		// the callee is the first identifier of the statement
		for j := i + 1; j < len(s.nodes) && s.nodes[j].start < s.nodes[i].end; j++ {
			if s.nodes[j].kind == kVar && s.nodes[j].n == js.INode(v) {
				callStmt[j] = true
				break
			}
		}
	}
	for i := range s.nodes {
		nd := s.nodes[i]
		if nd.kind != kVar || callStmt[i] {
			continue
		}
		k, ok := byVar[resolve(nd.n.(*js.Var))]
		if !ok || inside(i, out[k].body) || s.isDefinitionName(i, out[k]) {
			continue
		}
		out[k].Refs = append(out[k].Refs, s.line(nd.start))
	}
	return out
}

// nestedCall: call statement i lies inside another call statement of a
// builder (an argument's function body); the outer one is the site.
func (s *script) nestedCall(i int, byVar map[*js.Var]int) bool {
	for p := s.nodes[i].parent; p >= 0; p = s.nodes[p].parent {
		if es, ok := s.nodes[p].n.(*js.ExprStmt); ok {
			if c, ok := es.Value.(*js.CallExpr); ok {
				if v, ok := c.X.(*js.Var); ok {
					if _, ok := byVar[resolve(v)]; ok {
						return true
					}
				}
			}
		}
	}
	return false
}

// isDefinitionName: kVar entry i is the name in the builder's own
// definition (function NAME or const NAME = …).
func (s *script) isDefinitionName(i int, b Builder) bool {
	p := s.nodes[i].parent
	return p >= 0 && s.nodes[p].start <= s.nodes[b.body].start && s.nodes[b.body].end <= s.nodes[p].end &&
		s.nodes[i].end <= s.nodes[b.body].start
}

// Remove returns page with the builder named name removed the way how
// says (RemoveDelete, RemoveDead, RemoveDisabled), and a one-line account
// of the edit. Every byte outside the edited spans is unchanged; the
// edited script must still parse. A name that no builder has, or that
// several have, is an error, as is a dead or disabled removal of a
// builder with no call statement or with other references (it would still
// run).
func Remove(page []byte, name, how string) ([]byte, string, error) {
	var st Stats
	var found []Builder
	for _, s := range loadScripts(page, &st) {
		for _, b := range s.builders() {
			if b.Name == name {
				found = append(found, b)
			}
		}
	}
	switch len(found) {
	case 0:
		why := ""
		if len(st.Skipped) > 0 {
			why = " (scripts skipped: " + strings.Join(st.Skipped, "; ") + ")"
		}
		return nil, "", fmt.Errorf("no function named %s in the page%s", name, why)
	case 1:
	default:
		var at []string
		for _, b := range found {
			at = append(at, fmt.Sprint(b.From))
		}
		return nil, "", fmt.Errorf("%d functions are named %s (lines %s); name one defined once", len(found), name, strings.Join(at, ", "))
	}
	b := found[0]
	s := b.sc
	c := candidate{sc: s}
	switch how {
	case RemoveDelete:
		body := s.nodes[b.body]
		c.edits = []edit{{body.start, body.end, "{}"}}
		c.desc = fmt.Sprintf("delete the body of %s() (lines %d–%d), keep the function and its calls", name, b.BodyFrom, b.BodyTo)
	case RemoveDead, RemoveDisabled:
		if len(b.Refs) > 0 {
			return nil, "", fmt.Errorf("%s() is used otherwise than by call statements (line %s): it cannot be made %s by its calls alone", name, joinInts(b.Refs), how)
		}
		if len(b.calls) == 0 {
			return nil, "", fmt.Errorf("%s() is never called by a statement: it is dead already", name)
		}
		if how == RemoveDead {
			c.edits = s.deleteStmts(b.calls)
		} else {
			for _, i := range b.calls {
				nd := s.nodes[i]
				text := string(s.src[nd.start:nd.end])
				if !strings.HasSuffix(text, ";") && !strings.HasSuffix(text, "}") {
					text += ";"
				}
				c.edits = append(c.edits, edit{nd.start, nd.end, "if (false) { " + text + " }"})
			}
		}
		verb := "delete its call statements"
		if how == RemoveDisabled {
			verb = "wrap its call statements in if (false) { … }"
		}
		c.desc = fmt.Sprintf("%s() (line %d): %s (line %s), keep the definition", name, b.From, verb, joinInts(b.Calls))
	default:
		return nil, "", fmt.Errorf("unknown removal %q (want %s)", how, strings.Join(Removals, ", "))
	}
	st = Stats{}
	text, ok := c.check(&st)
	if st.NoChange > 0 {
		return nil, "", fmt.Errorf("%s() has an empty body already", name)
	}
	if !ok {
		return nil, "", fmt.Errorf("removing %s() (%s) leaves a script that does not parse", name, how)
	}
	var out []byte
	out = append(out, page[:s.elem.Start]...)
	out = append(out, text...)
	out = append(out, page[s.elem.End:]...)
	return out, c.desc, nil
}

func joinInts(xs []int) string {
	var out []string
	for _, x := range xs {
		out = append(out, fmt.Sprint(x))
	}
	return strings.Join(out, ", ")
}
