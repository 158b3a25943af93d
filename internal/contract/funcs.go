package contract

import (
	"fmt"
	"sort"
	"strings"

	"github.com/google/cel-go/cel"
	"github.com/google/cel-go/common/ast"
	"github.com/google/cel-go/common/functions"
	"github.com/google/cel-go/common/types/ref"
)

// funcType is an observation function of the assertion library declared
// in its own file (fn_<name>.go), as a step kind is: its CEL declaration,
// its documentation row, the load-time check of its literal arguments and
// its evaluation against the live page. The library (lib.go), the
// observer (observe.go), the analysis of what an assertion reads
// (compile.go) and the table "Scene contacts and 3D panels" of
// docs/contracts.md (TestDocsFuncTableIsTheRegistry) all read this
// registry. The older observation functions (object, pixel, xr, …) are
// written out in lib.go and observe.go and documented by hand.
type funcType struct {
	// Name is the function's CEL name.
	Name string
	// Order is its row in the documentation table.
	Order int
	// Arities are the numbers of arguments it takes; every argument is
	// declared dyn and checked by Call.
	Arities []int
	// Result is its CEL result type.
	Result *cel.Type
	// Signature, Example and Doc are its documentation row (Markdown).
	Signature, Example, Doc string
	// Observes: a failed assertion calling it points at a state mismatch
	// (Attribute), as object() does.
	Observes bool
	// Check returns the problems of its arguments that can be seen at
	// load (a literal of the wrong kind, a negative tolerance); each is
	// reported with the assertion's file and line.
	Check func(args []ast.Expr) []string
	// Call evaluates it on the live page (o.page); errors are returned as
	// CEL error values (errorf), page reads go through o.call so they are
	// memoised and a page failure stops the run.
	Call func(o *observer, args []ref.Val) ref.Val
}

var funcTable = map[string]funcType{}

// registerFunc adds an observation function to the library; each fn_*.go
// file calls it from init.
func registerFunc(f funcType) {
	if _, dup := funcTable[f.Name]; dup {
		panic(fmt.Sprintf("contract: function %q registered twice", f.Name))
	}
	if f.Call == nil || f.Doc == "" || f.Example == "" || f.Signature == "" || len(f.Arities) == 0 || f.Result == nil {
		panic(fmt.Sprintf("contract: function %q needs Arities, Result, Signature, Example, Doc and Call", f.Name))
	}
	funcTable[f.Name] = f
}

// funcTypes returns the registered functions in documentation order.
func funcTypes() []funcType {
	out := make([]funcType, 0, len(funcTable))
	for _, f := range funcTable {
		out = append(out, f)
	}
	sort.Slice(out, func(i, j int) bool { return out[i].Order < out[j].Order })
	return out
}

// funcDecls declares the registered functions, late bound.
func funcDecls() []cel.EnvOption {
	var out []cel.EnvOption
	for _, f := range funcTypes() {
		var ovs []cel.FunctionOpt
		for _, n := range f.Arities {
			args := make([]*cel.Type, n)
			for i := range args {
				args[i] = cel.DynType
			}
			ovs = append(ovs, cel.Overload(overloadID(f.Name, n), args, f.Result, cel.LateFunctionBinding()))
		}
		out = append(out, cel.Function(f.Name, ovs...))
	}
	return out
}

// funcOverloads binds the registered functions to the observer's page.
func (o *observer) funcOverloads() []*functions.Overload {
	var out []*functions.Overload
	for _, f := range funcTypes() {
		for _, n := range f.Arities {
			call := f.Call
			out = append(out, &functions.Overload{Operator: overloadID(f.Name, n), Function: func(args ...ref.Val) ref.Val {
				return call(o, args)
			}})
		}
	}
	return out
}

// registeredNames lists the registered functions' names; observing only
// those that observe.
func registeredNames(observing bool) []string {
	var out []string
	for _, f := range funcTypes() {
		if !observing || f.Observes {
			out = append(out, f.Name)
		}
	}
	return out
}

// FuncTable renders the registered functions as the Markdown table of
// docs/contracts.md ("Scene contacts and 3D panels").
func FuncTable() string {
	var b strings.Builder
	b.WriteString("| function | example | what it gives |\n|---|---|---|\n")
	for _, f := range funcTypes() {
		fmt.Fprintf(&b, "| `%s` | %s | %s |\n", f.Signature, f.Example, f.Doc)
	}
	return b.String()
}

// literalNumber is a literal number argument's value (a negated literal
// included).
func literalNumber(e ast.Expr) (float64, bool) {
	if e.Kind() == ast.CallKind {
		c := e.AsCall()
		if c.FunctionName() == "-_" && len(c.Args()) == 1 {
			v, ok := literalNumber(c.Args()[0])
			return -v, ok
		}
		return 0, false
	}
	if e.Kind() != ast.LiteralKind {
		return 0, false
	}
	v, ok := toFloat(e.AsLiteral())
	return v, ok
}

// checkObjectArg is the load-time check of an argument naming a scene
// object: a literal must be a string (a name) or a map with role and/or
// name strings (a tag).
func checkObjectArg(fn string, i int, e ast.Expr) []string {
	switch e.Kind() {
	case ast.LiteralKind:
		if _, ok := literalString(e); !ok {
			return []string{fmt.Sprintf("%s: argument %d must name an object (\"cube\") or a tag ({\"role\": …, \"name\": …}), got %s", fn, i+1, formatVal(e.AsLiteral()))}
		}
	case ast.MapKind:
		entries := e.AsMap().Entries()
		if len(entries) == 0 {
			return []string{fmt.Sprintf("%s: argument %d: a tag needs a role or a name", fn, i+1)}
		}
		var out []string
		for _, en := range entries {
			k, ok := literalString(en.AsMapEntry().Key())
			if !ok || (k != "role" && k != "name") {
				out = append(out, fmt.Sprintf("%s: argument %d: a tag's keys are role and name", fn, i+1))
				continue
			}
			if v := en.AsMapEntry().Value(); v.Kind() == ast.LiteralKind {
				if _, ok := literalString(v); !ok {
					out = append(out, fmt.Sprintf("%s: argument %d: the tag's %s must be a string", fn, i+1, k))
				}
			}
		}
		return out
	case ast.ListKind:
		return []string{fmt.Sprintf("%s: argument %d must name an object or a tag, not a list", fn, i+1)}
	}
	return nil
}

// checkTolerance is the load-time check of a tolerance argument: a
// literal must be a number >= 0.
func checkTolerance(fn string, i int, e ast.Expr) []string {
	if e.Kind() == ast.LiteralKind || (e.Kind() == ast.CallKind && e.AsCall().FunctionName() == "-_") {
		v, ok := literalNumber(e)
		if !ok || v < 0 {
			return []string{fmt.Sprintf("%s: argument %d, the tolerance, must be a number of metres >= 0", fn, i+1)}
		}
	}
	return nil
}
