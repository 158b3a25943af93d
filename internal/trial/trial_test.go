package trial

import (
	"context"
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/worldprobe/worldprobe/internal/contract"
	"github.com/worldprobe/worldprobe/internal/result"
	"github.com/worldprobe/worldprobe/internal/task"
	"github.com/worldprobe/worldprobe/internal/testenv"
)

// shared is the browser and resolver of this package's tests.
var shared testenv.Harness

func TestMain(m *testing.M) {
	testenv.RunMain(m, 2, &shared)
}

// hangingTask writes a task whose page runs normally through the load
// check (30 frames) and then loops forever in frame 40: a page that misses
// every deadline, however long.
func hangingTask(t *testing.T) (*task.Task, *contract.Contract, string) {
	t.Helper()
	dir := filepath.Join(t.TempDir(), "simulation", "hang")
	files := map[string]string{
		"task.yaml": "id: simulation/hang\ntitle: Hang\ncategory: simulation\ndifficulty: D1\ntimeout: 1s\nframes: 200\n" +
			"state:\n  - path: n\n    type: number\n    description: frames drawn\n",
		"brief.md":      "# Hang\n\nExpose `n`.\n",
		"contract.yaml": "version: 1\nprobes:\n  - name: runs\n    level: state\n    steps:\n      - step: 60\n      - assert: s.n > 0\n",
		"page/index.html": `<!doctype html><canvas id=c width=64 height=64></canvas><script>
const gl = document.getElementById('c').getContext('webgl');
const sh = (type, src) => { const x = gl.createShader(type); gl.shaderSource(x, src); gl.compileShader(x); return x; };
const prog = gl.createProgram();
gl.attachShader(prog, sh(gl.VERTEX_SHADER, 'void main() { gl_Position = vec4(0.0, 0.0, 0.0, 1.0); gl_PointSize = 8.0; }'));
gl.attachShader(prog, sh(gl.FRAGMENT_SHADER, 'void main() { gl_FragColor = vec4(1.0, 0.0, 0.0, 1.0); }'));
gl.linkProgram(prog);
let n = 0;
window.__3D_STATE__ = {get n() { return n; }};
function frame() {
  n++;
  gl.clearColor(0, 0, 1, 1); gl.clear(gl.COLOR_BUFFER_BIT); gl.useProgram(prog); gl.drawArrays(gl.POINTS, 0, 1);
  if (n === 40) { for (;;) {} }
  requestAnimationFrame(frame);
}
requestAnimationFrame(frame);
</script>`,
	}
	tk, c := writeTask(t, dir, files)
	return tk, c, filepath.Join(dir, "page", "index.html")
}

// writeTask writes files (name → content) into the task folder dir and
// loads its task and contract.
func writeTask(t *testing.T, dir string, files map[string]string) (*task.Task, *contract.Contract) {
	t.Helper()
	for name, body := range files {
		p := filepath.Join(dir, name)
		require.NoError(t, os.MkdirAll(filepath.Dir(p), 0o755))
		require.NoError(t, os.WriteFile(p, []byte(body), 0o644))
	}
	tk, err := task.Load(dir)
	require.NoError(t, err)
	c, err := contract.Load(tk.ContractPath())
	require.NoError(t, err)
	return tk, c
}

