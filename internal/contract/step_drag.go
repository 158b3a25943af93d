package contract

import (
	"fmt"

	"go.yaml.in/yaml/v3"

	"github.com/worldprobe/worldprobe/internal/target"
)

// DragStep presses at From, moves to To in Steps pointer moves, and releases.
type DragStep struct {
	From, To target.Target
	Steps    int
}

func init() {
	registerStep(stepType{
		Kind: StepDrag, Order: 70, Control: true,
		Example: "`drag: {from: {at: [100, 100]}, to: {object: cube}, steps: 10}`",
		Doc:     "presses at `from`, moves to `to` in `steps` pointer moves (default 10), releases",
		Parse:   parseDrag,
	})
}

func parseDrag(p *parser, v *yaml.Node, c stepContext) (Action, bool) {
	what := c.what
	fields := p.mapping(v, what, "from", "to", "steps")
	if fields == nil {
		return nil, false
	}
	d := &DragStep{Steps: 10}
	ok := true
	for _, end := range []string{"from", "to"} {
		f, has := fields[end]
		if !has {
			p.errorf(v, "%s: missing %s", what, end)
			ok = false
			continue
		}
		t, good := p.targetOf(f.value, what+": "+end)
		if !good {
			ok = false
			continue
		}
		if end == "from" {
			d.From = t
		} else {
			d.To = t
		}
	}
	if f, has := fields["steps"]; has {
		n, good := p.whole(f.value, what+": steps", 1)
		d.Steps = n
		ok = ok && good
	}
	return d, ok
}

// Describe renders "drag from A to B".
func (a *DragStep) Describe() string { return fmt.Sprintf("drag from %s to %s", a.From, a.To) }

// Traits: a drag is input that presses and releases the button itself.
func (a *DragStep) Traits() Traits { return Traits{Input: true, Button: ButtonWhole} }

// Frames is one frame after the press and one after each move.
func (a *DragStep) FrameCount(Timing) int { return DragFrames(a.Steps) }

func (a *DragStep) run(x *exec) error {
	ptr, err := capability[Pointer](x.page, "pointer input")
	if err != nil {
		return err
	}
	if err := x.spend(DragFrames(a.Steps)); err != nil {
		return err
	}
	return ptr.Drag(x.ctx, a.From, a.To, a.Steps)
}

// DragFrames is how many frames a drag of steps pointer moves lasts: one
// frame after the button goes down and one after each move, so a page that
// reads the pointer in its animation loop sees the whole path.
func DragFrames(steps int) int { return 1 + steps }
