package trial

import (
	"context"
	"encoding/json"
	"fmt"
	"math"
	"path/filepath"
	"strconv"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/worldprobe/worldprobe/internal/contract"
	"github.com/worldprobe/worldprobe/internal/navmesh"
	"github.com/worldprobe/worldprobe/internal/result"
	"github.com/worldprobe/worldprobe/internal/task"
	"github.com/worldprobe/worldprobe/internal/xr"
)

// fmtF prints a float as CEL reads it back.
func fmtF(x float64) string { return strconv.FormatFloat(x, 'f', -1, 64) }

// TestXRNavigate drives a real three.js VR app
// (internal/xr/testdata/xr-hands.html) standing in office_small:
// navigateTo walks the user from the start around a crate the contract
// added in the way (its footprint blocks the room's walkable grid) to
// within 0.1 m of a point behind it: the page's viewer pose ends where
// package navmesh's path over office_small and the crate ends, after
// exactly ⌈length × 60 / 1⌉ frames, facing the point, its path never near
// the crate. The crate replaced by a wall across the room leaves no way
// back, and the step fails naming the room and the target.
func TestXRNavigate(t *testing.T) {
	page, err := filepath.Abs(filepath.Join("..", "xr", "testdata", "xr-hands.html"))
	require.NoError(t, err)

	// The walk package navmesh plans in office_small with the crate.
	scene, err := xr.RoomScene(shared.Resolver, "office_small")
	require.NoError(t, err)
	room, err := navmesh.ParseRoom(scene)
	require.NoError(t, err)
	box, err := xr.BoxEntity("crate", "other", []float64{0, 0.4, 0.45}, []float64{0.5, 0.8, 0.2}, 0)
	require.NoError(t, err)
	b, err := json.Marshal(box)
	require.NoError(t, err)
	crate, err := navmesh.ParseEntity(b)
	require.NoError(t, err)
	grid, err := navmesh.Build(room, []navmesh.Entity{crate}, navmesh.Defaults)
	require.NoError(t, err)
	path, err := grid.Path([2]float64{0, 0}, [2]float64{0, 0.95}, 0.1)
	require.NoError(t, err)
	require.Greater(t, len(path), 2, "the crate is in the way: %v", path)
	end := path[len(path)-1]
	frames := int(math.Ceil(navmesh.Length(path) * 60))
	yaw := math.Atan2(end[0], -(0.95-end[1])) * 180 / math.Pi // facing (0, 0.95) from the end
	t.Logf("path %v, %d frames, yaw %.3f", path, frames, yaw)

	dir := filepath.Join(t.TempDir(), "xr", "walk")
	tk, c := writeTask(t, dir, map[string]string{
		"task.yaml": "id: xr/walk\ntitle: Walk\ncategory: xr\ndifficulty: D1\ntimeout: 120s\nxr: metaQuest3\nroom: office_small\nframes: 600\nstate:\n" +
			"  - {path: frames, type: number}\n",
		"brief.md": "# Walk\n\nWalk.\n",
		"contract.yaml": fmt.Sprintf(`version: 1
probes:
  - name: walk
    level: transition
    steps:
      - step: 2
      - addObjects: [{id: crate, label: other, position: [0, 0.4, 0.45], size: [0.5, 0.8, 0.2]}]
      - snapshot: start
      - navigateTo: {world: [0, 1, 0.95], stop: 0.1}
      - assert: approx(s.head, [%s, 1.6, %s], 0.000002)
      - assert: s.frames - start.frames == %d
      - assert: abs(s.yaw - %s) < 0.001
      - assert: s.path.all(p, abs(p[0]) > 0.4 || p[1] < 0.2 || p[1] > 0.7)
      - updateObjects: [{id: crate, label: other, position: [0, 0.5, 0.45], size: [3, 1, 0.2]}]
      - navigateTo: {world: [0, 1, 0], frames: 60}
      - assert: 'true'
`, fmtF(end[0]), fmtF(end[1]), frames, fmtF(yaw)),
	})
	tr := runXR(t, tk, c, page)
	require.Equal(t, []string{"walk pass ", "walk pass ", "walk pass ", "walk pass ",
		`walk error navigateTo {world: [0, 1, 0]} (line 15): no walkable path of room "office_small" leads from [0.05, 0.95] to within 0.5 m of {world: [0, 1, 0]} at [0, 1, 0]: target not found`,
	}, verdicts(tr))
}

