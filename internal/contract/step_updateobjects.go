package contract

import "go.yaml.in/yaml/v3"

// StepUpdateObjects replaces boxes added to the XR room.
const StepUpdateObjects StepKind = "updateObjects"

// UpdateObjectsStep replaces the boxes added with Objects' ids.
type UpdateObjectsStep struct{ Objects []RoomObject }

func init() {
	registerStep(stepType{
		Kind: StepUpdateObjects, Order: 310,
		Example: "`updateObjects: [{id: box, label: table, position: [0.5, 0.35, -1], size: [1, 0.7, 0.6]}]`",
		Doc: "replaces boxes `addObjects` added, by `id`, with the boxes given (written as for `addObjects`); " +
			"the page's session sees each old mesh removed and the new one detected from the next frame",
		Parse: func(p *parser, v *yaml.Node, c stepContext) (Action, bool) {
			objs, ok := p.roomObjects(v, c.what)
			return &UpdateObjectsStep{Objects: objs}, ok
		},
	})
}

// Describe renders "updateObjects [{id: …}]".
func (a *UpdateObjectsStep) Describe() string { return "updateObjects " + describeObjects(a.Objects) }

// Traits: changing the room is input.
func (a *UpdateObjectsStep) Traits() Traits { return Traits{Input: true} }

// FrameCount: none of its own.
func (a *UpdateObjectsStep) FrameCount(Timing) int { return 0 }

func (a *UpdateObjectsStep) run(x *exec) error {
	r, err := x.room()
	if err != nil {
		return err
	}
	_, err = r.XRRoomObjects(x.ctx, "update", a.Objects, nil)
	return err
}

// Mirrored, the boxes stand on the other side: x and yaw negated.
func (a *UpdateObjectsStep) mirrored() Action {
	return &UpdateObjectsStep{Objects: mirrorObjects(a.Objects)}
}
