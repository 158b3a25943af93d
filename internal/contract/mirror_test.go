package contract

import (
	"fmt"
	"math"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/worldprobe/worldprobe/internal/target"
)

// hands: mirror makes two runs of a probe, NAME[HAND], and mirrors every
// XR step kind exactly: hands swapped, x negated, orientations [x, -y, -z, w],
// yaw and roll reversed, pitch kept, a thumbstick's x negated, a and b
// swapped with x and y; other steps are unchanged.
func TestHandsMirrorSteps(t *testing.T) {
	c := mustParse(t, `
version: 1
probes:
  - name: all
    level: transition
    hands: mirror
    setup:
      - head: {position: [0.1, 1.6, 0.2], orientation: [0.1, 0.2, 0.3, 0.9]}
    steps:
      - step: 2
      - hand: {hand: left, position: [-0.2, 1.3, -0.4], orientation: [0.5, 0.5, -0.5, 0.5], pinch: 1}
      - controller: {hand: left, position: [0.3, 1.1, -0.5], trigger: 1, squeeze: 0.5, thumbstick: [0.5, -1], buttons: {x: 1, y: 0, thumbstick: 1}}
      - controller: {hand: right, buttons: {a: 1, b: 1, thumbrest: 0}}
      - gesture: {hand: right, pose: thumbs-up}
      - startSelect: {hand: left}
      - endSelect: {hand: right}
      - teleportTo: [1, 1.6, -2]
      - walk: {forward: 1, right: 0.5, up: 0.1}
      - rotate: {yaw: 90}
      - lookAtTarget: {world: [0.3, 1.2, -1]}
      - lookAtTarget: {object: cube}
      - pointTo: {hand: right, world: [-0.25, 2.5, -0.4]}
      - reachTo: {hand: left, object: cube}
      - rayClick: {hand: right, world: [2, 0, 1]}
      - rayClick: {hand: left}
      - moveHand: {hand: right, forward: 0.1, right: -0.2, up: -0.05}
      - rotateHand: {hand: left, yaw: 30, pitch: 45, roll: -60}
      - assert: s.frames > 0.0
`)
	require.Len(t, c.Probes, 2)
	asWritten, mirrored := c.Probes[0], c.Probes[1]
	require.Equal(t, []string{"all[left]", "all[right]"}, []string{asWritten.Name, mirrored.Name})
	require.Equal(t, []string{"all", "all"}, []string{asWritten.Base, mirrored.Base})
	require.Equal(t, []string{"left", "right"}, []string{asWritten.Hand, mirrored.Hand})
	require.Equal(t, []float64{1, -1}, []float64{asWritten.Mirror, mirrored.Mirror})
	require.Equal(t, asWritten.Line, mirrored.Line)

	require.Equal(t, []Action{&HeadStep{Position: []float64{-0.1, 1.6, 0.2}, Orientation: []float64{0.1, -0.2, -0.3, 0.9}}},
		[]Action{mirrored.Setup[0].Action})
	one := 1.0
	world := func(x, y, z float64) Target { return target.Set(target.KindWorld, "", []float64{x, y, z}) }
	want := []Action{
		asWritten.Steps[0].Action, // step: the same value, shared
		&HandStep{Hand: "right", Position: []float64{0.2, 1.3, -0.4}, Orientation: []float64{0.5, -0.5, 0.5, 0.5}, Pinch: &one},
		&ControllerStep{Hand: "right", Position: []float64{-0.3, 1.1, -0.5}, Orientation: nil,
			Buttons:    map[string]float64{"trigger": 1, "squeeze": 0.5, "a-button": 1, "b-button": 0, "thumbstick": 1},
			Thumbstick: []float64{-0.5, -1}},
		&ControllerStep{Hand: "left", Buttons: map[string]float64{"x-button": 1, "y-button": 1, "thumbrest": 0}},
		&GestureStep{Hand: "left", Pose: "thumbs-up"},
		&StartSelectStep{Hand: "right"},
		&EndSelectStep{Hand: "left"},
		&TeleportToStep{Point: []float64{-1, 1.6, -2}},
		&WalkStep{Forward: 1, Right: -0.5, Up: 0.1},
		&RotateStep{Yaw: -90},
		&LookAtTargetStep{Target: world(-0.3, 1.2, -1)},
		&LookAtTargetStep{Target: target.Set(target.KindObject, "cube", nil)},
		&PointToStep{Hand: "left", Target: world(0.25, 2.5, -0.4)},
		&ReachToStep{Hand: "right", Target: target.Set(target.KindObject, "cube", nil)},
		&RayClickStep{Hand: "left", Target: world(-2, 0, 1)},
		&RayClickStep{Hand: "right"},
		&MoveHandStep{Hand: "left", Forward: 0.1, Right: 0.2, Up: -0.05},
		&RotateHandStep{Hand: "right", Yaw: -30, Pitch: 45, Roll: 60},
	}
	require.Len(t, mirrored.Steps, len(want)+1)
	for i, w := range want {
		require.Equal(t, w, mirrored.Steps[i].Action, "step %d (%s)", i, mirrored.Steps[i].Kind)
		require.Equal(t, asWritten.Steps[i].Line, mirrored.Steps[i].Line)
		require.Equal(t, asWritten.Steps[i].Kind, mirrored.Steps[i].Kind)
	}
	// The steps as written are untouched.
	require.Equal(t, &HandStep{Hand: "left", Position: []float64{-0.2, 1.3, -0.4}, Orientation: []float64{0.5, 0.5, -0.5, 0.5}, Pinch: &one}, asWritten.Steps[1].Action)
	require.Equal(t, &RotateHandStep{Hand: "left", Yaw: 30, Pitch: 45, Roll: -60}, asWritten.Steps[17].Action)
	// Each run compiles its own assertion.
	a, b := asWritten.Assertions(), mirrored.Assertions()
	require.Len(t, a, 1)
	require.Len(t, b, 1)
	require.NotSame(t, a[0], b[0])
	require.Equal(t, a[0].Expr, b[0].Expr)
	require.Equal(t, a[0].Line, b[0].Line)
}