// TestXRHandPose: setHandPose turns the right index finger's proximal
// phalanx and the wrist to the rotations given in a real three.js VR app
// (internal/xr/testdata/xr-hands.html): the page's frame reports exactly
// those rotations relative to their parents (within 1e-5), every bone its
// length and the other joints their rotations; a {joint: …} target is
// where the page sees the joint, as CEL's joint() is. Mirrored, the left
// hand gets the mirrored rotations.
func TestXRHandPose(t *testing.T) {
	page, err := filepath.Abs(filepath.Join("..", "xr", "testdata", "xr-hands.html"))
	require.NoError(t, err)
	dir := filepath.Join(t.TempDir(), "xr", "pose")
	tk, c := writeTask(t, dir, map[string]string{
		"task.yaml": "id: xr/pose\ntitle: Pose\ncategory: xr\ndifficulty: D1\ntimeout: 120s\nxr: metaQuest3\nstate:\n  - {path: frames, type: number}\n",
		"brief.md":  "# Pose\n\nShape hands.\n",
		"contract.yaml": `version: 1
probes:
  - name: hand_pose
    level: transition
    hands: mirror
    steps:
      - hand: {hand: right, position: [0.2, 1.3, -0.4]}
      - snapshot: before
      - setHandPose: {hand: right, joints: {index-finger-phalanx-proximal: [-0.5, 0, 0, 0.8660254], wrist: [0, 0.3826834, 0, 0.9238795]}}
      - assert: approx(s[hand].local["index-finger-phalanx-proximal"], [-0.5, 0, 0, 0.8660254], 0.00001)
      - assert: approx(s[hand].local.wrist, [0, mirror * 0.3826834, 0, 0.9238795], 0.00001)
      - assert: before[hand].bone.all(k, abs(s[hand].bone[k] - before[hand].bone[k]) < 0.00001)
      - assert: before[hand].local.all(k, k == "wrist" || k == "index-finger-phalanx-proximal" || dist(s[hand].local[k], before[hand].local[k]) < 0.00001)
      - assert: dist(s[hand].joints["index-finger-tip"].p, before[hand].joints["index-finger-tip"].p) > 0.02
      - lookAtTarget: {joint: {hand: right, name: index-finger-tip}}
      - assert: facing(xr().head, xr().head.forward, s[hand].joints["index-finger-tip"].p, 0.01)
      - assert: approx(joint(hand, "index-finger-tip").position, s[hand].joints["index-finger-tip"].p, 0.00001) && approx(joint(hand, "wrist").orientation, s[hand].joints.wrist.q, 0.00001)
`,
	})
	tr := runXR(t, tk, c, page)
	var want []string
	for _, h := range []string{"right", "left"} {
		for range 7 {
			want = append(want, "hand_pose["+h+"] pass ")
		}
	}
	require.Equal(t, want, verdicts(tr))
}

// runXR judges page against the task's contract.
func runXR(t *testing.T, tk *task.Task, c *contract.Contract, page string) *result.Trial {
	t.Helper()
	r := &Runner{Browser: shared.Browser, Resolver: shared.Resolver, SkipDraw: true, Load: func() float64 { return 0.2 }}
	tr, err := r.Run(context.Background(), Input{Key: "k", Task: tk, Contract: c, Page: page, Model: "m", Candidate: "c", Dir: t.TempDir()})
	require.NoError(t, err)
	require.Equal(t, result.OutcomeOK, tr.Outcome, "%s: %s", tr.CrashKind, tr.CrashMessage)
	return tr
}

// verdicts are the trial's verdicts but the interface probe's, as "PROBE
// STATUS MESSAGE".
func verdicts(tr *result.Trial) []string {
	var got []string
	for _, a := range tr.Assertions {
		if a.Probe != "interface" {
			got = append(got, a.Probe+" "+a.Status+" "+a.Message)
		}
	}
	return got
}
