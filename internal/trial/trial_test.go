package trial

import (
	"context"
	"os"
	"path/filepath"
	"slices"
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
	// can still run a blank page promptly, the timeout is the page's (no
	// retry here: RetryUnderLoad's test covers the retries before it).
	var asked time.Duration
	selfLoaded := &Runner{Browser: shared.Browser, Resolver: shared.Resolver, SkipDraw: true, Retries: -1,
		Load:    func() float64 { return 3 },
		Healthy: func(_ context.Context, within time.Duration) bool { asked = within; return true }}
	in.Dir = t.TempDir()
	tr, err = selfLoaded.Run(context.Background(), in)
	require.NoError(t, err)
	require.Equal(t, result.OutcomeCrash, tr.Outcome)
	require.Equal(t, "timeout", tr.CrashKind, tr.CrashMessage)
	require.True(t, tr.Scored())
	require.Equal(t, 0, tr.Retries, "Retries < 0: the health probe at once")
	require.Equal(t, HealthWithin, asked, "a twentieth of the 1 s deadline is less than the floor")
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

	// Without xr: Chromium's own navigator.xr has no headset: the session
	// is refused, the page keeps rendering (clearing) its view, and the
	// first head step stops the run as the task's fault, never the page's.
	_, err = try("", vrState, vrContract, vrPage)
	require.EqualError(t, err, "running the contract of xr/vr-cube: probe head_and_hand: head [0.5, 1.2, 0.25]: the page has no XR headset: set xr: in the task's task.yaml (docs/xr.md)")

	_, err = try("", "  - {path: frames, type: number}\n", "version: 1\nprobes:\n  - name: looks\n    level: state\n    steps:\n      - head: {position: [0, 1.6, 0]}\n      - assert: s.frames > 0\n", flatPage)
	require.EqualError(t, err, "running the contract of xr/vr-cube: probe looks: head [0, 1.6, 0]: the page has no XR headset: set xr: in the task's task.yaml (docs/xr.md)")
}

