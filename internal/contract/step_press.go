package contract

import "github.com/worldprobe/worldprobe/internal/target"

// PressStep moves the pointer to a target and holds the primary button
// down there until a release.
type PressStep struct{ Target target.Target }

func init() {
	registerStep(stepType{
		Kind: StepPress, Order: 80,
		Example: "`press: {object: handle}`",
		Doc: "moves the pointer to the target and holds the primary button down; `step`s and `assert`s may follow " +
			"while it is held (assert the middle of a drag)",
		Parse: parseTargetStep(func(t target.Target) Action { return &PressStep{Target: t} }),
	})
}

// Describe renders "press TARGET".
func (a *PressStep) Describe() string { return "press " + a.Target.String() }

// Traits: a press is input that holds the button down.
func (a *PressStep) Traits() Traits { return Traits{Input: true, Button: ButtonDown} }

// Frames: a press steps none.
func (a *PressStep) FrameCount(Timing) int { return 0 }

func (a *PressStep) run(x *exec) error {
	ptr, err := capability[Pointer](x.page, "pointer input")
	if err != nil {
		return err
	}
	return ptr.Press(x.ctx, a.Target)
}
