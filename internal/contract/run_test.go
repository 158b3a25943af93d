package contract

import (
	"context"
	"errors"
	"fmt"
	"testing"

	"github.com/stretchr/testify/require"
)

func run(t *testing.T, src string, o *opener, opts Options) Result {
	t.Helper()
	if opts.FPS == 0 {
		opts.FPS = 60
	}
	res, err := Run(context.Background(), mustParse(t, src), o.open, map[string]any{"gravity": 10.0}, opts)
	require.NoError(t, err)
	return res
}

// messages maps each verdict's expression to "status: message".
func messages(res Result) []string {
	var out []string
	for _, v := range res.Verdicts {
		out = append(out, fmt.Sprintf("%s | %s | %s", v.Expr, v.Status, v.Message))
	}
	return out
}

func TestMessages(t *testing.T) {
	o := &opener{}
	res := run(t, `
version: 1
probes:
  - name: falls
    level: state
    steps:
      - snapshot: before
      - step: 29
      - snapshot: after
      - assert: after.ball.position[1] < before.ball.position[1]
      - assert: after.ball.position[1] > before.ball.position[1]
        message: the ball rises
      - assert: after.ball.position[1] < 4.1
      - assert: 4.1 > after.ball.position[1]
      - assert: s.mode == "idle"
      - assert: s.frame != 30
      - assert: approx(s.ball.position[1], 5, 0.1)
      - assert: approx(s.ball.position, [0, 8.7, 0], 0.001)
      - assert: within(s.ball.position[1], 0, params.gravity / 2.0)
      - assert: s.frame == 30 && s.paused
      - assert: "!s.paused && s.mode != \"run\""
      - assert: nonincreasing([1, 2])
      - assert: s.paused
      - assert: s.ball.velocity.x > 0
      - assert: s.ball.speed > 0
      - assert: s.ball.position[5] > 0
      - assert: s.frame * 2 > 0
      - assert: s.mode + 1 == 2
      - assert: sqrt(-1) > 0
      - assert: s.mode
`, o, Options{})
	require.Equal(t, []string{
		"after.ball.position[1] < before.ball.position[1] | pass | ",
		"after.ball.position[1] > before.ball.position[1] | fail | the ball rises: after.ball.position[1] = 8.708333333, want > 9.997222222 (before.ball.position[1])",
		"after.ball.position[1] < 4.1 | fail | after.ball.position[1] = 8.708333333, want < 4.1",
		"4.1 > after.ball.position[1] | fail | after.ball.position[1] = 8.708333333, want < 4.1",
		`s.mode == "idle" | fail | s.mode = "run", want == "idle"`,
		"s.frame != 30 | fail | s.frame = 30, want != 30",
		"approx(s.ball.position[1], 5, 0.1) | fail | s.ball.position[1] = 8.708333333, want 5 ± 0.1, off by 3.708333333",
		"approx(s.ball.position, [0, 8.7, 0], 0.001) | fail | s.ball.position = [0, 8.708333333, 0], want [0, 8.7, 0] ([0, 8.7, 0]) ± 0.001, off by 0.008333333333",
		"within(s.ball.position[1], 0, params.gravity / 2.0) | fail | s.ball.position[1] = 8.708333333, want within [0, 5]",
		"s.frame == 30 && s.paused | fail | s.paused is false",
		`!s.paused && s.mode != "run" | fail | s.mode = "run", want != "run"`,
		"nonincreasing([1, 2]) | fail | nonincreasing([1, 2]) is false: [1, 2] = [1, 2]",
		"s.paused | fail | s.paused is false",
		"s.ball.velocity.x > 0 | error | s.ball.velocity.x: unsupported index type 'string' in list",
		"s.ball.speed > 0 | error | s.ball.speed: no such key: speed",
		"s.ball.position[5] > 0 | error | s.ball.position[5]: index out of bounds: 5",
		"s.frame * 2 > 0 | error | s.frame * 2: no such overload: double * int (state numbers are doubles: write 2.0 rather than 2, or convert with double())",
		`s.mode + 1 == 2 | error | s.mode + 1: no such overload: string + int`,
		"sqrt(-1) > 0 | error | sqrt(-1): sqrt of a negative number (-1)",
		`s.mode | error | the assertion yields "run", not true or false`,
	}, messages(res))
	require.Nil(t, res.Failure)
	require.Len(t, o.pages, 1)
	require.True(t, o.pages[0].closed)
}

