package contract

import "go.yaml.in/yaml/v3"

// WaitStep advances the virtual clock by Ms milliseconds, rounded up to
// whole frames (WaitFrames).
type WaitStep struct{ Ms float64 }

func init() {
	registerStep(stepType{
		Kind: StepWait, Order: 30,
		Example: "`wait: 500`",
		Doc: "advances by 500 virtual ms, rounded up to whole frames: ⌈ms × fps / 1000⌉ " +
			"(500 ms at 60 fps is 30 frames, 100 ms at 60 fps is 6, 16 ms is 1, 17 ms is 2)",
		Parse: func(p *parser, v *yaml.Node, c stepContext) (Action, bool) {
			ms, ok := p.num(v, c.what+" (milliseconds)")
			if ok && ms <= 0 {
				p.errorf(v, "%s: want milliseconds > 0", c.what)
				ok = false
			}
			return &WaitStep{Ms: ms}, ok
		},
	})
}

// Describe renders "wait MS".
func (a *WaitStep) Describe() string { return "wait " + formatFloat(a.Ms) }

// Traits: waiting advances the clock.
func (a *WaitStep) Traits() Traits { return Traits{Advances: true} }

// Frames is the wait in whole frames.
func (a *WaitStep) FrameCount(t Timing) int { return WaitFrames(a.Ms, t.FPS) }

func (a *WaitStep) run(x *exec) error { return x.advance(WaitFrames(a.Ms, x.fps)) }
