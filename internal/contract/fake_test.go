package contract

import (
	"context"
	"errors"
	"fmt"
	"strings"
)

// fakePage is an in-memory Page: a ball that falls from height 10 under
// gravity 10 m/s², a button that toggles "paused", named objects and a
// flat-coloured canvas. Tests tweak it through its fields.
type fakePage struct {
	fps    float64
	frame  int
	y, vy  float64
	paused bool
	// stateFn, when set, replaces the computed state.
	stateFn func(p *fakePage) any
	// objects by name; a missing name is ErrTargetNotFound.
	objects map[string]map[string]any
	// selectors that exist.
	selectors map[string]bool
	// fail makes the named method return this error.
	fail    map[string]error
	calls   []string
	stepped []int
	closed  bool
	reloads int
	// failStep, when set, is asked before each Step of n frames.
	failStep func(n int) error
}

// errIf returns err when cond holds, else nil.
func errIf(cond bool, err error) error {
	if cond {
		return err
	}
	return nil
}

func newFakePage(fps float64) *fakePage {
	return &fakePage{fps: fps, y: 10,
		objects: map[string]map[string]any{
			"ball": {"name": "ball", "position": []any{0.0, 10.0, 0.0}, "visible": true, "color": "#ff0000",
				"screen": []any{400.0, 100.0}, "on_screen": true},
			"hidden": {"name": "hidden", "position": []any{0.0, 0.0, -50.0}, "visible": false, "color": "",
				"screen": []any{-10.0, -10.0}, "on_screen": false},
		},
		selectors: map[string]bool{"#pause": true, "#name": true},
		fail:      map[string]error{},
	}
}

func (p *fakePage) err(method string) error {
	p.calls = append(p.calls, method)
	return p.fail[method]
}

func (p *fakePage) Step(ctx context.Context, n int) error {
	if err := p.err("Step"); err != nil {
		return err
	}
	if p.failStep != nil {
		if err := p.failStep(n); err != nil {
			return err
		}
	}
	p.stepped = append(p.stepped, n)
	dt := 1 / p.fps
	for range n {
		p.frame++
		if p.paused {
			continue
		}
		p.vy -= 10 * dt
		p.y += p.vy * dt
		if p.y < 0 {
			p.y, p.vy = 0, -p.vy*0.5
		}
	}
	return nil
}

func (p *fakePage) Frame() int   { return p.frame }
func (p *fakePage) FPS() float64 { return p.fps }

func (p *fakePage) State(ctx context.Context) (any, error) {
	if err := p.err("State"); err != nil {
		return nil, err
	}
	if p.stateFn != nil {
		return p.stateFn(p), nil
	}
	return map[string]any{
		"ball":   map[string]any{"position": []any{0.0, p.y, 0.0}, "velocity": []any{0.0, p.vy, 0.0}},
		"paused": p.paused,
		"frame":  float64(p.frame),
		"mode":   "run",
	}, nil
}

func (p *fakePage) Object(ctx context.Context, name string) (map[string]any, error) {
	if err := p.err("Object"); err != nil {
		return nil, err
	}
	o, ok := p.objects[name]
	if !ok {
		return nil, fmt.Errorf("no object named %q: %w", name, ErrTargetNotFound)
	}
	return o, nil
}

func (p *fakePage) Pixel(ctx context.Context, x, y float64) (map[string]any, error) {
	if err := p.err("Pixel"); err != nil {
		return nil, err
	}
	if x < 0 || y < 0 || x >= 800 || y >= 600 {
		return nil, fmt.Errorf("point (%g, %g) is off the canvas: %w", x, y, ErrTargetNotFound)
	}
	if x == 400 && y == 100 {
		return map[string]any{"r": 255.0, "g": 0.0, "b": 0.0, "a": 255.0, "luma": 54.0}, nil
	}
	return map[string]any{"r": 10.0, "g": 20.0, "b": 30.0, "a": 255.0, "luma": 18.0}, nil
}

func (p *fakePage) Region(ctx context.Context, x, y, w, h float64) (map[string]any, error) {
	if err := p.err("Region"); err != nil {
		return nil, err
	}
	return map[string]any{"r": 10.0, "g": 20.0, "b": 30.0, "luma": 18.0}, nil
}

