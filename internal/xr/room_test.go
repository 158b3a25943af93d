package xr

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"os"
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/worldprobe/worldprobe/internal/testenv"
)

// roomSeen is what three-ar-room.html reads of the room it stands in.
type roomSeen struct {
	Presenting  bool
	Frames      int
	Planes      int
	Meshes      int
	PlaneLabels map[string]int
	MeshLabels  map[string]int
	FloorY      *float64
	Down        []float64 // first hit straight down from the head
	Ahead       []float64 // first hit straight ahead
	Error       string
}

// wantRooms is what the page sees of each capture after 5 frames, the
// head at its start (0, 1.6, 0) looking along -z. The labels are WebXR's
// (IWER maps the captures' Meta labels: STORAGE → shelf, WALL_FACE → wall).
var wantRooms = map[string]roomSeen{
	"living_room": {Planes: 17, Meshes: 9,
		PlaneLabels: map[string]int{"ceiling": 1, "couch": 1, "floor": 1, "table": 4, "wall": 6, "wall art": 2, "window": 2},
		MeshLabels:  map[string]int{"couch": 1, "global mesh": 1, "lamp": 2, "shelf": 1, "table": 4},
		FloorY:      ptr(-0.0038), Down: []float64{0, 0, 0}, Ahead: []float64{0, 1.6, -2.4481}},
	"meeting_room": {Planes: 18, Meshes: 3,
		PlaneLabels: map[string]int{"ceiling": 1, "door": 1, "floor": 1, "table": 1, "wall": 8, "wall art": 1, "window": 5},
		MeshLabels:  map[string]int{"global mesh": 1, "screen": 1, "table": 1},
		FloorY:      ptr(0.0396), Down: []float64{0, 0.0396, 0}, Ahead: []float64{0, 1.6, -3.8537}},
	"music_room": {Planes: 15, Meshes: 5,
		PlaneLabels: map[string]int{"ceiling": 1, "couch": 2, "door": 1, "floor": 1, "table": 2, "wall": 6, "window": 2},
		MeshLabels:  map[string]int{"couch": 2, "global mesh": 1, "table": 2},
		FloorY:      ptr(0.0553), Down: []float64{0, 0.0553, 0}, Ahead: []float64{0, 1.6, -2.7341}},
	"office_large": {Planes: 24, Meshes: 14,
		PlaneLabels: map[string]int{"ceiling": 1, "couch": 1, "door": 3, "floor": 1, "table": 3, "wall": 8, "wall art": 6, "window": 1},
		MeshLabels:  map[string]int{"couch": 1, "lamp": 3, "other": 1, "plant": 1, "screen": 3, "shelf": 2, "table": 3},
		FloorY:      ptr(0.0018), Down: []float64{0, 0.004, 0}, Ahead: []float64{0, 1.6, -1.8847}},
	"office_small": {Planes: 10, Meshes: 4,
		PlaneLabels: map[string]int{"ceiling": 1, "door": 1, "floor": 1, "table": 1, "wall": 4, "wall art": 1, "window": 1},
		MeshLabels:  map[string]int{"global mesh": 1, "plant": 1, "screen": 1, "table": 1},
		FloorY:      ptr(0.0488), Down: []float64{0, 0.4393, 0}, Ahead: []float64{0, 1.6, -1.0326}},
}

func ptr(v float64) *float64 { return &v }

// captureCounts counts a capture's planes (bounded2D) and meshes (bounded3D
// boxes and triangle meshes) from the vendored file itself.
func captureCounts(t *testing.T, room string) (planes, meshes int) {
	t.Helper()
	r, ok, err := shared.Resolver.Resolve(CaptureURL(room))
	require.NoError(t, err)
	require.True(t, ok)
	b, err := os.ReadFile(r.File)
	require.NoError(t, err)
	var scene struct {
		SpatialEntities []map[string]json.RawMessage `json:"spatialEntities"`
	}
	require.NoError(t, json.Unmarshal(b, &scene))
	for _, e := range scene.SpatialEntities {
		switch {
		case e["bounded2D_META"] != nil:
			planes++
		case e["bounded3D_META"] != nil, e["triangleMesh_META"] != nil:
			meshes++
		}
	}
	return planes, meshes
}

