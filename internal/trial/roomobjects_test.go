package trial

import (
	"context"
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/worldprobe/worldprobe/internal/result"
)

// TestXRRoomObjects: the object steps furnish the room a three.js AR app
// stands in (office_small: 4 meshes, the first hit straight down at
// 0.4393 m): boxes added are detected as meshes with their labels on the
// next frame and hit-tested (a 1 m crate under the head is hit at its
// top), a replaced box is hit at its new top, a removed one is gone, and
// clearing leaves the room as it was; the hook logs the mesh counts.
func TestXRRoomObjects(t *testing.T) {
	page, err := filepath.Abs(filepath.Join("..", "xr", "testdata", "three-ar-room.html"))
	require.NoError(t, err)
	dir := filepath.Join(t.TempDir(), "xr", "furnish")
	tk, c := writeTask(t, dir, map[string]string{
		"task.yaml": "id: xr/furnish\ntitle: Furnish\ncategory: xr\ndifficulty: D1\ntimeout: 120s\nxr: metaQuest3\nroom: office_small\nstate:\n" +
			"  - {path: planes, type: number}\n  - {path: meshes, type: number}\n",
		"brief.md": "# Furnish\n\nCount the meshes.\n",
		"contract.yaml": `version: 1
probes:
  - name: furnish
    level: transition
    steps:
      - step: 2
      - assert: s.meshes == 4 && s.down == [0.0, 0.4393, 0.0]
      - addObjects: [{id: crate, label: table, position: [0, 0.5, 0], size: [0.6, 1, 0.6]}, {id: lamp, label: lamp, position: [1, 0.5, -1], size: [0.2, 1, 0.2]}]
      - assert: s.meshes == 6 && s.meshLabels.table == 2 && s.meshLabels.lamp == 1 && s.down == [0.0, 1.0, 0.0]
      - updateObjects: [{id: crate, label: table, position: [0, 0.25, 0], size: [0.6, 0.5, 0.6], yaw: 45}]
      - assert: s.meshes == 6 && s.down == [0.0, 0.5, 0.0]
      - removeObjects: [lamp]
      - assert: s.meshes == 5 && !has(s.meshLabels.lamp)
      - clearObjects: {}
      - assert: s.meshes == 4 && s.down == [0.0, 0.4393, 0.0]
      - assert: xrEvents().filter(e, e.type == "mesheschange").map(e, int(e.count)) == [4, 6, 5, 4]
  - name: twice
    level: state
    steps:
      - addObjects: [{id: crate, label: table, position: [0, 0.5, 0], size: [0.6, 1, 0.6]}]
      - addObjects: [{id: crate, label: couch, position: [0, 0.5, 0], size: [0.6, 1, 0.6]}]
      - assert: 'true'
`,
	})
	r := &Runner{Browser: shared.Browser, Resolver: shared.Resolver, SkipDraw: true, Load: func() float64 { return 0.2 }}
	tr, err := r.Run(context.Background(), Input{Key: "k", Task: tk, Contract: c, Page: page, Model: "m", Candidate: "c", Dir: t.TempDir()})
	require.NoError(t, err)
	require.Equal(t, result.OutcomeOK, tr.Outcome, "%s: %s", tr.CrashKind, tr.CrashMessage)
	var got []string
	for _, a := range tr.Assertions {
		if a.Probe != "interface" {
			got = append(got, a.Probe+" "+a.Status+" "+a.Message)
		}
	}
	require.Equal(t, []string{
		"furnish pass ", "furnish pass ", "furnish pass ", "furnish pass ", "furnish pass ", "furnish pass ",
		`twice error addObjects [{id: crate, label: couch, position: [0, 0.5, 0], size: [0.6, 1, 0.6]}] (line 21): an object "crate" is already in the room: target not found`,
	}, got)
}
