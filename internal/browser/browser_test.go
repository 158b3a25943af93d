package browser_test

import (
	"context"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/chromedp/chromedp"
	"github.com/stretchr/testify/require"

	"github.com/worldprobe/worldprobe/internal/browser"
)

// descendants lists pid and every process below it.
func descendants(t *testing.T, pid int) []int {
	t.Helper()
	parent := map[int]int{}
	entries, err := os.ReadDir("/proc")
	require.NoError(t, err)
	for _, e := range entries {
		p, err := strconv.Atoi(e.Name())
		if err != nil {
			continue
		}
		raw, err := os.ReadFile(filepath.Join("/proc", e.Name(), "stat"))
		if err != nil {
			continue
		}
		// pid (comm) state ppid ...: comm may hold spaces, so split after ')'.
		fields := strings.Fields(string(raw[strings.LastIndexByte(string(raw), ')')+1:]))
		if len(fields) > 1 {
			pp, _ := strconv.Atoi(fields[1])
			parent[p] = pp
		}
	}
	var out []int
	for p := range parent {
		for q := p; q > 1; q = parent[q] {
			if q == pid {
				out = append(out, p)
				break
			}
		}
	}
	return out
}

// TestBrowserEnvironmentHasNoSecrets: a secret in worldprobe's environment
// reaches no Chromium process (browser, zygotes, renderer, GPU, utilities).
func TestBrowserEnvironmentHasNoSecrets(t *testing.T) {
	if _, err := browser.FindChromium(""); err != nil {
		t.Fatalf("run 'make setup': %v", err)
	}
	const canary = "sk-worldprobe-canary-3f9c1a"
	t.Setenv("OPENAI_API_KEY", canary)
	t.Setenv("WORLDPROBE_CANARY", canary)
	ctx := context.Background()
	b, err := browser.Launch(ctx, browser.Options{Jobs: 1})
	require.NoError(t, err)
	defer b.Close()
	p, err := b.NewPage(ctx, nil)
	require.NoError(t, err)
	defer p.Close()
	_, err = chromedp.Run(p.Context(), chromedp.Navigate("data:text/html,<p>hi</p>"))
	require.NoError(t, err)

	// Chromium's scratch files (its singleton socket) are in the profile
	// folder, not in the machine's /tmp, where they outlived every run.
	home := filepath.Join(b.ProfileDir(), "home")
	scratch, err := filepath.Glob(filepath.Join(home, "tmp", "org.chromium.*"))
	require.NoError(t, err)
	require.NotEmpty(t, scratch, "Chromium's singleton folder is under $TMPDIR")

	procs := descendants(t, b.PID())
	require.GreaterOrEqual(t, len(procs), 3, "browser, zygote and renderer at least")
	for _, pid := range procs {
		raw, err := os.ReadFile(filepath.Join("/proc", strconv.Itoa(pid), "environ"))
		if err != nil {
			continue // exited meanwhile
		}
		env := strings.Split(strings.TrimRight(string(raw), "\x00"), "\x00")
		require.NotContains(t, string(raw), canary, "process %d", pid)
		if pid == b.PID() {
			// Child processes may reuse their environment's memory for their
			// title, so the exact environment is checked on the browser.
			require.Contains(t, env, "TZ=UTC")
			require.Contains(t, env, "HOME="+home)
			require.Contains(t, env, "PATH=/usr/local/bin:/usr/bin:/bin")
			require.Contains(t, env, "TMPDIR="+filepath.Join(home, "tmp"))
		}
		for _, kv := range env {
			name, _, _ := strings.Cut(kv, "=")
			require.NotContains(t, []string{"OPENAI_API_KEY", "ANTHROPIC_API_KEY", "WORLDPROBE_CANARY"}, name)
		}
	}
}

// TestStuckBrowserIsNotWaitedForever: a browser that stops answering (its
// process stopped with SIGSTOP) makes opening a tab fail with
// ErrBrowserStuck once TabOpenTimeout has passed, rather than keep the
// trial waiting for ever; answering again, it opens tabs again.
func TestStuckBrowserIsNotWaitedForever(t *testing.T) {
	ctx := context.Background()
	b, err := browser.Launch(ctx, browser.Options{Jobs: 1, TabOpenTimeout: 2 * time.Second})
	require.NoError(t, err)
	defer b.Close()
	pid := b.PID()
	require.NotZero(t, pid)
	require.NoError(t, syscall.Kill(pid, syscall.SIGSTOP))
	defer syscall.Kill(pid, syscall.SIGCONT)
	start := time.Now()
	_, err = b.NewPage(ctx, nil)
	require.ErrorIs(t, err, browser.ErrBrowserStuck)
	require.ErrorContains(t, err, "opening a browser tab: the browser did not answer within 2s")
	require.GreaterOrEqual(t, time.Since(start), 2*time.Second)

	require.NoError(t, syscall.Kill(pid, syscall.SIGCONT))
	p, err := b.NewPage(ctx, nil)
	require.NoError(t, err, "the slot of the failed opening was given back")
	_, err = chromedp.Run(p.Context(), chromedp.Navigate("data:text/html,<p>hi</p>"))
	require.NoError(t, err)
	p.Close()
}
