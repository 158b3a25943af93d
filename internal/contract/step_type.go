package contract

import (
	"fmt"

	"go.yaml.in/yaml/v3"
)

// TypeStep types Text into the element matching Selector.
type TypeStep struct {
	Selector string
	Text     string
}

func init() {
	registerStep(stepType{
		Kind: StepType, Order: 130, Control: true,
		Example: "`type: {selector: \"#name\", text: hello}`",
		Doc:     "focuses the element and types the text",
		Parse:   parseType,
	})
}

func parseType(p *parser, v *yaml.Node, c stepContext) (Action, bool) {
	what := c.what
	fields := p.mapping(v, what, "selector", "text")
	if fields == nil {
		return nil, false
	}
	t := &TypeStep{}
	ok := true
	if f, has := fields["selector"]; !has {
		p.errorf(v, "%s: missing selector", what)
		ok = false
	} else {
		var good bool
		t.Selector, good = p.str(f.value, what+": selector")
		ok = ok && good
	}
	if f, has := fields["text"]; !has {
		p.errorf(v, "%s: missing text", what)
		ok = false
	} else if n := resolve(f.value); n.Kind != yaml.ScalarNode {
		p.errorf(n, "%s: text: want a string", what)
		ok = false
	} else {
		t.Text = n.Value
	}
	return t, ok
}

// Describe renders `type into "#name"`.
func (a *TypeStep) Describe() string { return fmt.Sprintf("type into %q", a.Selector) }

// Traits: typing is input.
func (a *TypeStep) Traits() Traits { return Traits{Input: true} }

// Frames: typing steps none.
func (a *TypeStep) FrameCount(Timing) int { return 0 }

func (a *TypeStep) run(x *exec) error {
	kb, err := capability[Keyboard](x.page, "keyboard input")
	if err != nil {
		return err
	}
	return kb.Type(x.ctx, a.Selector, a.Text)
}