// A missed deadline on a quiet machine is the page's: a timeout, at once.
// On an overloaded one it is retried with the deadline doubled, and when
// every attempt misses it under overload the trial is an infrastructure
// error that no score counts.
func TestMissedDeadlines(t *testing.T) {
	tk, c, page := hangingTask(t)
	in := Input{Key: "k", Task: tk, Contract: c, Page: page, Model: "m", Candidate: "c"}

	quiet := &Runner{Browser: shared.Browser, Resolver: shared.Resolver, SkipDraw: true, Load: func() float64 { return 0.2 }}
	in.Dir = t.TempDir()
	tr, err := quiet.Run(context.Background(), in)
	require.NoError(t, err)
	require.Equal(t, result.OutcomeCrash, tr.Outcome)
	require.Equal(t, "timeout", tr.CrashKind, tr.CrashMessage)
	require.Equal(t, 0, tr.Retries)
	require.Equal(t, "timeout", tr.Class())
	require.True(t, tr.InRerun("crash"), "--rerun crash takes in timeouts")

	loads := 0
	busy := &Runner{Browser: shared.Browser, Resolver: shared.Resolver, SkipDraw: true, Retries: 1,
		Load:    func() float64 { loads++; return 13 },
		Healthy: func(context.Context, time.Duration) bool { return false }}
	in.Dir = t.TempDir()
	tr, err = busy.Run(context.Background(), in)
	require.NoError(t, err)
	require.Equal(t, result.OutcomeInfra, tr.Outcome, "%s: %s", tr.CrashKind, tr.CrashMessage)
	require.False(t, tr.Scored())
	require.Equal(t, "infra", tr.Class())
	require.Equal(t, 1, tr.Retries)
	require.Equal(t, 2, loads, "the load is read after each missed deadline")
	require.Len(t, tr.RetryReasons, 1)
	require.Contains(t, tr.RetryReasons[0], "attempt 1 missed its 1s deadline with the machine overloaded (load 13.0 per core)")
	require.Contains(t, tr.CrashMessage, "attempt 2 missed its 2s deadline")
	require.Contains(t, tr.CrashMessage, "not scored (run again with --rerun infra")
	require.Zero(t, tr.VCov)

	// A page that loops forever loads the machine itself: when the harness
	// can still run a blank page promptly, the timeout is the page's.
	var asked time.Duration
	selfLoaded := &Runner{Browser: shared.Browser, Resolver: shared.Resolver, SkipDraw: true, Retries: 1,
		Load:    func() float64 { return 3 },
		Healthy: func(_ context.Context, within time.Duration) bool { asked = within; return true }}
	in.Dir = t.TempDir()
	tr, err = selfLoaded.Run(context.Background(), in)
	require.NoError(t, err)
	require.Equal(t, result.OutcomeCrash, tr.Outcome)
	require.Equal(t, "timeout", tr.CrashKind, tr.CrashMessage)
	require.True(t, tr.Scored())
	require.Equal(t, 1, tr.Retries)
	require.Equal(t, HealthWithin, asked, "a twentieth of the 2 s deadline is less than the floor")
	require.Contains(t, tr.CrashMessage, "a blank page loaded and ran within 10s: the page's own timeout")
}

// The health probe passes in a browser that can run pages, and fails when
// it is given no time.
func TestProbeHealth(t *testing.T) {
	require.True(t, ProbeHealth(context.Background(), shared.Browser, shared.Resolver, HealthWithin))
	require.False(t, ProbeHealth(context.Background(), shared.Browser, shared.Resolver, time.Millisecond))
}

