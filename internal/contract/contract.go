package contract

import (
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"strings"
)

// Probe levels.
const (
	LevelAffordance = "affordance"
	LevelState      = "state"
	LevelTransition = "transition"
	LevelInvariant  = "invariant"
)

// Levels lists the probe levels in scoring order.
func Levels() []string {
	return []string{LevelAffordance, LevelState, LevelTransition, LevelInvariant}
}

// InterfaceProbe is the name of the automatic probe that checks the
// declared state interface; contracts may not use it.
const InterfaceProbe = "interface"

// Version is the contract format version this package reads.
const Version = 1

// StepKind names what a step does; it is the step's key in contract.yaml.
type StepKind string

// Step kinds.
const (
	StepSnapshot StepKind = "snapshot"
	StepStep     StepKind = "step"
	StepWait     StepKind = "wait"
	StepAssert   StepKind = "assert"
	StepTrace    StepKind = "trace"
	StepClick    StepKind = "click"
	StepDrag     StepKind = "drag"
	StepPress    StepKind = "press"
	StepRelease  StepKind = "release"
	StepMove     StepKind = "move"
	StepWheel    StepKind = "wheel"
	StepKey      StepKind = "key"
	StepType     StepKind = "type"
	StepReload   StepKind = "reload"
	StepHead     StepKind = "head"
	StepHand     StepKind = "hand"
)

// Contract is a parsed and compiled contract.yaml. It is read-only once
// parsed: several Runs may share it concurrently.
type Contract struct {
	// File is the path the contract was read from ("contract.yaml" when parsed from bytes).
	File    string
	Version int
	// HoldMs is how long a key press or a click holds its key or button
	// down (the contract's hold:, DefaultHoldMs when it sets none).
	HoldMs float64
	Probes []*Probe
}

// DefaultHoldMs is how long a key press or a click holds its key or button
// down, in virtual milliseconds, unless the contract or the step says
// otherwise: about as long as a person's quick tap (3 frames at 60 fps, 2
// at 30), so that a page which polls input in its animation loop sees the
// press as surely as one that reacts in its event handlers.
const DefaultHoldMs = 50

// Probe kinds: how a probe of a task with a scaffold (task.yaml's
// scaffold:) relates to the scaffold, as SWE-bench labels its tests.
const (
	// KindFailToPass marks a probe of the change the task asks for: it
	// must fail on the scaffold and pass on a solution.
	KindFailToPass = "fail_to_pass"
	// KindPassToPass marks a probe of what the scaffold already does and
	// the change must keep: it must pass on the scaffold and on a solution.
	KindPassToPass = "pass_to_pass"
)

// ProbeKinds lists the kinds a probe may be labelled with (kind: in
// contract.yaml); a probe without one is an ordinary probe.
func ProbeKinds() []string { return []string{KindFailToPass, KindPassToPass} }

// Probe is one scenario, run in a fresh page load.
type Probe struct {
	Name  string
	Level string
	// Kind is KindFailToPass, KindPassToPass or "" (an ordinary probe).
	Kind string
	// FPS overrides the task's frame rate for this probe; 0 means the task's.
	FPS         float64
	Description string
	// Setup steps run first and are not scored; a failing assertion in
	// setup is a failed precondition that turns every assertion of the
	// probe into an error.
	Setup []Step
	Steps []Step
	// Line is the line of the probe in the file.
	Line int
	// Covers lists the ids of the brief's requirements the probe checks
	// (covers: in contract.yaml).
	Covers []string
	// Base is the name as written in contract.yaml for one run of a probe
	// declared with hands: mirror (whose Name is Base[Hand]), "" otherwise.
	Base string
	// Hand is the probe's hand in this run of a probe declared with
	// hands: mirror ("right" or "left", the CEL variable hand), "" otherwise.
	Hand string
	// Mirror is 1 for the run as written and -1 for the mirrored run of a
	// probe declared with hands: mirror (the CEL variable mirror), 0 otherwise.
	Mirror float64
	// Room is the room this run of a probe declared with rooms: stands in
	// (as rooms: writes it: one of xr.Rooms or a room file's path relative
	// to the task folder; the CEL variable room is its RoomLabel), ""
	// otherwise. Its Name is Base[ROOM], or Base[HAND,ROOM] with hands: mirror.
	Room string
	// later is set on every run of a replayed probe (hands: mirror,
	// rooms:) but the first: its frame budget and name were checked with
	// the first run's.
	later bool
	// holdMs is the contract's HoldMs.
	holdMs float64
}

// Step is one step of a probe: its kind, its line and what it does.
type Step struct {
	Kind StepKind
	Line int
	// Action is the step's own type (*ClickStep, *WaitStep, …).
	Action Action
}

// Assertion returns the step's assertion, nil when it is not a step that
// yields a verdict (assert, look).
func (s Step) Assertion() *Assertion {
	switch a := s.Action.(type) {
	case *AssertStep:
		return a.Assertion
	case *LookStep:
		return a.Assertion
	}
	return nil
}

// Traits returns what the step's action says of itself.
func (s Step) Traits() Traits { return s.Action.Traits() }

// Describe renders the step for messages, e.g. `click {selector: "#go"}`.
func (s Step) Describe() string { return s.Action.Describe() }

// Load reads, parses and compiles a contract file.
func Load(path string) (*Contract, error) {
	data, err := os.ReadFile(path)
	if err != nil {
		return nil, err
	}
	return Parse(path, data)
}

