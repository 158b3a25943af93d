package contract

import (
	"context"
	"math"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/worldprobe/worldprobe/internal/contract/contracttest/world"
)

// xrOpener hands out fake pages of the XR conformance world, with the
// box "target" of that world as a scene object.
func xrOpener() *opener {
	return &opener{tweak: func(p *fakePage) {
		p.xr = newFakeXR()
		p.objects["target"] = map[string]any{"name": "target", "position": []any{world.XRTarget[0], world.XRTarget[1], world.XRTarget[2]}, "visible": true, "color": "#ff0000"}
	}}
}

func requireNear(t *testing.T, want, got []float64, what string) {
	t.Helper()
	require.Len(t, got, len(want), what)
	for i := range want {
		require.InDelta(t, want[i], got[i], 1e-9, "%s: %v", what, got)
	}
}

// The XR steps drive the headset as documented: every assertion below
// reads what the XR world's page would read on the next frame.
func TestXRSteps(t *testing.T) {
	o := xrOpener()
	res := run(t, `
version: 1
hold: 50
probes:
  - name: controller
    level: transition
    steps:
      - controller: {hand: right, position: [0.3, 1.1, -0.5], trigger: 1, thumbstick: [0.5, -1], buttons: {a: 1}}
      - assert: s.mode == "controller" && s.right.ray == [0.3, 1.1, -0.5] && s.right.selecting && s.right.a == 1.0
      - assert: s.right.thumbstick == [0.5, -1.0] && s.right.trigger == 1.0
      - controller: {hand: right, trigger: 0}
      - assert: "!s.right.selecting && s.right.selects == 1.0"
  - name: select_on_a_hand
    level: transition
    steps:
      - gesture: {hand: left, pose: fist}
      - startSelect: {hand: left}
      - assert: s.mode == "hand" && s.left.selecting
      - endSelect: {hand: left}
      - assert: "!s.left.selecting && s.left.selects == 1.0"
  - name: locomotion
    level: transition
    steps:
      - teleportTo: [1, 1.6, -2]
      - assert: s.head == [1.0, 1.6, -2.0] && s.right.ray == [1.25, 1.5, -2.4]
      - rotate: {yaw: 90}
      - walk: {forward: 1, right: 0.5, up: 0.1}
      - assert: s.head == [0.0, 1.7, -2.5] && s.right.dir == [-1.0, 0.0, 0.0]
  - name: aim
    level: transition
    steps:
      - lookAtTarget: {object: target}
      - pointTo: {hand: right, world: [0.25, 2.5, -0.4]}
      - assert: s.right.dir == [0.0, 1.0, 0.0]
      - reachTo: {hand: left, object: target}
      - rayClick: {hand: right, object: target}
      - assert: s.right.selects == 1.0 && !s.right.selecting
      - rayClick: {hand: right}
      - assert: s.right.selects == 2.0 && !s.right.selecting
`, o, Options{})
	for _, m := range messages(res) {
		require.True(t, strings.Contains(m, "| pass |"), m)
	}
	require.Len(t, res.Verdicts, 10)

	aim := o.pages[3].xr
	// The head at (0, 1.6, 0) looks at the box at (0, 1.2, -1): no yaw,
	// pitched down by atan(0.4).
	pitch := -math.Atan(0.4)
	requireNear(t, []float64{math.Sin(pitch / 2), 0, 0, math.Cos(pitch / 2)}, aim.poses["head"].q, "the head looks down at the box")
	// The left controller's grip is on the box, the controller not turned.
	grip := world.XRGripOffset
	requireNear(t, []float64{world.XRTarget[0] + grip[0], world.XRTarget[1] - grip[1], world.XRTarget[2] - grip[2]}, aim.poses["left-controller"].p, "the left grip on the box")
	// The ray click pointed the right controller at the box: its -z, turned
	// by its orientation, is the direction to the box.
	r := aim.poses["right-controller"]
	d := rotate(r.q, []float64{0, 0, -1})
	to := []float64{world.XRTarget[0] - r.p[0], world.XRTarget[1] - r.p[1], world.XRTarget[2] - r.p[2]}
	n := math.Sqrt(to[0]*to[0] + to[1]*to[1] + to[2]*to[2])
	requireNear(t, []float64{to[0] / n, to[1] / n, to[2] / n}, d, "the right ray aims at the box")
	// A settle frame before each step that follows input (the load
	// included) and before each assertion, none before reachTo or the
	// second ray click (an assert settled the page), and each ray click's
	// hold with the trigger down (50 ms at 60 fps: 3 frames).
	require.Equal(t, []int{1, 1, 1, 1, 3, 1, 3, 1}, o.pages[3].stepped)
}

