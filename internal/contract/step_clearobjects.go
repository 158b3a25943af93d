package contract

import "go.yaml.in/yaml/v3"

// StepClearObjects removes every box added to the XR room.
const StepClearObjects StepKind = "clearObjects"

// ClearObjectsStep removes every box addObjects added.
type ClearObjectsStep struct{}

func init() {
	registerStep(stepType{
		Kind: StepClearObjects, Order: 330,
		Example: "`clearObjects: {}`",
		Doc:     "removes every box `addObjects` added (the room's own planes and meshes stay); the page's session sees them gone from the next frame",
		Parse: func(p *parser, v *yaml.Node, c stepContext) (Action, bool) {
			return &ClearObjectsStep{}, p.mapping(v, c.what) != nil
		},
	})
}

// Describe renders "clearObjects".
func (a *ClearObjectsStep) Describe() string { return "clearObjects" }

// Traits: changing the room is input.
func (a *ClearObjectsStep) Traits() Traits { return Traits{Input: true} }

// FrameCount: none of its own.
func (a *ClearObjectsStep) FrameCount(Timing) int { return 0 }

func (a *ClearObjectsStep) run(x *exec) error {
	r, err := x.room()
	if err != nil {
		return err
	}
	_, err = r.XRRoomObjects(x.ctx, "clear", nil, nil)
	return err
}
