package contract

import (
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/worldprobe/worldprobe/internal/contract/contracttest/world"
)

// {tag: NAME} targets the one object whose semantic tag has that name or,
// when none has, that role: a tag's target is where a name's is; an
// ambiguous role names every candidate; a missing tag fails the probe.
func TestTagTargets(t *testing.T) {
	o := xrOpener()
	base := o.tweak
	o.tweak = func(p *fakePage) {
		base(p)
		p.objects["target"]["semantic"] = map[string]any{"role": "grabbable", "name": "gem"}
		p.objects["ball"] = map[string]any{"name": "ball", "position": []any{0.5, 1.0, -0.5}, "visible": true, "color": "#00ff00",
			"semantic": map[string]any{"role": "grabbable", "name": "ball"}}
	}
	res := run(t, `
version: 1
probes:
  - name: by_name
    level: transition
    hands: mirror
    steps:
      - reachTo: {hand: left, tag: gem}
      - assert: 'true'
  - name: by_role
    level: state
    steps:
      - lookAtTarget: {tag: grabbable}
      - assert: 'true'
  - name: teleport
    level: transition
    hands: mirror
    steps:
      - teleportHand: {hand: left, tag: gem}
      - teleportHand: {hand: right, world: [0.3, 1, -0.2]}
      - assert: 'true'
  - name: none
    level: state
    steps:
      - pointTo: {hand: right, tag: chair}
      - assert: 'true'
`, o, Options{})
	require.Equal(t, []string{
		"true | pass | ", "true | pass | ",
		`true | error | lookAtTarget {tag: "grabbable"} (line 12): {tag: "grabbable"} is ambiguous: 2 scene objects have the role "grabbable": object "ball" {role: grabbable, name: ball}, object "target" {role: grabbable, name: gem}; tag one by its name: target not found`,
		"true | pass | ", "true | pass | ",
		`true | error | pointTo right {tag: "chair"} (line 24): no scene object's semantic tag has the name or role "chair": target not found`,
	}, messages(res))
	// The tag's target is the object's position: the left grip on the gem
	// as reachTo {object: target} puts it, and mirrored the right grip.
	grip := world.XRGripOffset
	requireNear(t, []float64{world.XRTarget[0] + grip[0], world.XRTarget[1] - grip[1], world.XRTarget[2] - grip[2]}, o.pages[0].xr.poses["left-controller"].p, "the left grip on the gem")
	requireNear(t, []float64{world.XRTarget[0] - grip[0], world.XRTarget[1] - grip[1], world.XRTarget[2] - grip[2]}, o.pages[1].xr.poses["right-controller"].p, "the right grip on the gem")
	// teleportHand puts the controller itself there, not turned; mirrored,
	// the other hand goes to the gem, and the world point's x is negated.
	left, right := o.pages[3].xr.poses["left-controller"], o.pages[3].xr.poses["right-controller"]
	requireNear(t, world.XRTarget[:], left.p, "the left controller at the gem")
	requireNear(t, []float64{0.3, 1, -0.2}, right.p, "the right controller at the point")
	m := o.pages[4].xr.poses
	requireNear(t, world.XRTarget[:], m["right-controller"].p, "mirrored: the right controller at the gem")
	requireNear(t, []float64{-0.3, 1, -0.2}, m["left-controller"].p, "mirrored: the left controller at the mirrored point")
	requireNear(t, left.q, m["right-controller"].q, "not turned")
}
