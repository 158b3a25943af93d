package contract

import (
	"context"
	"encoding/json"
	"fmt"
	"slices"
	"strings"

	"go.yaml.in/yaml/v3"

	"github.com/worldprobe/worldprobe/internal/target"
)

// StepAct is a bounded, model-driven loop of XR actions.
const StepAct StepKind = "act"

// ActMaxSteps is the most turns an act step may take.
const ActMaxSteps = 32

// ActDefaultSteps is an act step's turns when it sets no max_steps.
const ActDefaultSteps = 8

// ActTurnFrames is the most frames one turn steps: the action's own (an
// action that would step more is refused) and one frame after it, so the
// page has run with the action before the next frame is taken.
const ActTurnFrames = 8

// ActKinds are the step kinds a model may answer with in an act step:
// GenXR-Test's XR actions and step.
var ActKinds = []StepKind{StepHead, StepHand, StepController, StepGesture, StepStartSelect, StepEndSelect, StepTeleportTo,
	StepWalk, StepRotate, StepLookAtTarget, StepPointTo, StepReachTo, StepRayClick, StepMoveHand, StepRotateHand, StepStep}

// ActStep lets a model drive the XR user towards an instruction: each turn
// the model (Options.Actor, the xr_actor role) gets the instruction, the
// newest frame of the user's view and a compact XR state, and answers one
// action — a step of ActKinds, parsed and checked as a contract step is —
// or done or give_up. The harness runs the action and steps a frame. The
// trajectory (each turn's action, the model's reason, its frame) is kept
// as act-PROBE-LINE.jsonl with the frames.
type ActStep struct {
	Instruction string
	MaxSteps    int
	line        int
}

// ActTurn is what the model sees in one turn.
type ActTurn struct {
	Instruction string
	// Turn counts from 1 to MaxSteps.
	Turn, MaxSteps int
	// Frame is the user's view now (PNG).
	Frame []byte
	// State is the compact XR state: head and hands or controllers
	// {position, orientation}, input mode, tagged objects {role, name,
	// position}.
	State map[string]any
	// History holds the earlier turns, oldest first.
	History []ActRecord
}

// ActReply is the model's answer in one turn.
type ActReply struct {
	// Action is one step as JSON ({"reachTo": {"hand": "right", "object":
	// "cube"}}), or the string "done" or "give_up".
	Action json.RawMessage
	Reason string
	// Unjudged, when set, says why no answer could be had (budget,
	// provider failure): the act stops and what follows is unjudged.
	Unjudged string
	Model    string
}

// ActRecord is one turn of an act's trajectory.
type ActRecord struct {
	Turn   int    `json:"turn"`
	Action string `json:"action"`
	Reason string `json:"reason,omitempty"`
	// Error says why the action was not run (not a step the act takes,
	// a parse error, a target not found) or why the act stopped.
	Error string `json:"error,omitempty"`
	Frame string `json:"frame,omitempty"`
	// At is the page's frame when the turn began.
	At int `json:"at"`
}

// Actor is the model behind act steps.
type Actor interface {
	// Act answers one turn. As for Looker, a reply that cannot be had is
	// an ActReply with Unjudged set; the error is for what must stop the
	// run (a cancelled context, a fatal model error).
	Act(ctx context.Context, turn ActTurn) (ActReply, error)
}

