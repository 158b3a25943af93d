package contract

import (
	"go.yaml.in/yaml/v3"

	"github.com/worldprobe/worldprobe/internal/target"
)

// headset is the page's XR capability, or the infrastructure error that
// names the task setting that gives one.
func (x *exec) headset() (XR, error) {
	return capability[XR](x.page, "an XR headset (task.yaml xr:)")
}

// HeadStep places the emulated headset.
type HeadStep struct {
	Position, Orientation []float64
}

func init() {
	registerStep(stepType{
		Kind: StepHead, Order: 150, Control: true,
		Example: "`head: {position: [0, 1.6, 0.5], orientation: [0, 0, 0, 1]}`",
		Doc:     "moves the XR headset (task.yaml `xr:`) to `position` (metres, local-floor space) and, with `orientation`, turns it to that quaternion `[x, y, z, w]`; the page sees it from the next frame",
		Parse:   parseHead,
	})
}

func parseHead(p *parser, v *yaml.Node, c stepContext) (Action, bool) {
	fields := p.mapping(v, c.what, "position", "orientation")
	if fields == nil {
		return nil, false
	}
	if _, ok := fields["position"]; !ok {
		p.errorf(v, "%s: want position", c.what)
		return nil, false
	}
	h := &HeadStep{}
	var ok bool
	h.Position, h.Orientation, ok = p.pose(fields, c.what)
	return h, ok
}

// Describe renders "head [x, y, z]".
func (a *HeadStep) Describe() string { return "head " + target.FormatPoint(a.Position) }

// Traits: moving the head is input.
func (a *HeadStep) Traits() Traits { return Traits{Input: true} }

// FrameCount: none of its own.
func (a *HeadStep) FrameCount(Timing) int { return 0 }

func (a *HeadStep) run(x *exec) error {
	xr, err := x.headset()
	if err != nil {
		return err
	}
	return xr.XRPose(x.ctx, "head", a.Position, a.Orientation)
}