// A page without __3D_STATE__ gets a message saying so.
func TestNoState(t *testing.T) {
	o := &opener{tweak: func(p *fakePage) { p.stateFn = func(*fakePage) any { return nil } }}
	res := run(t, `
version: 1
probes:
  - name: a
    level: state
    steps:
      - assert: s.ball.position[1] > 0
`, o, Options{Interface: []Field{{Path: "ball.position", Type: "vec3"}}})
	require.Equal(t, []string{
		"ball.position: vec3 | fail | the page exposes no window.__3D_STATE__",
		"s.ball.position[1] > 0 | error | the page exposes no window.__3D_STATE__ (s.ball: no such key: ball)",
	}, messages(res))
}

func TestInterfaceProbe(t *testing.T) {
	o := &opener{tweak: func(p *fakePage) {
		p.stateFn = func(p *fakePage) any {
			return map[string]any{
				"ball":  map[string]any{"position": []any{0.0, 1.0, 2.0}, "radius": "big", "flat": []any{1.0, 2.0}},
				"count": 3.0, "ratio": 0.5, "nan": "NaN", "ok": true, "name": "x", "mode": "run",
				"list": []any{}, "obj": map[string]any{}, "grid": 7.0, "held": nil,
			}
		}
	}}
	fields := []Field{
		{Path: "ball.position", Type: "vec3"},
		{Path: "ball.flat", Type: "vec2"},
		{Path: "ball.flat", Type: "vec3"},
		{Path: "ball.velocity", Type: "vec3"},
		{Path: "ball.radius", Type: "number"},
		{Path: "count", Type: "integer"},
		{Path: "ratio", Type: "integer"},
		{Path: "ratio", Type: "number"},
		{Path: "nan", Type: "number"},
		{Path: "ok", Type: "boolean"},
		{Path: "name", Type: "string"},
		{Path: "mode", Type: "enum", Values: []string{"run", "stop"}},
		{Path: "mode", Type: "enum", Values: []string{"a", "b"}},
		{Path: "list", Type: "array"},
		{Path: "obj", Type: "object"},
		{Path: "grid.cells", Type: "array"},
		{Path: "held", Type: "enum", Values: []string{"left", "right"}, Nullable: true},
		{Path: "held", Type: "enum", Values: []string{"left", "right"}},
		{Path: "mode", Type: "enum", Values: []string{"a"}, Nullable: true},
	}
	res := run(t, `
version: 1
probes:
  - name: a
    level: state
    steps:
      - assert: "true"
`, o, Options{Interface: fields, InterfaceFrames: 7})
	require.Equal(t, []string{
		"ball.position: vec3 | pass | ",
		"ball.flat: vec2 | pass | ",
		"ball.flat: vec3 | fail | ball.flat = [1, 2], want vec3 (an array [x, y, z] of 3 numbers)",
		"ball.velocity: vec3 | fail | ball.velocity is missing (no such key: velocity)",
		`ball.radius: number | fail | ball.radius = "big", want number (a finite number)`,
		"count: integer | pass | ",
		"ratio: integer | fail | ratio = 0.5, want integer (a whole number)",
		"ratio: number | pass | ",
		`nan: number | fail | nan = "NaN", want number (a finite number)`,
		"ok: boolean | pass | ",
		"name: string | pass | ",
		"mode: enum | pass | ",
		`mode: enum | fail | mode = "run", want enum (one of "a", "b")`,
		"list: array | pass | ",
		"obj: object | pass | ",
		"grid.cells: array | fail | grid is 7, not an object",
		"held: enum | pass | ",
		`held: enum | fail | held = null, want enum (one of "left", "right")`,
		`mode: enum | fail | mode = "run", want enum or null (one of "a", or null)`,
		"true | pass | ",
	}, messages(res))
	for _, v := range res.Verdicts[:len(fields)] {
		require.Equal(t, InterfaceProbe, v.Probe)
		require.Equal(t, LevelAffordance, v.Level)
	}
	require.Equal(t, []int{7}, o.pages[0].stepped, "the interface probe steps a few frames before reading")
	require.Len(t, o.pages, 2, "a fresh page per probe")
}

