package contracttest

import (
	"context"
	"math"
	"slices"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/worldprobe/worldprobe/internal/contract"
	"github.com/worldprobe/worldprobe/internal/contract/contracttest/world"
)

// XRConformance runs the XR part of the suite against pages from open,
// which show the XR conformance world (world.XRHTML) with IWER's headset:
// every page passes it through contract.XR, or skips it when it has no
// such capability.
func XRConformance(t *testing.T, open Opener) {
	XRHeadsetConformance(t, open, world.IWER)
}

// XRCases are the XR suite's cases, in the order they run.
var XRCases = []string{"poses", "controller", "hands", "locomotion", "joints"}

// XRHeadsetConformance runs the XR suite's cases (all of XRCases when
// none are named) against pages from open, which show hs.HTML with that
// backend's headset. What hs lacks — controllers, a gesture, setHandPose —
// must be refused as the contract says (an infrastructure error, or not
// found for a gesture), and the case that needs it is skipped naming the
// backend and what it lacks, never passed.
func XRHeadsetConformance(t *testing.T, open Opener, hs world.Headset, cases ...string) {
	if len(cases) == 0 {
		cases = XRCases
	}
	run := map[string]func(*testing.T, Opener, world.Headset){
		"poses": testXRPoses, "controller": testXRController, "hands": testXRHands,
		"locomotion": testXRLocomotion, "joints": testXRJoints,
	}
	for _, c := range cases {
		f, ok := run[c]
		if !ok {
			t.Fatalf("no XR conformance case %q (%v)", c, XRCases)
		}
		t.Run(c, func(t *testing.T) { f(t, open, hs) })
	}
}

// near fails unless got is want within 1e-5 in every coordinate (the XR
// world rounds to 1e-6; IWER keeps poses in float32).
func near(t *testing.T, want []float64, got any, what string) {
	t.Helper()
	var xs []float64
	switch g := got.(type) {
	case []float64:
		xs = g
	case []any:
		for _, v := range g {
			f, ok := v.(float64)
			require.True(t, ok, "%s: %v is not a list of numbers", what, got)
			xs = append(xs, f)
		}
	default:
		t.Fatalf("%s: %v (%T) is not a list of numbers", what, got, got)
	}
	require.Len(t, xs, len(want), what)
	for i := range want {
		require.InDelta(t, want[i], xs[i], 1e-5, "%s: coordinate %d of %v", what, i, xs)
	}
}

func hand(t *testing.T, p contract.Page, h string) map[string]any {
	t.Helper()
	m, ok := state(t, p)[h].(map[string]any)
	require.True(t, ok, "the state has the %s hand", h)
	return m
}

func testXRPoses(t *testing.T, open Opener, hs world.Headset) {
	ctx := context.Background()
	p, xr := openWith[contract.XR](t, open, "the page has no XR headset")
	require.NoError(t, p.Step(ctx, 1))
	pos, q, err := xr.XRPoseOf(ctx, "head")
	require.NoError(t, err)
	near(t, hs.HeadStart[:], pos, "the head starts standing")
	near(t, []float64{0, 0, 0, 1}, q, "the head starts turned nowhere")
	mode, err := xr.XRInputMode(ctx)
	require.NoError(t, err)
	require.Equal(t, hs.StartMode, mode, "%s starts with %ss", hs.Name, hs.StartMode)
	st := state(t, p)
	require.Equal(t, hs.StartMode, st["mode"])
	near(t, hs.HeadStart[:], st["head"], "the page sees the head")
	near(t, hs.RightStart[:], hand(t, p, "right")["ray"], "the page sees the right hand's ray")
	near(t, hs.LeftStart[:], hand(t, p, "left")["ray"], "the page sees the left hand's ray")

	require.NoError(t, xr.XRPose(ctx, "head", []float64{0.5, 1.2, 0.25}, nil))
	pos, _, err = xr.XRPoseOf(ctx, "head")
	require.NoError(t, err)
	near(t, []float64{0.5, 1.2, 0.25}, pos, "the pose reads back at once")
	near(t, hs.HeadStart[:], state(t, p)["head"], "the page sees it only on the next frame")
	require.NoError(t, p.Step(ctx, 1))
	near(t, []float64{0.5, 1.2, 0.25}, state(t, p)["head"], "the next frame")

	left := []float64{0, math.Sqrt2 / 2, 0, math.Sqrt2 / 2} // 90° to the left
	require.NoError(t, xr.XRPose(ctx, hs.RightDevice, []float64{0.1, 1, -0.2}, left))
	require.NoError(t, p.Step(ctx, 1))
	near(t, []float64{0.1, 1, -0.2}, hand(t, p, "right")["ray"], "the right hand's device moved")
	near(t, []float64{-1, 0, 0}, hand(t, p, "right")["dir"], "its ray turned to -x")

	_, _, err = xr.XRPoseOf(ctx, "tail")
	notFound(t, err, "a device the headset does not have")
}

