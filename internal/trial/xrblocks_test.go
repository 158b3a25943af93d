package trial

import (
	"context"
	"fmt"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/worldprobe/worldprobe/internal/result"
)

// xrBlocksContract drives internal/xr/testdata/xrblocks-app.html, an app
// written with XR Blocks, through the XR Blocks backend.
const xrBlocksContract = `version: 1
probes:
  - name: runs
    level: state
    steps:
      - step: 10
      - assert: s.frames == 10 && s.selects == 0
      - assert: 's.cube.position == [0.0, 1.2, -1.0]'
      # XR Blocks draws the scene into a render target: the cube is
      # projected with the camera that drew it there, as its view shows.
      - assert: 'object("cube").on_screen && object("cube").screen == object("cube").views.filter(v, v.camera == "PerspectiveCamera")[0].screen'
      - assert: objectPixel("cube").b > 2.0 * objectPixel("cube").r && objectPixel("cube").b > 60.0
  - name: hands
    level: transition
    steps:
      - step: 5
      - hand: {hand: right, position: [0.1, 1.3, -0.5]}
      - assert: 's.rightHand == [0.1, 1.3, -0.5]'
      - hand: {hand: right, pinch: 1}
      # XR Blocks calls onSelectStart after the scripts' update of the
      # frame that sees the pinch: the state shows it a frame later.
      - assert: '!s.selecting'
      - step: 1
      - assert: s.selecting
      - step: 3
      - hand: {hand: right, pinch: 0}
      - assert: s.selects == 1 && !s.selecting
  - name: user
    level: transition
    steps:
      - step: 5
      - assert: s.head == [0.0, 1.5, 0.0]
      - teleportTo: [0.5, 1.6, 0.5]
      - assert: s.head == [0.5, 1.6, 0.5]
      - gesture: {hand: right, pose: point}
      - step: 30
      - reachTo: {hand: right, object: cube}
      - assert: dist(s.tip, [0.0, 1.2, -1.0]) < 0.001
      - assert: dist(s.tip, [-0.00007667850122, 1.199817145, -1.000088752]) < 0.000001
      - snapshot: walked
      - stepControl: {control: {locomotion: {move: [0, 0, 1]}, rightHand: {selectStart: true}}, frames: 4}
      - assert: s.head == [0.5, 1.6, -0.5] && s.frames == walked.frames + 4.0 && s.selecting
`

// TestXRBlocksApp: an app written with XR Blocks runs with the XR Blocks
// backend (xrBackend: xrblocks): its simulator starts offline, the right
// hand is placed and pinched through the simulator, the app counts the
// select a frame after the pinch (XR Blocks calls onSelectStart after the
// scripts' update), the user is teleported, the index fingertip reaches the
// cube within 1 mm, a stepControl walks the user 1 m forward over 4
// frames with the right hand pinching, and three runs give the same verdicts and state hash.
// A controller step, which the simulator cannot do, stops the run with an
// infrastructure error naming the backend.
func TestXRBlocksApp(t *testing.T) {
	page, err := filepath.Abs(filepath.Join("..", "xr", "testdata", "xrblocks-app.html"))
	require.NoError(t, err)
	run := func(contractText string) (*result.Trial, error) {
		dir := filepath.Join(t.TempDir(), "xr", "xrblocks-cube")
		tk, c := writeTask(t, dir, map[string]string{
			"task.yaml": "id: xr/xrblocks-cube\ntitle: XR Blocks cube\ncategory: xr\ndifficulty: D1\nviewport: {width: 640, height: 480}\ntimeout: 120s\nxr: metaQuest3\nxrBackend: xrblocks\n" +
				"state:\n  - {path: frames, type: number}\n  - {path: selects, type: number}\n  - {path: head, type: vec3}\n  - {path: tip, type: vec3}\n",
			"brief.md":      "# XR Blocks cube\n\nExpose the state.\n",
			"contract.yaml": contractText,
		})
		r := &Runner{Browser: shared.Browser, Resolver: shared.Resolver, SkipDraw: true, Load: func() float64 { return 0.2 }}
		return r.Run(context.Background(), Input{Key: "k", Task: tk, Contract: c, Page: page, Model: "m", Candidate: "c", Dir: t.TempDir()})
	}
	want := []string{
		"interface:0 pass ", "interface:0 pass ", "interface:0 pass ", "interface:0 pass ",
		"runs:7 pass ", "runs:8 pass ", "runs:11 pass ", "runs:12 pass ",
		"hands:18 pass ", "hands:22 pass ", "hands:24 pass ", "hands:27 pass ",
		"user:32 pass ", "user:34 pass ", "user:38 pass ", "user:39 pass ", "user:42 pass ",
	}
	var hashes []string
	for i := range 3 {
		tr, err := run(xrBlocksContract)
		require.NoError(t, err)
		require.Equal(t, result.OutcomeOK, tr.Outcome, "%s: %s", tr.CrashKind, tr.CrashMessage)
		var got []string
		for _, a := range tr.Assertions {
			got = append(got, fmt.Sprintf("%s:%d %s %s", a.Probe, a.Line, a.Status, a.Message))
		}
		require.Equal(t, want, got, "run %d:\n%s", i, strings.Join(got, "\n"))
		require.True(t, tr.Pass)
		hashes = append(hashes, tr.StateHash)
	}
	require.Equal(t, hashes[0], hashes[1])
	require.Equal(t, hashes[0], hashes[2])

	// What the simulator cannot do stops the run as infrastructure, naming
	// the backend and the action, never a silent pass.
	_, err = run("version: 1\nprobes:\n  - name: trigger\n    level: state\n    steps:\n      - step: 5\n      - controller: {hand: right, trigger: 1}\n      - assert: s.frames == 6\n")
	require.EqualError(t, err, "running the contract of xr/xrblocks-cube: probe trigger: controller right trigger 1: the XR Blocks backend cannot press a controller's buttons: XR Blocks' simulator has hands, no controllers")
}
