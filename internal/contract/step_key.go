package contract

import (
	"fmt"
	"sort"
	"strings"

	"go.yaml.in/yaml/v3"
)

// KeyStep is a key event: Kind is down, up or press; With names the
// modifier keys held during it (Control, Shift, Alt, Meta).
type KeyStep struct {
	Kind string
	Key  string
	With []string
	// HoldMs is how long a press holds the key down; 0 means the contract's hold.
	HoldMs float64
}

// Modifiers are the modifier key names a key step may hold ("with").
var Modifiers = []string{"Control", "Shift", "Alt", "Meta"}

func init() {
	registerStep(stepType{
		Kind: StepKey, Order: 120, Control: true,
		Example: "`key: {press: \" \"}`, `key: {down: ArrowUp}`, `key: {up: ArrowUp}`, `key: {press: z, with: [Control]}`",
		Doc: "a key event; names are `KeyboardEvent.key` values (`\" \"`, `Enter`, `ArrowLeft`, `a`). `with` holds modifier keys " +
			"(`Control`, `Shift`, `Alt`, `Meta`) around it: they go down first and up last, the event's `ctrlKey`/`shiftKey`/… are set, " +
			"Shift upper-cases a letter (`Z`), and with Control, Alt or Meta a key types no text",
		Parse: parseKey,
	})
}

func parseKey(p *parser, v *yaml.Node, c stepContext) (Action, bool) {
	what := c.what
	kinds := []string{"press", "down", "up"}
	fields := p.mapping(v, what, append(kinds, "with", "hold")...)
	if fields == nil {
		return nil, false
	}
	var with []string
	withOK := true
	if f, has := fields["with"]; has {
		delete(fields, "with")
		with, withOK = p.modifiers(f.value, what+": with")
	}
	var hold float64
	if f, has := fields["hold"]; has {
		delete(fields, "hold")
		var good bool
		hold, good = p.holdMs(f.value, what+": hold")
		withOK = withOK && good
		if _, press := fields["press"]; good && !press {
			p.errorf(f.key, "%s: hold belongs to {press: key}; {down: key} holds until {up: key}", what)
			withOK = false
		}
	}
	if len(fields) != 1 {
		p.errorf(v, "%s: want exactly one of {press: key}, {down: key}, {up: key} (and optionally with: [Control, Shift, …])", what)
		return nil, false
	}
	keys := make([]string, 0, 1)
	for k := range fields {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	f := fields[keys[0]]
	name, ok := p.str(f.value, what+": "+keys[0])
	if ok && name == "" {
		p.errorf(f.value, "%s: empty key name", what)
		ok = false
	}
	return &KeyStep{Kind: keys[0], Key: name, With: with, HoldMs: hold}, ok && withOK
}

// modifiers parses a key step's with: a list of distinct modifier names.
func (p *parser) modifiers(v *yaml.Node, what string) ([]string, bool) {
	v = resolve(v)
	if v.Kind != yaml.SequenceNode || len(v.Content) == 0 {
		p.errorf(v, "%s: want a list of modifier keys (%s)", what, joinList(Modifiers))
		return nil, false
	}
	var out []string
	ok := true
	for _, n := range v.Content {
		name, good := p.str(n, what)
		switch {
		case !good:
			ok = false
		case !contains(Modifiers, name):
			p.errorf(n, "%s: %q is not a modifier key (want %s)", what, name, joinList(Modifiers))
			ok = false
		case contains(out, name):
			p.errorf(n, "%s: %s named twice", what, name)
			ok = false
		default:
			out = append(out, name)
		}
	}
	return out, ok
}

// Describe renders `key press "a"` or `key down Control+"z"`.
func (a *KeyStep) Describe() string {
	if len(a.With) > 0 {
		return fmt.Sprintf("key %s %s+%q", a.Kind, strings.Join(a.With, "+"), a.Key)
	}
	return fmt.Sprintf("key %s %q", a.Kind, a.Key)
}

// Traits: a key event is input.
func (a *KeyStep) Traits() Traits { return Traits{Input: true} }

// Frames: a press holds the key for its hold; down and up step none.
func (a *KeyStep) FrameCount(t Timing) int {
	if a.Kind == "press" {
		return t.Hold(a.HoldMs)
	}
	return 0
}

func (a *KeyStep) run(x *exec) error {
	kb, err := capability[Keyboard](x.page, "keyboard input")
	if err != nil {
		return err
	}
	hold := a.FrameCount(x.timing())
	if err := x.spend(hold); err != nil {
		return err
	}
	return kb.Key(x.ctx, a.Kind, a.Key, a.With, hold)
}