func testXRController(t *testing.T, open Opener, hs world.Headset) {
	ctx := context.Background()
	p, xr := openWith[contract.XR](t, open, "the page has no XR headset")
	require.NoError(t, p.Step(ctx, 1))
	if !hs.Controllers {
		// A headset without controllers refuses them as the harness's
		// limit, naming itself: never a silent pass.
		for what, err := range map[string]error{
			"buttons":  xr.XRController(ctx, "right", map[string]float64{"trigger": 1}, nil),
			"its pose": xr.XRPose(ctx, "right-controller", []float64{0.1, 1, -0.2}, nil),
		} {
			require.Error(t, err, "a controller's %s", what)
			require.True(t, contract.IsInfra(err), "refusing a controller's %s is the harness's limit: %v", what, err)
			require.Contains(t, err.Error(), hs.Name)
		}
		t.Skipf("%s has no controllers: refused as infrastructure", hs.Name)
	}
	require.NoError(t, xr.XRController(ctx, "right", map[string]float64{"trigger": 1, "a-button": 1}, []float64{0.5, -1}))
	require.Equal(t, false, hand(t, p, "right")["selecting"], "nothing before the next frame")
	require.NoError(t, p.Step(ctx, 1))
	r := hand(t, p, "right")
	require.Equal(t, true, r["selecting"], "the trigger selects")
	require.Equal(t, 1.0, r["trigger"])
	require.Equal(t, 1.0, r["a"])
	near(t, []float64{0.5, -1}, r["thumbstick"], "the thumbstick")
	require.NoError(t, xr.XRController(ctx, "right", map[string]float64{"trigger": 0}, nil))
	require.NoError(t, p.Step(ctx, 1))
	r = hand(t, p, "right")
	require.Equal(t, false, r["selecting"], "letting the trigger go ends the select")
	require.Equal(t, 1.0, r["selects"], "one select")

	require.NoError(t, xr.XRController(ctx, "left", map[string]float64{"squeeze": 1}, nil))
	require.NoError(t, p.Step(ctx, 1))
	require.Equal(t, true, hand(t, p, "left")["squeezing"], "the squeeze squeezes")
	require.Equal(t, false, hand(t, p, "left")["selecting"], "and does not select")

	require.NoError(t, xr.XRSelect(ctx, "left", 1))
	require.NoError(t, p.Step(ctx, 1))
	require.Equal(t, true, hand(t, p, "left")["selecting"], "a select on a controller pulls its trigger")
	require.Equal(t, 1.0, hand(t, p, "left")["trigger"])

	off, err := xr.XRTouchOffset(ctx, "right")
	require.NoError(t, err)
	near(t, hs.GripOffset[:], off, "a controller touches with its grip")

	err = xr.XRController(ctx, "right", map[string]float64{"x-button": 1}, nil)
	notFound(t, err, "the right controller has no X button")
	err = xr.XRController(ctx, "right", map[string]float64{"a-button": 0.5}, nil)
	notFound(t, err, "the A button is pressed or not")
}

func testXRHands(t *testing.T, open Opener, hs world.Headset) {
	ctx := context.Background()
	p, xr := openWith[contract.XR](t, open, "the page has no XR headset")
	require.NoError(t, p.Step(ctx, 1))
	require.NoError(t, xr.XRGesture(ctx, "right", "default"))
	mode, err := xr.XRInputMode(ctx)
	require.NoError(t, err)
	require.Equal(t, "hand", mode, "a gesture switches to hands")
	off, err := xr.XRTouchOffset(ctx, "right")
	require.NoError(t, err)
	near(t, hs.IndexOffset[:], off, "the relaxed hand's index fingertip")
	require.NoError(t, p.Step(ctx, 1))
	require.Equal(t, "hand", state(t, p)["mode"], "the page sees hands")
	near(t, hs.RightStart[:], hand(t, p, "right")["ray"], "the hand's own start")

	require.NoError(t, xr.XRSelect(ctx, "right", 1))
	require.NoError(t, p.Step(ctx, 1))
	require.Equal(t, true, hand(t, p, "right")["selecting"], "a select on a hand pinches")
	require.NoError(t, xr.XRSelect(ctx, "right", 0))
	require.NoError(t, p.Step(ctx, 1))
	require.Equal(t, false, hand(t, p, "right")["selecting"])
	require.Equal(t, 1.0, hand(t, p, "right")["selects"])

	for _, g := range contract.XRGestures {
		if slices.Contains(hs.Lacks, g) {
			notFound(t, xr.XRGesture(ctx, "left", g), "%s has no pose %s", hs.Name, g)
			continue
		}
		require.NoError(t, xr.XRGesture(ctx, "left", g), "gesture %s", g)
	}
	err = xr.XRGesture(ctx, "left", "wave")
	notFound(t, err, "a gesture the headset does not know")
}

