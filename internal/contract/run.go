package contract

import (
	"context"
	"errors"
	"fmt"
	"io"
	"math"
	"strings"

	"github.com/google/cel-go/cel"
	"github.com/google/cel-go/common/types"

	"github.com/worldprobe/worldprobe/internal/target"
)

// Status is the outcome of one assertion.
type Status string

// Statuses.
const (
	StatusPass  Status = "pass"
	StatusFail  Status = "fail"
	StatusError Status = "error" // evaluation error, missing field, action target not found, not run
	// StatusUnjudged: a check that needs a model (look) could not be
	// judged: no model, the budget spent, the provider failing after its
	// retries, a reply without a verdict. Neither passed nor failed.
	StatusUnjudged Status = "unjudged"
)

// Verdict is the outcome of one assertion in one trial.
type Verdict struct {
	Probe string `json:"probe"`
	Level string `json:"level"`
	// ProbeKind is the probe's label in a task with a scaffold:
	// KindFailToPass, KindPassToPass or "".
	ProbeKind string `json:"probe_kind,omitempty"`
	Status    Status `json:"status"`
	Message   string `json:"message,omitempty"`
	// Expr is the assertion as written; for the interface probe, the
	// checked path and its declared type ("ball.position: vec3").
	Expr string `json:"expr"`
	// Line is the assertion's line in the contract (0 for the interface probe).
	Line int `json:"line,omitempty"`
	// Attribution is the assertion's attribution hint, if any.
	Attribution string `json:"attribution,omitempty"`
	// Observes is set when the assertion reads object, tagged, pixel, region,
	// objectPixel, dom, inView or coverage.
	Observes bool `json:"observes,omitempty"`
	// Kind is "" for a CEL assertion and "look" for a scoped visual
	// assertion (Expr is then its criterion).
	Kind string `json:"kind,omitempty"`
	// Reason is a look's reason from the model, or why it was unjudged;
	// Image the artifact holding the frame it judged; Model who judged it.
	Reason string `json:"reason,omitempty"`
	Image  string `json:"image,omitempty"`
	Model  string `json:"model,omitempty"`
}

// Field is one declared path of a task's state interface, as the
// interface probe checks it.
type Field struct {
	// Path is dotted, e.g. "ball.position".
	Path string
	// Type is one of Types().
	Type string
	// Values are the allowed values of an enum.
	Values []string
	// Nullable allows null as well as a value of Type.
	Nullable bool
}

// Options configure Run.
type Options struct {
	// FPS is the task's frame rate, used by probes that set none. Required.
	FPS float64
	// FrameBudget is the most frames one probe may step in all (setup
	// included); 0 means no limit.
	FrameBudget int
	// Interface is the task's state interface. When non-empty, the
	// automatic interface probe runs first.
	Interface []Field
	// InterfaceFrames is how many frames the interface probe steps before
	// reading the state; 0 means DefaultInterfaceFrames.
	InterfaceFrames int
	// InterfaceRead, when it was read after InterfaceFrames frames at FPS,
	// is the state the interface probe checks, instead of loading a page
	// of its own and reading it there.
	InterfaceRead *InterfaceRead
	// Record keeps every state the run reads (snapshots, trace samples,
	// the state an assertion saw) as Result.Observations.
	Record bool
	// Fingerprint implies Record and also reads, at the end of every probe,
	// the state, the scene summary and (when the page implements
	// PixelDigester) a digest of the drawn pixels: enough to tell whether
	// two pages behaved identically under the contract.
	Fingerprint bool
	// StopAtFirstFailure ends the run at the first assertion that does not
	// pass; the assertions after it get status error. For mutation testing,
	// where one failure is all that matters.
	StopAtFirstFailure bool
	// Looker judges look steps (scoped visual assertions); nil leaves
	// every look unjudged ("no visual_judge model").
	Looker Looker
	// Artifact, when set, stores a file of the run (a look's frame) under
	// name; the name is what verdicts refer to.
	Artifact func(name string, data []byte) error
	// Actor drives act steps (the xr_actor role); nil leaves the
	// assertions after an act unjudged.
	Actor Actor
}

