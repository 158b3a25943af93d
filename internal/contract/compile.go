package contract

import (
	"context"
	"fmt"
	"strings"

	"github.com/google/cel-go/cel"
	"github.com/google/cel-go/common"
	"github.com/google/cel-go/common/ast"
	"github.com/google/cel-go/common/operators"
	"github.com/google/cel-go/common/types"
)

// CostLimit bounds the CEL cost of evaluating one assertion (roughly the
// number of operations); an assertion that exceeds it gets status error.
const CostLimit = 1_000_000

// interruptEvery is how many comprehension iterations run between checks
// of the evaluation context.
const interruptEvery = 100

// Assertion is one compiled CEL assertion.
type Assertion struct {
	// Expr is the CEL source as written.
	Expr string
	// Message, when set, leads the failure message.
	Message string
	// Attribution is an optional hint: state_mismatch, physics_violation or
	// broken_interaction (see Attribute).
	Attribution string
	// Line is the line of the expression in the contract file.
	Line int

	ast         *cel.Ast
	prog        cel.Program // nil when the assertion reads the page
	explain     cel.Program // likewise
	env         *cel.Env
	readsState  bool // names s
	readsClock  bool // names frame or t
	observes    bool // calls object, tagged, pixel, region, objectPixel, dom, inView or coverage
	readsPixels bool // calls pixel, region or objectPixel
	usesPage    bool // calls any observation function, scene included
	reads       []Read
	// kind is "" for a CEL assertion, "look" for a look step's.
	kind string
}

// Observes reports whether the assertion reads the page through object,
// tagged, pixel, region, objectPixel, dom, inView or coverage (what
// Attribute calls an observation).
func (a *Assertion) Observes() bool { return a.observes }

// Read is a state or parameter path an assertion reads.
type Read struct {
	Probe string
	// Line is the assertion's line in the contract file.
	Line int
	// Var is where the path starts: "s", a snapshot name, "trace.<name>"
	// (an element of the trace) or "params".
	Var string
	// Path is the path below Var as written, e.g. "ball.position[1]";
	// an index that is not a constant reads "[*]". For params it is the
	// parameter name.
	Path string
	// Segments are Path's parts: field names, and "[n]" or "[*]" for indexes.
	Segments []string
}

// IsParam reports whether the read is of a task parameter.
func (r Read) IsParam() bool { return r.Var == VarParams }

// Reads returns every state and parameter path the contract's assertions
// read, in order: after `s.`, a snapshot name, inside trace elements, and
// after `params.`. Reading a whole state (e.g. `before == after`) is not
// listed.
func (c *Contract) Reads() []Read {
	var out []Read
	for _, p := range c.Probes {
		for _, steps := range [][]Step{p.Setup, p.Steps} {
			for _, s := range steps {
				if a := s.Assertion(); a != nil {
					out = append(out, a.reads...)
				}
			}
		}
	}
	return out
}

// compileProbe compiles the probe's assertions in an environment that
// declares its snapshot names, and checks that each assertion names only
// snapshots and traces taken before it.
func (p *parser) compileProbe(pr *Probe, what string) {
	base, err := Env()
	if err != nil {
		p.errs = append(p.errs, fmt.Errorf("building the CEL environment: %w", err))
		return
	}
	all := map[string]int{}
	traces := map[string]int{}
	var opts []cel.EnvOption
	if pr.Hand != "" {
		opts = append(opts, cel.Variable(VarHand, cel.StringType), cel.Variable(VarMirror, cel.DoubleType))
	}
	if pr.Room != "" {
		opts = append(opts, cel.Variable(VarRoom, cel.StringType))
	}
	for _, steps := range [][]Step{pr.Setup, pr.Steps} {
		for _, s := range steps {
			switch a := s.Action.(type) {
			case *SnapshotStep:
				all[a.Name] = s.Line
				opts = append(opts, cel.Variable(a.Name, cel.DynType))
			case *TraceStep:
				traces[a.Name] = s.Line
			}
		}
	}
	env := base
	if len(opts) > 0 {
		if env, err = base.Extend(opts...); err != nil {
			p.errs = append(p.errs, &PosError{File: p.file, Line: pr.Line, Msg: fmt.Sprintf("%s: %v", what, err)})
			return
		}
	}
	an := &analysis{snapshots: all, traces: traces, defined: map[string]bool{}, traced: map[string]bool{}}
	for _, steps := range [][]Step{pr.Setup, pr.Steps} {
		for _, s := range steps {
			switch a := s.Action.(type) {
			case *SnapshotStep:
				an.defined[a.Name] = true
			case *TraceStep:
				an.traced[a.Name] = true
			case *AssertStep:
				p.compileAssertion(env, pr, a.Assertion, an, what)
			}
		}
	}
}

