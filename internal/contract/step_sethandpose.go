package contract

import (
	"math"
	"strings"

	"go.yaml.in/yaml/v3"

	"github.com/worldprobe/worldprobe/internal/target"
)

// StepSetHandPose shapes a tracked hand joint by joint (GenXR-Test's
// setHandPose).
const StepSetHandPose StepKind = "setHandPose"

// SetHandPoseStep turns the named Joints of Hand to their rotations
// relative to their parent joints, on top of the hand's current shape.
type SetHandPoseStep struct {
	Hand string
	// Joints are unit quaternions [x, y, z, w] by WebXR joint name.
	Joints map[string][]float64
}

func init() {
	registerStep(stepType{
		Kind: StepSetHandPose, Order: 185,
		Example: "`setHandPose: {hand: right, joints: {index-finger-phalanx-proximal: [-0.5, 0, 0, 0.866]}}`",
		Doc: "switches the XR headset to tracked hands and shapes one joint by joint (GenXR-Test's `setHandPose`): each joint named in `joints` " +
			"(WebXR's 25 names: `wrist`, `thumb-metacarpal` … `pinky-finger-tip`) is turned to its rotation relative to its parent joint, a unit " +
			"quaternion `[x, y, z, w]` in the parent joint's frame (WebXR's joint frames: -z along the bone towards the fingertip, -y out of the palm side, " +
			"so a finger curls towards the palm about -x; the wrist's parent is the hand's own frame); the joints not named keep their rotations " +
			"relative to their parents in the hand's current shape (its gesture, or the last setHandPose), every bone keeps its length and the joints " +
			"beyond a turned one turn with it. The page reads the joints from the next frame; a pinch still closes the shape into IWER's pinch",
		Parse: parseSetHandPose,
	})
}

func parseSetHandPose(p *parser, v *yaml.Node, c stepContext) (Action, bool) {
	fields := p.mapping(v, c.what, "hand", "joints")
	if fields == nil {
		return nil, false
	}
	s := &SetHandPoseStep{Joints: map[string][]float64{}}
	var ok bool
	s.Hand, ok = p.handOf(v, fields, c.what)
	f, has := fields["joints"]
	if !has {
		p.errorf(v, "%s: want joints: {JOINT: [x, y, z, w], …}", c.what)
		return s, false
	}
	jn := resolve(f.value)
	if jn == nil || jn.Kind != yaml.MappingNode || len(jn.Content) == 0 {
		p.errorf(f.value, "%s: joints: want a mapping of WebXR hand joints to quaternions [x, y, z, w]", c.what)
		return s, false
	}
	for i := 0; i+1 < len(jn.Content); i += 2 {
		k, val := jn.Content[i], jn.Content[i+1]
		name, good := p.jointName(k, c.what+": joints")
		if !good {
			ok = false
			continue
		}
		if _, dup := s.Joints[name]; dup {
			p.errorf(k, "%s: joints: %s given twice", c.what, name)
			ok = false
			continue
		}
		q, good := p.nums(val, c.what+": joints: "+name, 4)
		if good {
			n := math.Sqrt(q[0]*q[0] + q[1]*q[1] + q[2]*q[2] + q[3]*q[3])
			if math.Abs(n-1) > 1e-3 {
				p.errorf(val, "%s: joints: %s: %s is not a unit quaternion [x, y, z, w] (its length is %s)", c.what, name, target.FormatPoint(q), formatFloat(n))
				good = false
			} else {
				q = []float64{q[0] / n, q[1] / n, q[2] / n, q[3] / n}
			}
		}
		s.Joints[name] = q
		ok = ok && good
	}
	return s, ok
}

// Describe renders "setHandPose right: JOINT [x, y, z, w], …" in WebXR's
// joint order.
func (a *SetHandPoseStep) Describe() string {
	var parts []string
	for _, j := range target.HandJoints {
		if q, ok := a.Joints[j]; ok {
			parts = append(parts, j+" "+target.FormatPoint(q))
		}
	}
	return "setHandPose " + a.Hand + ": " + strings.Join(parts, ", ")
}

// Traits: shaping a hand is input.
func (a *SetHandPoseStep) Traits() Traits { return Traits{Input: true} }

// FrameCount: none of its own.
func (a *SetHandPoseStep) FrameCount(Timing) int { return 0 }

// mirrored: the other hand, each rotation mirrored across the y–z plane
// (IWER's left hand is its right hand mirrored so).
func (a *SetHandPoseStep) mirrored() Action {
	m := &SetHandPoseStep{Hand: otherHand(a.Hand), Joints: map[string][]float64{}}
	for j, q := range a.Joints {
		m.Joints[j] = mirrorQuat(q)
	}
	return m
}

func (a *SetHandPoseStep) run(x *exec) error {
	if _, err := x.headset(); err != nil {
		return err
	}
	hands, err := capability[XRHands](x.page, "hand joints (setHandPose)")
	if err != nil {
		return err
	}
	return hands.XRHandPose(x.ctx, a.Hand, a.Joints)
}