// PixelDigester is implemented by pages that can digest their drawn
// pixels (used by Options.Fingerprint).
type PixelDigester interface {
	// PixelDigest presents the last drawn frame and returns a digest of its pixels.
	PixelDigest(ctx context.Context) (string, error)
}

// Observation is one read of a page during a run, in order.
type Observation struct {
	Probe string `json:"probe"`
	// Kind is "snapshot", "trace", "assert", "state" (the interface probe)
	// or "end" (the fingerprint read at the end of a probe).
	Kind string `json:"kind"`
	// Name is the snapshot's or trace's name.
	Name string `json:"name,omitempty"`
	// Line is the step's line in the contract.
	Line  int `json:"line,omitempty"`
	Frame int `json:"frame"`
	State any `json:"state"`
	// Scene and Pixels are read at the end of a probe when fingerprinting.
	Scene  map[string]any `json:"scene,omitempty"`
	Pixels string         `json:"pixels,omitempty"`
}

// DefaultInterfaceFrames is how many frames the interface probe steps
// after load before it reads the state.
const DefaultInterfaceFrames = 5

// InterfaceRead is the state of a fresh page of the candidate after Frame
// frames at FPS, read by someone else on the way without changing the page
// (a trial's load check reads it so: session.ReadStateUntouched). It is
// what the interface probe would have read in a page of its own.
type InterfaceRead struct {
	Frame int
	FPS   float64
	// State is the decoded __3D_STATE__, nil when the page has none.
	State any
}

// Result is the outcome of running a contract against a page.
type Result struct {
	// Verdicts has one entry per assertion of the interface probe and the
	// contract, in order, whatever happened: assertions that did not run
	// because the page failed have status error.
	Verdicts []Verdict `json:"verdicts"`
	// Failure is set when the page failed (crashed, stopped responding, …):
	// the trial is a crash and Run stopped there.
	Failure *PageFailure `json:"failure,omitempty"`
	// Observations are the states read, in order, when Options.Record or
	// Options.Fingerprint is set.
	Observations []Observation `json:"observations,omitempty"`
}

// PageFailure says where and how the page failed.
type PageFailure struct {
	Probe string `json:"probe"`
	// Step is what was being done, e.g. "open", "step 30", `click {selector: "#go"}`, "assert".
	Step string `json:"step"`
	// Line is the step's line in the contract, 0 for the interface probe.
	Line    int    `json:"line,omitempty"`
	Message string `json:"message"`
	// Err is the page's error, e.g. one wrapping the session's ErrCrashed.
	Err error `json:"-"`
}

// Error renders "probe P: step: message".
func (f *PageFailure) Error() string {
	return fmt.Sprintf("probe %s: %s: %s", f.Probe, f.Step, f.Message)
}

// Unwrap returns the page's error.
func (f *PageFailure) Unwrap() error { return f.Err }

// Run runs the interface probe (when opts.Interface is set) and every
// probe of c, each in a fresh page from open, with params as the CEL
// variable params.
//
// The returned error is for infrastructure problems only: an error wrapped
// with Infra, a cancelled ctx, invalid options or a contract that exceeds
// the frame budget; the result is then incomplete. A page failure ends the
// run with Result.Failure set and a nil error.
func Run(ctx context.Context, c *Contract, open Opener, params map[string]any, opts Options) (Result, error) {
	var res Result
	if opts.FPS <= 0 {
		return res, errors.New("contract.Run: Options.FPS must be > 0")
	}
	if errs := c.CheckBudget(opts.FPS, opts.FrameBudget); len(errs) > 0 {
		return res, errors.Join(errs...)
	}
	if opts.InterfaceFrames <= 0 {
		opts.InterfaceFrames = DefaultInterfaceFrames
	}
	if params == nil {
		params = map[string]any{}
	}
	if opts.Fingerprint {
		opts.Record = true
	}
	r := &runner{ctx: ctx, open: open, params: params, opts: opts}
	if len(opts.Interface) > 0 {
		if err := r.runInterface(); err != nil {
			return r.result(), err
		}
	}
	for _, p := range c.Probes {
		if r.failure != nil || r.stopped != "" {
			r.skip(p)
			continue
		}
		if err := r.runProbe(p); err != nil {
			return r.result(), err
		}
	}
	return r.result(), nil
}

