package contract

import (
	"strings"
	"testing"

	"github.com/stretchr/testify/require"
)

const fullContract = `
version: 1
probes:
  - name: everything
    level: transition
    fps: 30
    description: uses every step
    setup:
      - step: 1
    steps:
      - snapshot: before
      - step: 30
      - wait: 500
      - snapshot: after
      - assert: after.ball.position[1] < before.ball.position[1]
        message: the ball falls
        attribution: physics_violation
      - trace: {name: fall, frames: 60, every: 2}
      - trace: {name: short, frames: 5}
      - click: {selector: "#start"}
      - click: {object: cube}
      - click: {world: [0, 1, 0]}
      - drag: {from: {at: [100, 100]}, to: {at: [300, 100]}, steps: 4}
      - drag: {from: {object: cube}, to: {world: [1, 2, 3]}}
      - move: {at: [10, 10]}
      - press: {object: cube}
      - move: {at: [20, 10]}
      - release: {at: [30, 10]}
      - wheel: {at: [400, 300], dy: 120}
      - key: {press: " "}
      - key: {down: ArrowUp}
      - key: {up: ArrowUp}
      - key: {press: z, with: [Control, Shift]}
      - type: {selector: "#name", text: hello}
      - reload: {}
      - reload:
      - assert: |
          monotone(trace.fall.map(x, x.ball.position[1]))
  - name: second
    level: invariant
    steps:
      - assert: s.ok
`

func TestParseFull(t *testing.T) {
	c := mustParse(t, fullContract)
	require.Equal(t, 1, c.Version)
	require.Len(t, c.Probes, 2)
	p := c.Probes[0]
	require.Equal(t, "everything", p.Name)
	require.Equal(t, LevelTransition, p.Level)
	require.Equal(t, 30.0, p.FPS)
	require.Equal(t, "uses every step", p.Description)
	require.Equal(t, 3, p.Line)
	require.Equal(t, []Step{{Kind: StepStep, Line: 8, Action: &FramesStep{Frames: 1}}}, p.Setup)

	var kinds []StepKind
	for _, s := range p.Steps {
		kinds = append(kinds, s.Kind)
	}
	require.Equal(t, []StepKind{StepSnapshot, StepStep, StepWait, StepSnapshot, StepAssert, StepTrace, StepTrace,
		StepClick, StepClick, StepClick, StepDrag, StepDrag, StepMove, StepPress, StepMove, StepRelease, StepWheel, StepKey, StepKey, StepKey, StepKey,
		StepType, StepReload, StepReload, StepAssert}, kinds)

	st := p.Steps
	require.Equal(t, &SnapshotStep{Name: "before"}, st[0].Action)
	require.Equal(t, &FramesStep{Frames: 30}, st[1].Action)
	require.Equal(t, &WaitStep{Ms: 500}, st[2].Action)
	a := st[4].Assertion()
	require.Equal(t, "after.ball.position[1] < before.ball.position[1]", a.Expr)
	require.Equal(t, "the ball falls", a.Message)
	require.Equal(t, AttrPhysicsViolation, a.Attribution)
	require.Equal(t, 14, a.Line)
	require.Equal(t, &TraceStep{Name: "fall", Frames: 60, Every: 2}, st[5].Action)
	require.Equal(t, &TraceStep{Name: "short", Frames: 5, Every: 1}, st[6].Action)
	require.Equal(t, &ClickStep{Target{Selector: "#start"}}, st[7].Action)
	require.Equal(t, &ClickStep{Target{Object: "cube"}}, st[8].Action)
	require.Equal(t, &ClickStep{Target{World: []float64{0, 1, 0}}}, st[9].Action)
	require.Equal(t, &DragStep{From: Target{At: []float64{100, 100}}, To: Target{At: []float64{300, 100}}, Steps: 4}, st[10].Action)
	require.Equal(t, &DragStep{From: Target{Object: "cube"}, To: Target{World: []float64{1, 2, 3}}, Steps: 10}, st[11].Action)
	require.Equal(t, &MoveStep{Target{At: []float64{10, 10}}}, st[12].Action)
	require.Equal(t, &PressStep{Target{Object: "cube"}}, st[13].Action)
	require.Equal(t, &MoveStep{Target{At: []float64{20, 10}}}, st[14].Action)
	require.Equal(t, &ReleaseStep{Target{At: []float64{30, 10}}}, st[15].Action)
	require.Equal(t, &WheelStep{Target: Target{At: []float64{400, 300}}, DY: 120}, st[16].Action)
	require.Equal(t, &KeyStep{Kind: "press", Key: " "}, st[17].Action)
	require.Equal(t, &KeyStep{Kind: "down", Key: "ArrowUp"}, st[18].Action)
	require.Equal(t, &KeyStep{Kind: "up", Key: "ArrowUp"}, st[19].Action)
	require.Equal(t, &KeyStep{Kind: "press", Key: "z", With: []string{"Control", "Shift"}}, st[20].Action)
	require.Equal(t, &TypeStep{Selector: "#name", Text: "hello"}, st[21].Action)
	last := st[24].Assertion()
	require.Equal(t, "monotone(trace.fall.map(x, x.ball.position[1]))", last.Expr)
	require.Equal(t, 37, last.Line, "a block scalar's expression starts on the next line")

	// 1 + 30 + 500 ms at 30 fps (15) + 60 + 5 frames = 111, then the input:
	// three clicks held 2 frames each (50 ms at 30 fps), the last two after a
	// settle frame (8); drags of 4 and 10 moves, a frame after the press and
	// each move, each after a settle frame (6 + 12); move, press, move,
	// release, wheel, one settle frame each (5); presses held 2 frames after
	// a settle frame, down and up one settle frame each (3 + 1 + 1 + 3); the
	// type step's settle frame (1); reloads and the last assertion, which
	// reads no state, step nothing.
	require.Equal(t, 151, p.Frames(60))
	require.Equal(t, 2, fullStepHold(t, p))
	require.Equal(t, 1, c.Probes[1].Frames(60), "the settle frame before its first read")
	require.Len(t, c.Assertions(), 3)
	require.Same(t, p, c.Probe("everything"))
	require.Nil(t, c.Probe("nope"))
}