// TestInterfaceReadServesTheInterfaceProbe: a state read elsewhere after
// the interface probe's frames at its frame rate is checked without a page
// of the probe's own, and recorded as the probe would have recorded it; one
// read after other frames, or at another frame rate, is not used.
func TestInterfaceReadServesTheInterfaceProbe(t *testing.T) {
	src := `
version: 1
probes:
  - name: a
    level: state
    steps:
      - assert: "true"
`
	fields := []Field{{Path: "n", Type: "integer"}, {Path: "m", Type: "string"}}
	pageState := func(p *fakePage) any { return map[string]any{"n": float64(p.frame), "m": 1.0} }
	read := map[string]any{"n": 5.0, "m": "x"}
	for _, c := range []struct {
		name  string
		read  *InterfaceRead
		pages int
		want  []string
		frame int
	}{
		{"used", &InterfaceRead{Frame: 5, FPS: 60, State: read}, 1,
			[]string{"n: integer | pass | ", "m: string | pass | ", "true | pass | "}, 5},
		{"a page with no state", &InterfaceRead{Frame: 5, FPS: 60}, 1,
			[]string{"n: integer | fail | the page exposes no window.__3D_STATE__", "m: string | fail | the page exposes no window.__3D_STATE__", "true | pass | "}, 5},
		{"other frames", &InterfaceRead{Frame: 30, FPS: 60, State: read}, 2,
			[]string{"n: integer | pass | ", `m: string | fail | m = 1, want string (a string)`, "true | pass | "}, 5},
		{"another frame rate", &InterfaceRead{Frame: 5, FPS: 30, State: read}, 2,
			[]string{"n: integer | pass | ", `m: string | fail | m = 1, want string (a string)`, "true | pass | "}, 5},
	} {
		t.Run(c.name, func(t *testing.T) {
			o := &opener{tweak: func(p *fakePage) { p.stateFn = pageState }}
			res := run(t, src, o, Options{Interface: fields, InterfaceRead: c.read, Record: true})
			require.Equal(t, c.want, messages(res))
			require.Len(t, o.pages, c.pages)
			require.Equal(t, InterfaceProbe, res.Observations[0].Probe)
			require.Equal(t, "state", res.Observations[0].Kind)
			require.Equal(t, c.frame, res.Observations[0].Frame)
		})
	}
}

func TestTargetNotFound(t *testing.T) {
	o := &opener{}
	res := run(t, `
version: 1
probes:
  - name: pause
    level: transition
    steps:
      - assert: "!s.paused"
      - click: {selector: "#missing"}
      - step: 5
      - assert: s.paused
      - assert: s.frame == 5
  - name: next
    level: transition
    steps:
      - click: {selector: "#pause"}
      - step: 5
      - assert: s.paused
      - drag: {from: {at: [1, 1]}, to: {object: ghost}}
      - assert: s.paused
`, o, Options{})
	require.Equal(t, []string{
		"!s.paused | pass | ",
		`s.paused | error | click {selector: "#missing"} (line 7): no element matches "#missing": target not found`,
		`s.frame == 5 | error | click {selector: "#missing"} (line 7): no element matches "#missing": target not found`,
		"s.paused | pass | ",
		`s.paused | error | drag from {at: [1, 1]} to {object: "ghost"} (line 17): no object named "ghost": target not found`,
	}, messages(res))
	require.Equal(t, []int{1}, o.pages[0].stepped, "the settle frame before the first read; steps after a missing target are skipped")
	require.Nil(t, res.Failure)
}

func TestActions(t *testing.T) {
	o := &opener{}
	res := run(t, `
version: 1
probes:
  - name: act
    level: transition
    steps:
      - key: {press: " "}
      - assert: s.paused
      - key: {down: ArrowUp}
      - key: {up: ArrowUp}
      - move: {at: [10, 10]}
      - wheel: {object: ball, dy: 120}
      - type: {selector: "#name", text: hello}
      - click: {world: [0, 1, 0]}
      - step: 3
      - reload: {}
      - assert: "!s.paused && frame == 1"
      - step: 2
      - assert: frame == 3 && approx(t, 3.0 / 60.0, 1e-12) && approx(dt, 1.0 / 60.0, 1e-12) && approx(t - dt, 2.0 / 60.0, 1e-12)
`, o, Options{})
	for _, v := range res.Verdicts {
		require.Equal(t, StatusPass, v.Status, v.Expr+": "+v.Message)
	}
	p := o.pages[0]
	require.Equal(t, 1, p.reloads)
	// Every input and every read after an input comes one frame after the
	// input before it (the settle steps of 1); a press and a click hold 3
	// frames at 60 fps (DefaultHoldMs); a reload needs a frame before the
	// next read.
	require.Equal(t, []string{"Step", "Key", "Step", "Step", "State", "Key", "Step", "Key", "Step", "Move", "Step", "Wheel",
		"Step", "Type", "Step", "Click", "Step", "Step", "Reload", "Step", "State", "Step"}, p.calls[:22])
	require.Equal(t, []int{1, 3, 1, 1, 1, 1, 1, 1, 3, 3, 1, 2}, p.stepped)
}