// Both runs go against the fake headset: the assertions see hand and
// mirror, every device ends where the other run's mirror image of it is,
// and an assertion true on one side only fails that run alone.
func TestHandsMirrorRuns(t *testing.T) {
	o := xrOpener()
	res := run(t, `
version: 1
probes:
  - name: reach
    level: transition
    hands: mirror
    steps:
      - controller: {hand: right, position: [0.3, 1.1, -0.5], trigger: 1, thumbstick: [0.5, -1], buttons: {a: 1}}
      - assert: 'hand == "right" ? s.right.a == 1.0 : s.left.a == 0.0'
      - assert: s[hand].ray == [mirror * 0.3, 1.1, -0.5] && s[hand].selecting && s[hand].thumbstick == [mirror * 0.5, -1.0]
      - rotate: {yaw: 90}
      - walk: {forward: 1, right: 0.5, up: 0.1}
      - assert: s.head == [mirror * -1.0, 1.7, -0.5] && s[hand].dir == [mirror * -1.0, 0.0, 0.0]
      - moveHand: {hand: right, forward: 0.1, right: 0.2}
      - rotateHand: {hand: right, yaw: 30, pitch: 20, roll: 40}
      - pointTo: {hand: left, world: [0.5, 2.5, -0.4]}
      - reachTo: {hand: left, object: target}
      - assert: s.right.selecting
        message: true with the right hand only
`, o, Options{})
	require.Equal(t, []string{
		`hand == "right" ? s.right.a == 1.0 : s.left.a == 0.0 | pass | `,
		`s[hand].ray == [mirror * 0.3, 1.1, -0.5] && s[hand].selecting && s[hand].thumbstick == [mirror * 0.5, -1.0] | pass | `,
		`s.head == [mirror * -1.0, 1.7, -0.5] && s[hand].dir == [mirror * -1.0, 0.0, 0.0] | pass | `,
		`s.right.selecting | pass | `,
		`hand == "right" ? s.right.a == 1.0 : s.left.a == 0.0 | pass | `,
		`s[hand].ray == [mirror * 0.3, 1.1, -0.5] && s[hand].selecting && s[hand].thumbstick == [mirror * 0.5, -1.0] | pass | `,
		`s.head == [mirror * -1.0, 1.7, -0.5] && s[hand].dir == [mirror * -1.0, 0.0, 0.0] | pass | `,
		`s.right.selecting | fail | true with the right hand only: s.right.selecting is false`,
	}, messages(res))
	var probes []string
	for _, v := range res.Verdicts {
		probes = append(probes, v.Probe)
	}
	require.Equal(t, []string{"reach[right]", "reach[right]", "reach[right]", "reach[right]", "reach[left]", "reach[left]", "reach[left]", "reach[left]"}, probes)

	require.Len(t, o.pages, 2)
	right, left := o.pages[0].xr, o.pages[1].xr
	swap := map[string]string{"head": "head", "left": "right", "right": "left", "left-controller": "right-controller", "right-controller": "left-controller"}
	for dev, other := range swap {
		p, q := right.poses[dev], left.poses[other]
		requireNear(t, []float64{-p.p[0], p.p[1], p.p[2]}, q.p, fmt.Sprintf("%s mirrored is %s", dev, other))
		requireNear(t, []float64{p.q[0], -p.q[1], -p.q[2], p.q[3]}, q.q, fmt.Sprintf("%s's orientation mirrored is %s's", dev, other))
	}
	// The runs did move and turn the devices: the mirror is not trivial.
	require.Greater(t, math.Abs(right.poses["right-controller"].q[1]), 0.1)
	require.Greater(t, math.Abs(right.poses["left-controller"].q[0]), 0.1)
	require.Equal(t, 1.0, right.value["right-controller"]["a-button"])
	require.Equal(t, 1.0, left.value["left-controller"]["x-button"])
	require.Equal(t, []float64{-0.5, -1}, left.thumbstick["left"])
}

