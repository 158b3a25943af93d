package contract

import (
	"cmp"
	"context"
	"errors"
	"fmt"
	"math"
	"slices"
	"strings"

	"github.com/worldprobe/worldprobe/internal/contract/contracttest/world"
	"github.com/worldprobe/worldprobe/internal/navmesh"
	"github.com/worldprobe/worldprobe/internal/target"
)

// fakeXR is the emulated headset of a fake page showing the XR
// conformance world (world.XRHTML), modelled on IWER 2.5 as the real
// session drives it: device poses the page sees from the next frame,
// button values applied at the start of a frame with their events fired
// then (IWER fires select with selectstart), controllers and hands as
// separate devices with one of them active.
type fakeXR struct {
	poses map[string]fakePose
	mode  string
	// value and pending are button values by device and button id
	// ("trigger", "squeeze", "pinch", "a-button", …); pending ones apply
	// at the next frame.
	value, pending map[string]map[string]float64
	thumbstick     map[string][]float64
	gesture        map[string]string
	// before is each hand's gesture before XRPinchPose closed it.
	before map[string]string
	// The page's state.
	frames int
	head   []float64
	mode0  string
	hands  map[string]map[string]any
	// inRoom is set when the headset stands in a room (fakeroom_test.go);
	// objects are the boxes added to it, in order.
	inRoom  bool
	objects []RoomObject
	// The walkable area (fakehands_test.go) and, per hand, the joint
	// rotations setHandPose gave it; trail is the head's position and
	// heading (degrees) at each frame.
	walkRoom string
	walk     *navmesh.Grid
	handPose map[string]map[string][]float64
	trail    [][]float64
}

type fakePose struct{ p, q []float64 }

// fakeButtons are the buttons of the fake's controllers, by hand, and
// whether each is binary (IWER's Touch Plus layout).
var fakeButtons = map[string]map[string]bool{
	"left":  {"trigger": false, "squeeze": false, "thumbstick": true, "x-button": true, "y-button": true, "thumbrest": true},
	"right": {"trigger": false, "squeeze": false, "thumbstick": true, "a-button": true, "b-button": true, "thumbrest": true},
}

func newFakeXR() *fakeXR {
	x := &fakeXR{mode: "controller",
		poses:      map[string]fakePose{},
		value:      map[string]map[string]float64{},
		pending:    map[string]map[string]float64{},
		thumbstick: map[string][]float64{},
		gesture:    map[string]string{"left": "default", "right": "default"},
		before:     map[string]string{},
		head:       []float64{0, 0, 0},
		hands:      map[string]map[string]any{},
	}
	id := []float64{0, 0, 0, 1}
	x.poses["head"] = fakePose{world.XRHeadStart[:], id}
	for _, h := range []string{"left", "right"} {
		start := world.XRRightStart
		if h == "left" {
			start = world.XRLeftStart
		}
		x.poses[h] = fakePose{slices.Clone(start[:]), id}
		x.poses[h+"-controller"] = fakePose{slices.Clone(start[:]), id}
		x.thumbstick[h] = []float64{0, 0}
		x.hands[h] = map[string]any{"ray": []any{0.0, 0.0, 0.0}, "dir": []any{0.0, 0.0, -1.0}, "selecting": false, "selects": 0.0,
			"squeezing": false, "trigger": 0.0, "a": 0.0, "thumbstick": []any{0.0, 0.0}}
	}
	return x
}

// NewFakeXRPage is a fake page showing the XR conformance world.
func newFakeXRPage(fps float64) *fakePage {
	p := newFakePage(fps)
	p.xr = newFakeXR()
	return p
}

// activeDevice is the device of hand's active input.
func (x *fakeXR) activeDevice(hand string) string {
	if x.mode == "controller" {
		return hand + "-controller"
	}
	return hand
}