// runner carries one Run.
type runner struct {
	ctx      context.Context
	open     Opener
	params   map[string]any
	opts     Options
	verdicts []Verdict
	failure  *PageFailure
	// stopped says why the run stopped early (Options.StopAtFirstFailure).
	stopped      string
	observations []Observation
}

func (r *runner) result() Result {
	return Result{Verdicts: r.verdicts, Failure: r.failure, Observations: r.observations}
}

// observe keeps one observation when recording.
func (r *runner) observe(o Observation) {
	if r.opts.Record {
		r.observations = append(r.observations, o)
	}
}

// scored appends a scored verdict; with StopAtFirstFailure, a verdict that
// does not pass stops the run.
func (r *runner) scored(v Verdict) {
	r.verdicts = append(r.verdicts, v)
	if v.Status != StatusPass && v.Status != StatusUnjudged && r.opts.StopAtFirstFailure && r.stopped == "" {
		r.stopped = fmt.Sprintf("not run: stopped at the first failure (probe %s, line %d)", v.Probe, v.Line)
	}
}

// classify sorts a page-side error: infrastructure (returned) or page
// failure (recorded).
func (r *runner) classify(err error, probe, step string, line int) error {
	if r.ctx.Err() != nil {
		return fmt.Errorf("probe %s: %s: %w", probe, step, context.Cause(r.ctx))
	}
	if IsInfra(err) {
		return fmt.Errorf("probe %s: %s: %w", probe, step, err)
	}
	r.failure = &PageFailure{Probe: probe, Step: step, Line: line, Message: err.Error(), Err: err}
	return nil
}

func (r *runner) notRun() string {
	if r.failure == nil {
		return r.stopped
	}
	return fmt.Sprintf("not run: the page failed in probe %s (%s)", r.failure.Probe, r.failure.Message)
}

// skip records every assertion of p as not run.
func (r *runner) skip(p *Probe) {
	for _, a := range p.Assertions() {
		r.verdicts = append(r.verdicts, verdictOf(p, a, StatusError, r.notRun()))
	}
}

func verdictOf(p *Probe, a *Assertion, st Status, msg string) Verdict {
	return Verdict{Probe: p.Name, Level: p.Level, ProbeKind: p.Kind, Status: st, Message: msg, Expr: a.Expr, Line: a.Line,
		Attribution: a.Attribution, Observes: a.observes, Kind: a.kind}
}

// openPage opens a page. On a page failure it records it and returns no
// page and no error; the error is an infrastructure error.
func (r *runner) openPage(probe string, fps float64) (Page, error) {
	return r.openPageIn(probe, "", fps)
}

// openPageIn opens a page standing in room ("" for the task's own).
func (r *runner) openPageIn(probe, room string, fps float64) (Page, error) {
	page, err := r.open(withRoom(withProbe(r.ctx, probe), room), fps)
	if err != nil {
		return nil, r.classify(err, probe, "open", 0)
	}
	return page, nil
}

func closePage(p Page) {
	if c, ok := p.(io.Closer); ok {
		_ = c.Close()
	}
}

// ---- the interface probe -----------------------------------------------------