func TestParseErrors(t *testing.T) {
	cases := []struct {
		name, src string
		want      []string
	}{
		{"yaml syntax", "version: 1\nprobes: [\n", []string{"contract.yaml:2: did not find expected node content"}},
		{"empty", "", []string{"contract.yaml: empty contract"}},
		{"no version", "probes:\n  - {name: a, level: state, steps: [{assert: 'true'}]}\n",
			[]string{"contract.yaml:1: contract: missing version (want version: 1)"}},
		{"wrong version", "version: 2\nprobes:\n  - {name: a, level: state, steps: [{assert: 'true'}]}\n",
			[]string{"contract.yaml:1: version: this worldprobe reads contract version 1, not 2"}},
		{"unknown top field", "version: 1\nprobez: []\n",
			[]string{`contract.yaml:2: contract: unknown field "probez" (want one of version, hold, probes)`,
				"contract.yaml:1: contract: want probes, a non-empty list"}},
		{"unknown probe field", `
version: 1
probes:
  - name: a
    level: state
    colour: red
    steps:
      - assert: "true"
`, []string{`contract.yaml:5: probe: unknown field "colour" (want one of name, level, kind, fps, description, covers, hands, rooms, setup, steps)`}},
		{"unknown kind", `
version: 1
probes:
  - name: a
    level: state
    kind: fail_to_fail
    steps:
      - assert: "true"
`, []string{`contract.yaml:5: probe a: unknown kind "fail_to_fail" (want fail_to_pass, pass_to_pass, for a task with a scaffold)`}},
		{"bad level and reserved name", `
version: 1
probes:
  - name: interface
    level: physics
    steps:
      - assert: "true"
`, []string{`contract.yaml:3: probe name "interface" is reserved for the automatic state-interface probe`,
			`contract.yaml:4: probe interface: unknown level "physics" (want one of affordance, state, transition, invariant)`}},
		{"duplicate probe", `
version: 1
probes:
  - {name: a, level: state, steps: [{assert: "true"}]}
  - {name: a, level: state, steps: [{assert: "true"}]}
`, []string{"contract.yaml:4: probe a: name already used at line 3"}},
		{"two step keys", `
version: 1
probes:
  - name: a
    level: state
    steps:
      - step: 3
        wait: 100
      - assert: "true"
`, []string{"contract.yaml:6: probe a: steps: a step has exactly one of snapshot, step, wait, assert, look, trace, click, drag, press, release, move, wheel, key, type, reload, head, hand, controller, gesture, setHandPose, startSelect, endSelect, teleportTo, walk, navigateTo, rotate, lookAtTarget, pointTo, reachTo, teleportHand, rayClick, moveHand, rotateHand, addObjects, updateObjects, removeObjects, clearObjects, injectAudio, applyControl, stepControl, act; this one has step and wait"}},
		{"unknown step key", `
version: 1
probes:
  - name: a
    level: state
    steps:
      - tap: {selector: "#x"}
      - assert: "true"
`, []string{`contract.yaml:6: probe a: steps: unknown field "tap" (want one of snapshot, step, wait, assert, look, trace, click, drag, press, release, move, wheel, key, type, reload, head, hand, controller, gesture, setHandPose, startSelect, endSelect, teleportTo, walk, navigateTo, rotate, lookAtTarget, pointTo, reachTo, teleportHand, rayClick, moveHand, rotateHand, addObjects, updateObjects, removeObjects, clearObjects, injectAudio, applyControl, stepControl, act, message, attribution)`,
			"contract.yaml:6: probe a: steps: a step needs one of snapshot, step, wait, assert, look, trace, click, drag, press, release, move, wheel, key, type, reload, head, hand, controller, gesture, setHandPose, startSelect, endSelect, teleportTo, walk, navigateTo, rotate, lookAtTarget, pointTo, reachTo, teleportHand, rayClick, moveHand, rotateHand, addObjects, updateObjects, removeObjects, clearObjects, injectAudio, applyControl, stepControl, act"}},
		{"message on a non-assert", `
version: 1
probes:
  - name: a
    level: state
    steps:
      - step: 3
        message: hi
      - assert: "true"
        attribution: gremlins
`, []string{"contract.yaml:7: probe a: steps: step: message belongs to assert, look steps only",
			`contract.yaml:9: probe a: steps: assert: attribution hint "gremlins" (want one of state_mismatch, physics_violation, broken_interaction)`}},
		{"bad values", `
version: 1
probes:
  - name: a
    level: state
    fps: 0
    steps:
      - step: 0
      - step: 2.5
      - wait: -1
      - snapshot: 1x
      - snapshot: s
      - trace: {name: tr, every: 0}
      - assert: "true"
`, []string{"contract.yaml:5: probe a: fps must be > 0 and <= 1000",
			"contract.yaml:7: probe a: steps: step (frames): want a whole number >= 1, got 0",
			"contract.yaml:8: probe a: steps: step (frames): want a whole number >= 1, got 2.5",
			"contract.yaml:9: probe a: steps: wait: want milliseconds > 0",
			`contract.yaml:10: probe a: steps: snapshot: "1x" is not a valid name (letters, digits and _, not starting with a digit)`,
			`contract.yaml:11: probe a: steps: snapshot: "s" is reserved`,
			"contract.yaml:12: probe a: steps: trace: missing frames",
			"contract.yaml:12: probe a: steps: trace: every: want a whole number >= 1, got 0"}},
		{"bad targets", `
version: 1
probes:
  - name: a
    level: transition
    steps:
      - click: {selector: "#a", at: [1, 2]}
      - click: {}
      - move: {at: [1, 2, 3]}
      - click: {world: [1, 2]}
      - drag: {from: {at: [1, 1]}}
      - wheel: {at: [1, 1]}
      - key: {press: a, up: b}
      - key: {press: a, with: [Control, Hyper, Control]}
      - type: {selector: "#x"}
      - click: "#a"
      - assert: "true"
`, []string{"contract.yaml:6: probe a: steps: click: a target has exactly one of selector, at, object, world; this one has selector and at",
			"contract.yaml:7: probe a: steps: click: want a target: one of {selector: …}, {at: [x, y]}, {object: name}, {world: [x, y, z]}",
			"contract.yaml:8: probe a: steps: move: at: want a list of 2 numbers",
			"contract.yaml:9: probe a: steps: click: world: want a list of 3 numbers",
			"contract.yaml:10: probe a: steps: drag: missing to",
			"contract.yaml:11: probe a: steps: wheel: want dx or dy",
			"contract.yaml:12: probe a: steps: key: want exactly one of {press: key}, {down: key}, {up: key} (and optionally with: [Control, Shift, …])",
			`contract.yaml:13: probe a: steps: key: with: "Hyper" is not a modifier key (want Control, Shift, Alt, Meta)`,
			"contract.yaml:13: probe a: steps: key: with: Control named twice",
			"contract.yaml:14: probe a: steps: type: missing text",
			`contract.yaml:15: probe a: steps: click: want a mapping, got "#a"`}},
		{"button order", `
version: 1
probes:
  - name: a
    level: transition
    setup:
      - press: {at: [1, 1]}
    steps:
      - press: {at: [2, 2]}
      - click: {at: [2, 2]}
      - release: {at: [3, 3]}
      - release: {at: [3, 3]}
      - press: {at: [4, 4]}
      - reload:
      - release: {at: [5, 5]}
      - assert: "true"
`, []string{"contract.yaml:8: probe a: press while the button is already down (pressed at line 6); release it first",
			"contract.yaml:9: probe a: click while the button is held down (pressed at line 8); release it first",
			"contract.yaml:11: probe a: release without a press before it",
			"contract.yaml:14: probe a: release without a press before it"}},
		{"duplicate names", `
version: 1
probes:
  - name: a
    level: state
    steps:
      - snapshot: x
      - snapshot: x
      - trace: {name: t1, frames: 2}
      - trace: {name: t1, frames: 2}
      - assert: "true"
`, []string{`contract.yaml:7: probe a: steps: snapshot: "x" already taken at line 6`,
			`contract.yaml:9: probe a: steps: trace: "t1" already taken at line 8`}},
		{"no assertion", `
version: 1
probes:
  - name: a
    level: state
    steps:
      - step: 1
`, []string{"contract.yaml:3: probe a: has no assertion in its steps"}},
		{"order of snapshots and traces", `
version: 1
probes:
  - name: a
    level: state
    steps:
      - assert: after.y > 0 && size(trace.later) > 0 && size(trace["nope"]) == 0
      - snapshot: after
      - trace: {name: later, frames: 2}
`, []string{"contract.yaml:6: probe a: assert: snapshot after is taken later in the probe (line 7)",
			"contract.yaml:6: probe a: assert: trace.later is recorded later in the probe (line 8)",
			`contract.yaml:6: probe a: assert: no trace named "nope" in this probe`}},
		{"not boolean", `
version: 1
probes:
  - name: a
    level: state
    steps:
      - assert: 1 + 2
`, []string{"contract.yaml:6: probe a: assert: want a boolean expression, this one is a int", " | 1 + 2"}},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			_, err := Parse("contract.yaml", []byte(strings.TrimLeft(c.src, "\n")))
			require.Error(t, err)
			require.Equal(t, c.want, strings.Split(err.Error(), "\n"), "got:\n%s", err)
		})
	}
}

