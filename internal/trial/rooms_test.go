package trial

import (
	"context"
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/worldprobe/worldprobe/internal/result"
)

// cornerRoom is a room file of the task below, in @iwer/sem's scene
// format: a floor plane and a table box 0.7 m high under the head (SEM boxes stand
// as the captures' do: the position is the top face's centre, the box turned
// -90° about x so that its depth runs down to the floor).
const cornerRoom = `{"type": "scene", "version": 1, "spatialEntities": [
 {"uuid": "00000000-0000-4000-8000-000000000001", "semanticLabel_META": "FLOOR",
  "locatable_META": {"orientation": {"x": 1, "y": 0, "z": 0, "w": 0}, "position": {"x": 0, "y": 0, "z": 0}},
  "bounded2D_META": {"offset": {"x": -2, "y": -2}, "extent": {"width": 4, "height": 4}}},
 {"uuid": "00000000-0000-4000-8000-000000000002", "semanticLabel_META": "TABLE",
  "locatable_META": {"orientation": {"x": -0.7071067811865476, "y": 0, "z": 0, "w": 0.7071067811865476}, "position": {"x": 0, "y": 0.7, "z": 0}},
  "bounded3D_META": {"offset": {"x": -0.5, "y": -0.3, "z": -0.7}, "extent": {"width": 1, "height": 0.6, "depth": 0.7}}}
]}`

// TestXRRoomsPerProbe: a task stands its headset in a room (task.yaml
// room: living_room) and a probe is replayed per room (rooms:, a capture
// and a room file of the task) and per hand (hands: mirror): every run
// opens its page in its own room — the three.js AR app detects that room's
// planes and meshes, reloads included — reads its room in the CEL variable
// room, and is reported as its own probe; one room's failing assertion
// fails that room's runs alone, and the trial with them.
func TestXRRoomsPerProbe(t *testing.T) {
	page, err := filepath.Abs(filepath.Join("..", "xr", "testdata", "three-ar-room.html"))
	require.NoError(t, err)
	dir := filepath.Join(t.TempDir(), "xr", "ar-room")
	tk, c := writeTask(t, dir, map[string]string{
		"task.yaml": "id: xr/ar-room\ntitle: AR room\ncategory: xr\ndifficulty: D1\ntimeout: 120s\nxr: metaQuest3\nroom: living_room\nstate:\n" +
			"  - {path: planes, type: number}\n  - {path: meshes, type: number}\n",
		"brief.md":          "# AR room\n\nCount the planes.\n",
		"rooms/corner.json": cornerRoom,
		"contract.yaml": `version: 1
probes:
  - name: task_room
    level: state
    steps:
      - step: 3
      - assert: s.planes == 17 && s.meshes == 9 && s.planeLabels.table == 4
  - name: per_room
    level: state
    hands: mirror
    rooms: [office_small, rooms/corner.json]
    steps:
      - hand: {hand: right, position: [0.2, 1.3, -0.4]}
      - step: 2
      - reload: {}
      - step: 2
      - assert: 'room == "office_small" ? s.planes == 10 && s.meshes == 4 : s.planes == 1 && s.meshes == 1 && s.meshLabels.table == 1'
      - assert: 'room == "corner" ? s.down == [0.0, 0.7, 0.0] : s.down == [0.0, 0.4393, 0.0]'
      - assert: room != "corner" || s.ahead == null
        message: nothing ahead in the corner room
      - assert: s.floorY != null && room != "office_small"
        message: fails in the small office
`,
	})
	r := &Runner{Browser: shared.Browser, Resolver: shared.Resolver, SkipDraw: true, Load: func() float64 { return 0.2 }}
	tr, err := r.Run(context.Background(), Input{Key: "k", Task: tk, Contract: c, Page: page, Model: "m", Candidate: "c", Dir: t.TempDir()})
	require.NoError(t, err)
	require.Equal(t, result.OutcomeOK, tr.Outcome, "%s: %s", tr.CrashKind, tr.CrashMessage)
	var got []string
	for _, a := range tr.Assertions {
		if a.Probe == "interface" {
			continue
		}
		got = append(got, a.Probe+" "+a.Status+" "+a.Message)
	}
	require.Equal(t, []string{
		"task_room pass ",
		"per_room[right,office_small] pass ", "per_room[right,office_small] pass ", "per_room[right,office_small] pass ",
		"per_room[right,office_small] fail fails in the small office: room = \"office_small\", want != \"office_small\"",
		"per_room[right,corner] pass ", "per_room[right,corner] pass ", "per_room[right,corner] pass ", "per_room[right,corner] pass ",
		"per_room[left,office_small] pass ", "per_room[left,office_small] pass ", "per_room[left,office_small] pass ",
		"per_room[left,office_small] fail fails in the small office: room = \"office_small\", want != \"office_small\"",
		"per_room[left,corner] pass ", "per_room[left,corner] pass ", "per_room[left,corner] pass ", "per_room[left,corner] pass ",
	}, got)
	require.False(t, tr.Pass, "the verdict needs every room")
}
