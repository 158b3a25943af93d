package contract

import (
	"go.yaml.in/yaml/v3"

	"github.com/worldprobe/worldprobe/internal/target"
)

// StepTeleportTo moves the XR user to a point.
const StepTeleportTo StepKind = "teleportTo"

// TeleportToStep moves the user so that the head is at Point.
type TeleportToStep struct{ Point []float64 }

func init() {
	registerStep(stepType{
		Kind: StepTeleportTo, Order: 210,
		Example: "`teleportTo: [1, 1.6, -2]`",
		Doc:     "moves the XR user so that the head is at `[x, y, z]` (metres, local-floor space), the hands and controllers with it, nothing turned; the page sees it from the next frame",
		Parse: func(p *parser, v *yaml.Node, c stepContext) (Action, bool) {
			xs, ok := p.nums(v, c.what, 3)
			return &TeleportToStep{Point: xs}, ok
		},
	})
}

// Describe renders "teleportTo [x, y, z]".
func (a *TeleportToStep) Describe() string { return "teleportTo " + target.FormatPoint(a.Point) }

// Traits: moving the user is input.
func (a *TeleportToStep) Traits() Traits { return Traits{Input: true} }

// FrameCount: none of its own.
func (a *TeleportToStep) FrameCount(Timing) int { return 0 }

func (a *TeleportToStep) run(x *exec) error {
	xr, err := x.headset()
	if err != nil {
		return err
	}
	head, _, err := xr.XRPoseOf(x.ctx, "head")
	if err != nil {
		return err
	}
	return xr.XRLocomote(x.ctx, []float64{a.Point[0] - head[0], a.Point[1] - head[1], a.Point[2] - head[2]}, 0)
}
