package judges

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"os"
	"strings"
	"time"

	"github.com/worldprobe/worldprobe/internal/browser"
	"github.com/worldprobe/worldprobe/internal/resolve"
	"github.com/worldprobe/worldprobe/internal/session"
)

// DOMFrames is how many frames the DOM check steps before it looks: as
// many as a trial's load check.
const DOMFrames = 30

// Check is one check of the DOM judge.
type Check struct {
	// Name is "document", "canvas", an element's selector ("#hud"), or
	// an element's label ("#hud text \"Bounces:\"").
	Name string `json:"name"`
	Pass bool   `json:"pass"`
	// Detail says what was found.
	Detail string `json:"detail"`
}

// DOMJudge is a DOM-structure check in the spirit of the graders
// WorldCoder-Bench compares the contract with: it loads the page in the
// runtime (real Chromium, the task's viewport, seed and frame rate),
// steps DOMFrames frames and checks what a DOM-based grader can see — the
// document loaded and threw no uncaught exception, a canvas of non-zero
// size exists, and every element the task names ([Elements]) exists and,
// unless the brief says it is shown only at times, is visible, with the
// text labels the brief says it shows. Score is the share of checks that
// pass; the page passes when all do. It never reads the contract, the
// page's state or its scene: what is drawn, what moves and what the
// controls do are beyond it.
type DOMJudge struct {
	Browser  *browser.Browser
	Resolver *resolve.Resolver
	// Frames is how many frames to step; 0 means DOMFrames.
	Frames int
	// Machine tells a missed deadline under overload from the page's.
	Machine Machine
	Logger  *slog.Logger
}

// Name is "dom".
func (d *DOMJudge) Name() string { return "dom" }

// Config names the check's version and frames.
func (d *DOMJudge) Config() string { return fmt.Sprintf("dom v1, %d frames", d.frames()) }

func (d *DOMJudge) frames() int {
	if d.Frames > 0 {
		return d.Frames
	}
	return DOMFrames
}

// checklist holds the checks of one page in order.
type checklist struct {
	checks []Check
	// hung is set when the page stopped answering (a missed deadline).
	hung bool
}

func (l *checklist) add(name string, pass bool, format string, args ...any) {
	l.checks = append(l.checks, Check{Name: name, Pass: pass, Detail: fmt.Sprintf(format, args...)})
}

// Judge checks the candidate's DOM. A page that misses its deadline while
// the machine is overloaded is looked at again as Machine says.
func (d *DOMJudge) Judge(ctx context.Context, c Candidate) (*Verdict, error) {
	elems, err := Elements(c.Task)
	if err != nil {
		return nil, err
	}
	if c.Page == "" {
		return d.unchecked(elems, "the model produced no page").verdict(), nil
	}
	if _, err := os.Stat(c.Page); err != nil {
		return d.unchecked(elems, fmt.Sprintf("the page cannot be read: %v", err)).verdict(), nil
	}
	return withDeadline(ctx, d.Machine, d.Browser, d.Resolver, time.Duration(c.Task.Timeout), func(deadline time.Duration) (*Verdict, bool, error) {
		l, err := d.look(ctx, c, elems, deadline)
		if err != nil {
			return nil, false, err
		}
		return l.verdict(), l.hung, nil
	})
}

// checkNames are the checks after "document", in order.
func checkNames(elems []Element) []string {
	names := []string{"canvas"}
	for _, e := range elems {
		names = append(names, e.Selector)
		for _, l := range e.Labels {
			names = append(names, labelCheck(e.Selector, l))
		}
	}
	return names
}

// unchecked fails the document check and every other one: the page could
// not be looked at.
func (d *DOMJudge) unchecked(elems []Element, why string) *checklist {
	l := &checklist{}
	l.add("document", false, "%s", why)
	for _, n := range checkNames(elems) {
		l.add(n, false, "not checked: %s", why)
	}
	return l
}

