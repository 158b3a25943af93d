package contract

import (
	"context"
	"errors"
	"fmt"
	"maps"
	"math"
	"slices"
	"strings"

	"github.com/worldprobe/worldprobe/internal/audio"
	"github.com/worldprobe/worldprobe/internal/contract/contracttest/world"
	"github.com/worldprobe/worldprobe/internal/pixel"
	"github.com/worldprobe/worldprobe/internal/target"
)

// fakePage is an in-memory Page of the conformance world (package
// contracttest/world): a ball that falls from height 10 under gravity
// 10 m/s², a button and the space key that toggle "paused", named objects
// and a flat-coloured canvas. Tests tweak it through its fields; it passes
// contracttest.Conformance (conformance_test.go).
type fakePage struct {
	fps    float64
	frame  int
	y, vy  float64
	paused bool
	// stateFn, when set, replaces the computed state.
	stateFn func(p *fakePage) any
	// objects by name; a missing name is target.ErrNotFound.
	objects map[string]map[string]any
	// selectors that exist.
	selectors map[string]bool
	// fail makes the named method return this error.
	fail    map[string]error
	calls   []string
	stepped []int
	// undrawn lists, per Step or StepUndrawn call, whether it left its
	// last frame undrawn; drawn is the frame the canvas shows.
	undrawn []bool
	drawn   int
	closed  bool
	reloads int
	// failStep, when set, is asked before each Step of n frames.
	failStep func(n int) error
	// wheel sums the wheel's deltaY; down is the primary button; name is
	// what was typed into #name.
	wheel float64
	down  bool
	name  string
	// sounds are the injected sounds, each with the frame it started at.
	sounds []injected
	// files, on a page of the microphone world, are its task folder's
	// files; clips are the sounds it plays.
	files map[string][]byte
	clips []fakeClip
	// xr is the headset of a fake showing the XR conformance world
	// (fakexr_test.go); nil for the conformance world.
	xr *fakeXR
}

// errIf returns err when cond holds, else nil.
func errIf(cond bool, err error) error {
	if cond {
		return err
	}
	return nil
}