// hands: says its mistakes with their lines; hand and mirror exist only in
// probes declared with hands: mirror.
func TestHandsMirrorParseErrors(t *testing.T) {
	for _, c := range []struct{ probe, want string }{
		{"hands: both\n    steps:\n      - hand: {hand: right, pinch: 1}\n      - assert: 'true'",
			`contract.yaml:5: probe a: hands "both": want mirror (the probe as written and mirrored, left and right swapped)`},
		{"hands: mirror\n    steps:\n      - walk: {right: 1}\n      - assert: 'true'",
			"contract.yaml:3: probe a: hands: mirror needs an XR step that names a hand (hand, controller, gesture, startSelect, …); this probe has none"},
		{"hands: mirror\n    steps:\n      - hand: {hand: right, pinch: 1}\n      - snapshot: mirror\n      - assert: 'true'",
			`contract.yaml:8: probe a: snapshot "mirror": with hands: mirror, hand and mirror are the probe's hand and side`},
		{"steps:\n      - hand: {hand: right, pinch: 1}\n      - assert: s.held == hand",
			"contract.yaml:7: probe a: assert: 1:11: undeclared reference to 'hand'\n | s.held == hand\n | ..........^"},
		{"hands: mirror\n    steps:\n      - hand: {hand: right, pinch: 1}\n      - assert: s.x == mirror * 1",
			"contract.yaml:8: probe a: assert: 1:15: found no matching overload for '_*_' applied to '(double, int)'\n | s.x == mirror * 1\n | ..............^"},
	} {
		_, err := Parse("contract.yaml", []byte("version: 1\nprobes:\n  - name: a\n    level: state\n    "+c.probe+"\n"))
		require.EqualError(t, err, c.want, c.probe) // said once, not once a run
	}
	// A second probe may not take the name of a mirrored one.
	_, err := Parse("contract.yaml", []byte(`version: 1
probes:
  - name: a
    level: state
    hands: mirror
    steps:
      - hand: {hand: right, pinch: 1}
      - assert: s.x == hand
  - name: a
    level: state
    steps:
      - assert: 'true'
`))
	require.EqualError(t, err, "contract.yaml:9: probe a: name already used at line 3")
}