// TestRoomsGiveTheSessionPlanesAndMeshes: with a room, the prelude
// installs @iwer/sem (served from web/node_modules) and loads the capture,
// so a three.js immersive-ar page detects the room's planes and meshes
// with their semantic labels from its first XR frame, hit-tests against
// them, and the hook logs planeschange and mesheschange at that frame.
// Every capture is pinned exactly; the counts agree with the capture
// files. Three loads of a room give byte-identical states and logs
// (office_small here; every room with WORLDPROBE_SLOW=1).
func TestRoomsGiveTheSessionPlanesAndMeshes(t *testing.T) {
	ctx := context.Background()
	for _, room := range Rooms {
		t.Run(room, func(t *testing.T) {
			s := open(t, filepath.Join("testdata", "three-ar-room.html"), Options{Room: room})
			runs := 1
			if room == "office_small" || testenv.SlowEnabled() {
				runs = 3
			}
			var digest string
			for run := 0; run < runs; run++ {
				if run > 0 {
					require.NoError(t, s.Restart(ctx, 60))
				}
				_, err := s.Step(ctx, 5, true)
				require.NoError(t, err)
				raw, err := s.ReadState(ctx)
				require.NoError(t, err)
				var got roomSeen
				require.NoError(t, json.Unmarshal(raw.JSON, &got))
				var events string
				require.NoError(t, s.Eval(ctx, 0, `window.`+HookGlobal+`.events()`, &events))
				var room0 string
				require.NoError(t, s.Eval(ctx, 0, `window.`+DeviceGlobal+`.`+RoomProperty, &room0))
				require.Equal(t, room, room0)

				want := wantRooms[room]
				want.Presenting, want.Frames = true, 5
				require.Equal(t, want, got)
				planes, meshes := captureCounts(t, room)
				require.Equal(t, planes, got.Planes, "every plane of the capture")
				require.Equal(t, meshes, got.Meshes, "every box and mesh of the capture")
				var log []map[string]any
				require.NoError(t, json.Unmarshal([]byte(events), &log))
				require.Len(t, log, 4)
				require.Equal(t, map[string]any{"type": "planeschange", "hand": "", "input": "", "frame": 1.0, "count": float64(want.Planes)}, log[2])
				require.Equal(t, map[string]any{"type": "mesheschange", "hand": "", "input": "", "frame": 1.0, "count": float64(want.Meshes)}, log[3])

				sum := sha256.Sum256(append(append([]byte{}, raw.JSON...), events...))
				if run == 0 {
					digest = hex.EncodeToString(sum[:])
				} else {
					require.Equal(t, digest, hex.EncodeToString(sum[:]), "run %d", run+1)
				}
			}
		})
	}
}

func TestPreludeRejectsAnUnknownRoom(t *testing.T) {
	_, err := Prelude(shared.Resolver, Options{Room: "kitchen"})
	require.EqualError(t, err, `xr: unknown room "kitchen" (one of living_room, meeting_room, music_room, office_large, office_small, or a .json file)`)
	dir := t.TempDir()
	bad := filepath.Join(dir, "bad.json")
	require.NoError(t, os.WriteFile(bad, []byte(`{"type": "scene"}`), 0o644))
	_, err = Prelude(shared.Resolver, Options{Room: bad})
	require.EqualError(t, err, "xr: room "+bad+" has no spatialEntities")
	_, err = Prelude(shared.Resolver, Options{Room: filepath.Join(dir, "none.json")})
	require.ErrorContains(t, err, "xr: reading the room file: open "+filepath.Join(dir, "none.json"))
}

// A room is a capture's name or a room file by the rule of every file a
// task names (taskfile.Check), the same as an injectAudio wav:. Since
// that rule became the one rule, "./r.json", "a//r.json" and
// "a/../r.json" are refused (filepath.IsLocal let them through) and an
// upper-case ".JSON" is a room file.
func TestCheckRoom(t *testing.T) {
	for _, room := range []string{"living_room", "office_small", "r.json", "rooms/r.json", "rooms/R.JSON", "a/b/c.json"} {
		require.Empty(t, CheckRoom(room), room)
	}
	names := "one of living_room, meeting_room, music_room, office_large, office_small, or a .json file in the task folder"
	for room, want := range map[string]string{
		"kitchen":      `no such room "kitchen" (` + names + `)`,
		"":             `no such room "" (` + names + `)`,
		"living_room/": `no such room "living_room/" (` + names + `)`,
		"r.json.bak":   `no such room "r.json.bak" (` + names + `)`,
		"./r.json":     `room file "./r.json" must be a plain path inside the task folder`,
		"a//r.json":    `room file "a//r.json" must be a plain path inside the task folder`,
		"a/../r.json":  `room file "a/../r.json" must be a plain path inside the task folder`,
		"../r.json":    `room file "../r.json" must be a plain path inside the task folder`,
		"/tmp/r.json":  `room file "/tmp/r.json" must be relative to the task folder`,
		`a\r.json`:     `room file "a\\r.json" must use / between folders`,
		".json":        `room file ".json" must be a .json file`,
	} {
		require.Equal(t, want, CheckRoom(room), "%q", room)
	}
}