// Compile errors point at the column with a caret, under the expression.
func TestCompileErrorCaret(t *testing.T) {
	src := `version: 1
probes:
  - name: falls
    level: state
    steps:
      - snapshot: after
      - assert: after.ball.position[1] < bfore.ball.position[1]
      - assert: s.x <
`
	_, err := Parse("suites/x/contract.yaml", []byte(src))
	require.Error(t, err)
	want := `suites/x/contract.yaml:7: probe falls: assert: 1:26: undeclared reference to 'bfore'
 | after.ball.position[1] < bfore.ball.position[1]
 | .........................^
suites/x/contract.yaml:8: probe falls: assert: 1:6: Syntax error: mismatched input '<EOF>' expecting {'[', '{', '(', '.', '-', '!', 'true', 'false', 'null', NUM_FLOAT, NUM_INT, NUM_UINT, STRING, BYTES, IDENTIFIER}
 | s.x <
 | .....^`
	require.Equal(t, want, err.Error())
}

func TestReads(t *testing.T) {
	c := mustParse(t, `
version: 1
probes:
  - name: a
    level: state
    steps:
      - snapshot: before
      - trace: {name: run, frames: 3}
      - assert: s.ball.position[1] < before.ball.position[1] && has(s.ball.velocity)
      - assert: trace.run.all(x, x.ball.y > 0) && trace.run[0].score == 0 && s.balls.exists(b, b.pos[0] > params.floor)
      - assert: s["label"] == "x" && before == s && object("ball").visible && s.grid[frame].id > 0
`)
	var got []string
	for _, r := range c.Reads() {
		got = append(got, r.Var+" "+r.Path)
	}
	require.Equal(t, []string{
		"s ball.position[1]", "before ball.position[1]", "s ball.velocity",
		"trace.run ball.y", "trace.run score", "s balls", "s balls[*].pos[0]", "params floor",
		"s label", "s grid[*].id",
	}, got)
	r := c.Reads()[7]
	require.True(t, r.IsParam())
	require.Equal(t, []string{"floor"}, r.Segments)
	require.Equal(t, []string{"balls", "[*]", "pos", "[0]"}, c.Reads()[6].Segments)
	require.Equal(t, 9, r.Line)
	require.False(t, c.Probes[0].Steps[2].Assertion().Observes())
	require.True(t, c.Probes[0].Steps[4].Assertion().Observes())
}