func TestObservations(t *testing.T) {
	o := &opener{}
	res := run(t, `
version: 1
probes:
  - name: look
    level: state
    steps:
      - assert: object("ball").visible && object("ball").position[1] == s.ball.position[1] && object("ball").color == "#ff0000"
      - assert: colorDist(objectPixel("ball"), "#ff0000") < 1
      - assert: pixel(0, 0).r == 10 && region(0, 0, 10, 10).b == 30
      - assert: dom("#pause").text == "Pause" && !dom("#nothing").exists
      - assert: scene().meshes >= 2
      - assert: objectPixel("hidden").r > 0
      - assert: object("ghost").visible
      - assert: pixel(900, 10).r > 0
`, o, Options{})
	require.Equal(t, []string{
		`object("ball").visible && object("ball").position[1] == s.ball.position[1] && object("ball").color == "#ff0000" | pass | `,
		`colorDist(objectPixel("ball"), "#ff0000") < 1 | pass | `,
		`pixel(0, 0).r == 10 && region(0, 0, 10, 10).b == 30 | pass | `,
		`dom("#pause").text == "Pause" && !dom("#nothing").exists | pass | `,
		`scene().meshes >= 2 | pass | `,
		`objectPixel("hidden").r > 0 | error | objectPixel("hidden"): object "hidden" is off screen: target not found`,
		`object("ghost").visible | error | object("ghost"): no object named "ghost": target not found`,
		`pixel(900, 10).r > 0 | error | pixel(900, 10): point (900, 10) is off the canvas: target not found`,
	}, messages(res))
	// object("ball") is read once per evaluation however often it is named.
	n := 0
	for _, c := range o.pages[0].calls {
		if c == "Object" {
			n++
		}
	}
	require.Equal(t, 4, n, "1 for the first assertion, 1 for objectPixel, 1 each for hidden and ghost")
	require.True(t, res.Verdicts[0].Observes)
	require.False(t, res.Verdicts[4].Observes, "scene() is not an observation for attribution")
}

func TestFrameBudgetAndWait(t *testing.T) {
	src := `
version: 1
probes:
  - name: a
    level: state
    fps: 30
    setup:
      - step: 1
    steps:
      - wait: 100
      - wait: 1000
      - wait: 1
      - step: 2
      - assert: frame == 37
`
	o := &opener{}
	res := run(t, src, o, Options{FrameBudget: 37})
	require.Equal(t, StatusPass, res.Verdicts[0].Status, res.Verdicts[0].Message)
	require.Equal(t, []int{1, 3, 30, 1, 2}, o.pages[0].stepped)
	require.Equal(t, 30.0, o.pages[0].fps, "the probe's fps")

	_, err := Run(context.Background(), mustParse(t, src), (&opener{}).open, nil, Options{FPS: 60, FrameBudget: 36})
	require.EqualError(t, err, "contract.yaml:3: probe a steps 37 frames, more than the task's frame budget of 36")

	_, err = Run(context.Background(), mustParse(t, src), (&opener{}).open, nil, Options{})
	require.EqualError(t, err, "contract.Run: Options.FPS must be > 0")
}

func TestTrace(t *testing.T) {
	o := &opener{}
	res := run(t, `
version: 1
probes:
  - name: a
    level: state
    steps:
      - step: 1
      - trace: {name: fall, frames: 7, every: 3}
      - assert: trace.fall.map(x, x.frame) == [1, 4, 7, 8]
      - assert: size(trace.fall) == 4 && nonincreasing(trace.fall.map(x, x.ball.position[1]))
      - assert: trace.fall.all(x, x.ball.position[1] < 10)
`, o, Options{FrameBudget: 8})
	for _, v := range res.Verdicts {
		require.Equal(t, StatusPass, v.Status, v.Expr+": "+v.Message)
	}
	require.Equal(t, []int{1, 3, 3, 1}, o.pages[0].stepped)
}

