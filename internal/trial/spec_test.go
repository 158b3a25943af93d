package trial

import (
	"os"
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/worldprobe/worldprobe/internal/task"
)

// TestLoaderKeepsNoFailure: a task folder that cannot be loaded yet (a
// shared folder still being written) is read again by the next spec of
// the task, not answered from a remembered failure.
func TestLoaderKeepsNoFailure(t *testing.T) {
	src := filepath.Join("..", "..", "suites", "starter", "simulation", "pendulum")
	tk, err := task.Load(src)
	require.NoError(t, err)
	digest, err := tk.Digest()
	require.NoError(t, err)

	run := t.TempDir()
	l := &Loader{RunDir: run}
	s := Spec{Key: "k", TaskDir: "simulation/pendulum", TaskDigest: digest, Dir: "trials/k"}
	_, err = l.Input(s)
	require.ErrorContains(t, err, "loading task "+filepath.Join(run, "simulation", "pendulum"))

	require.NoError(t, os.CopyFS(filepath.Join(run, "simulation", "pendulum"), os.DirFS(src)))
	in, err := l.Input(s)
	require.NoError(t, err, "the second spec reads the folder again")
	require.Equal(t, tk.ID, in.Task.ID)
	again, err := l.Input(s)
	require.NoError(t, err)
	require.Same(t, in.Task, again.Task, "a task that loaded is kept")
}
