package cli

import (
	"bytes"
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/worldprobe/worldprobe/internal/inspect"
	"github.com/worldprobe/worldprobe/internal/video"
)

func pagesDir() string { return filepath.Join("..", "inspect", "testdata", "pages") }

func webDir(t *testing.T) string {
	t.Helper()
	d, err := filepath.Abs(filepath.Join("..", "..", "web", "node_modules"))
	require.NoError(t, err)
	return d
}

func execute(t *testing.T, args ...string) (ExitCode, string, string) {
	t.Helper()
	var out, errOut bytes.Buffer
	code := Execute(context.Background(), args, IO{In: strings.NewReader(""), Out: &out, ErrOut: &errOut,
		Getenv: func(k string) string {
			if k == EnvWeb {
				return webDir(t)
			}
			return os.Getenv(k)
		}})
	return code, out.String(), errOut.String()
}

func TestInspectExitCodesAndJSON(t *testing.T) {
	code, out, errOut := execute(t, "inspect", "--json", "--frames", "10", "--viewport", "320x200",
		filepath.Join(pagesDir(), "ok.html"), filepath.Join(pagesDir(), "js_exception.html"))
	require.Equal(t, ExitFailed, code, "stderr: %s", errOut)
	var reports []map[string]any
	require.NoError(t, json.Unmarshal([]byte(out), &reports))
	require.Len(t, reports, 2)
	for _, key := range []string{"page", "outcome", "crash", "frames", "virtual_ms", "errors", "console", "dialogs",
		"requests", "three_version", "state", "state_hash", "scene", "canvas"} {
		require.Contains(t, reports[0], key)
	}
	require.Equal(t, "ok", reports[0]["outcome"])
	require.Equal(t, 10.0, reports[0]["frames"])
	require.Equal(t, true, reports[0]["sandbox"].(map[string]any)["on"], "the report says the sandbox was on")
	require.Equal(t, "crash", reports[1]["outcome"])
	require.Equal(t, "js_exception", reports[1]["crash"].(map[string]any)["kind"])
	require.Contains(t, errOut, "[2/2]")

	code, out, _ = execute(t, "inspect", "--frames", "5", filepath.Join(pagesDir(), "ok.html"))
	require.Equal(t, ExitOK, code)
	require.Contains(t, out, "outcome:   ok")
	require.Contains(t, out, "frames:    5 (83.3 virtual ms at 60 fps, seed 1)")
}

// TestUnsafeNoSandboxIsReported: without the sandbox the command warns on
// stderr and the report says so.
func TestUnsafeNoSandboxIsReported(t *testing.T) {
	code, out, errOut := execute(t, "inspect", "--unsafe-no-sandbox", "--frames", "5", filepath.Join(pagesDir(), "ok.html"))
	require.Equal(t, ExitOK, code, errOut)
	require.Contains(t, errOut, "WARNING: Chromium runs without its sandbox (--unsafe-no-sandbox)")
	require.Contains(t, out, "sandbox:   OFF (--unsafe-no-sandbox)")
}

func TestUsageErrors(t *testing.T) {
	cases := [][]string{
		{"inspect"},
		{"inspect", "--frames", "-1", "x.html"},
		{"inspect", "--fps", "0", "x.html"},
		{"inspect", "--viewport", "big", "x.html"},
		{"inspect", "--no-such-flag", "x.html"},
		{"no-such-command"},
		{"bench", "--only-suite"},
		{"bench", "--page-memory", "-1"},
	}
	for _, args := range cases {
		code, _, errOut := execute(t, args...)
		require.Equal(t, ExitUsage, code, "args %v: %s", args, errOut)
		require.NotEmpty(t, errOut)
	}
}

func TestMissingChromiumIsInfrastructureError(t *testing.T) {
	code, _, errOut := execute(t, "inspect", "--chromium", "/nonexistent/chromium", filepath.Join(pagesDir(), "ok.html"))
	require.Equal(t, ExitInfrastructure, code)
	require.Contains(t, errOut, "/nonexistent/chromium")
}

func TestHelpTeaches(t *testing.T) {
	code, out, _ := execute(t, "inspect", "--help")
	require.Equal(t, ExitOK, code)
	for _, s := range []string{"--frames", "--seed", "--timeout", "render_loop_dead", "Exit status", "Example"} {
		require.Contains(t, out, s)
	}
}

// TestInterruptLeavesNoChromium runs the real binary on a hung page, sends
// SIGINT, and checks that every Chromium process it started is gone.
func TestInterruptLeavesNoChromium(t *testing.T) {
	cmd := worldprobeCommand(t, "inspect", "--timeout", "60s", "--web", webDir(t), filepath.Join(pagesDir(), "timeout.html"))
	require.NoError(t, cmd.Start())
	defer func() { _ = cmd.Process.Kill() }()

	var tree []int
	deadline := time.Now().Add(30 * time.Second)
	for time.Now().Before(deadline) {
		tree = descendants(cmd.Process.Pid)
		if len(tree) >= 3 { // browser, GPU/utility and the page's renderer
			break
		}
		time.Sleep(100 * time.Millisecond)
	}
	require.GreaterOrEqual(t, len(tree), 3, "chromium did not start")
	time.Sleep(1500 * time.Millisecond) // the page is now in its endless loop
	tree = descendants(cmd.Process.Pid)
	require.NoError(t, cmd.Process.Signal(syscall.SIGINT))
	done := make(chan error, 1)
	go func() { done <- cmd.Wait() }()
	select {
	case <-done:
	case <-time.After(20 * time.Second):
		t.Fatal("worldprobe did not exit after SIGINT")
	}
	require.Eventually(t, func() bool {
		for _, pid := range tree {
			if alive(pid) {
				return false
			}
		}
		return true
	}, 10*time.Second, 100*time.Millisecond, "chromium processes left behind: %v", tree)
}