func TestCheckBudget(t *testing.T) {
	c := mustParse(t, `
version: 1
probes:
  - name: ok
    level: state
    steps:
      - step: 60
      - assert: "true"
  - name: long
    level: state
    fps: 30
    setup:
      - step: 10
    steps:
      - wait: 2000
      - trace: {name: t, frames: 31}
      - assert: "true"
`)
	require.Equal(t, 101, c.Probes[1].Frames(60), "10 + 2 s at the probe's 30 fps + 31")
	require.Nil(t, c.CheckBudget(60, 101))
	require.Nil(t, c.CheckBudget(60, 0))
	errs := c.CheckBudget(60, 100)
	require.Len(t, errs, 1)
	require.EqualError(t, errs[0], "contract.yaml:8: probe long steps 101 frames, more than the task's frame budget of 100")
}

func TestNames(t *testing.T) {
	// A trace may use a CEL reserved word (trace.loop selects fine); a
	// snapshot, which becomes a variable, may not.
	c := mustParse(t, `
version: 1
probes:
  - name: a
    level: state
    steps:
      - trace: {name: loop, frames: 2}
      - assert: size(trace.loop) == 3
`)
	require.Equal(t, "loop", c.Probes[0].Steps[0].Action.(*TraceStep).Name)
	_, err := Parse("contract.yaml", []byte(`version: 1
probes:
  - name: a
    level: state
    steps:
      - snapshot: loop
      - trace: {name: "null", frames: 2}
      - assert: loop.x > 0 && size(trace["null"]) > 0
`))
	require.EqualError(t, err, `contract.yaml:6: probe a: steps: snapshot: "loop" is reserved`+"\n"+
		`contract.yaml:7: probe a: steps: trace: "null" is reserved`)
}