func newFakePage(fps float64) *fakePage {
	return &fakePage{fps: fps, y: world.StartY,
		objects: map[string]map[string]any{
			"ball":   {"name": "ball", "visible": true, "color": "#ff0000", "semantic": map[string]any{"role": "target", "name": "ball"}},
			"hidden": {"name": "hidden", "position": []any{0.0, 0.0, 30.0}, "visible": false, "color": ""},
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
	p.undrawn = append(p.undrawn, false)
	p.drawn = p.frame + n
	for range n {
		p.frame++
		if p.xr != nil {
			p.xr.frame()
		}
		if p.paused {
			continue
		}
		p.y, p.vy = world.Fall(p.y, p.vy, p.fps)
	}
	return nil
}

// StepUndrawn steps like Step but leaves the canvas at the last drawn frame.
func (p *fakePage) StepUndrawn(ctx context.Context, n int) error {
	drawn := p.drawn
	if err := p.Step(ctx, n); err != nil {
		return err
	}
	p.drawn, p.undrawn[len(p.undrawn)-1] = drawn, true
	return nil
}

// canvas fails when the current frame was not drawn, as a real page would
// show an older frame.
func (p *fakePage) canvas() error {
	if p.drawn != p.frame {
		return Infra(fmt.Errorf("pixels read at frame %d, drawn at %d", p.frame, p.drawn))
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
	if p.xr != nil {
		return p.xr.state(), nil
	}
	return map[string]any{
		"ball":   map[string]any{"position": []any{0.0, p.y, 0.0}, "velocity": []any{0.0, p.vy, 0.0}},
		"paused": p.paused,
		"frame":  float64(p.frame),
		"mode":   "run",
		"wheel":  p.wheel,
		"down":   p.down,
	}, nil
}

func (p *fakePage) Object(ctx context.Context, name string) (map[string]any, error) {
	if err := p.err("Object"); err != nil {
		return nil, err
	}
	return p.object(name)
}

// object describes a named object without counting a call.
func (p *fakePage) object(name string) (map[string]any, error) {
	o, ok := p.objects[name]
	if !ok {
		return nil, fmt.Errorf("no object named %q: %w", name, target.ErrNotFound)
	}
	out := maps.Clone(o)
	if name == "ball" {
		out["position"] = []any{0.0, p.y, 0.0}
	}
	pos := out["position"].([]any)
	x, y, on := world.Project([3]float64{pos[0].(float64), pos[1].(float64), pos[2].(float64)})
	out["screen"], out["on_screen"] = []any{x, y}, on
	return out, nil
}

// color is the canvas pixel at (x, y): the ball's red within its radius
// on screen, the background elsewhere.
func (p *fakePage) color(x, y float64) (r, g, b float64) {
	bx, by, on := world.Project([3]float64{0, p.y, 0})
	if on && math.Hypot(x-bx, y-by) < 8 {
		return 255, 0, 0
	}
	return world.Background[0], world.Background[1], world.Background[2]
}

func (p *fakePage) Pixel(ctx context.Context, x, y float64) (map[string]any, error) {
	if err := p.err("Pixel"); err != nil {
		return nil, err
	}
	if err := p.canvas(); err != nil {
		return nil, err
	}
	if x < 0 || y < 0 || x >= world.Width || y >= world.Height {
		return nil, fmt.Errorf("point (%g, %g) is off the canvas: %w", x, y, target.ErrNotFound)
	}
	r, g, b := p.color(x, y)
	return map[string]any{"r": r, "g": g, "b": b, "a": 255.0, "luma": pixel.Luma(r, g, b)}, nil
}

func (p *fakePage) Region(ctx context.Context, x, y, w, h float64) (map[string]any, error) {
	if err := p.err("Region"); err != nil {
		return nil, err
	}
	if err := p.canvas(); err != nil {
		return nil, err
	}
	if !(w > 0 && h > 0) || x < 0 || y < 0 || x+w > world.Width || y+h > world.Height {
		return nil, fmt.Errorf("region (%g, %g, %g, %g) is not inside the canvas: %w", x, y, w, h, target.ErrNotFound)
	}
	r, g, b := p.color(x+w/2, y+h/2)
	return map[string]any{"r": r, "g": g, "b": b, "a": 255.0, "luma": pixel.Luma(r, g, b)}, nil
}

func (p *fakePage) DOM(ctx context.Context, sel string) (map[string]any, error) {
	if err := p.err("DOM"); err != nil {
		return nil, err
	}
	if !p.selectors[sel] {
		return map[string]any{"exists": false, "text": "", "value": "", "visible": false}, nil
	}
	text, value := "Pause", ""
	if p.paused {
		text = "Resume"
	}
	if sel == "#name" {
		text, value = "", p.name
	}
	return map[string]any{"exists": true, "text": text, "value": value, "visible": true}, nil
}

func (p *fakePage) Scene(ctx context.Context) (map[string]any, error) {
	if err := p.err("Scene"); err != nil {
		return nil, err
	}
	return map[string]any{"objects": 3.0, "meshes": 2.0, "visible_meshes": 1.0, "lights": 1.0, "triangles": 236.0}, nil
}

func (p *fakePage) target(t Target) error {
	switch t.Kind() {
	case target.KindSelector:
		if !p.selectors[t.Selector] {
			return fmt.Errorf("no element matches %q: %w", t.Selector, target.ErrNotFound)
		}
	case target.KindObject:
		o, err := p.object(t.Object)
		if err != nil {
			return err
		}
		if !o["on_screen"].(bool) {
			return fmt.Errorf("object %q is not on screen: %w", t.Object, target.ErrNotFound)
		}
	case target.KindAt:
		if t.At[0] < 0 || t.At[1] < 0 || t.At[0] >= world.Width || t.At[1] >= world.Height {
			return fmt.Errorf("point %v is off the canvas: %w", t.At, target.ErrNotFound)
		}
	case target.KindWorld:
		if _, _, on := world.Project([3]float64{t.World[0], t.World[1], t.World[2]}); !on {
			return fmt.Errorf("world point %v is not on screen: %w", t.World, target.ErrNotFound)
		}
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
	p.down = false
	return p.Step(ctx, DragFrames(steps))
}

func (p *fakePage) Press(ctx context.Context, t Target) error {
	if err := p.err("Press"); err != nil {
		return err
	}
	if err := p.target(t); err != nil {
		return err
	}
	p.down = t.Kind() != target.KindSelector
	return nil
}

func (p *fakePage) Release(ctx context.Context, t Target) error {
	if err := p.err("Release"); err != nil {
		return err
	}
	if err := p.target(t); err != nil {
		return err
	}
	p.down = false
	return nil
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
	if err := p.target(t); err != nil {
		return err
	}
	p.wheel += dy
	return nil
}

// injected is a sound a fake page was given and the frame it started at.
type injected struct {
	Sound Sound
	Frame int
}

// fakeClip is a sound the microphone world plays: its samples at
// world.MicRate from sample start.
type fakeClip struct {
	samples []float32
	start   int
}

// InjectAudio records the sound (contract.Microphone); on a page of the
// microphone world it reads a wav: file from the page's files and plays it.
func (p *fakePage) InjectAudio(ctx context.Context, s Sound) error {
	if err := p.err("InjectAudio"); err != nil {
		return err
	}
	p.sounds = append(p.sounds, injected{s, p.frame})
	if p.files == nil {
		return nil
	}
	data, ok := p.files[s.WAV]
	if !ok {
		return Infra(fmt.Errorf("injectAudio: reading %s: no such file", s.WAV))
	}
	snd, err := audio.ParseWAV(s.WAV, data)
	if err != nil {
		return Infra(fmt.Errorf("injectAudio: %w", err))
	}
	mono, err := audio.Mono(snd)
	if err != nil {
		return Infra(fmt.Errorf("injectAudio: %s: %w", s.WAV, err))
	}
	p.clips = append(p.clips, fakeClip{mono, int(math.Round(float64(p.frame) * 1000 / p.fps * world.MicRate / 1000))})
	return nil
}

// newFakeMicPage is an in-memory page of the microphone world with files
// in its task folder.
func newFakeMicPage(fps float64, files map[string][]byte) *fakePage {
	p := newFakePage(fps)
	p.files = files
	p.stateFn = func(p *fakePage) any {
		end := int(math.Round(float64(p.frame) * 1000 / p.fps * world.MicRate / 1000))
		var level float64
		if len(p.clips) > 0 {
			var sum float64
			for i := end - world.MicWindow; i < end; i++ {
				var v float64
				for _, c := range p.clips {
					if k := i - c.start; k >= 0 && k < len(c.samples) {
						v += float64(c.samples[k])
					}
				}
				sum += v * v
			}
			level = math.Round(math.Sqrt(sum/world.MicWindow)*1e6) / 1e6
		}
		return map[string]any{"frame": float64(p.frame), "mic": map[string]any{"open": true, "level": level}}
	}
	return p
}

func (p *fakePage) Key(ctx context.Context, kind, key string, with []string, hold int) error {
	if err := p.err("Key"); err != nil {
		return err
	}
	if len([]rune(key)) != 1 && !fakeKeyNames[key] {
		return fmt.Errorf("unknown key %q: %w", key, target.ErrNotFound)
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
	if err := p.target(Target{Selector: sel}); err != nil {
		return err
	}
	if sel == "#name" {
		p.name += text
	}
	return nil
}

func (p *fakePage) Reload(ctx context.Context) error {
	if err := p.err("Reload"); err != nil {
		return err
	}
	p.reloads++
	p.frame, p.y, p.vy, p.paused = 0, world.StartY, 0, false
	p.wheel, p.down, p.name = 0, false, ""
	p.clips = nil
	if p.xr != nil {
		p.xr = newFakeXR()
	}
	return nil
}

// fakeKeyNames are the multi-character key names the fake knows.
var fakeKeyNames = map[string]bool{"Enter": true, "Escape": true, "Tab": true, "Backspace": true,
	"ArrowUp": true, "ArrowDown": true, "ArrowLeft": true, "ArrowRight": true,
	"Control": true, "Shift": true, "Alt": true, "Meta": true}

func (p *fakePage) Close() error { p.closed = true; return nil }

// opener hands out fake pages, recording them; tweak adjusts each new page.
type opener struct {
	pages []*fakePage
	tweak func(p *fakePage)
	err   error
	// rooms are the rooms (RoomOf) the pages were opened in, in order.
	rooms []string
}

func (o *opener) open(ctx context.Context, fps float64) (Page, error) {
	if o.err != nil {
		return nil, o.err
	}
	p := newFakePage(fps)
	o.rooms = append(o.rooms, RoomOf(ctx))
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

// Tagged lists the objects whose "semantic" map matches role and name
// ("" matches any), in name order (contract.Semantics).
func (p *fakePage) Tagged(ctx context.Context, role, name string) ([]any, error) {
	if err := p.err("Tagged"); err != nil {
		return nil, err
	}
	var out []any
	for _, n := range slices.Sorted(maps.Keys(p.objects)) {
		tag, ok := p.objects[n]["semantic"].(map[string]any)
		if !ok || (role != "" && tag["role"] != role) || (name != "" && tag["name"] != name) {
			continue
		}
		o, err := p.object(n)
		if err != nil {
			return nil, err
		}
		out = append(out, o)
	}
	return out, nil
}