func init() {
	kinds := make([]string, len(ActKinds))
	for i, k := range ActKinds {
		kinds[i] = "`" + string(k) + "`"
	}
	registerStep(stepType{
		Kind: StepAct, Order: 400,
		Example: "`act: {instruction: \"pick up the cube with your right hand\", max_steps: 8}`",
		Doc: "a bounded model-driven loop (the `xr_actor` model role): each turn the model gets the instruction, the newest frame of " +
			"the user's view and a compact XR state (head, hands or controllers, tagged objects) and answers one action — a step of " +
			strings.Join(kinds, ", ") + ", parsed and checked as a contract step — or `done` or `give_up`; the harness runs it and " +
			"steps one frame. At most `max_steps` turns (default 8, at most 32), each at most 8 frames. The trajectory is kept as " +
			"`act-PROBE-LINE.jsonl` with a frame per turn. Without a model, or when the model cannot answer, the assertions after it " +
			"are **unjudged**, never passed",
		Parse: func(p *parser, v *yaml.Node, c stepContext) (Action, bool) {
			fields := p.mapping(v, c.what, "instruction", "max_steps")
			if fields == nil {
				return nil, false
			}
			a := &ActStep{MaxSteps: ActDefaultSteps, line: v.Line}
			ok := true
			if in, has := fields["instruction"]; !has {
				p.errorf(v, "%s: instruction is required", c.what)
				ok = false
			} else if a.Instruction, ok = p.str(in.value, c.what+": instruction"); ok && strings.TrimSpace(a.Instruction) == "" {
				p.errorf(in.value, "%s: instruction is empty", c.what)
				ok = false
			}
			a.Instruction = strings.TrimSpace(a.Instruction)
			if m, has := fields["max_steps"]; has {
				n, good := p.whole(m.value, c.what+": max_steps", 1)
				if good && n > ActMaxSteps {
					p.errorf(m.value, "%s: max_steps %d: at most %d", c.what, n, ActMaxSteps)
					good = false
				}
				a.MaxSteps, ok = n, ok && good
			}
			return a, ok
		},
	})
}

// Describe renders `act "instruction"`.
func (a *ActStep) Describe() string { return fmt.Sprintf("act %q", a.Instruction) }

// Traits: an act sends input (it settles first; each turn draws the frame
// it shows the model); the page has not run a frame with its last action
// when it ends, so the next read settles.
func (a *ActStep) Traits() Traits { return Traits{Input: true} }

// FrameCount is the most an act may step: ActTurnFrames a turn.
func (a *ActStep) FrameCount(Timing) int { return a.MaxSteps * ActTurnFrames }

// ActFile is the artifact of an act's trajectory, act-PROBE-LINE.jsonl;
// its frames are act-PROBE-LINE-TURN.png.
func ActFile(probe string, line int) string {
	return fmt.Sprintf("act-%s-%d.jsonl", unsafeName.ReplaceAllString(probe, "_"), line)
}

func (a *ActStep) run(x *exec) error {
	xr, err := x.headset()
	if err != nil {
		return err
	}
	view, err := capability[View](x.page, "rendering the user's view")
	if err != nil {
		return err
	}
	if x.opts.Actor == nil {
		x.unjudged = fmt.Sprintf("%s (line %d): no xr_actor model is configured (give the xr_actor role a model: docs/models.md)", a.Describe(), x.step.Line)
		return nil
	}
	base := strings.TrimSuffix(ActFile(x.probe.Name, x.step.Line), ".jsonl")
	var history []ActRecord
	defer func() { x.keepTrajectory(base, history) }()
	for turn := 1; turn <= a.MaxSteps; turn++ {
		rec := ActRecord{Turn: turn, At: x.page.Frame()}
		if err := x.advanceDrawn(1, true); err != nil {
			return err
		}
		png, err := view.ViewPNG(x.ctx)
		if err != nil {
			return err
		}
		if x.opts.Artifact != nil {
			rec.Frame = fmt.Sprintf("%s-%d.png", base, turn)
			if err := x.opts.Artifact(rec.Frame, png); err != nil {
				return Infra(fmt.Errorf("keeping a frame of %s: %w", a.Describe(), err))
			}
		}
		state, err := actState(x.ctx, x.page, xr)
		if err != nil {
			return err
		}
		reply, err := x.opts.Actor.Act(x.ctx, ActTurn{Instruction: a.Instruction, Turn: turn, MaxSteps: a.MaxSteps, Frame: png, State: state,
			History: slices.Clone(history)})
		if err != nil {
			return Infra(fmt.Errorf("%s, turn %d: %w", a.Describe(), turn, err))
		}
		rec.Action, rec.Reason = strings.TrimSpace(string(reply.Action)), reply.Reason
		if reply.Unjudged != "" {
			rec.Error = reply.Unjudged
			history = append(history, rec)
			x.unjudged = fmt.Sprintf("%s (line %d), turn %d: %s", a.Describe(), x.step.Line, turn, reply.Unjudged)
			return nil
		}
		var word string
		if json.Unmarshal(reply.Action, &word) == nil && (word == "done" || word == "give_up") {
			history = append(history, rec)
			return nil
		}
		act, why := parseActAction(reply.Action)
		if act != nil && act.FrameCount(x.timing()) > ActTurnFrames-1 {
			act, why = nil, fmt.Sprintf("it steps %d frames; a turn steps at most %d", act.FrameCount(x.timing()), ActTurnFrames-1)
		}
		if act == nil {
			rec.Error = "not run: " + why
			history = append(history, rec)
			continue
		}
		if err := act.run(&exec{probeRun: x.probeRun, step: Step{Kind: "act", Line: x.step.Line, Action: act}, scored: x.scored}); err != nil {
			if IsInfra(err) || x.ctx.Err() != nil || !isNotFound(err) {
				history = append(history, rec)
				return err
			}
			rec.Error = "not run: " + err.Error()
		}
		history = append(history, rec)
	}
	return nil
}

