package contract

import (
	"strings"
	"testing"

	"github.com/stretchr/testify/require"
)

// applyControl does what its parts' steps do, at once; stepControl
// spreads the same control over its frames and steps them.
func TestControlSteps(t *testing.T) {
	o := xrOpener()
	res := run(t, `
version: 1
probes:
  - name: control
    level: transition
    steps:
      - step: 1
      - applyControl: {locomotion: {rotate: [0, 90, 0]}}
      - assert: s.right.ray == [-0.4, 1.5, -0.25]
      - applyControl: {rightHand: {move: [0, -0.05, 0.1]}, leftHand: {pose: fist}}
      - assert: s.right.ray == [-0.5, 1.45, -0.25] && s.right.dir == [-1.0, 0.0, 0.0] && s.mode == "hand"
      - snapshot: before
      - stepControl: {control: {rightHand: {rotate: [90, 0, 0]}}, frames: 2}
      - assert: s.right.ray == [-0.5, 1.45, -0.25] && s.right.dir == [0.0, 1.0, 0.0]
      - assert: s.frames == before.frames + 2.0
      - stepControl: {control: {locomotion: {move: [0, 0, 1]}}, frames: 4}
      - assert: s.right.ray == [-1.5, 1.45, -0.25]
`, o, Options{})
	for _, m := range messages(res) {
		require.True(t, strings.Contains(m, "| pass |"), m)
	}
	require.Len(t, res.Verdicts, 5)
}

func TestControlParseErrors(t *testing.T) {
	for _, c := range []struct{ step, want string }{
		{"applyControl: {}", "contract.yaml:6: probe a: steps: applyControl: want locomotion, leftHand or rightHand"},
		{"applyControl: {locomotion: {rotate: [10, 0, 0]}}", "contract.yaml:6: probe a: steps: applyControl: locomotion: rotate: the body turns only about the vertical: want pitch and roll 0"},
		{"applyControl: {rightHand: {selectStart: true, selectEnd: true}}", "contract.yaml:6: probe a: steps: applyControl: rightHand: selectStart and selectEnd together"},
		{"applyControl: {rightHand: {selectStart: true, pose: fist}}", "contract.yaml:6: probe a: steps: applyControl: rightHand: a pose and a select together (XR Blocks' rule: the select is a pose of its own)"},
		{"applyControl: {leftHand: {pose: wave}}", `contract.yaml:6: probe a: steps: applyControl: leftHand: pose "wave": want one of default, point, pinch, fist, thumbs-up, open-palm, palm-up`},
		{"applyControl: {leftHand: {}}", "contract.yaml:6: probe a: steps: applyControl: leftHand: want move, rotate, selectStart, selectEnd or pose"},
		{"applyControl: {rightHand: {selectEnd: false}}", "contract.yaml:6: probe a: steps: applyControl: rightHand: selectEnd: want true"},
		{"stepControl: {control: {locomotion: {move: [0, 0, 1]}}}", "contract.yaml:6: probe a: steps: stepControl: want frames (1 or more)"},
		{"stepControl: {frames: 2}", "contract.yaml:6: probe a: steps: stepControl: want control"},
	} {
		_, err := Parse("contract.yaml", []byte("version: 1\nprobes:\n  - name: a\n    level: state\n    steps:\n      - "+c.step+"\n      - assert: 'true'\n"))
		require.EqualError(t, err, c.want, c.step)
	}
}

// Mirrored, a control swaps its hands and negates what walk, moveHand,
// rotate and rotateHand negate.
func TestControlMirror(t *testing.T) {
	c := mustParse(t, `
version: 1
probes:
  - name: m
    level: transition
    hands: mirror
    steps:
      - applyControl: {locomotion: {move: [0.5, 0.1, 1], rotate: [0, 30, 0]}, rightHand: {move: [0.2, 0, 0.1], rotate: [10, 20, 30], selectStart: true}}
      - stepControl: {control: {leftHand: {pose: point}}, frames: 3}
      - assert: s.frames > 0.0
`)
	require.Len(t, c.Probes, 2)
	require.Equal(t, []string{"m[right]", "m[left]"}, []string{c.Probes[0].Name, c.Probes[1].Name})
	m := c.Probes[1].Steps
	require.Equal(t, &ApplyControlStep{Control: Control{Move: [3]float64{-0.5, 0.1, 1}, Yaw: -30,
		Left: &HandControl{Move: [3]float64{-0.2, 0, 0.1}, Rotate: [3]float64{10, -20, -30}, Select: "start"}}}, m[0].Action)
	require.Equal(t, &StepControlStep{Control: Control{Right: &HandControl{Pose: "point"}}, Frames: 3}, m[1].Action)
	require.Equal(t, "applyControl locomotion move [-0.5, 0.1, 1] yaw -30; leftHand move [-0.2, 0, 0.1] rotate [10, -20, -30] selectStart", m[0].Action.Describe())
	require.Equal(t, "stepControl 3 frames: rightHand pose point", m[1].Action.Describe())
}
