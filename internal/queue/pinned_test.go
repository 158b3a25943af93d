package queue

import (
	"bytes"
	"errors"
	"os"
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/require"
)

// TestWorkerJudgesOnlyWithTheRunsChromium: a run pins the Chromium it was
// planned with in lock.json; a worker with another version refuses its
// trials as infrastructure trouble (retried, never scored) and says so
// once per run, while a run with its version, or one that pins none, is
// judged.
func TestWorkerJudgesOnlyWithTheRunsChromium(t *testing.T) {
	lockRun := func(chromium string) string {
		dir := t.TempDir()
		require.NoError(t, os.WriteFile(filepath.Join(dir, "lock.json"), []byte(`{"worldprobe":"dev","chromium":"`+chromium+`","tasks":{},"candidates":{}}`), 0o644))
		return dir
	}
	var progress bytes.Buffer
	w := &trialWorker{chromium: "Chrome/156.0.8078.114", progress: &progress}

	same := lockRun("Chrome/156.0.8078.114")
	require.NoError(t, w.checkPinned(same))

	other := lockRun("Chrome/155.0.7000.1")
	err := w.checkPinned(other)
	require.True(t, errors.Is(err, ErrOtherChromium), "%v", err)
	require.EqualError(t, err, `another Chromium than the run's: this worker's Chromium is "Chrome/156.0.8078.114", run `+other+` pins "Chrome/155.0.7000.1" (its lock.json); start workers with the run's Chromium`)
	require.Error(t, w.checkPinned(other), "the answer is kept for the run")
	require.Equal(t, "worker: not judging run "+other+": "+err.Error()+"\n", progress.String(), "said once per run")

	require.NoError(t, w.checkPinned(lockRun("")), "a lock without a Chromium pins none")
	require.NoError(t, w.checkPinned(t.TempDir()), "no lock.json yet")

	bad := t.TempDir()
	require.NoError(t, os.WriteFile(filepath.Join(bad, "lock.json"), []byte("{"), 0o644))
	require.ErrorContains(t, w.checkPinned(bad), "lock.json")
}