func (r *runner) runInterface() error {
	verdict := func(f Field, st Status, msg string) Verdict {
		return Verdict{Probe: InterfaceProbe, Level: LevelAffordance, Status: st, Message: msg, Expr: f.Path + ": " + f.Type}
	}
	notRun := func() {
		for _, f := range r.opts.Interface {
			r.verdicts = append(r.verdicts, verdict(f, StatusError, r.notRun()))
		}
	}
	var state any
	var frame int
	if rd := r.opts.InterfaceRead; rd != nil && rd.Frame == r.opts.InterfaceFrames && rd.FPS == r.opts.FPS {
		state, frame = rd.State, rd.Frame
	} else {
		page, err := r.openPage(InterfaceProbe, r.opts.FPS)
		if err != nil || r.failure != nil {
			if r.failure != nil {
				notRun()
			}
			return err
		}
		defer closePage(page)
		step := fmt.Sprintf("step %d", r.opts.InterfaceFrames)
		err = stepPage(r.ctx, page, r.opts.InterfaceFrames, false)
		if err == nil {
			step = "state"
			state, err = page.State(r.ctx)
		}
		if err != nil {
			if ierr := r.classify(err, InterfaceProbe, step, 0); ierr != nil {
				return ierr
			}
			notRun()
			return nil
		}
		frame = page.Frame()
	}
	r.observe(Observation{Probe: InterfaceProbe, Kind: "state", Frame: frame, State: state})
	for _, f := range r.opts.Interface {
		if state == nil {
			r.scored(verdict(f, StatusFail, "the page exposes no window.__3D_STATE__"))
			continue
		}
		if msg := checkField(state, f); msg != "" {
			r.scored(verdict(f, StatusFail, msg))
		} else {
			r.verdicts = append(r.verdicts, verdict(f, StatusPass, ""))
		}
	}
	return nil
}

// Types lists the types a state field may declare.
func Types() []string {
	return []string{"number", "integer", "boolean", "string", "vec2", "vec3", "array", "object", "enum"}
}

// TypeDescription says in words what a declared type looks like in
// __3D_STATE__ (for prompts and messages).
func TypeDescription(typ string) string {
	switch typ {
	case "number":
		return "a finite number"
	case "integer":
		return "a whole number"
	case "boolean":
		return "true or false"
	case "string":
		return "a string"
	case "vec2":
		return "an array [x, y] of 2 numbers"
	case "vec3":
		return "an array [x, y, z] of 3 numbers"
	case "array":
		return "an array"
	case "object":
		return "an object"
	case "enum":
		return "one of the listed strings"
	}
	return typ
}

// checkField checks one declared path of state; "" means it conforms.
func checkField(state any, f Field) string {
	v := state
	parts := strings.Split(f.Path, ".")
	for i, key := range parts {
		m, ok := v.(map[string]any)
		if !ok {
			return fmt.Sprintf("%s is %s, not an object", strings.Join(parts[:i], "."), describeJSON(v))
		}
		if v, ok = m[key]; !ok {
			return fmt.Sprintf("%s is missing (no such key: %s)", f.Path, key)
		}
	}
	if ok := conforms(v, f) || (v == nil && f.Nullable); !ok {
		want := TypeDescription(f.Type)
		if f.Type == "enum" {
			want = "one of " + strings.Join(quoteAll(f.Values), ", ")
		}
		typ := f.Type
		if f.Nullable {
			typ, want = typ+" or null", want+", or null"
		}
		return fmt.Sprintf("%s = %s, want %s (%s)", f.Path, describeJSON(v), typ, want)
	}
	return ""
}

func quoteAll(xs []string) []string {
	out := make([]string, len(xs))
	for i, x := range xs {
		out[i] = fmt.Sprintf("%q", x)
	}
	return out
}

func isFinite(v any) (float64, bool) {
	f, ok := v.(float64)
	return f, ok && !math.IsNaN(f) && !math.IsInf(f, 0)
}