// Parse parses and compiles a contract; file names it in error messages.
// All problems found are returned together (errors.Join of *PosError).
func Parse(file string, data []byte) (*Contract, error) {
	if file == "" {
		file = "contract.yaml"
	}
	p := &parser{file: file}
	c := p.contract(data)
	if len(p.errs) > 0 {
		return nil, p.err()
	}
	return c, nil
}

// Assertions returns every assertion of the contract in order, setup ones included.
func (c *Contract) Assertions() []*Assertion {
	var out []*Assertion
	for _, p := range c.Probes {
		out = append(out, p.Assertions()...)
	}
	return out
}

// Probe returns the probe with the given name, or nil.
func (c *Contract) Probe(name string) *Probe {
	for _, p := range c.Probes {
		if p.Name == name {
			return p
		}
	}
	return nil
}

// Assertions returns the probe's scored assertions (those in steps).
func (p *Probe) Assertions() []*Assertion {
	var out []*Assertion
	for _, s := range p.Steps {
		if a := s.Assertion(); a != nil {
			out = append(out, a)
		}
	}
	return out
}

// Frames is the number of frames the probe steps in all (setup included)
// at frame rate fps, the probe's own when it sets one: the frames its steps
// ask for, the frames key presses, clicks and drags hold their input, and
// the settle frames the engine adds (see Settles).
func (p *Probe) Frames(fps float64) int {
	if p.FPS > 0 {
		fps = p.FPS
	}
	n := 0
	timing := Timing{FPS: fps, HoldMs: p.holdMs}
	pending := true // a fresh page has run no frame yet
	for _, steps := range [][]Step{p.Setup, p.Steps} {
		for _, s := range steps {
			if pending && s.Settles() {
				n++
				pending = false
			}
			n += s.Action.FrameCount(timing)
			pending = s.leavesPending(pending)
		}
	}
	return n
}

// Settles reports whether the engine first steps one frame before this
// step when the page has not run a frame since it loaded or since the last
// input: true for every read (snapshot, trace, an assertion that reads the
// state, the page or the clock) and every input. So no read ever sees the
// page in the same instant as an input it has not yet run a frame with,
// and no two inputs reach the page in the same instant.
func (s Step) Settles() bool {
	t := s.Traits()
	return t.Reads || t.Input
}

// IsInput reports whether the step sends input to the page.
func (s Step) IsInput() bool { return s.Traits().Input }

// leavesPending says whether the page is pending (has not run a frame
// since it loaded or since its last input) after s, given whether it was
// before.
func (s Step) leavesPending(before bool) bool {
	t := s.Traits()
	switch {
	case t.Advances:
		return false
	case t.Input || t.Reloads:
		return true
	}
	return before
}

// HoldFrames is how many frames an input held for ms lasts at fps: ms
// rounded up to whole frames, at least one.
func HoldFrames(ms, fps float64) int {
	return max(1, WaitFrames(ms, fps))
}

// WaitFrames converts virtual milliseconds to whole frames, rounding up:
// ceil(ms × fps / 1000). A product within 1e-9 of a whole number counts as
// that number, so 500 ms at 60 fps is 30 frames, not 31.
func WaitFrames(ms, fps float64) int {
	f := ms * fps / 1000
	n := int(f)
	if f-float64(n) > 1e-9 {
		n++
	}
	return n
}

// CheckBudget returns an error for every probe that steps more than budget
// frames at the task's frame rate fps. A budget of 0 means no limit.
func (c *Contract) CheckBudget(fps float64, budget int) []error {
	if budget <= 0 {
		return nil
	}
	var errs []error
	for _, p := range c.Probes {
		if p.later {
			continue // steps as many frames as the run as written, said once
		}
		name := p.Name
		if p.Base != "" {
			name = p.Base
		}
		if n := p.Frames(fps); n > budget {
			errs = append(errs, &PosError{File: c.File, Line: p.Line,
				Msg: fmt.Sprintf("probe %s steps %d frames, more than the task's frame budget of %d", name, n, budget)})
		}
	}
	return errs
}

// PosError is a problem at a line of a file.
type PosError struct {
	File string
	Line int
	Msg  string
}

// Error renders "file:line: message".
func (e *PosError) Error() string {
	if e.Line > 0 {
		return fmt.Sprintf("%s:%d: %s", filepath.ToSlash(e.File), e.Line, e.Msg)
	}
	return fmt.Sprintf("%s: %s", filepath.ToSlash(e.File), e.Msg)
}

var (
	identRE     = regexp.MustCompile(`^[A-Za-z_][A-Za-z0-9_]*$`)
	probeNameRE = regexp.MustCompile(`^[A-Za-z0-9_][A-Za-z0-9_.-]*$`)
)

// celKeywords may name neither a snapshot nor a trace: CEL cannot even
// select them as a field (trace.in).
var celKeywords = map[string]bool{"true": true, "false": true, "null": true, "in": true}

// notSnapshots may not name a snapshot, which becomes a CEL variable: the
// other variables and CEL's reserved identifiers.
var notSnapshots = map[string]bool{
	VarState: true, VarTrace: true, VarParams: true, VarFrame: true, VarTime: true, VarFrameTime: true,
	"as": true, "break": true, "const": true, "continue": true, "else": true, "for": true, "function": true,
	"if": true, "import": true, "let": true, "loop": true, "package": true, "namespace": true,
	"return": true, "var": true, "void": true, "while": true,
}

// joinList renders names for messages: "a, b, c".
func joinList(xs []string) string {
	return strings.Join(xs, ", ")
}