// TestXRTaskRunsWithTheHeadset: a task with `xr:` judges its page with the
// emulated headset in the load check and in every probe (one at 30 fps,
// one with a reload), and its head and hand steps drive it: the three.js
// VR app presents from its first frame, one XR frame per stepped frame, and
// sees the head, the fingertip and the pinch — the thumb and index tips
// already together the frame before the pinch starts and still together at
// the frame it ends, apart again after. Without `xr:` the same app's
// session request is refused (a crash of the page, which asked for XR with
// no headset), and a head step on a page without a headset is the task's
// fault: the run stops with an error that says so, and nothing is scored.
func TestXRTaskRunsWithTheHeadset(t *testing.T) {
	vrPage, err := filepath.Abs(filepath.Join("..", "xr", "testdata", "three-vr.html"))
	require.NoError(t, err)
	flatPage, err := filepath.Abs(filepath.Join("..", "inspect", "testdata", "pages", "ok.html"))
	require.NoError(t, err)
	try := func(xrLine, state, contractText, page string) (*result.Trial, error) {
		dir := filepath.Join(t.TempDir(), "xr", "vr-cube")
		tk, c := writeTask(t, dir, map[string]string{
			"task.yaml":     "id: xr/vr-cube\ntitle: VR cube\ncategory: xr\ndifficulty: D1\n" + xrLine + "state:\n" + state,
			"brief.md":      "# VR cube\n\nExpose the state.\n",
			"contract.yaml": contractText,
		})
		r := &Runner{Browser: shared.Browser, Resolver: shared.Resolver, SkipDraw: true, Load: func() float64 { return 0.2 }}
		return r.Run(context.Background(), Input{Key: "k", Task: tk, Contract: c, Page: page, Model: "m", Candidate: "c", Dir: t.TempDir()})
	}
	run := func(xrLine, state, contractText, page string) *result.Trial {
		tr, err := try(xrLine, state, contractText, page)
		require.NoError(t, err)
		return tr
	}
	vrState := "  - {path: presenting, type: boolean}\n  - {path: frames, type: number}\n  - {path: head, type: vec3}\n" +
		"  - {path: tip, type: vec3}\n  - {path: selecting, type: boolean}\n  - {path: selects, type: number}\n" +
		"  - {path: gap, type: number}\n  - {path: gapBeforeStart, type: number}\n  - {path: gapAtStart, type: number}\n  - {path: gapAtEnd, type: number}\n"
	vrContract := `version: 1
probes:
  - name: presents
    level: state
    steps:
      - step: 10
      - assert: s.presenting && s.frames == 10
      - assert: approx(s.head[1], 1.6, 0.000001)
  - name: presents_30fps
    level: state
    fps: 30
    steps:
      - step: 3
      - reload: {}
      - step: 4
      - assert: s.presenting && s.frames == 4
  - name: head_and_hand
    level: transition
    steps:
      - step: 2
      - head: {position: [0.5, 1.2, 0.25]}
      - assert: approx(s.head[1], 1.2, 0.000001) && approx(s.head[2], 0.25, 0.000001) && approx(s.head[0], 0.5, 0.05)
      - hand: {hand: right, position: [0.2, 1.3, -0.4]}
      - assert: dist(s.tip, [0.2, 1.3, -0.4]) < 0.25 && !s.selecting
      - assert: s.gap > 0.05
      - hand: {hand: right, pinch: 1}
      - assert: s.selecting
      - assert: s.gapBeforeStart < 0.005 && s.gapAtStart < 0.005
      - hand: {hand: right, pinch: 0}
      - assert: '!s.selecting && s.selects == 1'
      - assert: s.gapAtEnd < 0.005 && s.gap > 0.05
`
	tr := run("xr: metaQuest3\n", vrState, vrContract, vrPage)
	require.Equal(t, result.OutcomeOK, tr.Outcome, "%s: %s", tr.CrashKind, tr.CrashMessage)
	for _, a := range tr.Assertions {
		require.Equal(t, "pass", a.Status, "%s: %s: %s", a.Probe, a.Expr, a.Message)
	}
	require.True(t, tr.Pass, "every assertion passes with the headset")

	tr = run("", vrState, vrContract, vrPage)
	require.Equal(t, result.OutcomeCrash, tr.Outcome)
	require.Contains(t, tr.CrashMessage, "requires user activation", "Chromium's own navigator.xr has no headset")

	_, err = try("", "  - {path: frames, type: number}\n", "version: 1\nprobes:\n  - name: looks\n    level: state\n    steps:\n      - head: {position: [0, 1.6, 0]}\n      - assert: s.frames > 0\n", flatPage)
	require.EqualError(t, err, "running the contract of xr/vr-cube: probe looks: head [0, 1.6, 0]: the page has no XR headset: set xr: in the task's task.yaml (docs/xr.md)")
}