// TestXRStepsDriveTheUser: GenXR-Test's actions, as contract steps, reach a
// three.js VR app (internal/xr/testdata/three-xr-input.html) through IWER
// on the next frame, with the values the app reads pinned: controller
// buttons, axes and select/squeeze events; the gestures' shapes (a fist's
// curled fingers, a palm facing up, a thumb pointing up); a select started
// and ended on a hand; teleporting, turning and walking the user (the
// hands come along); a hand moved in the head's frame and turned in its
// own; the head and the rays aimed at an object; the grip
// and the index fingertip placed on a point within 1 mm; ray clicks, aimed
// and not. Two runs (three with the slow tests) give the same state hash.
func TestXRStepsDriveTheUser(t *testing.T) {
	page, err := filepath.Abs(filepath.Join("..", "xr", "testdata", "three-xr-input.html"))
	require.NoError(t, err)
	state := "  - {path: frames, type: number}\n  - {path: head, type: vec3}\n  - {path: yaw, type: number}\n  - {path: pitch, type: number}\n" +
		"  - {path: mode, type: string}\n  - {path: cube, type: vec3}\n  - {path: right, type: object}\n  - {path: left, type: object}\n"
	contractText := `version: 1
probes:
  - name: controller
    level: transition
    steps:
      - step: 1
      - controller: {hand: right, position: [0.3, 1.1, -0.5], trigger: 1, squeeze: 1, thumbstick: [0.5, -1], buttons: {a: 1}}
      - assert: s.mode == 'controller' && dist(s.right.ray, [0.3, 1.1, -0.5]) < 0.00001
      - assert: s.right.selecting && s.right.squeezing && s.right.events.selectstart == 1 && s.right.events.squeezestart == 1
      - assert: s.right.buttons[0] == 1.0 && s.right.buttons[1] == 1.0 && s.right.buttons[4] == 1.0 && s.right.buttons[5] == 0.0
      - assert: s.right.axes[2] == 0.5 && s.right.axes[3] == -1.0
      - controller: {hand: right, trigger: 0, squeeze: 0, buttons: {a: 0}}
      - assert: '!s.right.selecting && !s.right.squeezing && s.right.events.select == 1 && s.right.events.selectend == 1'
      - assert: s.right.events.squeeze == 1 && s.right.events.squeezeend == 1 && s.right.buttons[4] == 0.0
  - name: gestures
    level: transition
    steps:
      - step: 1
      - gesture: {hand: left, pose: open-palm}
      - assert: s.mode == 'hand' && s.left.curl > 0.17
      - gesture: {hand: left, pose: fist}
      - assert: s.left.curl < 0.07
      - startSelect: {hand: left}
      - assert: s.left.selecting && s.left.events.selectstart == 1
      - endSelect: {hand: left}
      - assert: '!s.left.selecting && s.left.events.select == 1 && s.left.events.selectend == 1'
      - gesture: {hand: left, pose: palm-up}
      - assert: dist(s.left.palm, [0, 1, 0]) < 0.00001
      - gesture: {hand: right, pose: thumbs-up}
      - assert: dist(s.right.thumbDir, [0, 1, 0]) < 0.00001
  - name: locomotion
    level: transition
    steps:
      - step: 1
      - teleportTo: [1, 1.6, -2]
      - assert: dist(s.head, [1, 1.6, -2]) < 0.00001 && dist(s.right.ray, [1.25, 1.5, -2.4]) < 0.00001
      - rotate: {yaw: 90}
      - assert: approx(s.yaw, 90, 0.0001) && dist(s.head, [1, 1.6, -2]) < 0.00001 && dist(s.right.ray, [0.6, 1.5, -2.25]) < 0.00001
      - walk: {forward: 1, up: 0.1}
      - assert: dist(s.head, [0, 1.7, -2]) < 0.00001 && dist(s.right.ray, [-0.4, 1.6, -2.25]) < 0.00001 && approx(s.yaw, 90, 0.0001)
      - moveHand: {hand: right, forward: 0.1, up: -0.05}
      - rotateHand: {hand: right, pitch: 90}
      - assert: dist(s.right.ray, [-0.5, 1.55, -2.25]) < 0.00001 && dist(s.right.dir, [0, 1, 0]) < 0.00001
  - name: aim_and_reach
    level: transition
    steps:
      - step: 1
      - lookAtTarget: {object: cube}
      - assert: approx(s.pitch, -45, 0.0001) && approx(s.yaw, 0, 0.0001) && dist(s.head, [0, 1.6, 0]) < 0.00001
      - pointTo: {hand: right, object: cube}
      - assert: dist(s.right.dir, [-0.640184, -0.768221, 0]) < 0.00001 && dist(s.right.ray, [0.25, 1.5, -0.4]) < 0.00001
      - reachTo: {hand: right, world: [0.1, 1.3, -0.5]}
      - assert: dist(s.right.grip, [0.1, 1.3, -0.5]) < 0.001
      - gesture: {hand: right, pose: point}
      - reachTo: {hand: right, object: cube}
      - assert: s.mode == 'hand' && dist(s.right.tip, s.cube) < 0.001
      - rayClick: {hand: left, object: cube}
      - assert: dist(s.left.dir, [0.640184, -0.768221, 0]) < 0.00001
      - assert: s.left.events.selectstart == 1 && s.left.events.select == 1 && s.left.events.selectend == 1 && !s.left.selecting
      - rayClick: {hand: left}
      - assert: s.left.events.selectstart == 2 && s.left.events.selectend == 2 && dist(s.left.dir, [0.640184, -0.768221, 0]) < 0.00001
`
	dir := filepath.Join(t.TempDir(), "xr", "xr-input")
	tk, c := writeTask(t, dir, map[string]string{
		"task.yaml":     "id: xr/xr-input\ntitle: XR input\ncategory: xr\ndifficulty: D1\nxr: metaQuest3\nstate:\n" + state,
		"brief.md":      "# XR input\n\nExpose the state.\n",
		"contract.yaml": contractText,
	})
	var hashes []string
	for range repeats() {
		r := &Runner{Browser: shared.Browser, Resolver: shared.Resolver, SkipDraw: true, Load: func() float64 { return 0.2 }}
		tr, err := r.Run(context.Background(), Input{Key: "k", Task: tk, Contract: c, Page: page, Model: "m", Candidate: "c", Dir: t.TempDir()})
		require.NoError(t, err)
		require.Equal(t, result.OutcomeOK, tr.Outcome, "%s: %s", tr.CrashKind, tr.CrashMessage)
		for _, a := range tr.Assertions {
			require.Equal(t, "pass", a.Status, "%s: %s: %s", a.Probe, a.Expr, a.Message)
		}
		require.True(t, tr.Pass)
		hashes = append(hashes, tr.StateHash)
	}
	require.Len(t, hashes, repeats())
	require.NotEmpty(t, hashes[0])
	require.Equal(t, slices.Repeat([]string{hashes[0]}, repeats()), hashes, "every run, one state hash")

	// Without xr: in task.yaml, the first XR step stops the run naming the fix.
	flatPage, err := filepath.Abs(filepath.Join("..", "inspect", "testdata", "pages", "ok.html"))
	require.NoError(t, err)
	flat := filepath.Join(t.TempDir(), "xr", "flat")
	tk, c = writeTask(t, flat, map[string]string{
		"task.yaml":     "id: xr/flat\ntitle: Flat\ncategory: xr\ndifficulty: D1\nstate:\n  - {path: frames, type: number}\n",
		"brief.md":      "# Flat\n\nExpose the state.\n",
		"contract.yaml": "version: 1\nprobes:\n  - name: grab\n    level: state\n    steps:\n      - controller: {hand: left, squeeze: 1}\n      - assert: s.frames > 0\n",
	})
	r := &Runner{Browser: shared.Browser, Resolver: shared.Resolver, SkipDraw: true, Load: func() float64 { return 0.2 }}
	_, err = r.Run(context.Background(), Input{Key: "k", Task: tk, Contract: c, Page: flatPage, Model: "m", Candidate: "c", Dir: t.TempDir()})
	require.EqualError(t, err, "running the contract of xr/flat: probe grab: controller left squeeze 1: the page has no XR headset: set xr: in the task's task.yaml (docs/xr.md)")
}

// repeats is how many times a determinism test judges its trial: twice in
// 'make test' (enough to see two runs differ), three times with the slow
// tests.
func repeats() int {
	if testenv.SlowEnabled() {
		return 3
	}
	return 2
}
