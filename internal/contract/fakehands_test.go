package contract

import (
	"context"
	"fmt"
	"slices"

	"github.com/worldprobe/worldprobe/internal/navmesh"
	"github.com/worldprobe/worldprobe/internal/target"
)

var (
	_ XRHands     = (*fakePage)(nil)
	_ XRNavigator = (*fakePage)(nil)
)

// XRWalkable is the fake headset's walkable area, as a test set it
// (contract.XRNavigator): nil, the open floor, by default.
func (p *fakePage) XRWalkable(ctx context.Context) (string, *navmesh.Grid, error) {
	x, err := p.headset("XRWalkable")
	if err != nil {
		return "", nil, err
	}
	return x.walkRoom, x.walk, nil
}

// fakeJointOffset is where a joint of the fake's right hand is in its
// parent joint's frame when not turned: the wrist at the hand's origin,
// the metacarpals 2 cm ahead of it, 2 cm apart from the thumb (x −0.04)
// to the pinky (x 0.04), every other bone 3 cm along -z. The left hand is
// its mirror image (x negated).
func fakeJointOffset(hand, joint string) []float64 {
	i := slices.Index(target.HandJoints, joint)
	out := []float64{0, 0, -0.03}
	switch {
	case i == 0:
		out = []float64{0, 0, 0}
	case target.JointParent(joint) == "wrist":
		finger := 0
		if i > 1 {
			finger = (i-5)/5 + 1
		}
		out = []float64{0.02*float64(finger) - 0.04, 0, -0.02}
	}
	if hand == "left" {
		out[0] = -out[0]
	}
	return out
}

// XRJointPose is a joint of the fake's hand: its chain from the wrist,
// each joint at its offset in its parent's frame and turned by the
// rotation setHandPose gave it (none by default) (contract.XRHands).
func (p *fakePage) XRJointPose(ctx context.Context, hand, joint string) ([]float64, []float64, error) {
	x, err := p.headset("XRJointPose")
	if err != nil {
		return nil, nil, err
	}
	if x.mode == "controller" {
		return nil, nil, fmt.Errorf("the %s hand is a controller: %w", hand, target.ErrNotFound)
	}
	var chain []string
	for j := joint; j != ""; j = target.JointParent(j) {
		chain = append([]string{j}, chain...)
	}
	pose := x.poses[hand]
	pos, q := slices.Clone(pose.p), unitQuat(pose.q)
	for _, j := range chain {
		off := rotate(q, fakeJointOffset(hand, j))
		pos = []float64{pos[0] + off[0], pos[1] + off[1], pos[2] + off[2]}
		if r, ok := x.handPose[hand][j]; ok {
			q = mulQuat(q, r)
		}
	}
	return pos, q, nil
}

// XRHandPose keeps the rotations for XRJointPose (contract.XRHands).
func (p *fakePage) XRHandPose(ctx context.Context, hand string, rotations map[string][]float64) error {
	x, err := p.headset("XRHandPose")
	if err != nil {
		return err
	}
	x.mode = "hand"
	if x.handPose == nil {
		x.handPose = map[string]map[string][]float64{}
	}
	if x.handPose[hand] == nil {
		x.handPose[hand] = map[string][]float64{}
	}
	for j, q := range rotations {
		x.handPose[hand][j] = slices.Clone(q)
	}
	return nil
}