// keepTrajectory writes an act's turns as JSON lines; a failure to keep
// them is logged in the file's absence only (the verdicts do not depend
// on it).
func (x *exec) keepTrajectory(base string, history []ActRecord) {
	if x.opts.Artifact == nil || len(history) == 0 {
		return
	}
	var b strings.Builder
	enc := json.NewEncoder(&b)
	for _, r := range history {
		_ = enc.Encode(r)
	}
	_ = x.opts.Artifact(base+".jsonl", []byte(b.String()))
}

// parseActAction parses a model's action as one contract step of
// ActKinds; nil and why when it is not one.
func parseActAction(raw json.RawMessage) (Action, string) {
	var n yaml.Node
	if err := yaml.Unmarshal(raw, &n); err != nil || len(n.Content) == 0 {
		return nil, fmt.Sprintf("the action %s is not a step", strings.TrimSpace(string(raw)))
	}
	node := n.Content[0]
	if node.Kind != yaml.MappingNode || len(node.Content) != 2 {
		return nil, fmt.Sprintf("the action %s is not one step {KIND: VALUE}", strings.TrimSpace(string(raw)))
	}
	if kind := StepKind(node.Content[0].Value); !slices.Contains(ActKinds, kind) {
		return nil, fmt.Sprintf("%q is not a step an act takes", kind)
	}
	p := &parser{file: "act"}
	s, ok := p.step(node, "act", newStepNames())
	if !ok || len(p.errs) > 0 {
		return nil, strings.ReplaceAll(p.err().Error(), "act:1: ", "")
	}
	return s.Action, ""
}

// actState is the compact XR state an act's model sees.
func actState(ctx context.Context, page Page, xr XR) (map[string]any, error) {
	mode, err := xr.XRInputMode(ctx)
	if err != nil {
		return nil, err
	}
	st := map[string]any{"input": mode}
	devices := []string{"head", "left", "right"}
	if mode == "controller" {
		devices = []string{"head", "left-controller", "right-controller"}
	}
	for _, d := range devices {
		pos, ori, err := xr.XRPoseOf(ctx, d)
		if err != nil {
			return nil, err
		}
		st[d] = map[string]any{"position": round3(pos), "orientation": round3(ori)}
	}
	if sem, ok := page.(Semantics); ok {
		objs, err := sem.Tagged(ctx, "", "")
		if err != nil {
			return nil, err
		}
		var out []any
		for _, o := range objs {
			m, _ := o.(map[string]any)
			tag, _ := m["semantic"].(map[string]any)
			out = append(out, map[string]any{"role": tag["role"], "name": tag["name"], "position": m["position"]})
		}
		st["objects"] = out
	}
	return st, nil
}

// round3 rounds to the millimetre, never -0 (target.RoundMM), so that a
// state is short and the same run after run.
func round3(v []float64) []float64 { return target.RoundMM(v) }

// Acts counts the contract's act steps, setup included.
func (c *Contract) Acts() int {
	return c.countSteps(func(a Action) bool { _, ok := a.(*ActStep); return ok })
}

// countSteps counts the steps of every probe, setup included, whose action
// is one match takes.
func (c *Contract) countSteps(match func(Action) bool) int {
	n := 0
	for _, p := range c.Probes {
		for _, steps := range [][]Step{p.Setup, p.Steps} {
			for _, s := range steps {
				if match(s.Action) {
					n++
				}
			}
		}
	}
	return n
}