func conforms(v any, f Field) bool {
	switch f.Type {
	case "number":
		_, ok := isFinite(v)
		return ok
	case "integer":
		x, ok := isFinite(v)
		return ok && x == math.Trunc(x)
	case "boolean":
		_, ok := v.(bool)
		return ok
	case "string":
		_, ok := v.(string)
		return ok
	case "vec2", "vec3":
		l, ok := v.([]any)
		if !ok || len(l) != map[string]int{"vec2": 2, "vec3": 3}[f.Type] {
			return false
		}
		for _, e := range l {
			if _, ok := isFinite(e); !ok {
				return false
			}
		}
		return true
	case "array":
		_, ok := v.([]any)
		return ok
	case "object":
		_, ok := v.(map[string]any)
		return ok
	case "enum":
		s, ok := v.(string)
		return ok && contains(f.Values, s)
	}
	return false
}

// describeJSON renders a decoded JSON value for a message.
func describeJSON(v any) string {
	if v == nil {
		return "null"
	}
	return formatVal(types.DefaultTypeAdapter.NativeToValue(v))
}

// ---- contract probes --------------------------------------------------------------

// probeRun is the state of one probe in one page.
type probeRun struct {
	*runner
	probe     *Probe
	page      Page
	fps       float64
	stepped   int
	snapshots map[string]any
	traces    map[string][]any
	// broken is set once an action's target was not found or a setup
	// assertion failed: the remaining assertions get status error.
	broken string
	// unjudged is set once an act could not be driven (no model, the
	// model could not answer): the remaining assertions are unjudged.
	unjudged string
	// pending is set while the page has not run a frame since it loaded or
	// since the last input: the next read or input steps one frame first.
	pending bool
	// steps are the probe's steps, setup first; at is the one running.
	steps []Step
	at    int
}

func (r *runner) runProbe(p *Probe) (err error) {
	fps := r.opts.FPS
	if p.FPS > 0 {
		fps = p.FPS
	}
	page, err := r.openPageIn(p.Name, p.Room, fps)
	if err != nil || r.failure != nil {
		if r.failure != nil {
			r.skip(p)
		}
		return err
	}
	defer closePage(page)
	pr := &probeRun{runner: r, probe: p, page: page, fps: fps, snapshots: map[string]any{}, traces: map[string][]any{}, pending: true,
		steps: append(append([]Step{}, p.Setup...), p.Steps...), at: -1}
	defer func() {
		if err == nil && r.opts.Fingerprint && r.failure == nil && r.stopped == "" {
			err = pr.fingerprint()
		}
	}()
	for _, phase := range []struct {
		steps  []Step
		scored bool
	}{{p.Setup, false}, {p.Steps, true}} {
		for _, s := range phase.steps {
			if r.failure != nil || r.stopped != "" {
				if a := s.Assertion(); phase.scored && a != nil {
					r.verdicts = append(r.verdicts, verdictOf(p, a, StatusError, r.notRun()))
				}
				continue
			}
			pr.at++
			if err := pr.do(s, phase.scored); err != nil {
				return err
			}
		}
	}
	return nil
}

// exec is what a step's action runs against: the probe run, the step and
// whether it is scored.
type exec struct {
	*probeRun
	step   Step
	scored bool
}

// timing is the probe's timing for frame counts.
func (x *exec) timing() Timing { return Timing{FPS: x.fps, HoldMs: x.probe.holdMs} }