func TestSetupPrecondition(t *testing.T) {
	o := &opener{}
	res := run(t, `
version: 1
probes:
  - name: a
    level: state
    setup:
      - assert: s.paused
      - step: 5
    steps:
      - assert: s.frame == 5
`, o, Options{})
	require.Equal(t, []string{
		"s.frame == 5 | error | setup assertion at line 6 did not pass: s.paused is false",
	}, messages(res))
	require.Equal(t, []int{1}, o.pages[0].stepped, "only the settle frame before the setup assertion")
}

var errCrashed = errors.New("the page's renderer crashed")

func TestPageFailure(t *testing.T) {
	src := `
version: 1
probes:
  - name: first
    level: state
    steps:
      - assert: s.frame == 1
      - step: 10
      - assert: s.frame == 11
  - name: second
    level: invariant
    steps:
      - assert: s.ok
`
	o := &opener{tweak: func(p *fakePage) { p.fail["Step"] = fmt.Errorf("stepping: %w", errCrashed) }}
	res := run(t, src, o, Options{Interface: []Field{{Path: "mode", Type: "string"}}})
	require.NotNil(t, res.Failure)
	require.Equal(t, &PageFailure{Probe: InterfaceProbe, Step: "step 5", Message: "stepping: the page's renderer crashed",
		Err: res.Failure.Err}, res.Failure)
	require.ErrorIs(t, res.Failure, errCrashed)
	notRun := "not run: the page failed in probe interface (stepping: the page's renderer crashed)"
	require.Equal(t, []string{
		"mode: string | error | " + notRun,
		"s.frame == 1 | error | " + notRun,
		"s.frame == 11 | error | " + notRun,
		"s.ok | error | " + notRun,
	}, messages(res))
	require.Len(t, o.pages, 1, "no page is opened after a failure")

	// Failing mid-probe keeps the verdicts so far.
	o = &opener{tweak: func(p *fakePage) { p.failStep = func(n int) error { return errIf(n == 10, errCrashed) } }}
	res = run(t, src, o, Options{})
	require.Equal(t, "first", res.Failure.Probe)
	require.Equal(t, "step 10", res.Failure.Step)
	require.Equal(t, 7, res.Failure.Line)
	require.Equal(t, StatusPass, res.Verdicts[0].Status)
	require.Equal(t, []Status{StatusPass, StatusError, StatusError}, []Status{res.Verdicts[0].Status, res.Verdicts[1].Status, res.Verdicts[2].Status})

	// An observation that fails for another reason than a missing target is a page failure.
	o = &opener{tweak: func(p *fakePage) { p.fail["Object"] = errCrashed }}
	res = run(t, `
version: 1
probes:
  - name: look
    level: state
    steps:
      - assert: object("ball").visible
`, o, Options{})
	require.Equal(t, "assert", res.Failure.Step)
	require.Equal(t, StatusError, res.Verdicts[0].Status)

	// So is an opener error.
	o = &opener{err: errCrashed}
	res = run(t, src, o, Options{})
	require.Equal(t, "open", res.Failure.Step)
	require.Len(t, res.Verdicts, 3)
}

func TestInfrastructureErrors(t *testing.T) {
	src := `
version: 1
probes:
  - name: a
    level: state
    steps:
      - step: 1
      - assert: s.frame == 1
`
	c := mustParse(t, src)
	browserGone := errors.New("browser went away")
	o := &opener{tweak: func(p *fakePage) { p.fail["Step"] = Infra(browserGone) }}
	res, err := Run(context.Background(), c, o.open, nil, Options{FPS: 60})
	require.ErrorIs(t, err, browserGone)
	require.True(t, IsInfra(err))
	require.EqualError(t, err, "probe a: step 1: browser went away")
	require.Nil(t, res.Failure)

	o = &opener{err: Infra(browserGone)}
	_, err = Run(context.Background(), c, o.open, nil, Options{FPS: 60})
	require.ErrorIs(t, err, browserGone)

	ctx, cancel := context.WithCancel(context.Background())
	o = &opener{tweak: func(p *fakePage) { cancel(); p.fail["Step"] = context.Canceled }}
	res, err = Run(ctx, c, o.open, nil, Options{FPS: 60})
	require.ErrorIs(t, err, context.Canceled)
	require.Nil(t, res.Failure, "a cancelled run is not the page's fault")
	require.False(t, IsInfra(nil))
	require.Nil(t, Infra(nil))
}

