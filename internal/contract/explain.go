package contract

import (
	"fmt"
	"sort"
	"strconv"
	"strings"

	"github.com/google/cel-go/cel"
	"github.com/google/cel-go/common/ast"
	"github.com/google/cel-go/common/operators"
	"github.com/google/cel-go/common/types"
	"github.com/google/cel-go/common/types/ref"
	"github.com/google/cel-go/common/types/traits"
	"github.com/google/cel-go/interpreter"
	celparser "github.com/google/cel-go/parser"
)

// explainer renders failure and error messages of one evaluation from the
// values CEL tracked for each subexpression.
type explainer struct {
	info  *ast.SourceInfo
	state interpreter.EvalState
	vars  map[string]any
}

func newExplainer(a *cel.Ast, det *cel.EvalDetails, vars map[string]any) *explainer {
	x := &explainer{info: a.NativeRep().SourceInfo(), vars: vars}
	if det != nil {
		x.state = det.State()
	}
	return x
}

func (x *explainer) value(e ast.Expr) (ref.Val, bool) {
	if e.Kind() == ast.LiteralKind {
		return e.AsLiteral(), true
	}
	if x.state == nil {
		return nil, false
	}
	return x.state.Value(e.ID())
}

func (x *explainer) src(e ast.Expr) string {
	s, err := celparser.Unparse(e, x.info)
	if err != nil {
		return "?"
	}
	return s
}

// comparisons maps comparison operators to how they read after "want".
var comparisons = map[string]string{
	operators.Less: "<", operators.LessEquals: "<=", operators.Greater: ">",
	operators.GreaterEquals: ">=", operators.Equals: "==", operators.NotEquals: "!=",
}

// mirrored is the operator with its sides swapped.
var mirrored = map[string]string{"<": ">", "<=": ">=", ">": "<", ">=": "<=", "==": "==", "!=": "!="}

// failure explains why e evaluated to false.
func (x *explainer) failure(e ast.Expr) string {
	if e.Kind() == ast.CallKind {
		call := e.AsCall()
		args := call.Args()
		fn := call.FunctionName()
		switch {
		case fn == operators.LogicalAnd:
			for _, a := range args {
				if v, ok := x.value(a); ok && v == types.False {
					return x.failure(a)
				}
			}
		case fn == operators.LogicalNot && len(args) == 1:
			return fmt.Sprintf("%s is true, want false", x.src(args[0]))
		case comparisons[fn] != "" && len(args) == 2:
			if msg, ok := x.comparison(comparisons[fn], args[0], args[1]); ok {
				return msg
			}
		case fn == "approx" && len(args) == 3 && !call.IsMemberFunction():
			if msg, ok := x.approx(args); ok {
				return msg
			}
		case fn == "within" && len(args) == 3 && !call.IsMemberFunction():
			v, ok1 := x.value(args[0])
			lo, ok2 := x.value(args[1])
			hi, ok3 := x.value(args[2])
			if ok1 && ok2 && ok3 {
				return fmt.Sprintf("%s = %s, want within [%s, %s]", x.src(args[0]), formatVal(v), formatVal(lo), formatVal(hi))
			}
		case (fn == "monotone" || fn == "nondecreasing" || fn == "nonincreasing") && len(args) == 1:
			if v, ok := x.value(args[0]); ok {
				return fmt.Sprintf("%s is false: %s = %s", x.src(e), x.src(args[0]), formatVal(v))
			}
		}
	}
	return x.src(e) + " is false"
}

// operand renders the expected side: its value, and its source when it is
// not a constant.
func (x *explainer) operand(e ast.Expr, v ref.Val) string {
	if e.Kind() == ast.LiteralKind {
		return formatVal(v)
	}
	return fmt.Sprintf("%s (%s)", formatVal(v), x.src(e))
}

func (x *explainer) comparison(op string, lhs, rhs ast.Expr) (string, bool) {
	l, okl := x.value(lhs)
	r, okr := x.value(rhs)
	if !okl || !okr {
		return "", false
	}
	if lhs.Kind() == ast.LiteralKind && rhs.Kind() != ast.LiteralKind {
		lhs, rhs, l, r, op = rhs, lhs, r, l, mirrored[op]
	}
	return fmt.Sprintf("%s = %s, want %s %s", x.src(lhs), formatVal(l), op, x.operand(rhs, r)), true
}

