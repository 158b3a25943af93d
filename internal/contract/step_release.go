package contract

import "github.com/worldprobe/worldprobe/internal/target"

// ReleaseStep moves the pointer to a target with the button held and lets
// it up there.
type ReleaseStep struct{ Target target.Target }

func init() {
	registerStep(stepType{
		Kind: StepRelease, Order: 90,
		Example: "`release: {at: [300, 200]}`",
		Doc: "moves to the target with the button held and lets it up. Press and release alternate within a probe " +
			"(a `reload` lets the button up); `click` and `drag` while held are rejected at load",
		Parse: parseTargetStep(func(t target.Target) Action { return &ReleaseStep{Target: t} }),
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
