package trial

import (
	"context"
	"fmt"
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/worldprobe/worldprobe/internal/result"
	"github.com/worldprobe/worldprobe/internal/testenv"
	"github.com/worldprobe/worldprobe/internal/xr"
)

// TestXRBlocksOpenFloor: XR Blocks' simulator stands the user on
// worldprobe's open floor, so there is no walkable grid: navigateTo walks
// straight.
func TestXRBlocksOpenFloor(t *testing.T) {
	p := &page{backend: xr.BackendXRBlocks}
	name, grid, err := p.XRWalkable(context.Background())
	require.NoError(t, err)
	require.Equal(t, "", name)
	require.Nil(t, grid, "XR Blocks' open floor: the walk is straight")
}

// TestXRBlocksNavigateAndJoints: on the XR Blocks backend navigateTo walks
// straight over the simulator's open floor (XR Blocks starts the user at
// [0, 1.5, 0]): 0.5 m short of a point 2 m ahead in 90 frames at 1 m/s,
// and, with stop 0, onto the place of the right index fingertip, a
// {joint: …} target read from core.input.hands; setHandPose curls the
// right index finger, whose tip the app sees move (after the step's
// settle frame) where joint() reads it. An XR
// Blocks trial takes 40 s or more on the loaded 2-core machine: slow
// (TestPageXRBlocksConformance keeps setHandPose on XR Blocks in make test).
func TestXRBlocksNavigateAndJoints(t *testing.T) {
	testenv.Slow(t)
	page, err := filepath.Abs(filepath.Join("..", "xr", "testdata", "xrblocks-app.html"))
	require.NoError(t, err)
	run := func(contractText string) (*result.Trial, error) {
		dir := filepath.Join(t.TempDir(), "xr", "xrblocks-walk")
		tk, c := writeTask(t, dir, map[string]string{
			"task.yaml": "id: xr/xrblocks-walk\ntitle: XR Blocks walk\ncategory: xr\ndifficulty: D1\nviewport: {width: 640, height: 480}\ntimeout: 120s\nxr: metaQuest3\nxrBackend: xrblocks\n" +
				"state:\n  - {path: frames, type: number}\n  - {path: head, type: vec3}\n  - {path: tip, type: vec3}\n",
			"brief.md":      "# XR Blocks walk\n\nExpose the state.\n",
			"contract.yaml": contractText,
		})
		r := &Runner{Browser: shared.Browser, Resolver: shared.Resolver, SkipDraw: true, Load: func() float64 { return 0.2 }}
		return r.Run(context.Background(), Input{Key: "k", Task: tk, Contract: c, Page: page, Model: "m", Candidate: "c", Dir: t.TempDir()})
	}
	tr, err := run(`version: 1
probes:
  - name: walk
    level: transition
    steps:
      - step: 5
      - snapshot: start
      - navigateTo: {world: [0, 1, -2]}
      - assert: approx(s.head, [0.0, 1.5, -1.5], 0.000001) && s.frames == start.frames + 90.0
      - step: 2
      - snapshot: before
      - navigateTo: {joint: {hand: right, name: index-finger-tip}, stop: 0}
      - assert: approx([s.head[0], s.head[2]], [before.tip[0], before.tip[2]], 0.000001)
`)
	require.NoError(t, err)
	require.Equal(t, result.OutcomeOK, tr.Outcome, "%s: %s", tr.CrashKind, tr.CrashMessage)
	var got []string
	for _, a := range tr.Assertions {
		if a.Probe != "interface" {
			got = append(got, fmt.Sprintf("%s:%d %s %s", a.Probe, a.Line, a.Status, a.Message))
		}
	}
	require.Equal(t, []string{"walk:9 pass ", "walk:13 pass "}, got)

	tr, err = run(`version: 1
probes:
  - name: pose
    level: transition
    steps:
      - step: 5
      - snapshot: before
      - setHandPose: {hand: right, joints: {index-finger-phalanx-proximal: [-0.5, 0, 0, 0.8660254037844386]}}
      - assert: dist(s.tip, before.tip) > 0.01 && dist(s.tip, joint("right", "index-finger-tip").position) < 0.000001
`)
	require.NoError(t, err)
	require.Equal(t, result.OutcomeOK, tr.Outcome, "%s: %s", tr.CrashKind, tr.CrashMessage)
	got = nil
	for _, a := range tr.Assertions {
		if a.Probe != "interface" {
			got = append(got, fmt.Sprintf("%s:%d %s %s", a.Probe, a.Line, a.Status, a.Message))
		}
	}
	require.Equal(t, []string{"pose:9 pass "}, got)
}
