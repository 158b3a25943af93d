package contract

import (
	"errors"
	"fmt"
	"math"
	"regexp"
	"strconv"
	"strings"

	"go.yaml.in/yaml/v3"

	"github.com/worldprobe/worldprobe/internal/target"
)

// parser turns contract.yaml into a Contract, collecting every problem
// with its line rather than stopping at the first.
type parser struct {
	file string
	errs []error
}

func (p *parser) errorf(n *yaml.Node, format string, args ...any) {
	line := 0
	if n != nil {
		line = n.Line
	}
	p.errs = append(p.errs, &PosError{File: p.file, Line: line, Msg: fmt.Sprintf(format, args...)})
}

func (p *parser) err() error { return errors.Join(p.errs...) }

func resolve(n *yaml.Node) *yaml.Node {
	for n != nil && n.Kind == yaml.AliasNode {
		n = n.Alias
	}
	return n
}

func isNull(n *yaml.Node) bool {
	n = resolve(n)
	return n == nil || (n.Kind == yaml.ScalarNode && n.ShortTag() == "!!null")
}

// field is one key of a mapping, with its key node for positions.
type field struct {
	key   *yaml.Node
	value *yaml.Node
}

// mapping checks that n is a mapping with only allowed keys, each at most
// once, and returns its fields. It returns nil after reporting a problem
// with the node itself.
func (p *parser) mapping(n *yaml.Node, what string, allowed ...string) map[string]field {
	n = resolve(n)
	if n == nil || isNull(n) {
		return map[string]field{}
	}
	if n.Kind != yaml.MappingNode {
		p.errorf(n, "%s: want a mapping, got %s", what, describeNode(n))
		return nil
	}
	ok := map[string]bool{}
	for _, a := range allowed {
		ok[a] = true
	}
	out := map[string]field{}
	for i := 0; i+1 < len(n.Content); i += 2 {
		k, v := resolve(n.Content[i]), n.Content[i+1]
		if k.Kind != yaml.ScalarNode {
			p.errorf(k, "%s: keys must be plain names", what)
			continue
		}
		if !ok[k.Value] {
			p.errorf(k, "%s: unknown field %q (want one of %s)", what, k.Value, joinList(allowed))
			continue
		}
		if _, dup := out[k.Value]; dup {
			p.errorf(k, "%s: field %q given twice", what, k.Value)
			continue
		}
		out[k.Value] = field{key: k, value: v}
	}
	return out
}

func describeNode(n *yaml.Node) string {
	switch n.Kind {
	case yaml.MappingNode:
		return "a mapping"
	case yaml.SequenceNode:
		return "a list"
	case yaml.ScalarNode:
		if n.ShortTag() == "!!null" {
			return "nothing"
		}
		return strconv.Quote(n.Value)
	}
	return "something else"
}

// str reads a non-empty scalar as a string.
func (p *parser) str(n *yaml.Node, what string) (string, bool) {
	n = resolve(n)
	if n == nil || n.Kind != yaml.ScalarNode || isNull(n) {
		p.errorf(n, "%s: want a string, got %s", what, describeNodeOrNothing(n))
		return "", false
	}
	return n.Value, true
}

func describeNodeOrNothing(n *yaml.Node) string {
	if n == nil {
		return "nothing"
	}
	return describeNode(n)
}

// num reads a finite number.
func (p *parser) num(n *yaml.Node, what string) (float64, bool) {
	n = resolve(n)
	if n != nil && n.Kind == yaml.ScalarNode && (n.ShortTag() == "!!int" || n.ShortTag() == "!!float") {
		f, err := strconv.ParseFloat(strings.ReplaceAll(n.Value, "_", ""), 64)
		if err == nil && !math.IsInf(f, 0) && !math.IsNaN(f) {
			return f, true
		}
		if i, err := strconv.ParseInt(n.Value, 0, 64); err == nil {
			return float64(i), true
		}
	}
	p.errorf(n, "%s: want a number, got %s", what, describeNodeOrNothing(n))
	return 0, false
}

// whole reads a whole number >= min.
func (p *parser) whole(n *yaml.Node, what string, min int) (int, bool) {
	n = resolve(n)
	f, ok := p.num(n, what)
	if !ok {
		return 0, false
	}
	if f != math.Trunc(f) || f < float64(min) || f > 1e9 {
		p.errorf(n, "%s: want a whole number >= %d, got %s", what, min, n.Value)
		return 0, false
	}
	return int(f), true
}