// An XR step on a page without a headset stops the run naming the fix; a
// target object that is not there fails the probe's later assertions; a
// button or gesture the headset lacks too.
func TestXRStepErrors(t *testing.T) {
	c := mustParse(t, `
version: 1
probes:
  - name: a
    level: state
    steps:
      - controller: {hand: left, trigger: 1}
      - assert: s.frame == 1
`)
	_, err := Run(context.Background(), c, (&opener{}).open, nil, Options{FPS: 60})
	require.True(t, IsInfra(err))
	require.EqualError(t, err, "probe a: controller left trigger 1: the page has no XR headset: set xr: in the task's task.yaml (docs/xr.md)")

	hidden := &opener{tweak: func(p *fakePage) { p.xr = newFakeXR() }}
	_, err = Run(context.Background(), c, func(ctx context.Context, fps float64) (Page, error) {
		p, err := hidden.open(ctx, fps)
		return struct{ Page }{p}, err // the Page methods only
	}, nil, Options{FPS: 60})
	require.True(t, IsInfra(err))
	require.ErrorIs(t, err, ErrUnsupported)
	require.Contains(t, err.Error(), "probe a: controller left trigger 1: an XR headset (task.yaml xr:): the page does not offer this")

	res := run(t, `
version: 1
probes:
  - name: ghost
    level: state
    steps:
      - pointTo: {hand: right, object: ghost}
      - assert: s.frames == 1.0
  - name: at_itself
    level: state
    steps:
      - lookAtTarget: {world: [0, 1.6, 0]}
      - assert: s.frames == 1.0
`, xrOpener(), Options{})
	require.Equal(t, []string{
		`s.frames == 1.0 | error | pointTo right {object: "ghost"} (line 6): no object named "ghost": target not found`,
		`s.frames == 1.0 | error | lookAtTarget {world: [0, 1.6, 0]} (line 11): the head is at {world: [0, 1.6, 0]} itself: no direction to face: target not found`,
	}, messages(res))
}

// lookRotation turns -z towards a direction with no roll.
func TestLookRotation(t *testing.T) {
	for _, d := range [][]float64{{0, 0, -1}, {-1, 0, 0}, {1, 0, 0}, {0, 0, 1}, {1, 1, -1}, {0.3, -2, 0.1}, {0, 1, 0}, {0, -3, 0}} {
		q, ok := lookRotation(d)
		require.True(t, ok)
		n := math.Sqrt(d[0]*d[0] + d[1]*d[1] + d[2]*d[2])
		requireNear(t, []float64{d[0] / n, d[1] / n, d[2] / n}, rotate(q, []float64{0, 0, -1}), "forward")
		if d[0] != 0 || d[2] != 0 {
			require.InDelta(t, 0, rotate(q, []float64{1, 0, 0})[1], 1e-12, "no roll: the right stays level for %v", d)
		}
	}
	_, ok := lookRotation([]float64{0, 0, 0})
	require.False(t, ok)
	require.InDelta(t, math.Pi/2, headingOf(yawQuat(math.Pi/2)), 1e-12)
}

