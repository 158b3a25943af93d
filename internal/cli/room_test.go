package cli

import (
	"encoding/json"
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/require"
)

// TestInspectXRRoom: inspect --xr --room stands the headset in a room: the
// AR page detects office_small's 10 planes and 4 meshes. --room needs
// --xr and a known room or a .json file.
func TestInspectXRRoom(t *testing.T) {
	page := filepath.Join("..", "xr", "testdata", "three-ar-room.html")
	code, out, errOut := execute(t, "inspect", "--json", "--frames", "5", "--timeout", "120s", "--xr", "metaQuest3", "--room", "office_small", page)
	require.Equal(t, ExitOK, code, "stderr: %s", errOut)
	var r struct {
		Outcome string
		State   struct{ Planes, Meshes int }
	}
	require.NoError(t, json.Unmarshal([]byte(out), &r))
	require.Equal(t, "ok", r.Outcome)
	require.Equal(t, 10, r.State.Planes)
	require.Equal(t, 4, r.State.Meshes)

	code, _, errOut = execute(t, "inspect", "--room", "office_small", page)
	require.Equal(t, ExitUsage, code)
	require.Contains(t, errOut, "--room needs --xr")
	code, _, errOut = execute(t, "inspect", "--xr", "metaQuest3", "--room", "kitchen", page)
	require.Equal(t, ExitUsage, code)
	require.Contains(t, errOut, `--room "kitchen": no such room (one of living_room, meeting_room, music_room, office_large, office_small, or a .json file)`)
}