// nums reads a list of exactly count numbers.
func (p *parser) nums(n *yaml.Node, what string, count int) ([]float64, bool) {
	n = resolve(n)
	if n == nil || n.Kind != yaml.SequenceNode || len(n.Content) != count {
		p.errorf(n, "%s: want a list of %d numbers", what, count)
		return nil, false
	}
	out := make([]float64, count)
	for i, e := range n.Content {
		f, ok := p.num(e, what)
		if !ok {
			return nil, false
		}
		out[i] = f
	}
	return out, true
}

// pose reads the position [x, y, z] and orientation [x, y, z, w] of an XR
// step's device; an orientation needs a position.
func (p *parser) pose(fields map[string]field, what string) (position, orientation []float64, ok bool) {
	ok = true
	pos, hasPosition := fields["position"]
	if hasPosition {
		position, ok = p.nums(pos.value, what+": position", 3)
	}
	if f, has := fields["orientation"]; has {
		var good bool
		if orientation, good = p.nums(f.value, what+": orientation", 4); good && !hasPosition {
			p.errorf(f.value, "%s: orientation needs a position", what)
			good = false
		}
		ok = ok && good
	}
	return position, orientation, ok
}

// contract parses the whole document.
func (p *parser) contract(data []byte) *Contract {
	var doc yaml.Node
	if err := yaml.Unmarshal(data, &doc); err != nil {
		p.errs = append(p.errs, &PosError{File: p.file, Line: yamlErrLine(err), Msg: cleanYAMLError(err)})
		return nil
	}
	if len(doc.Content) == 0 {
		p.errorf(nil, "empty contract")
		return nil
	}
	root := doc.Content[0]
	fields := p.mapping(root, "contract", "version", "hold", "probes")
	if fields == nil {
		return nil
	}
	c := &Contract{File: p.file, HoldMs: DefaultHoldMs}
	if f, ok := fields["hold"]; ok {
		if ms, ok := p.holdMs(f.value, "hold"); ok {
			c.HoldMs = ms
		}
	}
	if f, ok := fields["version"]; !ok {
		p.errorf(root, "contract: missing version (want version: %d)", Version)
	} else if v, ok := p.whole(f.value, "version", 1); ok {
		if v != Version {
			p.errorf(f.value, "version: this worldprobe reads contract version %d, not %d", Version, v)
		}
		c.Version = v
	}
	f, ok := fields["probes"]
	probes := resolve(f.value)
	if !ok || probes == nil || probes.Kind != yaml.SequenceNode || len(probes.Content) == 0 {
		p.errorf(root, "contract: want probes, a non-empty list")
		return c
	}
	seen := map[string]int{}
	for _, pn := range probes.Content {
		for _, pr := range p.probe(pn) {
			name := pr.Name
			if pr.Base != "" {
				name = pr.Base
			}
			if line, dup := seen[name]; dup && !pr.later {
				p.errorf(pn, "probe %s: name already used at line %d", name, line)
			}
			seen[name] = pr.Line
			pr.holdMs = c.HoldMs
			c.Probes = append(c.Probes, pr)
		}
	}
	return c
}

