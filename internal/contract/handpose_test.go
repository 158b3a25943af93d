package contract

import (
	"strings"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/worldprobe/worldprobe/internal/target"
)

// setHandPose turns a joint relative to its parent, the joints beyond it
// turning with it, and a {joint: …} target is where that joint is; both
// mirror onto the other hand.
func TestSetHandPoseAndJointTargets(t *testing.T) {
	o := xrOpener()
	res := run(t, `
version: 1
probes:
  - name: curl
    level: transition
    hands: mirror
    steps:
      - hand: {hand: right, position: [0.2, 1.3, -0.4]}
      - setHandPose: {hand: right, joints: {index-finger-phalanx-proximal: [-0.70710678, 0, 0, 0.70710678]}}
      - teleportHand: {hand: left, joint: {hand: right, name: index-finger-tip}}
      - assert: 'approx((hand == "right" ? s.left : s.right).ray, [mirror * 0.18, 1.21, -0.45], 1e-6)'
      - assert: approx(joint(hand, "index-finger-tip").position, [mirror * 0.18, 1.21, -0.45], 1e-6)
      - assert: approx(joint(hand, "index-finger-intermediate").position, [0, 0, 0], 1)
`, o, Options{FPS: 60})
	// On the fake's right hand (fakeJointOffset) the index finger's
	// metacarpal is at (-0.02, 0, -0.02) and its proximal phalanx 3 cm on:
	// turned 90° about -x, the two bones beyond point along -y.
	bad := `approx(joint(hand, "index-finger-intermediate").position, [0, 0, 0], 1) | error | joint(hand, "index-finger-intermediate"): "index-finger-intermediate" is not a WebXR hand joint (wrist, index-finger-tip, …): target not found`
	require.Equal(t, []string{
		`approx((hand == "right" ? s.left : s.right).ray, [mirror * 0.18, 1.21, -0.45], 1e-6) | pass | `,
		`approx(joint(hand, "index-finger-tip").position, [mirror * 0.18, 1.21, -0.45], 1e-6) | pass | `, bad,
		`approx((hand == "right" ? s.left : s.right).ray, [mirror * 0.18, 1.21, -0.45], 1e-6) | pass | `,
		`approx(joint(hand, "index-finger-tip").position, [mirror * 0.18, 1.21, -0.45], 1e-6) | pass | `, bad,
	}, messages(res))
	require.Equal(t, []string{"curl[right]", "curl[left]"}, []string{res.Verdicts[0].Probe, res.Verdicts[3].Probe})
	require.Equal(t, []float64{0.07, 0.5, -0.1, 0.86}, (&SetHandPoseStep{Hand: "right", Joints: map[string][]float64{"wrist": {0.07, -0.5, 0.1, 0.86}}}).mirrored().(*SetHandPoseStep).Joints["wrist"])
}

func TestJointTargetOfAController(t *testing.T) {
	o := xrOpener()
	res := run(t, `
version: 1
probes:
  - name: grip
    level: transition
    steps:
      - controller: {hand: right, position: [0.2, 1.3, -0.4]}
      - lookAtTarget: {joint: {hand: right, name: wrist}}
      - assert: "true"
`, o, Options{FPS: 60})
	require.Equal(t, []string{`true | error | lookAtTarget {joint: {hand: right, name: wrist}} (line 7): the right hand's wrist is not tracked: ` +
		`its active input is a controller (a gesture, hand or setHandPose step switches to hands): target not found`}, messages(res))
}

func TestHandPoseParseErrors(t *testing.T) {
	for _, tc := range []struct{ step, want string }{
		{"setHandPose: {hand: right, joints: {index-tip: [0, 0, 0, 1]}}", `contract.yaml:6: probe a: steps: setHandPose: joints: "index-tip" is not a WebXR hand joint (wrist, thumb-metacarpal,`},
		{"setHandPose: {hand: right, joints: {wrist: [0, 0, 0, 2]}}", "contract.yaml:6: probe a: steps: setHandPose: joints: wrist: [0, 0, 0, 2] is not a unit quaternion [x, y, z, w] (its length is 2)"},
		{"setHandPose: {hand: right}", "contract.yaml:6: probe a: steps: setHandPose: want joints: {JOINT: [x, y, z, w], …}"},
		{"setHandPose: {hand: middle, joints: {wrist: [0, 0, 0, 1]}}", `contract.yaml:6: probe a: steps: setHandPose: hand "middle": want left or right`},
		{"reachTo: {hand: right, joint: {hand: right}}", "contract.yaml:6: probe a: steps: reachTo: joint: want name (a WebXR hand joint: wrist, index-finger-tip, …)"},
		{"pointTo: {hand: right, joint: {hand: right, name: palm}}", `contract.yaml:6: probe a: steps: pointTo: joint: name: "palm" is not a WebXR hand joint`},
		{"navigateTo: {world: [0, 0, 1], speed: 0}", "contract.yaml:6: probe a: steps: navigateTo: speed 0: want metres a second > 0 and <= 10"},
		{"navigateTo: {stop: 1}", "contract.yaml:6: probe a: steps: navigateTo: want one target: {world: [x, y, z]}, {object: name}, {tag: name} or {joint: {hand, name}}"},
		{"navigateTo: {tag: t, frames: 0}", "contract.yaml:6: probe a: steps: navigateTo: frames"},
	} {
		_, err := Parse("contract.yaml", []byte(strings.TrimLeft(`
version: 1
probes:
  - name: a
    level: state
    steps:
      - `+tc.step+`
      - assert: "true"
`, "\n")))
		require.Error(t, err, tc.step)
		require.Contains(t, err.Error(), tc.want, tc.step)
	}
}

// The mirror of navigateTo: a world target's x negated, a joint target the
// other hand's joint, an object where it is; speed, stop and frames kept.
func TestNavigateToMirror(t *testing.T) {
	a := &NavigateToStep{Target: Target{World: []float64{1, 1, -2}}, Speed: 0.5, Stop: 0.2, Frames: 40}
	require.Equal(t, &NavigateToStep{Target: Target{World: []float64{-1, 1, -2}}, Speed: 0.5, Stop: 0.2, Frames: 40}, a.mirrored())
	j := &NavigateToStep{Target: Target{Joint: &target.Joint{Hand: "left", Name: "wrist"}}, Speed: 1, Stop: 0.5}
	require.Equal(t, "navigateTo {joint: {hand: right, name: wrist}}", j.mirrored().Describe())
	o := &NavigateToStep{Target: Target{Object: "cube"}, Speed: 1, Stop: 0.5}
	require.Equal(t, o, o.mirrored())
}