func TestCostLimit(t *testing.T) {
	o := &opener{}
	res := run(t, `
version: 1
probes:
  - name: a
    level: state
    steps:
      - assert: "[1,2,3,4,5,6,7,8,9,10].all(a, [1,2,3,4,5,6,7,8,9,10].all(b, [1,2,3,4,5,6,7,8,9,10].all(c, [1,2,3,4,5,6,7,8,9,10].all(d, [1,2,3,4,5,6,7,8,9,10].all(e, [1,2,3,4,5,6,7,8,9,10].all(f, [1,2,3,4,5,6,7,8,9,10].all(g, a + b + c + d + e + f + g > 0)))))))"
`, o, Options{})
	require.Equal(t, StatusError, res.Verdicts[0].Status)
	require.Equal(t, "evaluation cost limit exceeded", res.Verdicts[0].Message)
}

// Cancelling the run while an assertion evaluates interrupts it and is
// reported as an infrastructure error, never as a verdict.
func TestCancelDuringEvaluation(t *testing.T) {
	c := mustParse(t, `
version: 1
probes:
  - name: a
    level: state
    steps:
      - assert: s.frame == 0 && [1,2,3,4,5,6,7,8,9,10].all(a, [1,2,3,4,5,6,7,8,9,10].all(b, a + b > 0))
`)
	ctx, cancel := context.WithCancel(context.Background())
	o := &opener{tweak: func(p *fakePage) {
		p.stateFn = func(p *fakePage) any { cancel(); return map[string]any{"frame": 0.0} }
	}}
	res, err := Run(ctx, c, o.open, nil, Options{FPS: 60})
	require.ErrorIs(t, err, context.Canceled)
	require.Empty(t, res.Verdicts)
	require.Nil(t, res.Failure)
}

// A contract is read-only once loaded: trials may share it.
func TestConcurrentRuns(t *testing.T) {
	c := mustParse(t, `
version: 1
probes:
  - name: a
    level: state
    steps:
      - snapshot: before
      - trace: {name: fall, frames: 20, every: 5}
      - assert: s.ball.position[1] < before.ball.position[1] && nonincreasing(trace.fall.map(x, x.ball.position[1]))
      - assert: object("ball").visible && s.ball.position[1] > 100
`)
	done := make(chan Result, 8)
	for range 8 {
		go func() {
			res, err := Run(context.Background(), c, (&opener{}).open, nil, Options{FPS: 60, Interface: []Field{{Path: "mode", Type: "string"}}})
			if err != nil {
				panic(err)
			}
			done <- res
		}()
	}
	for range 8 {
		res := <-done
		require.Equal(t, []string{
			"mode: string | pass | ",
			"s.ball.position[1] < before.ball.position[1] && nonincreasing(trace.fall.map(x, x.ball.position[1])) | pass | ",
			`object("ball").visible && s.ball.position[1] > 100 | fail | s.ball.position[1] = 9.358333333, want > 100`,
		}, messages(res))
	}
}

func TestStopAtFirstFailure(t *testing.T) {
	src := `
version: 1
probes:
  - name: first
    level: state
    steps:
      - step: 30
      - assert: s.frame == 30
      - assert: s.frame == 31
      - assert: s.frame == 30
  - name: second
    level: state
    steps:
      - assert: s.frame == 1
`
	res := run(t, src, &opener{}, Options{StopAtFirstFailure: true})
	require.Equal(t, []string{
		"s.frame == 30 | pass | ",
		"s.frame == 31 | fail | s.frame = 30, want == 31",
		"s.frame == 30 | error | not run: stopped at the first failure (probe first, line 8)",
		"s.frame == 1 | error | not run: stopped at the first failure (probe first, line 8)",
	}, messages(res))
	// Without the option every assertion runs.
	res = run(t, src, &opener{}, Options{})
	require.Equal(t, []Status{StatusPass, StatusFail, StatusPass, StatusPass},
		[]Status{res.Verdicts[0].Status, res.Verdicts[1].Status, res.Verdicts[2].Status, res.Verdicts[3].Status})
}

