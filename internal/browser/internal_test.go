// Tests of the package's unexported parts: the memory watchdog's tree walk and
// defaults, where the profile goes, and the sandbox start-failure message.

package browser

import (
	"bytes"
	"errors"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"testing"
	"time"

	"github.com/stretchr/testify/require"
)

// TestTreeWalksAgree: the walk over children files and the scan over every
// process's parent find the same tree (here: this test binary and the
// processes it started, none).
func TestTreeWalksAgree(t *testing.T) {
	pid := os.Getpid()
	a, ok := descendantsByChildren(1)
	if !ok {
		t.Skip("this kernel has no /proc/PID/task/TID/children")
	}
	b := descendantsByScan(1)
	slices.Sort(a)
	slices.Sort(b)
	// Processes may start or end between the two walks; this one is in both.
	require.Contains(t, a, pid)
	require.Contains(t, b, pid)
	require.InDelta(t, len(b), len(a), 3)
}

// TestMemoryDefaults: a browser for two jobs gets 2 GiB per page and at
// most 6 GiB (2 × 2 GiB + 2 GiB) in all, less on a smaller machine.
func TestMemoryDefaults(t *testing.T) {
	m := MemoryLimits{}.resolved(2)
	require.Equal(t, DefaultPageMemory, m.PerPage)
	require.LessOrEqual(t, m.Total, int64(6<<30))
	require.Positive(t, m.Total)
	require.Equal(t, int64(-1), MemoryLimits{PerPage: -1, Total: -1}.resolved(2).PerPage)
}

// TestProfileBaseIsReachable: a browser that runs as another user gets its
// profile where that user can reach it, even when $TMPDIR is private.
func TestProfileBaseIsReachable(t *testing.T) {
	private := t.TempDir()
	require.NoError(t, os.Chmod(private, 0o700))
	t.Setenv("TMPDIR", private)
	other := Sandbox{UID: os.Geteuid() + 1}
	require.Equal(t, "/tmp", other.profileBase())
	self := Sandbox{UID: os.Geteuid()}
	require.Equal(t, private, self.profileBase())
	require.True(t, othersCanReach("/tmp"))
	require.False(t, othersCanReach(private))
}

// TestStartFailureExplainsTheSandbox: when Chromium's output blames its
// sandbox, the error says what to fix and names --unsafe-no-sandbox; other
// failures and runs without the sandbox are left as they are.
func TestStartFailureExplainsTheSandbox(t *testing.T) {
	on := Sandbox{On: true, User: "worldprobe-browser"}
	err := explainStartFailure(errors.New("chrome failed to start:\nNo usable sandbox! Update your kernel"), on)
	require.ErrorContains(t, err, "unprivileged user namespaces")
	require.ErrorContains(t, err, "--unsafe-no-sandbox")
	other := errors.New("chrome failed to start:\nmissing libnss3")
	require.Equal(t, other, explainStartFailure(other, on))
	off := Sandbox{On: false}
	sandboxErr := errors.New("No usable sandbox!")
	require.Equal(t, sandboxErr, explainStartFailure(sandboxErr, off))
}

// TestProcessKind: Chromium's --type switch is found in a NUL-separated
// command line and in a rewritten, space-separated title.
func TestProcessKind(t *testing.T) {
	require.Equal(t, "renderer", processKind([]byte("/usr/lib/chromium/chromium\x00--type=renderer\x00--lang=en-US\x00")))
	require.Equal(t, "gpu-process", processKind([]byte("/usr/lib/chromium/chromium --type=gpu-process --use-angle=swiftshader")))
	require.Equal(t, "zygote", processKind([]byte("/usr/lib/chromium/chromium --type=zygote")))
	require.Equal(t, "browser", processKind([]byte("/usr/lib/chromium/chromium\x00--headless\x00")))
}

// TestTreeWalkFindsNewChildren: treeWalk, which reads a known process's
// children files only for the threads that had children, still finds a
// child that a known thread starts on the very next walk, and a child
// started by any other thread within fullWalkEvery walks; a full walk finds
// what descendantsByChildren finds.
func TestTreeWalkFindsNewChildren(t *testing.T) {
	self := os.Getpid()
	if _, ok := descendantsByChildren(self); !ok {
		t.Skip("this kernel has no /proc/PID/task/TID/children")
	}
	sh := exec.Command("sh", "-c", "sleep 30 & read x; sleep 30 & wait")
	in, err := sh.StdinPipe()
	require.NoError(t, err)
	require.NoError(t, sh.Start())
	defer func() { _ = sh.Process.Kill(); _ = sh.Wait() }()
	children := func(pid int) []int {
		all, _ := descendantsByChildren(pid)
		return all[1:]
	}
	waitFor := func(n int) []int {
		for range 500 {
			if c := children(sh.Process.Pid); len(c) == n {
				return c
			}
			time.Sleep(10 * time.Millisecond)
		}
		t.Fatalf("sh did not start child %d", n)
		return nil
	}
	waitFor(1)
	w := treeWalk{root: self}
	first := w.descendants() // full: learns that sh's main thread starts children
	want, _ := descendantsByChildren(self)
	slices.Sort(first)
	slices.Sort(want)
	require.Equal(t, want, first)
	w.descendants() // not full
	_, err = io.WriteString(in, "go\n")
	require.NoError(t, err)
	both := waitFor(2)
	require.NotZero(t, w.walks%fullWalkEvery, "the next walk must not be a full one")
	got := w.descendants()
	for _, pid := range both {
		require.Contains(t, got, pid, "a child of a known spawning thread is found on the next walk")
	}

	// A child of this process, started from whichever thread Go picks.
	other := exec.Command("sleep", "30")
	require.NoError(t, other.Start())
	defer func() { _ = other.Process.Kill(); _ = other.Wait() }()
	found := false
	for range fullWalkEvery {
		if slices.Contains(w.descendants(), other.Process.Pid) {
			found = true
			break
		}
	}
	require.True(t, found, "a child of a thread not known to start children is found within a full walk")
}

// TestReadProc: readProc returns a file's bytes exactly as os.ReadFile
// does, for a /proc file and for a file longer than its first buffer, and
// a missing file is os.IsNotExist.
func TestReadProc(t *testing.T) {
	long := filepath.Join(t.TempDir(), "long")
	content := bytes.Repeat([]byte("0123456789abcdef\n"), 700) // 11900 bytes
	require.NoError(t, os.WriteFile(long, content, 0o600))
	for _, path := range []string{"/proc/self/cmdline", long} {
		want, err := os.ReadFile(path)
		require.NoError(t, err)
		got, err := readProc(path)
		require.NoError(t, err)
		require.Equal(t, want, got, path)
	}
	empty := filepath.Join(t.TempDir(), "empty")
	require.NoError(t, os.WriteFile(empty, nil, 0o600))
	got, err := readProc(empty)
	require.NoError(t, err)
	require.Empty(t, got)
	_, err = readProc("/proc/self/task/0/children")
	require.True(t, os.IsNotExist(err), "%v", err)
}