// descendants lists the processes below pid, read from /proc.
func descendants(pid int) []int {
	children := map[int][]int{}
	entries, _ := os.ReadDir("/proc")
	for _, e := range entries {
		p, err := strconv.Atoi(e.Name())
		if err != nil {
			continue
		}
		b, err := os.ReadFile(filepath.Join("/proc", e.Name(), "stat"))
		if err != nil {
			continue
		}
		s := string(b)
		i := strings.LastIndexByte(s, ')')
		f := strings.Fields(s[i+1:])
		if len(f) < 2 {
			continue
		}
		ppid, _ := strconv.Atoi(f[1])
		children[ppid] = append(children[ppid], p)
	}
	var out []int
	var walk func(int)
	walk = func(p int) {
		for _, c := range children[p] {
			out = append(out, c)
			walk(c)
		}
	}
	walk(pid)
	return out
}

func alive(pid int) bool {
	b, err := os.ReadFile(filepath.Join("/proc", strconv.Itoa(pid), "stat"))
	if err != nil {
		return false
	}
	s := string(b)
	i := strings.LastIndexByte(s, ')')
	f := strings.Fields(s[i+1:])
	return len(f) > 0 && f[0] != "Z"
}

// TestInspectXR: with --xr a three.js VR app that requests immersive-vr
// at load presents from its first frame, its head at the headset's
// standing height; without --xr it has no headset; an unknown headset is
// a usage error.
func TestInspectXR(t *testing.T) {
	page := filepath.Join("..", "xr", "testdata", "three-vr.html")
	type report struct {
		Outcome string
		State   struct {
			Presenting bool
			Frames     int
			Head       []float64
		}
	}
	code, out, errOut := execute(t, "inspect", "--json", "--frames", "10", "--xr", "metaQuest3", page)
	require.Equal(t, ExitOK, code, "stderr: %s", errOut)
	var r report
	require.NoError(t, json.Unmarshal([]byte(out), &r))
	require.Equal(t, "ok", r.Outcome)
	require.True(t, r.State.Presenting)
	require.Equal(t, 10, r.State.Frames, "an XR frame for every stepped frame")
	require.InDelta(t, 1.6, r.State.Head[1], 1e-6)

	// --video records the 10 frames into a WebM and changes no state.
	var hashes [2]struct {
		StateHash string `json:"state_hash"`
		Video     *inspect.Video
	}
	require.NoError(t, json.Unmarshal([]byte(out), &hashes[0]))
	require.Nil(t, hashes[0].Video)
	clips := t.TempDir()
	code, out, errOut = execute(t, "inspect", "--json", "--frames", "10", "--xr", "metaQuest3", "--video", clips, page)
	require.Equal(t, ExitOK, code, "stderr: %s", errOut)
	require.NoError(t, json.Unmarshal([]byte(out), &hashes[1]))
	require.Equal(t, hashes[0].StateHash, hashes[1].StateHash)
	file := filepath.Join(clips, "three-vr.webm")
	require.Equal(t, &inspect.Video{File: file, Info: video.Info{Kind: video.KindWebM, Frames: 10, Every: 1, FPS: 60, Duration: 10.0 / 60, Width: 640, Height: 400}}, hashes[1].Video)
	probed, err := video.Probe(context.Background(), file)
	require.NoError(t, err)
	require.Equal(t, video.Probed{Codec: "vp9", Width: 640, Height: 400, Frames: 10, Duration: 0.167}, probed)

	code, out, errOut = execute(t, "inspect", "--json", "--frames", "10", page)
	require.NotEqual(t, ExitUsage, code, "stderr: %s", errOut)
	r = report{}
	require.NoError(t, json.Unmarshal([]byte(out), &r))
	require.False(t, r.State.Presenting, "no headset without --xr")

	code, _, errOut = execute(t, "inspect", "--xr", "vision-pro", page)
	require.Equal(t, ExitUsage, code)
	require.Contains(t, errOut, `--xr "vision-pro": no such headset`)
}

// --xr-backend needs --xr and a known backend; both are usage errors,
// found before any browser starts.
func TestInspectXRBackendUsage(t *testing.T) {
	code, _, errOut := execute(t, "inspect", "--xr-backend", "xrblocks", "page.html")
	require.Equal(t, ExitUsage, code)
	require.Contains(t, errOut, `--xr-backend "xrblocks": want --xr and one of iwer, xrblocks`)
	code, _, errOut = execute(t, "inspect", "--xr", "metaQuest3", "--xr-backend", "unity", "page.html")
	require.Equal(t, ExitUsage, code)
	require.Contains(t, errOut, `--xr-backend "unity": want --xr and one of iwer, xrblocks`)
}