func (p *parser) compileAssertion(env *cel.Env, pr *Probe, a *Assertion, an *analysis, what string) {
	fail := func(msg string) {
		p.errs = append(p.errs, &PosError{File: p.file, Line: a.Line, Msg: what + ": assert: " + msg})
	}
	checked, iss := env.CompileSource(common.NewStringSource(a.Expr, "assert"))
	if iss != nil && iss.Err() != nil {
		fail(compileMessage(iss.String()))
		return
	}
	if k := checked.OutputType().Kind(); k != types.BoolKind && k != types.DynKind {
		fail(fmt.Sprintf("want a boolean expression, this one is a %s\n | %s", checked.OutputType(), a.Expr))
		return
	}
	a.ast, a.env = checked, env
	an.reset(pr.Name, a.Line)
	an.walk(checked.NativeRep().Expr(), nil, false)
	for _, problem := range an.problems {
		fail(problem)
	}
	a.readsState, a.readsClock, a.observes, a.readsPixels, a.usesPage, a.reads = an.readsState, an.readsClock, an.observes, an.readsPixels, an.usesPage, an.reads
	// Plan the programs now: once for good when the assertion is pure, and
	// as a check when it reads the page (it is planned per evaluation then).
	prog, explain, err := a.programs(nil)
	if err != nil {
		fail(err.Error())
		return
	}
	if !a.usesPage {
		a.prog, a.explain = prog, explain
	}
}

// programs plans the assertion twice: prog evaluates it within CostLimit;
// explain tracks the value of every subexpression for failure messages.
// (cel-go does not enforce a cost limit while it tracks state, so the
// tracking program only runs after prog finished, false or in error, and
// costs the same.) obs binds the observation functions; nil binds them to
// no page.
func (a *Assertion) programs(obs *observer) (prog, explain cel.Program, err error) {
	if obs == nil {
		obs = newObserver(context.Background(), nil)
	}
	opts := []cel.ProgramOption{cel.InterruptCheckFrequency(interruptEvery)}
	if a.usesPage {
		opts = append(opts, obs.programOption())
	}
	if prog, err = a.env.Program(a.ast, append(opts, cel.CostLimit(CostLimit))...); err != nil {
		return nil, nil, err
	}
	if explain, err = a.env.Program(a.ast, append(opts, cel.EvalOptions(cel.OptTrackState))...); err != nil {
		return nil, nil, err
	}
	return prog, explain, nil
}

// compileMessage tidies cel's issue text: the position is already given
// by the file and line, the caret display stays.
func compileMessage(s string) string {
	s = strings.ReplaceAll(s, "ERROR: assert:", "")
	s = strings.ReplaceAll(s, " (in container '')", "")
	return strings.TrimSpace(s)
}

// ---- static analysis ------------------------------------------------------

type pathKind int

const (
	pNone      pathKind = iota
	pState              // a state or part of one
	pStateList          // one trace: a list of states
	pTraceMap           // the trace variable
	pParams             // the params variable
	pParam              // one parameter or part of one
)

type pathVal struct {
	kind pathKind
	root string
	segs []string
}

func (v pathVal) with(seg string) []string {
	out := make([]string, len(v.segs), len(v.segs)+1)
	copy(out, v.segs)
	return append(out, seg)
}