// probe parses and compiles one probe: one run, or two for hands: mirror.
func (p *parser) probe(n *yaml.Node) []*Probe {
	n = resolve(n)
	fields := p.mapping(n, "probe", "name", "level", "kind", "fps", "description", "covers", "hands", "rooms", "setup", "steps")
	if fields == nil {
		return nil
	}
	pr := &Probe{Line: n.Line}
	what := fmt.Sprintf("probe at line %d", n.Line)
	if f, ok := fields["name"]; !ok {
		p.errorf(n, "probe: missing name")
	} else if name, ok := p.str(f.value, "probe name"); ok {
		switch {
		case !probeNameRE.MatchString(name):
			p.errorf(f.value, "probe name %q: use letters, digits, _ . and -", name)
		case name == InterfaceProbe:
			p.errorf(f.value, "probe name %q is reserved for the automatic state-interface probe", name)
		}
		pr.Name = name
		what = "probe " + name
	}
	if f, ok := fields["level"]; !ok {
		p.errorf(n, "%s: missing level (%s)", what, joinList(Levels()))
	} else if lv, ok := p.str(f.value, what+": level"); ok {
		if !contains(Levels(), lv) {
			p.errorf(f.value, "%s: unknown level %q (want one of %s)", what, lv, joinList(Levels()))
		}
		pr.Level = lv
	}
	if f, ok := fields["kind"]; ok {
		if k, ok := p.str(f.value, what+": kind"); ok {
			if !contains(ProbeKinds(), k) {
				p.errorf(f.value, "%s: unknown kind %q (want %s, for a task with a scaffold)", what, k, joinList(ProbeKinds()))
			}
			pr.Kind = k
		}
	}
	if f, ok := fields["fps"]; ok {
		if v, ok := p.num(f.value, what+": fps"); ok {
			if v <= 0 || v > 1000 {
				p.errorf(f.value, "%s: fps must be > 0 and <= 1000", what)
			}
			pr.FPS = v
		}
	}
	if f, ok := fields["description"]; ok {
		pr.Description, _ = p.str(f.value, what+": description")
	}
	if f, ok := fields["covers"]; ok {
		pr.Covers = p.covers(f.value, what+": covers")
	}
	hands := false
	if f, ok := fields["hands"]; ok {
		hands = p.parseHands(f.value, what)
	}
	var rooms []string
	if f, ok := fields["rooms"]; ok {
		rooms = p.parseRooms(f.value, what)
	}
	before := len(p.errs)
	names := newStepNames()
	if f, ok := fields["setup"]; ok {
		pr.Setup = p.steps(f.value, what+": setup", names)
	}
	if f, ok := fields["steps"]; !ok {
		p.errorf(n, "%s: missing steps", what)
	} else {
		pr.Steps = p.steps(f.value, what+": steps", names)
	}
	p.checkButton(pr, what)
	if len(pr.Assertions()) == 0 && fields["steps"].value != nil {
		p.errorf(n, "%s: has no assertion in its steps", what)
	}
	if len(p.errs) != before {
		return []*Probe{pr}
	}
	runs := []*Probe{pr}
	if hands {
		if runs = p.handVariants(pr, n, what); runs == nil {
			return []*Probe{pr}
		}
	}
	if len(rooms) > 0 {
		if runs = p.roomVariants(runs, rooms, n, what); runs == nil {
			return []*Probe{pr}
		}
	}
	// Assertions are compiled once the steps are sound: a rejected step
	// (say, a misnamed snapshot) would otherwise echo in every assertion.
	// A mirrored run's assertions are the same text: compiled again only
	// when the first run's compiled cleanly, so an error is said once.
	for _, run := range runs {
		if len(p.errs) != before {
			break
		}
		p.compileProbe(run, what)
	}
	return runs
}

// checkButton checks that press and release alternate over a probe's setup
// and steps (a reload lets the button up), and that no click or drag runs
// while the button is held: a real mouse could do neither.
func (p *parser) checkButton(pr *Probe, what string) {
	held := 0 // line of the press holding the button, 0 when up
	for _, st := range append(append([]Step{}, pr.Setup...), pr.Steps...) {
		at := &yaml.Node{Line: st.Line}
		t := st.Traits()
		switch {
		case t.Reloads:
			held = 0
		case t.Button == ButtonDown:
			if held != 0 {
				p.errorf(at, "%s: %s while the button is already down (pressed at line %d); release it first", what, st.Kind, held)
			}
			held = st.Line
		case t.Button == ButtonUp:
			if held == 0 {
				p.errorf(at, "%s: %s without a press before it", what, st.Kind)
			}
			held = 0
		case t.Button == ButtonWhole:
			if held != 0 {
				p.errorf(at, "%s: %s while the button is held down (pressed at line %d); release it first", what, st.Kind, held)
			}
		}
	}
}

// stepNames tracks the snapshot and trace names of a probe, with lines.
type stepNames struct {
	snapshots map[string]int
	traces    map[string]int
}

func newStepNames() *stepNames {
	return &stepNames{snapshots: map[string]int{}, traces: map[string]int{}}
}

func (p *parser) steps(n *yaml.Node, what string, names *stepNames) []Step {
	n = resolve(n)
	if isNull(n) {
		return nil
	}
	if n.Kind != yaml.SequenceNode {
		p.errorf(n, "%s: want a list of steps", what)
		return nil
	}
	var out []Step
	for _, sn := range n.Content {
		if st, ok := p.step(sn, what, names); ok {
			out = append(out, st)
		}
	}
	return out
}

