package trial

import (
	"bytes"
	"os"
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/worldprobe/worldprobe/internal/task"
	"github.com/worldprobe/worldprobe/internal/xr"
)

// A trial reads each room once: the prelude that loads it into @iwer/sem
// and the walkable area navigateTo plans on take the same copy, whichever
// asks first, however often.
func TestRoomIsReadOncePerTrial(t *testing.T) {
	dir := t.TempDir()
	require.NoError(t, os.MkdirAll(filepath.Join(dir, "rooms"), 0o755))
	require.NoError(t, os.WriteFile(filepath.Join(dir, "rooms", "corner.json"), []byte(`{"spatialEntities": [], "mark": "corner-room"}`), 0o644))
	tk := &task.Task{Dir: dir, XR: "metaQuest3", Room: "rooms/corner.json"}
	reads := map[string]int{}
	scenes := roomScenes(func(src string) ([]byte, error) {
		reads[src]++
		b, err := xr.RoomScene(shared.Resolver, src)
		return bytes.ReplaceAll(b, []byte("corner-room"), []byte("read-by-the-trial")), err
	})
	preludes, rooms := xrPreludes(shared.Resolver, tk, scenes), xrRooms(tk, scenes)

	_, err := rooms("").load()
	require.NoError(t, err)
	p, err := preludes("")
	require.NoError(t, err)
	require.Len(t, p, 1)
	require.Contains(t, p[0], `read-by-the-trial`, "the prelude carries the trial's copy of the scene")
	_, err = preludes("office_small")
	require.NoError(t, err)
	_, err = rooms("office_small").load()
	require.NoError(t, err)
	_, err = rooms("").load()
	require.NoError(t, err)
	require.Equal(t, map[string]int{filepath.Join(dir, "rooms", "corner.json"): 1, "office_small": 1}, reads)
}
