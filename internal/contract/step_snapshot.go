package contract

import "go.yaml.in/yaml/v3"

// SnapshotStep reads the state and keeps it as the CEL variable Name.
type SnapshotStep struct{ Name string }

func init() {
	registerStep(stepType{
		Kind: StepSnapshot, Order: 10,
		Example: "`snapshot: before`",
		Doc: "reads `__3D_STATE__` and keeps it as the CEL variable `before`. Names are identifiers, unique in the probe, " +
			"not `s`, `trace`, `params`, `frame`, `t`, `dt` or a CEL keyword. An assertion may only name snapshots taken before it.",
		Parse: func(p *parser, v *yaml.Node, c stepContext) (Action, bool) {
			name, ok := p.str(v, c.what)
			if ok {
				ok = p.newName(v, c.what, name, c.names.snapshots, true)
			}
			return &SnapshotStep{Name: name}, ok
		},
	})
}

// Describe renders "snapshot NAME".
func (a *SnapshotStep) Describe() string { return "snapshot " + a.Name }

// Traits: a snapshot reads the page.
func (a *SnapshotStep) Traits() Traits { return Traits{Reads: true} }

// Frames: a snapshot steps none.
func (a *SnapshotStep) FrameCount(Timing) int { return 0 }

func (a *SnapshotStep) run(x *exec) error {
	st, err := x.page.State(x.ctx)
	if err == nil {
		x.snapshots[a.Name] = st
		x.observe(Observation{Probe: x.probe.Name, Kind: "snapshot", Name: a.Name, Line: x.step.Line, Frame: x.page.Frame(), State: st})
	}
	return err
}