// fullStepHold is the hold of the full contract's first click, in frames
// at its probe's 30 fps.
func fullStepHold(t *testing.T, p *Probe) int {
	t.Helper()
	for _, s := range p.Steps {
		if s.Kind == StepClick {
			return s.Action.FrameCount(Timing{FPS: p.FPS, HoldMs: p.holdMs})
		}
	}
	t.Fatal("no click")
	return 0
}

func TestHold(t *testing.T) {
	c := mustParse(t, `
version: 1
hold: 100
probes:
  - name: a
    level: transition
    steps:
      - key: {press: " "}
      - key: {press: " ", hold: 20}
      - click: {at: [1, 1]}
      - assert: s.paused
`)
	require.Equal(t, 100.0, c.HoldMs)
	p := c.Probes[0]
	require.Equal(t, 20.0, p.Steps[1].Action.(*KeyStep).HoldMs)
	require.Equal(t, []int{6, 2, 6}, []int{p.Steps[0].Action.FrameCount(Timing{FPS: 60, HoldMs: p.holdMs}), p.Steps[1].Action.FrameCount(Timing{FPS: 60, HoldMs: p.holdMs}), p.Steps[2].Action.FrameCount(Timing{FPS: 60, HoldMs: p.holdMs})})
	// settle 1 + 6, settle 1 + 2, settle 1 + 6, settle 1 before the read.
	require.Equal(t, 18, p.Frames(60))
	require.Equal(t, 3, HoldFrames(DefaultHoldMs, 60))
	require.Equal(t, 2, HoldFrames(DefaultHoldMs, 30))
	require.Equal(t, 1, HoldFrames(1, 60), "a hold is at least one frame")

	_, err := Parse("contract.yaml", []byte(`
version: 1
hold: 0
probes:
  - name: a
    level: transition
    steps:
      - key: {down: x, hold: 30}
      - assert: s.paused
`))
	require.Error(t, err)
	require.Equal(t, []string{
		"contract.yaml:3: hold: want milliseconds > 0 and <= 10000, got 0",
		"contract.yaml:8: probe a: steps: key: hold belongs to {press: key}; {down: key} holds until {up: key}",
	}, strings.Split(err.Error(), "\n"))
}