// frame is one XR frame: pending values apply and fire their events, and
// the page writes its state.
func (x *fakeXR) frame() {
	x.frames++
	for dev, vs := range x.pending {
		for id, v := range vs {
			if x.value[dev] == nil {
				x.value[dev] = map[string]float64{}
			}
			was := x.value[dev][id]
			x.value[dev][id] = v
			hand := strings.TrimSuffix(dev, "-controller")
			if (dev == hand) != (x.mode == "hand") {
				continue // an inactive input fires nothing
			}
			h := x.hands[hand]
			switch {
			case (id == "trigger" || id == "pinch") && was == 0 && v > 0:
				h["selecting"], h["selects"] = true, h["selects"].(float64)+1
			case (id == "trigger" || id == "pinch") && was > 0 && v == 0:
				h["selecting"] = false
			case id == "squeeze" && was == 0 && v > 0:
				h["squeezing"] = true
			case id == "squeeze" && was > 0 && v == 0:
				h["squeezing"] = false
			}
		}
	}
	x.pending = map[string]map[string]float64{}
	x.head = round6(x.poses["head"].p)
	head := x.poses["head"]
	x.trail = append(x.trail, round6([]float64{head.p[0], head.p[1], head.p[2], headingOf(unitQuat(head.q)) * 180 / math.Pi}))
	x.mode0 = x.mode
	for _, hand := range []string{"left", "right"} {
		dev := x.activeDevice(hand)
		pose := x.poses[dev]
		h := x.hands[hand]
		h["ray"] = anyList(round6(pose.p))
		h["dir"] = anyList(round6(rotate(pose.q, []float64{0, 0, -1})))
		if x.mode == "controller" {
			h["trigger"], h["a"] = x.value[dev]["trigger"], x.value[dev]["a-button"]
			h["thumbstick"] = anyList(x.thumbstick[hand])
		} else {
			h["trigger"], h["a"], h["thumbstick"] = 0.0, 0.0, []any{0.0, 0.0}
		}
	}
}

func round6(xs []float64) []float64 {
	out := make([]float64, len(xs))
	for i, x := range xs {
		out[i] = math.Round(x*1e6) / 1e6
		if out[i] == 0 {
			out[i] = 0 // no -0
		}
	}
	return out
}

func anyList(xs []float64) []any {
	out := make([]any, len(xs))
	for i, x := range xs {
		out[i] = x
	}
	return out
}

// state is the XR world's window.__3D_STATE__.
func (x *fakeXR) state() map[string]any {
	hands := map[string]any{}
	for h, m := range x.hands {
		c := map[string]any{}
		for k, v := range m {
			c[k] = v
		}
		hands[h] = c
	}
	return map[string]any{"frames": float64(x.frames), "head": anyList(x.head), "mode": x.mode0, "left": hands["left"], "right": hands["right"]}
}

// headset is the fake's XR, or the real page's error without one.
func (p *fakePage) headset(method string) (*fakeXR, error) {
	if err := p.err(method); err != nil {
		return nil, err
	}
	if p.xr == nil {
		return nil, Infra(errors.New("the page has no XR headset: set xr: in the task's task.yaml (docs/xr.md)"))
	}
	return p.xr, nil
}

func (p *fakePage) XRPose(ctx context.Context, device string, position, orientation []float64) error {
	x, err := p.headset("XRPose")
	if err != nil {
		return err
	}
	pose, ok := x.poses[device]
	if !ok {
		return fmt.Errorf("no XR device %s: %w", device, target.ErrNotFound)
	}
	switch {
	case strings.HasSuffix(device, "-controller"):
		x.mode = "controller"
	case device != "head":
		x.mode = "hand"
	}
	pose.p = slices.Clone(position)
	if orientation != nil {
		pose.q = slices.Clone(orientation)
	}
	x.poses[device] = pose
	return nil
}

func (p *fakePage) XRPinch(ctx context.Context, hand string, value float64) error {
	x, err := p.headset("XRPinch")
	if err != nil {
		return err
	}
	x.mode = "hand"
	x.set(hand, "pinch", value)
	return nil
}

// XRPinchPose shapes the hand as the pinch, remembering its gesture, or
// gives the gesture back.
func (p *fakePage) XRPinchPose(ctx context.Context, hand string, closed bool) error {
	x, err := p.headset("XRPinchPose")
	if err != nil {
		return err
	}
	x.mode = "hand"
	if closed {
		if x.gesture[hand] != "pinch" {
			x.before[hand] = x.gesture[hand]
		}
		x.gesture[hand] = "pinch"
		return nil
	}
	x.gesture[hand] = cmp.Or(x.before[hand], "default")
	return nil
}