// do runs one step; the error is an infrastructure error.
func (pr *probeRun) do(s Step, scored bool) error {
	if pr.broken != "" {
		if a := s.Assertion(); a != nil && scored {
			pr.scored(verdictOf(pr.probe, a, StatusError, pr.broken))
		}
		return nil
	}
	if pr.unjudged != "" {
		if a := s.Assertion(); a != nil && scored {
			pr.scored(verdictOf(pr.probe, a, StatusUnjudged, "unjudged: "+pr.unjudged))
		}
		return nil
	}
	what := s.Describe()
	err := pr.settle(s)
	if err != nil {
		what = "the settle frame before " + what
	} else {
		err = s.Action.run(&exec{probeRun: pr, step: s, scored: scored})
	}
	if err == nil {
		pr.pending = s.leavesPending(pr.pending)
		return nil
	}
	if IsInfra(err) || pr.ctx.Err() != nil {
		return pr.classify(err, pr.probe.Name, what, s.Line)
	}
	if a := s.Assertion(); a != nil {
		// A page failure while evaluating: the assertion did not run.
		if ierr := pr.classify(err, pr.probe.Name, what, s.Line); ierr != nil {
			return ierr
		}
		if scored {
			pr.verdicts = append(pr.verdicts, verdictOf(pr.probe, a, StatusError, pr.notRun()))
		}
		return nil
	}
	if errors.Is(err, target.ErrNotFound) {
		pr.broken = fmt.Sprintf("%s (line %d): %v", what, s.Line, err)
		return nil
	}
	return pr.classify(err, pr.probe.Name, what, s.Line)
}

// isNotFound reports whether err is an action's target not found.
func isNotFound(err error) bool { return errors.Is(err, target.ErrNotFound) }

// settle steps one frame before s when s reads or sends input and the page
// has not run a frame since it loaded or since the last input (Step.Settles).
func (pr *probeRun) settle(s Step) error {
	if !pr.pending || !s.Settles() {
		return nil
	}
	pr.pending = false
	return pr.advanceDrawn(1, pr.drawNeeded(pr.at))
}

// errBudget reports a probe stepping past the frame budget. CheckBudget
// rules it out before a run; it guards against steps added since.
var errBudget = errors.New("frame budget exceeded")

// advance steps n frames within the budget for the running step; the
// last is drawn when a later step reads pixels before the next frame.
func (pr *probeRun) advance(n int) error {
	return pr.advanceDrawn(n, pr.drawNeeded(pr.at+1))
}

// advanceDrawn steps n frames within the budget, drawing the last when draw
// is true (or when the page cannot step undrawn).
func (pr *probeRun) advanceDrawn(n int, draw bool) error {
	if err := pr.spend(n); err != nil {
		return err
	}
	return stepPage(pr.ctx, pr.page, n, draw)
}

// stepPage steps n frames of page, leaving the last undrawn unless draw is
// true or the page cannot (it is not an UndrawnStepper).
func stepPage(ctx context.Context, page Page, n int, draw bool) error {
	if u, ok := page.(UndrawnStepper); ok && !draw {
		return u.StepUndrawn(ctx, n)
	}
	return page.Step(ctx, n)
}

// drawNeeded says whether the frame about to be stepped must be drawn:
// some step from index from on reads pixels before another frame is
// stepped (an input, a reload or a step that advances comes first), or
// the probe ends with a pixel digest (Options.Fingerprint).
func (pr *probeRun) drawNeeded(from int) bool {
	for _, s := range pr.steps[max(from, 0):] {
		t := s.Traits()
		switch {
		case t.Pixels:
			return true
		case t.Input, t.Reloads, t.Advances:
			// An input leaves the page pending, so the next read settles
			// with a frame of its own; a reload starts again; a step that
			// advances reads (if at all) before its frames.
			return false
		}
	}
	_, digests := pr.page.(PixelDigester)
	return pr.opts.Fingerprint && digests
}

// spend counts n frames against the budget (the caller steps them).
func (pr *probeRun) spend(n int) error {
	if b := pr.opts.FrameBudget; b > 0 && pr.stepped+n > b {
		return Infra(fmt.Errorf("%w: %d frames stepped, %d more, budget %d", errBudget, pr.stepped, n, b))
	}
	pr.stepped += n
	return nil
}

