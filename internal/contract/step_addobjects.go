package contract

import "go.yaml.in/yaml/v3"

// StepAddObjects adds boxes to the XR room.
const StepAddObjects StepKind = "addObjects"

// AddObjectsStep adds Objects to the room the headset stands in.
type AddObjectsStep struct{ Objects []RoomObject }

func init() {
	registerStep(stepType{
		Kind: StepAddObjects, Order: 300,
		Example: "`addObjects: [{id: box, label: table, position: [0, 0.35, -1], size: [1, 0.7, 0.6]}]`",
		Doc: "adds boxes to the room the XR headset stands in (task.yaml `room:`): each an `id` (new), a semantic `label` " +
			"(`table`, `couch`, `shelf`, `bed`, `lamp`, `screen`, `plant`, `wall art`, `other`), the `position` of its centre and its `size` " +
			"`[width, height, depth]` (metres, local-floor space), optionally turned by `yaw` degrees; the page's session detects each as a mesh " +
			"(`frame.detectedMeshes`, hit tests) from the next frame",
		Parse: func(p *parser, v *yaml.Node, c stepContext) (Action, bool) {
			objs, ok := p.roomObjects(v, c.what)
			return &AddObjectsStep{Objects: objs}, ok
		},
	})
}

// Describe renders "addObjects [{id: …}]".
func (a *AddObjectsStep) Describe() string { return "addObjects " + describeObjects(a.Objects) }

// Traits: changing the room is input (the page sees it on the next frame).
func (a *AddObjectsStep) Traits() Traits { return Traits{Input: true} }

// FrameCount: none of its own.
func (a *AddObjectsStep) FrameCount(Timing) int { return 0 }

func (a *AddObjectsStep) run(x *exec) error {
	r, err := x.room()
	if err != nil {
		return err
	}
	_, err = r.XRRoomObjects(x.ctx, "add", a.Objects, nil)
	return err
}

// Mirrored, the boxes stand on the other side: x and yaw negated.
func (a *AddObjectsStep) mirrored() Action { return &AddObjectsStep{Objects: mirrorObjects(a.Objects)} }
