package task

import (
	"os"
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/require"
)

// A task's room file must be in its folder; RoomSource is its path there,
// or a capture's name as written.
func TestRoomFile(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "xr", "ar")
	require.NoError(t, os.MkdirAll(dir, 0o755))
	yaml := "id: xr/ar\ntitle: AR\ncategory: xr\ndifficulty: D1\nxr: metaQuest3\nroom: rooms/corner.json\nstate: [{path: a, type: number}]\n"
	require.NoError(t, os.WriteFile(filepath.Join(dir, TaskFile), []byte(yaml), 0o644))
	_, err := Load(dir)
	require.EqualError(t, err, filepath.Join(dir, TaskFile)+`:6: room "rooms/corner.json": no such file in the task folder`)
	require.NoError(t, os.MkdirAll(filepath.Join(dir, "rooms"), 0o755))
	require.NoError(t, os.WriteFile(filepath.Join(dir, "rooms", "corner.json"), []byte(`{"spatialEntities": []}`), 0o644))
	tk, err := Load(dir)
	require.NoError(t, err)
	require.Equal(t, filepath.Join(dir, "rooms", "corner.json"), tk.RoomSource())
	tk.Room = "living_room"
	require.Equal(t, "living_room", tk.RoomSource())
}
