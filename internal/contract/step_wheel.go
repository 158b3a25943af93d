package contract

import (
	"go.yaml.in/yaml/v3"

	"github.com/worldprobe/worldprobe/internal/target"
)

// WheelStep scrolls by DX, DY at a target.
type WheelStep struct {
	Target target.Target
	DX, DY float64
}

func init() {
	registerStep(stepType{
		Kind: StepWheel, Order: 110, Control: true,
		Example: "`wheel: {at: [400, 300], dy: 120}`",
		Doc:     "scrolls by `dx`/`dy` (at least one non-zero) at a target",
		Parse:   parseWheel,
	})
}

// parseWheel reads a target's keys and dx, dy from one mapping.
func parseWheel(p *parser, v *yaml.Node, c stepContext) (Action, bool) {
	what := c.what
	fields := p.mapping(v, what, append(targetKeys(), "dx", "dy")...)
	if fields == nil {
		return nil, false
	}
	w := &WheelStep{}
	t, ok := p.target(v, fields, what)
	w.Target = t
	for _, k := range []string{"dx", "dy"} {
		if f, has := fields[k]; has {
			n, good := p.num(f.value, what+": "+k)
			ok = ok && good
			if k == "dx" {
				w.DX = n
			} else {
				w.DY = n
			}
		}
	}
	if ok && w.DX == 0 && w.DY == 0 {
		p.errorf(v, "%s: want dx or dy", what)
		ok = false
	}
	return w, ok
}

// Describe renders "wheel TARGET".
func (a *WheelStep) Describe() string { return "wheel " + a.Target.String() }

// Traits: scrolling is input.
func (a *WheelStep) Traits() Traits { return Traits{Input: true} }

// Frames: a wheel steps none.
func (a *WheelStep) FrameCount(Timing) int { return 0 }

func (a *WheelStep) run(x *exec) error {
	ptr, err := capability[Pointer](x.page, "pointer input")
	if err != nil {
		return err
	}
	return ptr.Wheel(x.ctx, a.Target, a.DX, a.DY)
}
