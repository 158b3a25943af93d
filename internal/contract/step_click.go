package contract

import "github.com/worldprobe/worldprobe/internal/target"

// ClickStep clicks the primary button at a target, holding it down for
// the contract's hold.
type ClickStep struct{ Target target.Target }

func init() {
	registerStep(stepType{
		Kind: StepClick, Order: 60, Control: true,
		Example: "`click: {selector: \"#start\"}`",
		Doc:     "clicks the primary button at a target",
		Parse:   parseTargetStep(func(t target.Target) Action { return &ClickStep{Target: t} }),
	})
}

// Describe renders "click TARGET".
func (a *ClickStep) Describe() string { return "click " + a.Target.String() }

// Traits: a click is input that presses and releases the button itself.
func (a *ClickStep) Traits() Traits { return Traits{Input: true, Button: ButtonWhole} }

// Frames is the hold.
func (a *ClickStep) FrameCount(t Timing) int { return t.Hold(0) }

func (a *ClickStep) run(x *exec) error {
	ptr, err := capability[Pointer](x.page, "pointer input")
	if err != nil {
		return err
	}
	hold := x.timing().Hold(0)
	if err := x.spend(hold); err != nil {
		return err
	}
	return ptr.Click(x.ctx, a.Target, hold)
}
