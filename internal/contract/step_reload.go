package contract

import "go.yaml.in/yaml/v3"

// ReloadStep reloads the page; the frame counter starts again from zero.
type ReloadStep struct{}

func init() {
	registerStep(stepType{
		Kind: StepReload, Order: 140,
		Example: "`reload: {}`",
		Doc:     "reloads the page; `frame` and `t` start again from 0",
		Parse: func(p *parser, v *yaml.Node, c stepContext) (Action, bool) {
			if !isNull(v) && p.mapping(v, c.what) == nil {
				return nil, false
			}
			return &ReloadStep{}, true
		},
	})
}

// Describe renders "reload".
func (a *ReloadStep) Describe() string { return "reload" }

// Traits: a reload starts the page again.
func (a *ReloadStep) Traits() Traits { return Traits{Reloads: true} }

// Frames: a reload steps none.
func (a *ReloadStep) FrameCount(Timing) int { return 0 }

func (a *ReloadStep) run(x *exec) error { return x.page.Reload(x.ctx) }