// set makes a button value pending on a device.
func (x *fakeXR) set(device, id string, v float64) {
	if x.pending[device] == nil {
		x.pending[device] = map[string]float64{}
	}
	x.pending[device][id] = v
}

func (p *fakePage) XRPoseOf(ctx context.Context, device string) ([]float64, []float64, error) {
	x, err := p.headset("XRPoseOf")
	if err != nil {
		return nil, nil, err
	}
	pose, ok := x.poses[device]
	if !ok {
		return nil, nil, fmt.Errorf("no XR device %s: %w", device, target.ErrNotFound)
	}
	return slices.Clone(pose.p), slices.Clone(pose.q), nil
}

func (p *fakePage) XRInputMode(ctx context.Context) (string, error) {
	x, err := p.headset("XRInputMode")
	if err != nil {
		return "", err
	}
	return x.mode, nil
}

func (p *fakePage) XRController(ctx context.Context, hand string, buttons map[string]float64, thumbstick []float64) error {
	x, err := p.headset("XRController")
	if err != nil {
		return err
	}
	x.mode = "controller"
	for id, v := range buttons {
		binary, ok := fakeButtons[hand][id]
		if !ok {
			return fmt.Errorf("the %s controller has no button %s: %w", hand, id, target.ErrNotFound)
		}
		if binary && v != 0 && v != 1 {
			return fmt.Errorf("button %s of the %s controller is binary: want 0 or 1, got %g: %w", id, hand, v, target.ErrNotFound)
		}
	}
	for id, v := range buttons {
		x.set(hand+"-controller", id, v)
	}
	if thumbstick != nil {
		x.thumbstick[hand] = slices.Clone(thumbstick)
	}
	return nil
}

func (p *fakePage) XRGesture(ctx context.Context, hand, pose string) error {
	x, err := p.headset("XRGesture")
	if err != nil {
		return err
	}
	x.mode = "hand"
	if !slices.Contains(XRGestures, pose) {
		return fmt.Errorf("the headset has no hand pose %s: %w", pose, target.ErrNotFound)
	}
	x.gesture[hand] = pose
	return nil
}

func (p *fakePage) XRSelect(ctx context.Context, hand string, value float64) error {
	x, err := p.headset("XRSelect")
	if err != nil {
		return err
	}
	if x.mode == "controller" {
		x.set(hand+"-controller", "trigger", value)
	} else {
		x.set(hand, "pinch", value)
	}
	return nil
}

// XRTouchOffset: the fake knows the touching points of the relaxed hand
// and the controller (mirrored in x for the left hand); other gestures
// have none here.
func (p *fakePage) XRTouchOffset(ctx context.Context, hand string) ([]float64, error) {
	x, err := p.headset("XRTouchOffset")
	if err != nil {
		return nil, err
	}
	off := world.XRGripOffset
	if x.mode == "hand" {
		if x.gesture[hand] != "default" || x.value[hand]["pinch"] != 0 {
			return nil, Infra(fmt.Errorf("the fake headset knows the %s fingertip of the relaxed, open hand only", hand))
		}
		off = world.XRIndexOffset
	}
	out := slices.Clone(off[:])
	if hand == "left" {
		out[0] = -out[0]
	}
	return out, nil
}

func (p *fakePage) XRLocomote(ctx context.Context, translation []float64, yaw float64) error {
	x, err := p.headset("XRLocomote")
	if err != nil {
		return err
	}
	head := x.poses["head"].p
	turn := yawQuat(yaw * math.Pi / 180)
	for dev, pose := range x.poses {
		d := rotate(turn, []float64{pose.p[0] - head[0], 0, pose.p[2] - head[2]})
		x.poses[dev] = fakePose{
			p: []float64{head[0] + d[0] + translation[0], pose.p[1] + translation[1], head[2] + d[2] + translation[2]},
			q: mulQuat(turn, pose.q),
		}
	}
	return nil
}
