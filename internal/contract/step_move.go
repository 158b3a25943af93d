package contract

import "github.com/worldprobe/worldprobe/internal/target"

// MoveStep moves the pointer to a target (carrying the button when held).
type MoveStep struct{ Target target.Target }

func init() {
	registerStep(stepType{
		Kind: StepMove, Order: 100, Control: true,
		Example: "`move: {at: [10, 10]}`",
		Doc:     "moves the pointer (a drag move while the button is held)",
		Parse:   parseTargetStep(func(t target.Target) Action { return &MoveStep{Target: t} }),
	})
}

// Describe renders "move TARGET".
func (a *MoveStep) Describe() string { return "move " + a.Target.String() }

// Traits: a move is input.
func (a *MoveStep) Traits() Traits { return Traits{Input: true} }

// Frames: a move steps none.
func (a *MoveStep) FrameCount(Timing) int { return 0 }

func (a *MoveStep) run(x *exec) error {
	ptr, err := capability[Pointer](x.page, "pointer input")
	if err != nil {
		return err
	}
	return ptr.Move(x.ctx, a.Target)
}