// analysis walks a checked expression to find what it reads.
type analysis struct {
	snapshots map[string]int // snapshot name → line, the whole probe
	traces    map[string]int // trace name → line, the whole probe
	defined   map[string]bool
	traced    map[string]bool

	probe       string
	line        int
	readsState  bool
	readsClock  bool
	observes    bool
	readsPixels bool
	usesPage    bool
	reads       []Read
	problems    []string
	reported    map[string]bool
}

func (an *analysis) reset(probe string, line int) {
	an.probe, an.line = probe, line
	an.readsState, an.readsClock, an.observes, an.readsPixels, an.usesPage = false, false, false, false, false
	an.reads, an.problems, an.reported = nil, nil, map[string]bool{}
}

func (an *analysis) problem(key, format string, args ...any) {
	if an.reported[key] {
		return
	}
	an.reported[key] = true
	an.problems = append(an.problems, fmt.Sprintf(format, args...))
}

// pathOf says whether e denotes (part of) a state, a trace or a parameter.
func (an *analysis) pathOf(e ast.Expr, scope map[string]pathVal) pathVal {
	switch e.Kind() {
	case ast.IdentKind:
		name := e.AsIdent()
		if v, ok := scope[name]; ok {
			return v
		}
		switch {
		case name == VarState:
			return pathVal{kind: pState, root: name}
		case name == VarTrace:
			return pathVal{kind: pTraceMap, root: name}
		case name == VarParams:
			return pathVal{kind: pParams, root: name}
		}
		if _, ok := an.snapshots[name]; ok {
			return pathVal{kind: pState, root: name}
		}
	case ast.SelectKind:
		sel := e.AsSelect()
		return an.step(an.pathOf(sel.Operand(), scope), sel.FieldName(), true)
	case ast.CallKind:
		call := e.AsCall()
		if call.FunctionName() == operators.Index && !call.IsMemberFunction() && len(call.Args()) == 2 {
			op := an.pathOf(call.Args()[0], scope)
			idx := call.Args()[1]
			if idx.Kind() == ast.LiteralKind {
				switch lit := idx.AsLiteral().(type) {
				case types.String:
					return an.step(op, string(lit), true)
				case types.Int, types.Uint, types.Double:
					return an.step(op, fmt.Sprintf("[%v]", lit), false)
				}
			}
			return an.step(op, "[*]", false)
		}
	}
	return pathVal{}
}

// step follows one field (named) or index from v.
func (an *analysis) step(v pathVal, seg string, named bool) pathVal {
	switch v.kind {
	case pState:
		return pathVal{kind: pState, root: v.root, segs: v.with(seg)}
	case pTraceMap:
		if named {
			return pathVal{kind: pStateList, root: VarTrace + "." + seg}
		}
	case pStateList:
		return pathVal{kind: pState, root: v.root}
	case pParams:
		if named {
			return pathVal{kind: pParam, root: VarParams, segs: []string{seg}}
		}
	case pParam:
		return pathVal{kind: pParam, root: v.root, segs: v.with(seg)}
	}
	return pathVal{}
}

// record notes a read of v when it is a path below a state or a parameter.
func (an *analysis) record(v pathVal) {
	if (v.kind != pState && v.kind != pParam) || len(v.segs) == 0 {
		return
	}
	path := strings.Builder{}
	for i, s := range v.segs {
		if i > 0 && !strings.HasPrefix(s, "[") {
			path.WriteByte('.')
		}
		path.WriteString(s)
	}
	an.reads = append(an.reads, Read{Probe: an.probe, Line: an.line, Var: v.root, Path: path.String(),
		Segments: append([]string(nil), v.segs...)})
}

// checkTrace reports a trace named before it is recorded.
func (an *analysis) checkTrace(name string) {
	if an.traced[name] {
		return
	}
	if line, later := an.traces[name]; later {
		an.problem("trace."+name, "trace.%s is recorded later in the probe (line %d)", name, line)
		return
	}
	an.problem("trace."+name, "no trace named %q in this probe", name)
}

