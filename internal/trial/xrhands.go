package trial

import (
	"context"
	"fmt"
	"slices"

	"github.com/worldprobe/worldprobe/internal/contract"
	"github.com/worldprobe/worldprobe/internal/navmesh"
	"github.com/worldprobe/worldprobe/internal/target"
	"github.com/worldprobe/worldprobe/internal/xr"
)

var (
	_ contract.XRHands     = (*page)(nil)
	_ contract.XRNavigator = (*page)(nil)
)

// XRJointPose reads where a joint of a tracked hand is (contract.XRHands):
// on IWER the hand's pose composed with the joint's offset, which the
// page's next XR frame reports; on XR Blocks the joint of core.input.hands
// as of the last frame.
func (p *page) XRJointPose(ctx context.Context, hand, joint string) ([]float64, []float64, error) {
	if !slices.Contains(target.HandJoints, joint) {
		return nil, nil, fmt.Errorf("%q is not a WebXR hand joint: %w", joint, target.ErrNotFound)
	}
	var v struct{ P, Q []float64 }
	var err error
	if p.onXRBlocks() {
		err = p.xrbCall(ctx, "joint", []any{hand, joint}, &v)
	} else {
		err = p.xrValue(ctx, map[string]any{"hand": hand, "joint": joint}, xr.JointPoseJS, &v)
	}
	return v.P, v.Q, err
}

// XRHandPose shapes a tracked hand joint by joint (contract.XRHands): on
// IWER as a new pose in its table of hand poses, on XR Blocks as the
// simulated hand's joints (SimulatorHands.setRightHandJoints), both from
// the hand's current shape with the named joints' rotations relative to
// their parents replaced.
func (p *page) XRHandPose(ctx context.Context, hand string, rotations map[string][]float64) error {
	if p.onXRBlocks() {
		parents := map[string]string{}
		for _, j := range target.HandJoints {
			parents[j] = target.JointParent(j)
		}
		return p.xrbCall(ctx, "handPose", []any{hand, rotations, target.HandJoints, parents}, nil)
	}
	p.pixels = nil
	return p.xrValue(ctx, map[string]any{"hand": hand, "rotations": rotations}, xr.HandPoseJS, nil)
}

// XRWalkable is the walkable area of the room the headset stands in, the
// boxes the contract added included (contract.XRNavigator); nil without a
// room and on XR Blocks' open floor.
func (p *page) XRWalkable(ctx context.Context) (string, *navmesh.Grid, error) {
	if p.onXRBlocks() || p.room == nil {
		return "", nil, nil
	}
	room, err := p.room.load()
	if err != nil {
		return "", nil, contract.Infra(err)
	}
	var boxes []string
	if err := p.xrValue(ctx, nil, `const m = d.`+xr.EntitiesProperty+`; return {v: m ? [...m.values()] : []};`, &boxes); err != nil {
		return "", nil, err
	}
	var extra []navmesh.Entity
	for _, b := range boxes {
		e, err := navmesh.ParseEntity([]byte(b))
		if err != nil {
			return "", nil, contract.Infra(err)
		}
		extra = append(extra, e)
	}
	g, err := navmesh.Build(room, extra, navmesh.Defaults)
	if err != nil {
		return "", nil, fmt.Errorf("room %s: %w: %w", p.room.label, err, target.ErrNotFound)
	}
	return p.room.label, g, nil
}

// pageRoom is the room a page's headset stands in, read once per trial.
type pageRoom struct {
	label string
	load  func() (*navmesh.Room, error)
}