func TestRecordAndFingerprint(t *testing.T) {
	src := `
version: 1
probes:
  - name: falls
    level: state
    steps:
      - snapshot: before
      - trace: {name: arc, frames: 4, every: 2}
      - assert: s.frame == 5
`
	res := run(t, src, &opener{}, Options{})
	require.Empty(t, res.Observations, "nothing is recorded unless asked")

	res = run(t, src, &opener{}, Options{Record: true})
	var got []string
	for _, o := range res.Observations {
		got = append(got, fmt.Sprintf("%s %s %s line %d frame %d", o.Probe, o.Kind, o.Name, o.Line, o.Frame))
		require.NotNil(t, o.State)
	}
	require.Equal(t, []string{
		"falls snapshot before line 6 frame 1",
		"falls trace arc line 7 frame 1",
		"falls trace arc line 7 frame 3",
		"falls trace arc line 7 frame 5",
		"falls assert  line 8 frame 5",
	}, got, "the first read of a fresh page comes after one frame")

	res = run(t, src, &opener{}, Options{Fingerprint: true})
	last := res.Observations[len(res.Observations)-1]
	require.Equal(t, "end", last.Kind)
	require.Equal(t, 5, last.Frame)
	require.NotEmpty(t, last.Scene, "the fingerprint holds the scene summary")
}

// TestOnlyFramesBeforeAPixelReadAreDrawn: every Step call leaves its last
// frame undrawn unless a pixel read follows it before the next frame (the
// settle frame before a pixel read, the last frame of a wait, step or
// trace before one, the end of a fingerprinted probe), and the pixel reads
// all see a drawn frame.
func TestOnlyFramesBeforeAPixelReadAreDrawn(t *testing.T) {
	src := `
version: 1
probes:
  - name: state_only
    level: state
    steps:
      - wait: 100
      - assert: s.ball.position[1] < 10
      - trace: {name: fall, frames: 6, every: 2}
      - click: {object: ball}
      - assert: s.ball.position[1] < 10
  - name: pixels
    level: state
    steps:
      - assert: s.ball.position[1] < 10
      - assert: pixel(0, 0).r == 10
      - step: 3
      - assert: frame == 4
      - assert: region(0, 0, 10, 10).b == 30
      - trace: {name: fall, frames: 4, every: 2}
      - assert: colorDist(objectPixel("ball"), "#ff0000") < 1
      - click: {object: ball}
      - step: 2
      - assert: pixel(0, 0).r == 10
`
	o := &opener{}
	res := run(t, src, o, Options{})
	for _, v := range res.Verdicts {
		require.Equal(t, StatusPass, v.Status, v.Expr+": "+v.Message)
	}
	// The interface probe is not run here: two pages, one per probe.
	require.Len(t, o.pages, 2)
	// state_only: wait 6, trace 2+2+2, the click's 3 held frames (the fake
	// page steps them itself), settle 1 after the click: the engine draws none.
	require.Equal(t, []int{6, 2, 2, 2, 3, 1}, o.pages[0].stepped)
	require.Equal(t, []bool{true, true, true, true, false, true}, o.pages[0].undrawn)
	// pixels: settle 1 (drawn: the pixel read follows the state read), step
	// 3 (drawn: region after an assertion on the clock), trace 2, 2 (the
	// last drawn for objectPixel), the click's 3, step 2 (drawn; a step
	// after an input needs no settle frame).
	require.Equal(t, []int{1, 3, 2, 2, 3, 2}, o.pages[1].stepped)
	require.Equal(t, []bool{false, false, true, false, false, false}, o.pages[1].undrawn)

	// Fingerprinting reads the pixels at the end of every probe, so each
	// probe's last frame is drawn (the fake page digests no pixels, so a
	// page that does is made here).
	o = &opener{}
	res, err := Run(context.Background(), mustParse(t, src), func(ctx context.Context, fps float64) (Page, error) {
		p, err := o.open(ctx, fps)
		return digestingPage{p.(*fakePage)}, err
	}, nil, Options{FPS: 60, Fingerprint: true})
	require.NoError(t, err)
	for _, v := range res.Verdicts {
		require.Equal(t, StatusPass, v.Status, v.Expr+": "+v.Message)
	}
	require.Equal(t, []bool{true, true, true, true, false, false}, o.pages[0].undrawn, "the settle frame after the click ends the probe")
	require.Equal(t, []bool{false, false, true, false, false, false}, o.pages[1].undrawn)
}

// digestingPage is a fake page that digests its pixels.
type digestingPage struct{ *fakePage }

func (p digestingPage) PixelDigest(ctx context.Context) (string, error) {
	if err := p.canvas(); err != nil {
		return "", err
	}
	return fmt.Sprintf("frame-%d", p.frame), nil
}