// look loads the page with the given deadline and checks it.
func (d *DOMJudge) look(ctx context.Context, c Candidate, elems []Element, deadline time.Duration) (*checklist, error) {
	names := checkNames(elems)
	logger := d.Logger
	if logger == nil {
		logger = slog.Default()
	}
	t := c.Task
	s, err := session.Open(ctx, d.Browser, d.Resolver, c.Page, session.Config{Seed: t.Seed, FPS: t.FPS,
		Width: t.Viewport.Width, Height: t.Viewport.Height, SkipDraw: true, CallTimeout: deadline, Logger: logger})
	if err != nil {
		if ctx.Err() != nil {
			return nil, ctx.Err()
		}
		return nil, fmt.Errorf("opening %s: %w", c.Page, err)
	}
	defer s.Close()
	unchecked := func(why string, err error) (*checklist, error) {
		l := d.unchecked(elems, why)
		l.hung = errors.Is(err, session.ErrUnresponsive)
		return l, nil
	}
	if err := s.LoadErr(); err != nil {
		return unchecked("the page "+broken(err)+" while it loaded", err)
	}
	if !s.Loaded() {
		log := s.Log()
		msg := log.MainDocFailure
		if msg == "" {
			msg = fmt.Sprintf("HTTP %d", log.MainDocStatus)
		}
		return unchecked("the document did not load: "+msg, nil)
	}
	if _, err := s.Step(ctx, d.frames(), true); err != nil {
		if ctx.Err() != nil {
			return nil, ctx.Err()
		}
		if gone(err) {
			return unchecked(fmt.Sprintf("the page %s within its first %d frames", broken(err), d.frames()), err)
		}
		return unchecked(fmt.Sprintf("the page could not be stepped: %v", err), nil)
	}
	l := &checklist{}
	if errs := s.Log().Errors; len(errs) > 0 {
		e := errs[0]
		at := ""
		if e.Line > 0 {
			at = fmt.Sprintf(" (line %d)", e.Line)
		}
		l.add("document", false, "uncaught exception%s: %s", at, truncate(e.Message, 160))
	} else {
		l.add("document", true, "loaded; no uncaught exception in %d frames", d.frames())
	}

	// failRest fails every check from name on: the page stopped answering.
	failRest := func(from string, err error) (*checklist, error) {
		i := 0
		for i < len(names) && names[i] != from {
			i++
		}
		for _, n := range names[i:] {
			l.add(n, false, "not checked: the page %s", broken(err))
		}
		l.hung = errors.Is(err, session.ErrUnresponsive)
		return l, nil
	}
	box, err := s.LargestCanvas(ctx)
	switch {
	case err != nil && ctx.Err() != nil:
		return nil, ctx.Err()
	case err != nil && gone(err):
		return failRest("canvas", err)
	case err != nil:
		l.add("canvas", false, "%v", err)
	case box == nil:
		l.add("canvas", false, "no canvas element")
	case !(box.Width > 0 && box.Height > 0 && box.PixelWidth > 0 && box.PixelHeight > 0):
		l.add("canvas", false, "the largest canvas has no size (%g×%g CSS pixels, %d×%d backing)", box.Width, box.Height, box.PixelWidth, box.PixelHeight)
	default:
		l.add("canvas", true, "%g×%g CSS pixels, %d×%d backing", box.Width, box.Height, box.PixelWidth, box.PixelHeight)
	}
	for _, e := range elems {
		info, err := s.DOM(ctx, e.Selector)
		switch {
		case err != nil && ctx.Err() != nil:
			return nil, ctx.Err()
		case err != nil && gone(err):
			return failRest(e.Selector, err)
		case err != nil:
			l.add(e.Selector, false, "%v", err)
		case !info.Exists:
			l.add(e.Selector, false, "no element matches (named at %s)", e.From)
		case !info.Visible && !e.MayHide:
			l.add(e.Selector, false, "exists but is not visible (no size, display: none, visibility: hidden or opacity 0)")
		case !info.Visible:
			l.add(e.Selector, true, "exists (hidden now; the brief shows it only at times)")
		default:
			l.add(e.Selector, true, "exists and is visible")
		}
		for _, label := range e.Labels {
			name := labelCheck(e.Selector, label)
			switch {
			case err != nil || !info.Exists:
				l.add(name, false, "no element to read")
			case strings.Contains(info.Text, label):
				l.add(name, true, "its text %q holds it", truncate(info.Text, 60))
			default:
				l.add(name, false, "its text %q does not hold %q", truncate(info.Text, 60), label)
			}
		}
	}
	return l, nil
}

// verdict scores the checks: the share that pass, a pass when all do.
func (l *checklist) verdict() *Verdict {
	passed := 0
	var failed []string
	for _, c := range l.checks {
		if c.Pass {
			passed++
			continue
		}
		failed = append(failed, c.Name+": "+c.Detail)
	}
	v := &Verdict{Checks: l.checks, Pass: len(failed) == 0, Score: float64(passed) / float64(len(l.checks))}
	if v.Pass {
		v.Reason = fmt.Sprintf("all %d checks passed", len(l.checks))
	} else {
		v.Reason = fmt.Sprintf("%d of %d checks failed: %s", len(failed), len(l.checks), strings.Join(failed, "; "))
	}
	return v
}

func labelCheck(selector, label string) string { return fmt.Sprintf("%s text %q", selector, label) }

// gone reports whether a session error means the page no longer answers.
func gone(err error) bool {
	return errors.Is(err, session.ErrUnresponsive) || errors.Is(err, session.ErrCrashed)
}

// broken says how the page failed: "stopped responding" or "crashed".
func broken(err error) string {
	if errors.Is(err, session.ErrCrashed) {
		return "crashed"
	}
	return "stopped responding"
}

func truncate(s string, n int) string {
	s = strings.Join(strings.Fields(s), " ")
	if r := []rune(s); len(r) > n {
		return string(r[:n]) + "…"
	}
	return s
}