// assert evaluates one assertion; in setup a non-pass breaks the probe.
// The error is the page's or the infrastructure's, never the assertion's.
func (x *exec) assert(a *Assertion) error {
	st, msg, err := x.evaluate(a)
	if err != nil {
		return err
	}
	if a.Message != "" && st != StatusPass {
		msg = a.Message + ": " + msg
	}
	if !x.scored {
		if st != StatusPass {
			x.broken = fmt.Sprintf("setup assertion at line %d did not pass: %s", x.step.Line, msg)
		}
		return nil
	}
	x.probeRun.scored(verdictOf(x.probe, a, st, msg))
	return nil
}

// evaluate runs one assertion against the page; the error is a page or
// infrastructure error, never the assertion's.
func (pr *probeRun) evaluate(a *Assertion) (Status, string, error) {
	vars := map[string]any{
		VarTrace:     pr.traces,
		VarParams:    pr.params,
		VarFrame:     int64(pr.page.Frame()),
		VarTime:      float64(pr.page.Frame()) / pr.page.FPS(),
		VarFrameTime: 1 / pr.page.FPS(),
	}
	if pr.probe.Hand != "" {
		vars[VarHand], vars[VarMirror] = pr.probe.Hand, pr.probe.Mirror
	}
	if pr.probe.Room != "" {
		vars[VarRoom] = RoomLabel(pr.probe.Room)
	}
	for k, v := range pr.snapshots {
		vars[k] = v
	}
	var state any
	if a.readsState {
		var err error
		if state, err = pr.page.State(pr.ctx); err != nil {
			return "", "", err
		}
		vars[VarState] = state
		pr.observe(Observation{Probe: pr.probe.Name, Kind: "assert", Line: a.Line, Frame: pr.page.Frame(), State: state})
	}
	prog, explain := a.prog, a.explain
	var obs *observer
	if a.usesPage {
		obs = newObserver(pr.ctx, pr.page)
		var err error
		if prog, explain, err = a.programs(obs); err != nil {
			return "", "", Infra(fmt.Errorf("planning %s: %w", a.Expr, err))
		}
	}
	// fault is a page or infrastructure error met during evaluation.
	fault := func() error {
		if obs != nil && obs.failure != nil {
			return obs.failure
		}
		return pr.ctx.Err()
	}
	out, _, err := prog.ContextEval(pr.ctx, vars)
	if f := fault(); f != nil {
		return "", "", f
	}
	if b, ok := out.(types.Bool); ok && err == nil && bool(b) {
		return StatusPass, "", nil
	}
	// Not a pass: evaluate again tracking subexpressions to explain why.
	// Observations are memoised, so the page is not read again.
	var det *cel.EvalDetails
	if err == nil || !strings.Contains(err.Error(), "cost limit exceeded") {
		_, det, _ = explain.ContextEval(pr.ctx, vars)
		if f := fault(); f != nil {
			return "", "", f
		}
	}
	x := newExplainer(a.ast, det, vars)
	if err != nil {
		msg := x.evalError(a.ast.NativeRep().Expr(), err)
		if a.readsState && state == nil {
			msg = "the page exposes no window.__3D_STATE__ (" + msg + ")"
		}
		return StatusError, msg, nil
	}
	if _, ok := out.(types.Bool); !ok {
		return StatusError, fmt.Sprintf("the assertion yields %s, not true or false", formatVal(out)), nil
	}
	return StatusFail, x.failure(a.ast.NativeRep().Expr()), nil
}

// fingerprint reads the state, the scene summary and the pixel digest at
// the end of a probe.
func (pr *probeRun) fingerprint() error {
	ctx, page := pr.ctx, pr.page
	o := Observation{Probe: pr.probe.Name, Kind: "end", Frame: page.Frame()}
	var err error
	if o.State, err = page.State(ctx); err == nil {
		if in, ok := page.(Inspector); ok {
			o.Scene, err = in.Scene(ctx)
		}
	}
	if d, ok := page.(PixelDigester); ok && err == nil {
		o.Pixels, err = d.PixelDigest(ctx)
	}
	if err != nil {
		return pr.classify(err, pr.probe.Name, "fingerprint", 0)
	}
	pr.observe(o)
	return nil
}