func (p *fakePage) DOM(ctx context.Context, sel string) (map[string]any, error) {
	if err := p.err("DOM"); err != nil {
		return nil, err
	}
	if !p.selectors[sel] {
		return map[string]any{"exists": false, "text": "", "value": "", "visible": false}, nil
	}
	text := "Pause"
	if p.paused {
		text = "Resume"
	}
	return map[string]any{"exists": true, "text": text, "value": "", "visible": true}, nil
}

func (p *fakePage) Scene(ctx context.Context) (map[string]any, error) {
	if err := p.err("Scene"); err != nil {
		return nil, err
	}
	return map[string]any{"objects": 3.0, "meshes": 2.0, "lights": 1.0, "triangles": 960.0}, nil
}

func (p *fakePage) target(t Target) error {
	switch {
	case t.Selector != "" && !p.selectors[t.Selector]:
		return fmt.Errorf("no element matches %q: %w", t.Selector, ErrTargetNotFound)
	case t.Object != "":
		if _, ok := p.objects[t.Object]; !ok {
			return fmt.Errorf("no object named %q: %w", t.Object, ErrTargetNotFound)
		}
	case t.At != nil && (t.At[0] < 0 || t.At[1] < 0):
		return fmt.Errorf("point off the canvas: %w", ErrTargetNotFound)
	}
	return nil
}

func (p *fakePage) Click(ctx context.Context, t Target, hold int) error {
	if err := p.err("Click"); err != nil {
		return err
	}
	if err := p.target(t); err != nil {
		return err
	}
	if t.Selector == "#pause" {
		p.paused = !p.paused
	}
	return p.Step(ctx, hold)
}

func (p *fakePage) Drag(ctx context.Context, from, to Target, steps int) error {
	if err := p.err("Drag"); err != nil {
		return err
	}
	if err := errors.Join(p.target(from), p.target(to)); err != nil {
		return err
	}
	return p.Step(ctx, DragFrames(steps))
}

func (p *fakePage) Press(ctx context.Context, t Target) error {
	if err := p.err("Press"); err != nil {
		return err
	}
	return p.target(t)
}

func (p *fakePage) Release(ctx context.Context, t Target) error {
	if err := p.err("Release"); err != nil {
		return err
	}
	return p.target(t)
}

func (p *fakePage) Move(ctx context.Context, t Target) error {
	if err := p.err("Move"); err != nil {
		return err
	}
	return p.target(t)
}

func (p *fakePage) Wheel(ctx context.Context, t Target, dx, dy float64) error {
	if err := p.err("Wheel"); err != nil {
		return err
	}
	return p.target(t)
}

func (p *fakePage) Key(ctx context.Context, kind, key string, with []string, hold int) error {
	if err := p.err("Key"); err != nil {
		return err
	}
	if (kind == "press" || kind == "down") && key == " " {
		p.paused = !p.paused
	}
	if kind == "press" {
		return p.Step(ctx, hold)
	}
	return nil
}

func (p *fakePage) Type(ctx context.Context, sel, text string) error {
	if err := p.err("Type"); err != nil {
		return err
	}
	return p.target(Target{Selector: sel})
}

func (p *fakePage) Reload(ctx context.Context) error {
	if err := p.err("Reload"); err != nil {
		return err
	}
	p.reloads++
	p.frame, p.y, p.vy, p.paused = 0, 10, 0, false
	return nil
}

func (p *fakePage) Close() error { p.closed = true; return nil }

// opener hands out fake pages, recording them; tweak adjusts each new page.
type opener struct {
	pages []*fakePage
	tweak func(p *fakePage)
	err   error
}

func (o *opener) open(ctx context.Context, fps float64) (Page, error) {
	if o.err != nil {
		return nil, o.err
	}
	p := newFakePage(fps)
	if o.tweak != nil {
		o.tweak(p)
	}
	o.pages = append(o.pages, p)
	return p, nil
}

// mustParse parses a contract written with tabs-free indentation.
func mustParse(t interface {
	Helper()
	Fatalf(string, ...any)
}, src string) *Contract {
	t.Helper()
	c, err := Parse("contract.yaml", []byte(strings.TrimLeft(src, "\n")))
	if err != nil {
		t.Fatalf("parse: %v", err)
	}
	return c
}