// testXRJoints: a hand's joints are read one by one; XRHandPose turns a
// joint relative to its parent to exactly the rotation given, the bones
// keep their lengths and the joints it does not name their rotations; a
// controller has no joints.
func testXRJoints(t *testing.T, open Opener, hs world.Headset) {
	ctx := context.Background()
	p, hands := openWith[contract.XRHands](t, open, "the page has no hand joints")
	xr, ok := p.(contract.XR)
	require.True(t, ok, "a page with hand joints has a headset")
	require.NoError(t, p.Step(ctx, 1))
	if hs.StartMode == "controller" {
		_, _, err := hands.XRJointPose(ctx, "right", "wrist")
		notFound(t, err, "a controller's joints")
	}
	require.NoError(t, xr.XRPose(ctx, "right", []float64{0.2, 1.3, -0.4}, nil))
	require.NoError(t, p.Step(ctx, 1))
	type pose struct{ p, q []float64 }
	read := func(joint string) pose {
		pos, q, err := hands.XRJointPose(ctx, "right", joint)
		require.NoError(t, err, joint)
		require.Len(t, pos, 3, joint)
		require.Len(t, q, 4, joint)
		return pose{pos, q}
	}
	chain := []string{"index-finger-metacarpal", "index-finger-phalanx-proximal", "index-finger-phalanx-intermediate", "ring-finger-tip"}
	before := map[string]pose{}
	for _, j := range chain {
		before[j] = read(j)
	}
	turn := []float64{-0.5, 0, 0, math.Sqrt(3) / 2} // 60° about -x: a curl
	err := hands.XRHandPose(ctx, "right", map[string][]float64{"index-finger-phalanx-proximal": turn})
	if !hs.HandPose {
		require.Error(t, err, "setHandPose")
		require.True(t, contract.IsInfra(err), "refusing setHandPose is the harness's limit: %v", err)
		require.Contains(t, err.Error(), hs.Name)
		t.Skipf("%s cannot shape a hand joint by joint (setHandPose): %s", hs.Name, hs.Why)
	}
	require.NoError(t, err)
	require.NoError(t, p.Step(ctx, 1))
	after := map[string]pose{}
	for _, j := range chain {
		after[j] = read(j)
	}
	local := func(parent, child pose) []float64 {
		c := []float64{-parent.q[0], -parent.q[1], -parent.q[2], parent.q[3]}
		l := qmul(c, child.q)
		if l[3] < 0 {
			l = []float64{-l[0], -l[1], -l[2], -l[3]}
		}
		return l
	}
	m, pr, in := chain[0], chain[1], chain[2]
	near(t, turn, local(after[m], after[pr]), "the proximal phalanx turned relative to its metacarpal")
	near(t, local(before[pr], before[in]), local(after[pr], after[in]), "the intermediate phalanx kept its rotation relative to its parent")
	bone := func(a, b pose) float64 { return math.Hypot(math.Hypot(a.p[0]-b.p[0], a.p[1]-b.p[1]), a.p[2]-b.p[2]) }
	require.InDelta(t, bone(before[m], before[pr]), bone(after[m], after[pr]), 1e-5, "the metacarpal kept its length")
	require.InDelta(t, bone(before[pr], before[in]), bone(after[pr], after[in]), 1e-5, "the proximal phalanx kept its length")
	near(t, before[chain[3]].p, after[chain[3]].p, "another finger did not move")
	require.Greater(t, bone(before[in], after[in]), 0.005, "the intermediate phalanx moved with the turn")
}

// qmul is the Hamilton product a·b of quaternions [x, y, z, w].
func qmul(a, b []float64) []float64 {
	return []float64{
		a[3]*b[0] + a[0]*b[3] + a[1]*b[2] - a[2]*b[1],
		a[3]*b[1] - a[0]*b[2] + a[1]*b[3] + a[2]*b[0],
		a[3]*b[2] + a[0]*b[1] - a[1]*b[0] + a[2]*b[3],
		a[3]*b[3] - a[0]*b[0] - a[1]*b[1] - a[2]*b[2],
	}
}

func testXRLocomotion(t *testing.T, open Opener, hs world.Headset) {
	ctx := context.Background()
	p, xr := openWith[contract.XR](t, open, "the page has no XR headset")
	require.NoError(t, p.Step(ctx, 1))
	require.NoError(t, xr.XRLocomote(ctx, []float64{1, 0, -2}, 90))
	pos, q, err := xr.XRPoseOf(ctx, "head")
	require.NoError(t, err)
	head := []float64{hs.HeadStart[0] + 1, hs.HeadStart[1], hs.HeadStart[2] - 2}
	near(t, head, pos, "the head moved")
	near(t, []float64{0, math.Sqrt2 / 2, 0, math.Sqrt2 / 2}, q, "and turned 90° to the left")
	require.NoError(t, p.Step(ctx, 1))
	near(t, head, state(t, p)["head"], "the page sees the head there")
	// The right hand's ray (on IWER's Quest 3 0.25 m right, 0.1 m down and
	// 0.4 m ahead of the head: at [0.6, 1.5, -2.25] after the move) turns
	// about the head, 90° to the left, and moves with it.
	d := []float64{hs.RightStart[0] - hs.HeadStart[0], hs.RightStart[1] - hs.HeadStart[1], hs.RightStart[2] - hs.HeadStart[2]}
	near(t, []float64{head[0] + d[2], head[1] + d[1], head[2] - d[0]}, hand(t, p, "right")["ray"], "the right hand came along")
	near(t, []float64{-1, 0, 0}, hand(t, p, "right")["dir"], "and turned")
}