func (x *explainer) approx(args []ast.Expr) (string, bool) {
	a, ok1 := x.value(args[0])
	b, ok2 := x.value(args[1])
	tol, ok3 := x.value(args[2])
	if !ok1 || !ok2 || !ok3 {
		return "", false
	}
	msg := fmt.Sprintf("%s = %s, want %s ± %s", x.src(args[0]), formatVal(a), x.operand(args[1], b), formatVal(tol))
	if d, err := difference("approx", a, b); err == nil {
		msg += ", off by " + formatFloat(d)
	}
	return msg, true
}

// evalError explains an evaluation error: the innermost subexpression
// whose value is an error, and that error. Mixed int and double
// arithmetic gets a hint, since JSON numbers are doubles.
func (x *explainer) evalError(root ast.Expr, err error) string {
	msg := err.Error()
	if strings.Contains(msg, "cost limit exceeded") {
		return "evaluation cost limit exceeded"
	}
	if o := x.origin(root); o != nil {
		v, _ := x.value(o)
		detail := v.(*types.Err).Error()
		if hint := x.overloadHint(o, detail); hint != "" {
			detail = hint
		}
		where := x.src(o)
		if prefix, ok := x.missing(o); ok {
			where = prefix
		}
		return where + ": " + detail
	}
	return msg
}

func isErr(v ref.Val) bool { return v != nil && types.IsError(v) }

// origin finds the innermost subexpression holding an error value.
func (x *explainer) origin(e ast.Expr) ast.Expr {
	v, ok := x.value(e)
	if !ok || !isErr(v) {
		return nil
	}
	for _, c := range children(e) {
		if o := x.origin(c); o != nil {
			return o
		}
	}
	return e
}

func children(e ast.Expr) []ast.Expr {
	switch e.Kind() {
	case ast.SelectKind:
		return []ast.Expr{e.AsSelect().Operand()}
	case ast.CallKind:
		c := e.AsCall()
		var out []ast.Expr
		if c.IsMemberFunction() {
			out = append(out, c.Target())
		}
		return append(out, c.Args()...)
	case ast.ComprehensionKind:
		c := e.AsComprehension()
		return []ast.Expr{c.IterRange(), c.AccuInit(), c.LoopCondition(), c.LoopStep(), c.Result()}
	case ast.ListKind:
		return e.AsList().Elements()
	case ast.MapKind:
		var out []ast.Expr
		for _, en := range e.AsMap().Entries() {
			out = append(out, en.AsMapEntry().Key(), en.AsMapEntry().Value())
		}
		return out
	}
	return nil
}

// missing narrows an error in a field/index chain rooted at a variable
// (CEL evaluates s.ball.position[1] as one attribute) to the first step
// that does not resolve: "s.ball" when s has no ball.
func (x *explainer) missing(e ast.Expr) (string, bool) {
	type seg struct {
		name  string
		index int64
		isIdx bool
	}
	var segs []seg
	for {
		switch e.Kind() {
		case ast.SelectKind:
			segs = append(segs, seg{name: e.AsSelect().FieldName()})
			e = e.AsSelect().Operand()
			continue
		case ast.CallKind:
			c := e.AsCall()
			if c.FunctionName() != operators.Index || c.IsMemberFunction() || len(c.Args()) != 2 || c.Args()[1].Kind() != ast.LiteralKind {
				return "", false
			}
			switch lit := c.Args()[1].AsLiteral().(type) {
			case types.String:
				segs = append(segs, seg{name: string(lit)})
			case types.Int:
				segs = append(segs, seg{index: int64(lit), isIdx: true})
			case types.Uint:
				segs = append(segs, seg{index: int64(lit), isIdx: true})
			default:
				return "", false
			}
			e = c.Args()[0]
			continue
		case ast.IdentKind:
		default:
			return "", false
		}
		break
	}
	v, ok := x.vars[e.AsIdent()]
	if !ok {
		return "", false
	}
	path := e.AsIdent()
	for i := len(segs) - 1; i >= 0; i-- {
		sg := segs[i]
		if sg.isIdx {
			path += fmt.Sprintf("[%d]", sg.index)
			l, ok := v.([]any)
			if !ok || sg.index < 0 || sg.index >= int64(len(l)) {
				return path, true
			}
			v = l[sg.index]
			continue
		}
		if identRE.MatchString(sg.name) {
			path += "." + sg.name
		} else {
			path += fmt.Sprintf("[%q]", sg.name)
		}
		m, ok := v.(map[string]any)
		if !ok {
			return path, true
		}
		if v, ok = m[sg.name]; !ok {
			return path, true
		}
	}
	return "", false
}

