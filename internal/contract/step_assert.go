package contract

import "go.yaml.in/yaml/v3"

// AssertStep evaluates one CEL assertion. In a probe's steps it is
// scored; in setup it is a precondition.
type AssertStep struct{ *Assertion }

func init() {
	registerStep(stepType{
		Kind: StepAssert, Order: 40,
		Example: "`assert: s.score > 0`",
		Doc: "evaluates a CEL expression; `message:` leads the failure message; `attribution:` hints why a failure matters " +
			"(`state_mismatch`, `physics_violation`, `broken_interaction`)",
		Siblings: []string{"message", "attribution"},
		Parse: func(p *parser, v *yaml.Node, c stepContext) (Action, bool) {
			a, ok := p.assertion(v, c.fields, c.what)
			return &AssertStep{Assertion: a}, ok
		},
	})
}

// Describe renders "assert".
func (a *AssertStep) Describe() string { return "assert" }

// Traits: an assertion reads the page when it names s, frame or t or
// calls an observation function; one over snapshots alone reads nothing.
func (a *AssertStep) Traits() Traits {
	return Traits{Reads: a.readsState || a.usesPage || a.readsClock, Pixels: a.readsPixels}
}

// Frames: an assertion steps none.
func (a *AssertStep) FrameCount(Timing) int { return 0 }

func (a *AssertStep) run(x *exec) error { return x.assert(a.Assertion) }
