package contract

import (
	"go.yaml.in/yaml/v3"

	"github.com/worldprobe/worldprobe/internal/target"
)

// ReleaseStep moves the pointer to a target with the button held and lets
// it up there.
type ReleaseStep struct{ Target target.Target }

func init() {
	registerStep(stepType{
		Kind: StepRelease, Order: 90,
		Example: "`release: {at: [300, 200]}`",
		Doc: "moves to the target with the button held and lets it up. Press and release alternate within a probe " +
			"(a `reload` lets the button up); `click` and `drag` while held are rejected at load",
		Parse: func(p *parser, v *yaml.Node, c stepContext) (Action, bool) {
			t, ok := p.targetOf(v, c.what)
			return &ReleaseStep{Target: t}, ok
		},
	})
}

// Describe renders "release TARGET".
func (a *ReleaseStep) Describe() string { return "release " + a.Target.String() }

// Traits: a release is input that lets the button up.
func (a *ReleaseStep) Traits() Traits { return Traits{Input: true, Button: ButtonUp} }

// Frames: a release steps none.
func (a *ReleaseStep) FrameCount(Timing) int { return 0 }

func (a *ReleaseStep) run(x *exec) error {
	ptr, err := capability[Pointer](x.page, "pointer input")
	if err != nil {
		return err
	}
	return ptr.Release(x.ctx, a.Target)
}