// walk visits e; chained is true when e is the operand of a field or
// index step whose own path is recorded instead.
func (an *analysis) walk(e ast.Expr, scope map[string]pathVal, chained bool) {
	switch e.Kind() {
	case ast.IdentKind:
		name := e.AsIdent()
		if _, shadowed := scope[name]; shadowed {
			return
		}
		if name == VarState {
			an.readsState = true
		}
		if name == VarFrame || name == VarTime {
			an.readsClock = true
		}
		if line, ok := an.snapshots[name]; ok && !an.defined[name] {
			an.problem("snapshot."+name, "snapshot %s is taken later in the probe (line %d)", name, line)
		}
	case ast.SelectKind:
		sel := e.AsSelect()
		if op := an.pathOf(sel.Operand(), scope); op.kind == pTraceMap {
			an.checkTrace(sel.FieldName())
		}
		if !chained {
			an.record(an.pathOf(e, scope))
		}
		an.walk(sel.Operand(), scope, true)
	case ast.CallKind:
		call := e.AsCall()
		if call.FunctionName() == operators.Index && !call.IsMemberFunction() && len(call.Args()) == 2 {
			if op := an.pathOf(call.Args()[0], scope); op.kind == pTraceMap {
				if lit, ok := literalString(call.Args()[1]); ok {
					an.checkTrace(lit)
				}
			}
			if !chained {
				an.record(an.pathOf(e, scope))
			}
			an.walk(call.Args()[0], scope, true)
			an.walk(call.Args()[1], scope, false)
			return
		}
		if !call.IsMemberFunction() {
			name := call.FunctionName()
			f, registered := funcTable[name]
			if contains(observingFuncs, name) || (registered && f.Observes) {
				an.observes = true
			}
			if contains(pixelFuncs, name) {
				an.readsPixels = true
			}
			if contains(pageFuncs, name) || registered {
				an.usesPage = true
			}
			if registered && f.Check != nil {
				an.problems = append(an.problems, f.Check(call.Args())...)
			}
		}
		if call.IsMemberFunction() {
			an.walk(call.Target(), scope, false)
		}
		for _, arg := range call.Args() {
			an.walk(arg, scope, false)
		}
	case ast.ComprehensionKind:
		comp := e.AsComprehension()
		an.walk(comp.IterRange(), scope, false)
		an.walk(comp.AccuInit(), scope, false)
		rng := an.pathOf(comp.IterRange(), scope)
		inner := map[string]pathVal{}
		for k, v := range scope {
			inner[k] = v
		}
		var elem pathVal
		switch rng.kind {
		case pStateList:
			elem = pathVal{kind: pState, root: rng.root}
		case pState:
			elem = pathVal{kind: pState, root: rng.root, segs: rng.with("[*]")}
		}
		if comp.HasIterVar2() {
			inner[comp.IterVar()] = pathVal{}
			inner[comp.IterVar2()] = elem
		} else {
			inner[comp.IterVar()] = elem
		}
		inner[comp.AccuVar()] = pathVal{}
		an.walk(comp.LoopCondition(), inner, false)
		an.walk(comp.LoopStep(), inner, false)
		an.walk(comp.Result(), inner, false)
	case ast.ListKind:
		for _, el := range e.AsList().Elements() {
			an.walk(el, scope, false)
		}
	case ast.MapKind:
		for _, en := range e.AsMap().Entries() {
			m := en.AsMapEntry()
			an.walk(m.Key(), scope, false)
			an.walk(m.Value(), scope, false)
		}
	case ast.StructKind:
		for _, f := range e.AsStruct().Fields() {
			an.walk(f.AsStructField().Value(), scope, false)
		}
	}
}

func literalString(e ast.Expr) (string, bool) {
	if e.Kind() != ast.LiteralKind {
		return "", false
	}
	s, ok := e.AsLiteral().(types.String)
	return string(s), ok
}
