package trial

import (
	"io/fs"
	"os"
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/worldprobe/worldprobe/internal/atomicfile"
	"github.com/worldprobe/worldprobe/internal/result"
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

// ReadResult reads a trial folder's result.json back; a folder without
// one, or with one cut short, has not finished.
func TestReadResult(t *testing.T) {
	dir := t.TempDir()
	want := &result.Trial{Key: "k1", Task: "simulation/ball", Outcome: result.OutcomeOK, Pass: true, VCov: 1,
		Assertions: []result.Assertion{{Probe: "p", Level: "state", Status: result.StatusPass}}}
	require.NoError(t, os.MkdirAll(filepath.Join(dir, "trials", "a"), 0o755))
	require.NoError(t, atomicfile.WriteJSON(filepath.Join(dir, "trials", "a", ResultFile), want))
	got, err := ReadResult(os.DirFS(dir), "trials/a")
	require.NoError(t, err)
	require.Equal(t, want, got)

	_, err = ReadResult(os.DirFS(dir), "trials/none")
	require.ErrorIs(t, err, fs.ErrNotExist)
	require.NoError(t, os.MkdirAll(filepath.Join(dir, "trials", "cut"), 0o755))
	require.NoError(t, os.WriteFile(filepath.Join(dir, "trials", "cut", ResultFile), []byte(`{"key": "k2", "outc`), 0o644))
	_, err = ReadResult(os.DirFS(dir), "trials/cut")
	require.ErrorContains(t, err, "reading trials/cut/result.json: unexpected end of JSON input")
}
