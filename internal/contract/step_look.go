package contract

import (
	"context"
	"fmt"
	"regexp"
	"strings"

	"go.yaml.in/yaml/v3"
)

// StepLook is a scoped visual assertion.
const StepLook StepKind = "look"

// LookViewUser is the only view a look renders today: what the user sees.
const LookViewUser = "user"

// LookStep is a scoped visual assertion: one frame of the user's view and
// one narrow criterion, judged by a model (Options.Looker, the
// visual_judge role). It yields a verdict as an assert does: pass, fail,
// or unjudged when no model could judge it. Its Assertion's Expr is the
// criterion.
type LookStep struct {
	*Assertion
	// Criterion is the one thing the frame must show, in words.
	Criterion string
	// View is the view rendered: LookViewUser.
	View string
}

// LookVerdict is a model's answer to one look.
type LookVerdict struct {
	// Judged is false when no verdict could be had; Reason then says why.
	Judged bool
	Pass   bool
	// Reason is the model's reason, or why the look is unjudged.
	Reason string
	// Model names who judged it ("openai/gpt-4.1"), "" when none did.
	Model string
}

// Looker judges one frame of a page against one criterion: the model
// behind look steps. It sees the frame and the criterion only, never the
// brief nor the contract.
type Looker interface {
	// Look judges the PNG frame against criterion. A model that could not
	// judge it (its budget spent, the provider failing after its retries,
	// a reply without a verdict, a refusal) is a LookVerdict with Judged
	// false, not an error; the error is for what must stop the run (a
	// cancelled context, a fatal model error such as a bad key or an
	// unrecorded request in replay mode).
	Look(ctx context.Context, frame []byte, criterion string) (LookVerdict, error)
}

func init() {
	registerStep(stepType{
		Kind: StepLook, Order: 45,
		Example: "`look: {criterion: \"the cube is highlighted green\", view: user}`",
		Doc: "a scoped visual assertion: draws the frame, renders the user's view (`view: user`, the default: the XR view camera's " +
			"picture on an XR task, the page's canvas otherwise) and sends that one image and the one `criterion` — never the brief " +
			"nor the contract — to the `visual_judge` model role, which answers `{pass, reason}`. Its verdict is pass or fail with " +
			"the model's reason, or **unjudged** when no model could judge it (none configured, budget spent, provider failure, no " +
			"verdict in the reply): neither passed nor failed (see [Unjudged](#unjudged-checks)). The frame is kept as " +
			"`look-PROBE-LINE.png` in the trial folder. `message:` and `attribution:` as for `assert`",
		Siblings: []string{"message", "attribution"},
		Parse: func(p *parser, v *yaml.Node, c stepContext) (Action, bool) {
			fields := p.mapping(v, c.what, "criterion", "view")
			if fields == nil {
				return nil, false
			}
			a := &LookStep{View: LookViewUser}
			ok := true
			cr, has := fields["criterion"]
			switch {
			case !has:
				p.errorf(v, "%s: criterion is required (what the frame must show, in words)", c.what)
				ok = false
			default:
				a.Criterion, ok = p.str(cr.value, c.what+": criterion")
				a.Criterion = strings.TrimSpace(a.Criterion)
				if ok && a.Criterion == "" {
					p.errorf(cr.value, "%s: criterion is empty", c.what)
					ok = false
				}
			}
			if vw, has := fields["view"]; has {
				if s, good := p.str(vw.value, c.what+": view"); good && s != LookViewUser {
					p.errorf(vw.value, "%s: view %q: want %s (the user's view; no other view is rendered yet)", c.what, s, LookViewUser)
					ok = false
				}
			}
			line := v.Line
			if cr.value != nil {
				line = cr.value.Line
			}
			a.Assertion = &Assertion{Expr: a.Criterion, Line: line, kind: string(StepLook), observes: true}
			if m, has := c.fields["message"]; has {
				a.Message, _ = p.str(m.value, c.what+": message")
			}
			if h, has := c.fields["attribution"]; has {
				if hint, good := p.str(h.value, c.what+": attribution"); good {
					if !contains(hintValues, hint) {
						p.errorf(h.value, "%s: attribution hint %q (want one of %s)", c.what, hint, joinList(hintValues))
					}
					a.Attribution = hint
				}
			}
			return a, ok
		},
	})
}

// Describe renders `look "criterion"`.
func (a *LookStep) Describe() string { return fmt.Sprintf("look %q", a.Criterion) }

// Traits: a look reads the drawn frame.
func (a *LookStep) Traits() Traits { return Traits{Reads: true, Pixels: true} }

// FrameCount: a look steps none.
func (a *LookStep) FrameCount(Timing) int { return 0 }

// unsafeName matches what an artifact name may not hold.
var unsafeName = regexp.MustCompile(`[^A-Za-z0-9_.-]+`)

// LookImageName is the artifact a look's frame is kept as:
// look-PROBE-LINE.png, the probe's name with anything but letters,
// digits, _ . - replaced by "_" (grab[right] → grab_right_).
func LookImageName(probe string, line int) string {
	return fmt.Sprintf("look-%s-%d.png", unsafeName.ReplaceAllString(probe, "_"), line)
}

func (a *LookStep) run(x *exec) error {
	view, err := capability[View](x.page, "rendering the user's view")
	if err != nil {
		return err
	}
	png, err := view.ViewPNG(x.ctx)
	if err != nil {
		return err
	}
	v := verdictOf(x.probe, a.Assertion, StatusUnjudged, "")
	if x.opts.Artifact != nil {
		name := LookImageName(x.probe.Name, a.Line)
		if err := x.opts.Artifact(name, png); err != nil {
			return Infra(fmt.Errorf("keeping the frame of %s: %w", a.Describe(), err))
		}
		v.Image = name
	}
	var lv LookVerdict
	if x.opts.Looker == nil {
		lv.Reason = "no visual_judge model is configured (give the visual_judge role a model: docs/models.md)"
	} else if lv, err = x.opts.Looker.Look(x.ctx, png, a.Criterion); err != nil {
		return Infra(fmt.Errorf("judging %s: %w", a.Describe(), err))
	}
	v.Reason, v.Model = lv.Reason, lv.Model
	switch {
	case !lv.Judged:
		v.Status, v.Message = StatusUnjudged, "unjudged: "+lv.Reason
	case lv.Pass:
		v.Status = StatusPass
	default:
		v.Status, v.Message = StatusFail, fmt.Sprintf("the model judged that the view does not show %q: %s", a.Criterion, lv.Reason)
		if a.Message != "" {
			v.Message = a.Message + ": " + v.Message
		}
	}
	if !x.scored {
		if v.Status != StatusPass {
			x.broken = fmt.Sprintf("setup look at line %d did not pass: %s", x.step.Line, v.Message)
		}
		return nil
	}
	x.probeRun.scored(v)
	return nil
}

// Looks counts the contract's look steps, setup included: a run needs a
// visual_judge model only when it is above 0.
func (c *Contract) Looks() int {
	return c.countSteps(func(a Action) bool { _, ok := a.(*LookStep); return ok })
}
