package contract

import (
	"strconv"

	"go.yaml.in/yaml/v3"
)

// StepStepControl applies a compound XR control while time advances
// (GenXR-Test's stepControl, XR Blocks EmbodiedControl's step).
const StepStepControl StepKind = "stepControl"

// StepControlStep spreads Control over Frames frames: before each frame a
// 1/Frames share of its moves and turns, its selects and poses before the
// first.
type StepControlStep struct {
	Control Control
	Frames  int
}

func init() {
	registerStep(stepType{
		Kind: StepStepControl, Order: 361,
		Example: "`stepControl: {control: {locomotion: {move: [0, 0, 1]}, rightHand: {rotate: [0, 45, 0]}}, frames: 30}`",
		Doc: "applies an `applyControl` control while `frames` frames advance (GenXR-Test's `stepControl`; XR Blocks' `EmbodiedControl.step`): before each frame an equal share of its " +
			"moves and turns, its `pose` and select before the first; it steps the frames itself",
		Parse: func(p *parser, v *yaml.Node, c stepContext) (Action, bool) {
			fields := p.mapping(v, c.what, "control", "frames")
			if fields == nil {
				return nil, false
			}
			s := &StepControlStep{}
			ok := true
			f, has := fields["control"]
			if !has {
				p.errorf(v, "%s: want control", c.what)
				ok = false
			} else {
				var good bool
				s.Control, good = p.control(f.value, c.what+": control")
				ok = ok && good
			}
			fr, has := fields["frames"]
			if !has {
				p.errorf(v, "%s: want frames (1 or more)", c.what)
				return s, false
			}
			n, good := p.whole(fr.value, c.what+": frames", 1)
			s.Frames = n
			return s, ok && good
		},
	})
}

// Describe renders "stepControl 30 frames: …".
func (a *StepControlStep) Describe() string {
	return "stepControl " + strconv.Itoa(a.Frames) + " frames: " + a.Control.describe()
}

// Traits: input, and frames of its own after the last of it.
func (a *StepControlStep) Traits() Traits { return Traits{Input: true, Advances: true} }

// FrameCount is Frames.
func (a *StepControlStep) FrameCount(Timing) int { return a.Frames }

func (a *StepControlStep) run(x *exec) error {
	share := 1 / float64(a.Frames)
	for i := range a.Frames {
		if err := a.Control.apply(x, share, i == 0); err != nil {
			return err
		}
		if err := x.advance(1); err != nil {
			return err
		}
	}
	return nil
}