// Every XR step reports its mistakes with their line.
func TestXRStepParseErrors(t *testing.T) {
	for _, c := range []struct{ step, want string }{
		{"controller: {hand: middle, trigger: 1}", `contract.yaml:6: probe a: steps: controller: hand "middle": want left or right`},
		{"controller: {hand: right, trigger: 2, thumbstick: [0, 3], buttons: {x: 1}}", "contract.yaml:6: probe a: steps: controller: trigger 2: want a value in [0, 1]\n" +
			"contract.yaml:6: probe a: steps: controller: thumbstick [0, 3]: want x and y in [-1, 1]\n" +
			`contract.yaml:6: probe a: steps: controller: buttons: unknown field "x" (want one of a, b, thumbrest, thumbstick)`},
		{"controller: {hand: left, buttons: {x: 0.5}}", "contract.yaml:6: probe a: steps: controller: buttons: x 0.5: want 1 (pressed) or 0 (released)"},
		{"controller: {hand: left}", "contract.yaml:6: probe a: steps: controller: want position, trigger, squeeze, thumbstick or buttons"},
		{"gesture: {hand: left, pose: wave}", `contract.yaml:6: probe a: steps: gesture: pose "wave": want one of default, point, pinch, fist, thumbs-up, open-palm, palm-up`},
		{"gesture: {hand: left}", "contract.yaml:6: probe a: steps: gesture: want pose (one of default, point, pinch, fist, thumbs-up, open-palm, palm-up)"},
		{"startSelect: {}", "contract.yaml:6: probe a: steps: startSelect: want hand (left or right)"},
		{"endSelect: {hand: up}", `contract.yaml:6: probe a: steps: endSelect: hand "up": want left or right`},
		{"teleportTo: [1, 2]", "contract.yaml:6: probe a: steps: teleportTo: want a list of 3 numbers"},
		{"walk: {}", "contract.yaml:6: probe a: steps: walk: want forward, right or up"},
		{"rotate: {}", "contract.yaml:6: probe a: steps: rotate: want yaw (degrees)"},
		{"lookAtTarget: {at: [1, 2]}", `contract.yaml:6: probe a: steps: lookAtTarget: unknown field "at" (want one of world, object, tag, joint)` + "\n" +
			"contract.yaml:6: probe a: steps: lookAtTarget: want one target: {world: [x, y, z]}, {object: name}, {tag: name} or {joint: {hand, name}}"},
		{"pointTo: {hand: right}", "contract.yaml:6: probe a: steps: pointTo: want one target: {world: [x, y, z]}, {object: name}, {tag: name} or {joint: {hand, name}}"},
		{"reachTo: {hand: right, world: [0, 1, 0], object: cube}", "contract.yaml:6: probe a: steps: reachTo: want one target: {world: [x, y, z]}, {object: name}, {tag: name} or {joint: {hand, name}}"},
		{"rayClick: {object: cube}", "contract.yaml:6: probe a: steps: rayClick: want hand (left or right)"},
	} {
		_, err := Parse("contract.yaml", []byte("version: 1\nprobes:\n  - name: a\n    level: state\n    steps:\n      - "+c.step+"\n      - assert: 'true'\n"))
		require.EqualError(t, err, c.want, c.step)
	}
}

// moveHand moves the active input in the head's yaw frame; rotateHand
// turns it in its own frame.
func TestXRHandMoves(t *testing.T) {
	o := xrOpener()
	res := run(t, `
version: 1
probes:
  - name: hand
    level: transition
    steps:
      - rotate: {yaw: 90}
      - assert: s.right.ray == [-0.4, 1.5, -0.25]
      - moveHand: {hand: right, forward: 0.1, up: -0.05}
      - assert: s.right.ray == [-0.5, 1.45, -0.25] && s.right.dir == [-1.0, 0.0, 0.0]
      - rotateHand: {hand: right, pitch: 90}
      - assert: s.right.ray == [-0.5, 1.45, -0.25] && s.right.dir == [0.0, 1.0, 0.0]
      - rotateHand: {hand: right, pitch: -90}
      - assert: s.right.dir == [-1.0, 0.0, 0.0]
      - rotateHand: {hand: right, yaw: 90, roll: 30}
      - assert: s.right.dir == [0.0, 0.0, 1.0]
      - gesture: {hand: left, pose: fist}
      - moveHand: {hand: left, right: 0.2}
      - assert: s.mode == "hand" && s.left.ray == [-0.4, 1.5, 0.05]
`, o, Options{})
	for _, m := range messages(res) {
		require.True(t, strings.Contains(m, "| pass |"), m)
	}
	require.Len(t, res.Verdicts, 6)
}