// Attribution hints an assertion may carry.
var hintValues = []string{AttrStateMismatch, AttrPhysicsViolation, AttrBrokenInteraction}

func (p *parser) step(n *yaml.Node, what string, names *stepNames) (Step, bool) {
	n = resolve(n)
	kinds := StepKinds()
	keys := make([]string, 0, len(kinds))
	for _, k := range kinds {
		keys = append(keys, string(k))
	}
	allowed := append([]string{}, keys...)
	for _, t := range stepTypes() {
		for _, sib := range t.Siblings {
			if !contains(allowed, sib) {
				allowed = append(allowed, sib)
			}
		}
	}
	fields := p.mapping(n, what, allowed...)
	if fields == nil {
		return Step{}, false
	}
	var set []string
	for _, k := range keys {
		if _, ok := fields[k]; ok {
			set = append(set, k)
		}
	}
	switch len(set) {
	case 0:
		p.errorf(n, "%s: a step needs one of %s", what, joinList(keys))
		return Step{}, false
	case 1:
	default:
		p.errorf(n, "%s: a step has exactly one of %s; this one has %s", what, joinList(keys), strings.Join(set, " and "))
		return Step{}, false
	}
	kind := StepKind(set[0])
	t := stepTable[kind]
	f := fields[set[0]]
	sw := fmt.Sprintf("%s: %s", what, kind)
	for _, extra := range allowed[len(keys):] {
		if e, ok := fields[extra]; ok && !contains(t.Siblings, extra) {
			p.errorf(e.key, "%s: %s belongs to %s steps only", sw, extra, joinList(stepsWithSibling(extra)))
		}
	}
	a, ok := t.Parse(p, f.value, stepContext{what: sw, fields: fields, names: names})
	if a == nil {
		return Step{}, false
	}
	return Step{Kind: kind, Line: f.key.Line, Action: a}, ok
}

// stepsWithSibling lists the step kinds that may carry the sibling key.
func stepsWithSibling(key string) []string {
	var out []string
	for _, t := range stepTypes() {
		if contains(t.Siblings, key) {
			out = append(out, string(t.Kind))
		}
	}
	return out
}

// newName checks a snapshot or trace name: an identifier, unused in the
// probe, not a CEL keyword and, for snapshots, not a CEL variable or
// reserved identifier. A bad name is still recorded, so that assertions
// naming it do not add errors of their own.
func (p *parser) newName(n *yaml.Node, what, name string, into map[string]int, snapshot bool) bool {
	if line, dup := into[name]; dup {
		p.errorf(n, "%s: %q already taken at line %d", what, name, line)
		return false
	}
	into[name] = n.Line
	switch {
	case !identRE.MatchString(name):
		p.errorf(n, "%s: %q is not a valid name (letters, digits and _, not starting with a digit)", what, name)
		return false
	case celKeywords[name] || snapshot && notSnapshots[name]:
		p.errorf(n, "%s: %q is reserved", what, name)
		return false
	}
	return true
}

func (p *parser) assertion(v *yaml.Node, fields map[string]field, what string) (*Assertion, bool) {
	expr, ok := p.str(v, what)
	if !ok {
		return nil, false
	}
	if strings.TrimSpace(expr) == "" {
		p.errorf(v, "%s: empty expression", what)
		return nil, false
	}
	line := v.Line
	if v.Style&(yaml.LiteralStyle|yaml.FoldedStyle) != 0 {
		line++
	}
	a := &Assertion{Expr: strings.TrimSpace(expr), Line: line}
	if m, has := fields["message"]; has {
		a.Message, _ = p.str(m.value, what+": message")
	}
	if h, has := fields["attribution"]; has {
		if hint, ok := p.str(h.value, what+": attribution"); ok {
			if !contains(hintValues, hint) {
				p.errorf(h.value, "%s: attribution hint %q (want one of %s)", what, hint, joinList(hintValues))
			}
			a.Attribution = hint
		}
	}
	return a, true
}

// targetKeys are the keys that place a target.
func targetKeys() []string {
	var out []string
	for _, k := range target.Kinds() {
		out = append(out, string(k))
	}
	return out
}

