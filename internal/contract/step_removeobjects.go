package contract

import (
	"strings"

	"go.yaml.in/yaml/v3"
)

// StepRemoveObjects removes boxes added to the XR room.
const StepRemoveObjects StepKind = "removeObjects"

// RemoveObjectsStep removes the boxes added with IDs.
type RemoveObjectsStep struct{ IDs []string }

func init() {
	registerStep(stepType{
		Kind: StepRemoveObjects, Order: 320,
		Example: "`removeObjects: [box]`",
		Doc:     "removes boxes `addObjects` added, by `id`; the page's session sees their meshes gone from the next frame",
		Parse: func(p *parser, v *yaml.Node, c stepContext) (Action, bool) {
			v = resolve(v)
			if v == nil || v.Kind != yaml.SequenceNode || len(v.Content) == 0 {
				p.errorf(v, "%s: want a list of the ids of added objects", c.what)
				return &RemoveObjectsStep{}, false
			}
			s := &RemoveObjectsStep{}
			ok := true
			for _, n := range v.Content {
				id, good := p.roomObjectID(n, c.what)
				if good && contains(s.IDs, id) {
					p.errorf(n, "%s: id %q listed twice", c.what, id)
					good = false
				}
				ok = ok && good
				s.IDs = append(s.IDs, id)
			}
			return s, ok
		},
	})
}

// Describe renders "removeObjects [a, b]".
func (a *RemoveObjectsStep) Describe() string {
	return "removeObjects [" + strings.Join(a.IDs, ", ") + "]"
}

// Traits: changing the room is input.
func (a *RemoveObjectsStep) Traits() Traits { return Traits{Input: true} }

// FrameCount: none of its own.
func (a *RemoveObjectsStep) FrameCount(Timing) int { return 0 }

func (a *RemoveObjectsStep) run(x *exec) error {
	r, err := x.room()
	if err != nil {
		return err
	}
	_, err = r.XRRoomObjects(x.ctx, "remove", nil, a.IDs)
	return err
}
