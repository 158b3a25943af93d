package contract

import (
	"testing"

	"github.com/stretchr/testify/require"
)

// The object steps furnish the fake headset's room, in order; mirrored
// (hands: mirror), a box's x and yaw are negated and ids are as written;
// an id added twice fails the probe.
func TestObjectSteps(t *testing.T) {
	o := xrOpener()
	base := o.tweak
	o.tweak = func(p *fakePage) { base(p); p.xr.inRoom = true }
	res := run(t, `
version: 1
probes:
  - name: furnish
    level: transition
    hands: mirror
    steps:
      - hand: {hand: right, position: [0.2, 1.3, -0.4]}
      - addObjects: [{id: a, label: table, position: [0.5, 0.35, -1], size: [1, 0.7, 0.6], yaw: 30}, {id: b, label: "wall art", position: [0, 1, -2], size: [1, 1, 0.1]}]
      - updateObjects: [{id: a, label: couch, position: [1, 0.35, -1], size: [1, 0.7, 0.6]}]
      - removeObjects: [b]
      - assert: 'true'
  - name: again
    level: state
    steps:
      - addObjects: [{id: a, label: table, position: [0, 0.35, -1], size: [1, 0.7, 0.6]}]
      - clearObjects: {}
      - addObjects: [{id: a, label: table, position: [0, 0.35, -1], size: [1, 0.7, 0.6]}]
      - addObjects: [{id: a, label: table, position: [0, 0.35, -1], size: [1, 0.7, 0.6]}]
      - assert: 'true'
`, o, Options{})
	require.Equal(t, []string{
		"true | pass | ", "true | pass | ",
		`true | error | addObjects [{id: a, label: table, position: [0, 0.35, -1], size: [1, 0.7, 0.6]}] (line 18): an object "a" is already in the room: target not found`,
	}, messages(res))
	require.Equal(t, []RoomObject{{ID: "a", Label: "couch", Position: []float64{1, 0.35, -1}, Size: []float64{1, 0.7, 0.6}}}, o.pages[0].xr.objects)
	require.Equal(t, []RoomObject{{ID: "a", Label: "couch", Position: []float64{-1, 0.35, -1}, Size: []float64{1, 0.7, 0.6}}}, o.pages[1].xr.objects)

	c := mustParse(t, `
version: 1
probes:
  - name: m
    level: state
    hands: mirror
    steps:
      - hand: {hand: left, pinch: 1}
      - addObjects: [{id: a, label: table, position: [0.5, 0.35, -1], size: [1, 0.7, 0.6], yaw: 30}]
      - updateObjects: [{id: a, label: table, position: [0.5, 0.35, -1], size: [1, 0.7, 0.6], yaw: -10}]
      - removeObjects: [a]
      - clearObjects: {}
      - assert: 'true'
`)
	m := c.Probes[1].Steps
	require.Equal(t, &AddObjectsStep{Objects: []RoomObject{{ID: "a", Label: "table", Position: []float64{-0.5, 0.35, -1}, Size: []float64{1, 0.7, 0.6}, Yaw: -30}}}, m[1].Action)
	require.Equal(t, &UpdateObjectsStep{Objects: []RoomObject{{ID: "a", Label: "table", Position: []float64{-0.5, 0.35, -1}, Size: []float64{1, 0.7, 0.6}, Yaw: 10}}}, m[2].Action)
	require.Equal(t, &RemoveObjectsStep{IDs: []string{"a"}}, m[3].Action)
	require.Equal(t, &ClearObjectsStep{}, m[4].Action)
	require.Equal(t, "addObjects [{id: a, label: table, position: [0.5, 0.35, -1], size: [1, 0.7, 0.6], yaw: 30}]", c.Probes[0].Steps[1].Describe())

	// Without a room the steps stop the run: the task's fault.
	_, err := Run(t.Context(), mustParse(t, "version: 1\nprobes:\n  - name: x\n    level: state\n    steps:\n      - clearObjects: {}\n      - assert: 'true'\n"),
		xrOpener().open, nil, Options{FPS: 60})
	require.EqualError(t, err, "probe x: clearObjects: the headset stands in no room: set room: in the task's task.yaml (docs/xr.md)")
}

func TestObjectStepParseErrors(t *testing.T) {
	for _, c := range []struct{ step, want string }{
		{"addObjects: []", "contract.yaml:6: probe a: steps: addObjects: want a list of boxes: [{id, label, position: [x, y, z], size: [w, h, d]}]"},
		{"addObjects: [{id: a, label: table, position: [0, 0, 0]}]", "contract.yaml:6: probe a: steps: addObjects: a box wants size"},
		{"addObjects: [{id: a b, label: chair, position: [0, 0, 0], size: [1, 0, 1]}]",
			`contract.yaml:6: probe a: steps: addObjects: id "a b": use letters, digits, _ . and -` + "\n" +
				`contract.yaml:6: probe a: steps: addObjects: label "chair": want one of table, couch, shelf, bed, lamp, screen, plant, wall art, other` + "\n" +
				"contract.yaml:6: probe a: steps: addObjects: size [1, 0, 1]: want three lengths > 0"},
		{"updateObjects: [{id: a, label: table, position: [0, 0, 0], size: [1, 1, 1]}, {id: a, label: table, position: [0, 0, 0], size: [1, 1, 1]}]",
			`contract.yaml:6: probe a: steps: updateObjects: id "a" listed twice`},
		{"removeObjects: [a, a]", `contract.yaml:6: probe a: steps: removeObjects: id "a" listed twice`},
		{"removeObjects: {}", "contract.yaml:6: probe a: steps: removeObjects: want a list of the ids of added objects"},
		{"clearObjects: {all: true}", `contract.yaml:6: probe a: steps: clearObjects: unknown field "all" (want one of )`},
	} {
		_, err := Parse("contract.yaml", []byte("version: 1\nprobes:\n  - name: a\n    level: state\n    steps:\n      - "+c.step+"\n      - assert: 'true'\n"))
		require.EqualError(t, err, c.want, c.step)
	}
}