var arithmetic = map[string]string{
	operators.Add: "+", operators.Subtract: "-", operators.Multiply: "*",
	operators.Divide: "/", operators.Modulo: "%",
}

// overloadHint rewrites "no such overload" for an operator with the
// operand types, and suggests a double literal for int/double mixes.
func (x *explainer) overloadHint(e ast.Expr, detail string) string {
	if !strings.HasPrefix(detail, "no such overload") || e.Kind() != ast.CallKind {
		return ""
	}
	c := e.AsCall()
	op, ok := arithmetic[c.FunctionName()]
	if !ok || len(c.Args()) != 2 {
		return ""
	}
	l, okl := x.value(c.Args()[0])
	r, okr := x.value(c.Args()[1])
	if !okl || !okr {
		return ""
	}
	msg := fmt.Sprintf("no such overload: %s %s %s", typeName(l), op, typeName(r))
	if (l.Type() == types.DoubleType && r.Type() == types.IntType) || (l.Type() == types.IntType && r.Type() == types.DoubleType) {
		msg += " (state numbers are doubles: write 2.0 rather than 2, or convert with double())"
	}
	return msg
}

// maxValueLen caps a value rendered in a message.
const maxValueLen = 300

// formatVal renders a CEL value compactly: numbers with up to 10
// significant digits, strings quoted, lists and maps in flow style with
// sorted keys.
func formatVal(v ref.Val) string {
	var b strings.Builder
	writeVal(&b, v, 0)
	s := b.String()
	if len(s) > maxValueLen {
		s = s[:maxValueLen] + "…"
	}
	return s
}

func writeVal(b *strings.Builder, v ref.Val, depth int) {
	if b.Len() > maxValueLen {
		return
	}
	switch x := v.(type) {
	case nil:
		b.WriteString("nothing")
	case types.Double:
		b.WriteString(formatFloat(float64(x)))
	case types.Int:
		b.WriteString(strconv.FormatInt(int64(x), 10))
	case types.Uint:
		b.WriteString(strconv.FormatUint(uint64(x), 10))
	case types.String:
		b.WriteString(strconv.Quote(string(x)))
	case types.Bool:
		b.WriteString(strconv.FormatBool(bool(x)))
	case types.Null:
		b.WriteString("null")
	case *types.Err:
		b.WriteString("error(" + x.Error() + ")")
	case traits.Mapper:
		var keys []ref.Val
		for it := x.Iterator(); it.HasNext() == types.True; {
			keys = append(keys, it.Next())
		}
		sort.Slice(keys, func(i, j int) bool { return fmt.Sprint(keys[i].Value()) < fmt.Sprint(keys[j].Value()) })
		b.WriteByte('{')
		for i, k := range keys {
			if i > 0 {
				b.WriteString(", ")
			}
			if s, ok := k.(types.String); ok && identRE.MatchString(string(s)) {
				b.WriteString(string(s))
			} else {
				writeVal(b, k, depth+1)
			}
			b.WriteString(": ")
			e, _ := x.Find(k)
			writeVal(b, e, depth+1)
		}
		b.WriteByte('}')
	case traits.Lister:
		b.WriteByte('[')
		n, _ := x.Size().(types.Int)
		for i := types.Int(0); i < n; i++ {
			if i > 0 {
				b.WriteString(", ")
			}
			if b.Len() > maxValueLen {
				fmt.Fprintf(b, "… %d more", int(n-i))
				break
			}
			writeVal(b, x.Get(i), depth+1)
		}
		b.WriteByte(']')
	default:
		fmt.Fprint(b, v.Value())
	}
}
