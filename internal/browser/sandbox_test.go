package browser_test

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"github.com/chromedp/chromedp"
	"github.com/stretchr/testify/require"

	"github.com/worldprobe/worldprobe/internal/browser"
)

// processInfo is what /proc says about one Chromium process.
type processInfo struct {
	pid    int
	kind   string // the --type= switch; "browser" when there is none
	args   []string
	status map[string]string
}

func readProcess(t *testing.T, pid int) (processInfo, bool) {
	t.Helper()
	dir := filepath.Join("/proc", strconv.Itoa(pid))
	cmd, err1 := os.ReadFile(filepath.Join(dir, "cmdline"))
	st, err2 := os.ReadFile(filepath.Join(dir, "status"))
	if err1 != nil || err2 != nil {
		return processInfo{}, false // exited meanwhile
	}
	p := processInfo{pid: pid, kind: "browser", status: map[string]string{}}
	// A sandboxed child rewrites its title, which joins its arguments with
	// spaces, so split on both.
	p.args = strings.Fields(strings.ReplaceAll(string(cmd), "\x00", " "))
	for _, a := range p.args {
		if v, ok := strings.CutPrefix(a, "--type="); ok {
			p.kind = v
		}
	}
	for _, line := range strings.Split(string(st), "\n") {
		if k, v, ok := strings.Cut(line, ":"); ok {
			p.status[k] = strings.TrimSpace(v)
		}
	}
	return p, true
}

// TestChromiumRunsSandboxed: no Chromium process gets --no-sandbox or runs
// as root; every child process has no_new_privs; renderers (page code) and
// every utility process (the network service included) are behind
// seccomp-bpf, renderers in their own PID namespace. The GPU process is the
// one exception Chromium makes itself: with SwiftShader its threads start
// before the GPU sandbox would, so Chromium skips it (starting it early
// makes SwiftShader's Vulkan fail and WebGL vanish); it still runs as the
// unprivileged browser user with no_new_privs. docs/runtime.md says so.
func TestChromiumRunsSandboxed(t *testing.T) {
	if _, err := browser.FindChromium(""); err != nil {
		t.Fatalf("run 'make setup': %v", err)
	}
	ctx := context.Background()
	b, err := browser.Launch(ctx, browser.Options{Jobs: 1})
	require.NoError(t, err, "run 'make setup' (it creates the browser user when run as root)")
	defer b.Close()
	require.True(t, b.Sandbox().On)
	if os.Geteuid() == 0 {
		require.NotZero(t, b.Sandbox().UID)
		require.Contains(t, b.Sandbox().String(), "as "+b.Sandbox().User)
	}
	p, err := b.NewPage(ctx, nil)
	require.NoError(t, err)
	defer p.Close()
	_, err = chromedp.Run(p.Context(), chromedp.Navigate("data:text/html,<canvas id=c></canvas>"))
	require.NoError(t, err)
	webgl, err := chromedp.Run(p.Context(), chromedp.Evaluate[bool](`!!document.getElementById('c').getContext('webgl2')`))
	require.NoError(t, err)
	require.True(t, webgl, "WebGL2 through SwiftShader works with the sandbox on")

	kinds := map[string]int{}
	for _, pid := range descendants(t, b.PID()) {
		proc, ok := readProcess(t, pid)
		if !ok {
			continue
		}
		what := fmt.Sprintf("process %d (%s)", pid, proc.kind)
		kinds[proc.kind]++
		require.NotContains(t, proc.args, "--no-sandbox", what)
		require.NotContains(t, proc.args, "--service-sandbox-type=none", what)
		for _, id := range strings.Fields(proc.status["Uid"]) {
			require.NotEqual(t, "0", id, what+" runs as root")
		}
		if pid != b.PID() {
			require.Equal(t, "1", proc.status["NoNewPrivs"], what)
		}
		switch proc.kind {
		case "renderer":
			require.Equal(t, "2", proc.status["Seccomp"], what+" is not behind a seccomp filter")
			require.Greater(t, len(strings.Fields(proc.status["NSpid"])), 1, what+" is not in a PID namespace of its own")
		case "utility":
			require.Equal(t, "2", proc.status["Seccomp"], what+" is not behind a seccomp filter")
		}
	}
	require.Positive(t, kinds["renderer"], "a renderer was found: %v", kinds)
	require.Positive(t, kinds["utility"], "the network service was found: %v", kinds)
}

// TestUnsafeNoSandboxIsSaid: --unsafe-no-sandbox really passes --no-sandbox
// and the browser says so.
func TestUnsafeNoSandboxIsSaid(t *testing.T) {
	if _, err := browser.FindChromium(""); err != nil {
		t.Fatalf("run 'make setup': %v", err)
	}
	b, err := browser.Launch(context.Background(), browser.Options{Jobs: 1, UnsafeNoSandbox: true})
	require.NoError(t, err)
	defer b.Close()
	require.False(t, b.Sandbox().On)
	require.True(t, strings.HasPrefix(b.Sandbox().String(), "OFF (--unsafe-no-sandbox)"), b.Sandbox().String())
	proc, ok := readProcess(t, b.PID())
	require.True(t, ok)
	require.Contains(t, proc.args, "--no-sandbox")
}

// TestMissingBrowserUserRefuses: as root, with no browser user, Launch
// refuses and says how to fix it instead of falling back to --no-sandbox.
func TestMissingBrowserUserRefuses(t *testing.T) {
	if os.Geteuid() != 0 {
		t.Skip("the browser user is only needed as root")
	}
	_, err := browser.Launch(context.Background(), browser.Options{Jobs: 1, BrowserUser: "worldprobe-no-such-user"})
	require.ErrorIs(t, err, browser.ErrNoBrowserUser)
	require.ErrorContains(t, err, "make setup")
	require.ErrorContains(t, err, "--unsafe-no-sandbox")
}