// targetOf parses a target mapping.
func (p *parser) targetOf(v *yaml.Node, what string) (Target, bool) {
	fields := p.mapping(v, what, targetKeys()...)
	if fields == nil {
		return Target{}, false
	}
	return p.target(v, fields, what)
}

// parseTargetStep is the Parse of a step whose value is one target
// (click, move, press, release): build makes the step from it.
func parseTargetStep(build func(target.Target) Action) func(p *parser, v *yaml.Node, c stepContext) (Action, bool) {
	return func(p *parser, v *yaml.Node, c stepContext) (Action, bool) {
		t, ok := p.targetOf(v, c.what)
		return build(t), ok
	}
}

// target reads exactly one of the target keys from fields.
func (p *parser) target(v *yaml.Node, fields map[string]field, what string) (Target, bool) {
	return p.targetAmong(v, fields, what, targetKeys())
}

// targetAmong reads exactly one of the target keys keys from fields.
func (p *parser) targetAmong(v *yaml.Node, fields map[string]field, what string, keys []string) (Target, bool) {
	var set []string
	for _, k := range keys {
		if _, ok := fields[k]; ok {
			set = append(set, k)
		}
	}
	if len(set) != 1 {
		if len(set) == 0 {
			p.errorf(v, "%s: want a target: one of {selector: …}, {at: [x, y]}, {object: name}, {world: [x, y, z]}", what)
		} else {
			p.errorf(v, "%s: a target has exactly one of %s; this one has %s", what, joinList(keys), strings.Join(set, " and "))
		}
		return Target{}, false
	}
	kind := target.Kind(set[0])
	f := fields[set[0]]
	if d := kind.Dimensions(); d > 0 {
		xs, ok := p.nums(f.value, what+": "+set[0], d)
		return target.Set(kind, "", xs), ok
	}
	name, ok := p.str(f.value, what+": "+set[0])
	return target.Set(kind, name, nil), ok
}

// covers reads a probe's covers: a list of distinct requirement ids.
func (p *parser) covers(v *yaml.Node, what string) []string {
	v = resolve(v)
	if v == nil || v.Kind != yaml.SequenceNode || len(v.Content) == 0 {
		p.errorf(v, "%s: want a list of requirement ids of the brief ([id, …])", what)
		return nil
	}
	var out []string
	for _, n := range v.Content {
		id, ok := p.str(n, what)
		switch {
		case !ok:
		case !RequirementIDRE.MatchString(id):
			p.errorf(n, "%s: %q is not a requirement id (lower-case letters, digits and -)", what, id)
		case contains(out, id):
			p.errorf(n, "%s: %s named twice", what, id)
		default:
			out = append(out, id)
		}
	}
	return out
}

// RequirementIDRE is the form of a brief's requirement id: lower-case
// letters, digits and dashes, starting with a letter or digit.
var RequirementIDRE = regexp.MustCompile(`^[a-z0-9][a-z0-9-]*$`)

// holdMs reads how long an input is held: milliseconds, > 0 and at most 10 s.
func (p *parser) holdMs(v *yaml.Node, what string) (float64, bool) {
	ms, ok := p.num(v, what+" (milliseconds)")
	if ok && (ms <= 0 || ms > 10000) {
		p.errorf(v, "%s: want milliseconds > 0 and <= 10000, got %s", what, formatFloat(ms))
		return 0, false
	}
	return ms, ok
}

func contains(list []string, s string) bool {
	for _, x := range list {
		if x == s {
			return true
		}
	}
	return false
}

// yamlErrLine extracts the line of a YAML syntax error, 0 if none.
func yamlErrLine(err error) int {
	msg := err.Error()
	if i := strings.Index(msg, "line "); i >= 0 {
		rest := msg[i+5:]
		j := 0
		for j < len(rest) && rest[j] >= '0' && rest[j] <= '9' {
			j++
		}
		if n, e := strconv.Atoi(rest[:j]); e == nil {
			return n
		}
	}
	return 0
}

// cleanYAMLError drops the "yaml: line N:" prefix the position already says.
func cleanYAMLError(err error) string {
	msg := strings.TrimPrefix(err.Error(), "yaml: ")
	if strings.HasPrefix(msg, "line ") {
		if i := strings.Index(msg, ": "); i >= 0 {
			msg = msg[i+2:]
		}
	}
	return msg
}