func TestCovers(t *testing.T) {
	c := mustParse(t, `
version: 1
probes:
  - name: a
    level: state
    covers: [pause, hud-text]
    steps:
      - assert: s.paused
`)
	require.Equal(t, []string{"pause", "hud-text"}, c.Probes[0].Covers)
	_, err := Parse("contract.yaml", []byte(`version: 1
probes:
  - name: a
    level: state
    covers: [Pause, x, x]
    steps:
      - assert: s.paused
  - name: b
    level: state
    covers: []
    steps:
      - assert: s.paused
`))
	require.Error(t, err)
	require.Equal(t, []string{
		`contract.yaml:5: probe a: covers: "Pause" is not a requirement id (lower-case letters, digits and -)`,
		"contract.yaml:5: probe a: covers: x named twice",
		"contract.yaml:10: probe b: covers: want a list of requirement ids of the brief ([id, …])",
	}, strings.Split(err.Error(), "\n"))
}

// TestProbeKind: a probe's kind: label is kept on the probe and on its
// verdicts; a probe without one has none.
func TestProbeKind(t *testing.T) {
	c, err := Parse("", []byte(`
version: 1
probes:
  - name: a
    level: state
    kind: fail_to_pass
    steps:
      - assert: "true"
  - name: b
    level: state
    kind: pass_to_pass
    steps:
      - assert: "true"
  - name: c
    level: state
    steps:
      - assert: "true"
`))
	require.NoError(t, err)
	require.Equal(t, []string{KindFailToPass, KindPassToPass, ""}, []string{c.Probes[0].Kind, c.Probes[1].Kind, c.Probes[2].Kind})
	require.Equal(t, KindFailToPass, verdictOf(c.Probes[0], c.Probes[0].Assertions()[0], StatusPass, "").ProbeKind)
}
