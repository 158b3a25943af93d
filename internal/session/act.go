package session

import (
	"context"
	"encoding/json"
	"fmt"
	"strings"

	"github.com/chromedp/cdproto/cdp"
	"github.com/chromedp/cdproto/input"
	"github.com/chromedp/chromedp"
	"github.com/chromedp/chromedp/kb"

	"github.com/worldprobe/worldprobe/internal/target"
)

// Point is a position in the page's viewport, in CSS pixels.
type Point struct{ X, Y float64 }

// CanvasRect is the CSS box of the canvas the page renders to.
type CanvasRect struct {
	Left, Top, Width, Height float64
}

// Canvas returns the box of the canvas last rendered to (or the largest).
func (s *Session) Canvas(ctx context.Context) (CanvasRect, error) {
	defer s.charge("query")()
	return s.canvasRect(ctx, "window.__wp.canvasRect()")
}

// captureRect is Canvas before a screenshot: it also hides text carets,
// which blink on real time.
func (s *Session) captureRect(ctx context.Context) (CanvasRect, error) {
	defer s.charge("pixels")()
	return s.canvasRect(ctx, "window.__wp.captureRect()")
}

func (s *Session) canvasRect(ctx context.Context, expr string) (CanvasRect, error) {
	var raw string
	if err := s.eval(ctx, s.cfg.CallTimeout, expr, false, &raw); err != nil {
		return CanvasRect{}, err
	}
	var r *struct{ Left, Top, Width, Height float64 }
	if err := json.Unmarshal([]byte(raw), &r); err != nil {
		return CanvasRect{}, fmt.Errorf("decoding the canvas box: %w", err)
	}
	if r == nil {
		return CanvasRect{}, fmt.Errorf("the page has no canvas: %w", target.ErrNotFound)
	}
	return CanvasRect{r.Left, r.Top, r.Width, r.Height}, nil
}

// ObjectInfo describes a named scene object.
type ObjectInfo struct {
	Name      string    `json:"name"`
	Type      string    `json:"type"`
	Position  []float64 `json:"position"`
	Visible   bool      `json:"visible"`
	Color     string    `json:"color"`
	Intensity *float64  `json:"intensity"`
	Screen    []float64 `json:"screen"`
	OnScreen  bool      `json:"on_screen"`
	// Views is set when the last frame rendered more than one view (split
	// screen): the object's screen position in each, in render order.
	Views []ObjectView `json:"views,omitempty"`
	// Quaternion [x, y, z, w] (w >= 0), Scale and Forward (the unit +Z
	// axis, -Z for a camera, as three's getWorldDirection) are the
	// object's world transform, whatever its parents.
	Quaternion []float64 `json:"quaternion"`
	Scale      []float64 `json:"scale"`
	Forward    []float64 `json:"forward"`
	// BBox is the world-axis-aligned box around the geometry of the object
	// and its descendants; nil when none has geometry.
	BBox *Bounds `json:"bbox"`
	// Semantic is the object's userData.semantic tag, nil when it has none.
	Semantic *Semantic `json:"semantic"`
}

// Semantic is a scene object's semantic tag (userData.semantic, as XR
// Blocks apps and GenXR-Bench tasks set it).
type Semantic struct {
	Role string `json:"role"`
	Name string `json:"name"`
}

// ObjectView is where an object is in one view (camera and viewport) of the frame.
type ObjectView struct {
	Camera   string    `json:"camera"`
	Screen   []float64 `json:"screen"`
	OnScreen bool      `json:"on_screen"`
}

// Object finds the scene object with the given name (the last rendered
// scene first) and reports its world position, visibility, colour and
// screen position in canvas CSS pixels.
func (s *Session) Object(ctx context.Context, name string) (ObjectInfo, error) {
	defer s.charge("query")()
	var raw string
	if err := s.eval(ctx, s.cfg.CallTimeout, "window.__wp.objectInfo("+jsString(name)+")", false, &raw); err != nil {
		return ObjectInfo{}, err
	}
	var o *ObjectInfo
	if err := json.Unmarshal([]byte(raw), &o); err != nil {
		return ObjectInfo{}, fmt.Errorf("decoding object %q: %w", name, err)
	}
	if o == nil {
		return ObjectInfo{}, fmt.Errorf("no scene object named %q: %w", name, target.ErrNotFound)
	}
	return *o, nil
}

// Tagged lists the objects of the last rendered scene whose semantic tag
// (userData.semantic) has the role and name given ("" matches any), in
// scene-graph order (depth first), at most 1000.
func (s *Session) Tagged(ctx context.Context, role, name string) ([]ObjectInfo, error) {
	defer s.charge("query")()
	var raw string
	if err := s.eval(ctx, s.cfg.CallTimeout, "window.__wp.taggedInfo("+jsString(role)+", "+jsString(name)+")", false, &raw); err != nil {
		return nil, err
	}
	var out []ObjectInfo
	if err := json.Unmarshal([]byte(raw), &out); err != nil {
		return nil, fmt.Errorf("decoding the objects tagged %q: %w", role, err)
	}
	return out, nil
}

// ObjectRef names a scene object: by Name (mesh.name) or, with Tag set, by
// its semantic tag's Role and Name ("" matches any; the tag must match
// exactly one object).
type ObjectRef struct {
	Name string `json:"name"`
	Role string `json:"role,omitempty"`
	Tag  bool   `json:"tag,omitempty"`
}

// String names the reference for messages.
func (r ObjectRef) String() string {
	if r.Tag {
		return fmt.Sprintf("the object tagged {role: %q, name: %q}", r.Role, r.Name)
	}
	return fmt.Sprintf("object %q", r.Name)
}

// XRView is where an object is in the user's view of an XR session.
type XRView struct {
	// InView is true when the centre of the object's world box (its origin
	// when it has no geometry) is inside the frustum of one of the eyes.
	InView bool `json:"in_view"`
	// Coverage is the largest fraction, over the eyes, of the eye's view
	// that the screen rectangle around the object's box covers (0–1).
	Coverage float64 `json:"coverage"`
}

// XRView reports whether the object is in the field of view of the user's
// eyes, with the cameras a three.js renderer presenting an XR session drew
// the last frame with. A missing object, an ambiguous tag or a page that
// presents no XR session wrap target.ErrNotFound.
func (s *Session) XRView(ctx context.Context, ref ObjectRef) (XRView, error) {
	defer s.charge("query")()
	arg, err := json.Marshal(ref)
	if err != nil {
		return XRView{}, err
	}
	var raw string
	if err := s.eval(ctx, s.cfg.CallTimeout, "window.__wp.xrView("+string(arg)+")", false, &raw); err != nil {
		return XRView{}, err
	}
	var v struct {
		XRView
		Error string `json:"error"`
	}
	if err := json.Unmarshal([]byte(raw), &v); err != nil {
		return XRView{}, fmt.Errorf("decoding the view of %s: %w", ref, err)
	}
	if v.Error != "" {
		return XRView{}, fmt.Errorf("%s: %w", v.Error, target.ErrNotFound)
	}
	return v.XRView, nil
}

// Project maps a world point to canvas CSS pixels with the camera last
// rendered with; target.ErrNotFound when it is off screen or there is no camera.
func (s *Session) Project(ctx context.Context, world []float64) (Point, error) {
	defer s.charge("query")()
	if len(world) != 3 {
		return Point{}, fmt.Errorf("a world point needs 3 coordinates, got %d", len(world))
	}
	var raw string
	expr := fmt.Sprintf("window.__wp.projectPoint([%g,%g,%g])", world[0], world[1], world[2])
	if err := s.eval(ctx, s.cfg.CallTimeout, expr, false, &raw); err != nil {
		return Point{}, err
	}
	var p *struct {
		X, Y     float64
		OnScreen bool `json:"on_screen"`
	}
	if err := json.Unmarshal([]byte(raw), &p); err != nil {
		return Point{}, fmt.Errorf("decoding a projection: %w", err)
	}
	if p == nil || !p.OnScreen {
		return Point{}, fmt.Errorf("world point %v is not on screen: %w", world, target.ErrNotFound)
	}
	return Point{p.X, p.Y}, nil
}

// DOMInfo describes an element found by CSS selector.
type DOMInfo struct {
	Exists  bool   `json:"exists"`
	Text    string `json:"text"`
	Value   string `json:"value"`
	Checked bool   `json:"checked"`
	Visible bool   `json:"visible"`
	Rect    *struct {
		X, Y, Width, Height float64
	} `json:"rect,omitempty"`
	Error string `json:"error,omitempty"`
}

// DOM reads the element that selector matches first.
func (s *Session) DOM(ctx context.Context, selector string) (DOMInfo, error) {
	defer s.charge("query")()
	var raw string
	if err := s.eval(ctx, s.cfg.CallTimeout, "window.__wp.domInfo("+jsString(selector)+")", false, &raw); err != nil {
		return DOMInfo{}, err
	}
	var d DOMInfo
	if err := json.Unmarshal([]byte(raw), &d); err != nil {
		return DOMInfo{}, fmt.Errorf("decoding element %q: %w", selector, err)
	}
	if d.Error != "" {
		return d, fmt.Errorf("selector %q: %s", selector, d.Error)
	}
	return d, nil
}

// Locate turns a target into a viewport point.
func (s *Session) Locate(ctx context.Context, t target.Target) (Point, error) {
	defer s.charge("query")()
	switch {
	case t.Selector != "":
		d, err := s.DOM(ctx, t.Selector)
		if err != nil {
			return Point{}, err
		}
		if !d.Exists || !d.Visible || d.Rect == nil {
			return Point{}, fmt.Errorf("no visible element matches %q: %w", t.Selector, target.ErrNotFound)
		}
		return Point{d.Rect.X + d.Rect.Width/2, d.Rect.Y + d.Rect.Height/2}, nil
	case t.At != nil:
		if len(t.At) != 2 {
			return Point{}, fmt.Errorf("a canvas point needs 2 coordinates, got %d", len(t.At))
		}
		c, err := s.Canvas(ctx)
		if err != nil {
			return Point{}, err
		}
		if x, y := t.At[0], t.At[1]; !(x >= 0 && y >= 0 && x < c.Width && y < c.Height) {
			return Point{}, fmt.Errorf("canvas point %s is off the %gx%g canvas: %w", target.FormatPoint(t.At), c.Width, c.Height, target.ErrNotFound)
		}
		return Point{c.Left + t.At[0], c.Top + t.At[1]}, nil
	case t.Object != "":
		o, err := s.Object(ctx, t.Object)
		if err != nil {
			return Point{}, err
		}
		if !o.OnScreen || o.Screen == nil {
			return Point{}, fmt.Errorf("object %q is not on screen: %w", t.Object, target.ErrNotFound)
		}
		c, err := s.Canvas(ctx)
		if err != nil {
			return Point{}, err
		}
		return Point{c.Left + o.Screen[0], c.Top + o.Screen[1]}, nil
	case t.World != nil:
		p, err := s.Project(ctx, t.World)
		if err != nil {
			return Point{}, err
		}
		c, err := s.Canvas(ctx)
		if err != nil {
			return Point{}, err
		}
		return Point{c.Left + p.X, c.Top + p.Y}, nil
	}
	return Point{}, fmt.Errorf("an action needs a target: %w", target.ErrNotFound)
}

// call sends one CDP command to the page within the call timeout; a hung
// or crashed page gives ErrUnresponsive or ErrCrashed.
func call[P, R any](ctx context.Context, s *Session, what string, cmd cdp.Command[P, R], params P) (R, error) {
	cctx, cancel := s.callCtx(ctx, s.cfg.CallTimeout)
	defer cancel()
	r, err := chromedp.Call(cctx, cmd, params)
	if err != nil {
		return r, s.callErr(ctx, cctx, what, err)
	}
	return r, nil
}

func (s *Session) mouse(ctx context.Context, p input.DispatchMouseEventParams) error {
	if p.PointerType == "" {
		p.PointerType = input.DispatchMouseEventPointerTypeMouse
	}
	_, err := call(ctx, s, "dispatching "+string(p.Type), input.DispatchMouseEvent, p)
	if err == nil {
		s.input.sent(mouseEventType[p.Type])
	}
	return err
}

// mouseEventType is the DOM event a dispatched mouse event becomes.
var mouseEventType = map[input.DispatchMouseEventType]string{
	input.DispatchMouseEventTypeMouseMoved:    "mousemove",
	input.DispatchMouseEventTypeMousePressed:  "mousedown",
	input.DispatchMouseEventTypeMouseReleased: "mouseup",
	input.DispatchMouseEventTypeMouseWheel:    "wheel",
}

// inputLedger counts, by DOM event type, the trusted input the harness sent
// to the current document since the page last reported what it had seen,
// and what it had seen then.
type inputLedger struct {
	seen   map[string]int
	unseen map[string]int
	// settles and framesWaited count the waits of this document and the
	// real frames they took (0 each when the page had seen everything).
	settles, framesWaited int
}

func (l *inputLedger) sent(eventType string) {
	if eventType == "" {
		return
	}
	if l.unseen == nil {
		l.unseen = map[string]int{}
	}
	l.unseen[eventType]++
}

// want is the count of each type the page must have seen for everything
// sent to have been dispatched. Mouse moves sent back to back may be
// coalesced into one event, so at least one more is all that is asked.
func (l *inputLedger) want() map[string]int {
	w := map[string]int{}
	for t, n := range l.unseen {
		if t == "mousemove" {
			n = min(n, 1)
		}
		w[t] = l.seen[t] + n
	}
	return w
}

// settleInput returns once the input sent so far has been dispatched in the
// page. Mouse moves and wheels are aligned to real animation frames by the
// browser, so without this a page would see them late; the page counts the
// trusted events it receives, and the wait ends as soon as every sent event
// has arrived, or after two real frames when some landed where the page
// cannot count them (an iframe, outside the viewport).
func (s *Session) settleInput(ctx context.Context) error {
	want, err := json.Marshal(s.input.want())
	if err != nil {
		return err
	}
	var r struct {
		Seen   map[string]int `json:"seen"`
		Waited int            `json:"waited"`
	}
	if err := s.eval(ctx, s.cfg.CallTimeout, "window.__wp.inputSettled("+string(want)+")", true, &r); err != nil {
		return err
	}
	s.input = inputLedger{seen: r.Seen, settles: s.input.settles + 1, framesWaited: s.input.framesWaited + r.Waited}
	return nil
}

// Click presses the left button at the target, steps hold frames with it
// down (none when hold is 0), and lets it up at the same point, as a
// person's click lasts a few frames. hold frames advance the clock.
func (s *Session) Click(ctx context.Context, t target.Target, hold int) error {
	defer s.charge("input")()
	if s.buttonHeld {
		return fmt.Errorf("click: the button is already down (release it first)")
	}
	p, err := s.Locate(ctx, t)
	if err != nil {
		return err
	}
	if err := s.mouse(ctx, input.DispatchMouseEventParams{Type: input.DispatchMouseEventTypeMouseMoved, X: p.X, Y: p.Y}); err != nil {
		return err
	}
	if err := s.mouse(ctx, input.DispatchMouseEventParams{Type: input.DispatchMouseEventTypeMousePressed, X: p.X, Y: p.Y, Button: input.MouseButtonLeft, Buttons: 1, ClickCount: 1}); err != nil {
		return err
	}
	if err := s.hold(ctx, hold); err != nil {
		return err
	}
	if err := s.mouse(ctx, input.DispatchMouseEventParams{Type: input.DispatchMouseEventTypeMouseReleased, X: p.X, Y: p.Y, Button: input.MouseButtonLeft, ClickCount: 1}); err != nil {
		return err
	}
	return s.settleInput(ctx)
}

// hold lets the input sent so far reach the page and steps frames frames
// (undrawn unless draw skipping is off) while it is held.
func (s *Session) hold(ctx context.Context, frames int) error {
	if frames <= 0 {
		return nil
	}
	if err := s.settleInput(ctx); err != nil {
		return err
	}
	_, err := s.Step(ctx, frames, false)
	return err
}

// Move moves the pointer to the target; while the button is held (Press)
// the move carries it, as a drag does.
func (s *Session) Move(ctx context.Context, t target.Target) error {
	defer s.charge("input")()
	p, err := s.Locate(ctx, t)
	if err != nil {
		return err
	}
	ev := input.DispatchMouseEventParams{Type: input.DispatchMouseEventTypeMouseMoved, X: p.X, Y: p.Y}
	if s.buttonHeld {
		ev.Button, ev.Buttons = input.MouseButtonLeft, 1
		s.heldAt = p
	}
	if err := s.mouse(ctx, ev); err != nil {
		return err
	}
	return s.settleInput(ctx)
}

// Press moves the pointer to the target and holds the left button down
// there until Release (or a reload). Pressing twice is an error: a real
// mouse cannot.
func (s *Session) Press(ctx context.Context, t target.Target) error {
	defer s.charge("input")()
	if s.buttonHeld {
		return fmt.Errorf("press: the button is already down (release it first)")
	}
	p, err := s.Locate(ctx, t)
	if err != nil {
		return err
	}
	if err := s.mouse(ctx, input.DispatchMouseEventParams{Type: input.DispatchMouseEventTypeMouseMoved, X: p.X, Y: p.Y}); err != nil {
		return err
	}
	if err := s.mouse(ctx, input.DispatchMouseEventParams{Type: input.DispatchMouseEventTypeMousePressed, X: p.X, Y: p.Y, Button: input.MouseButtonLeft, Buttons: 1, ClickCount: 1}); err != nil {
		return err
	}
	s.buttonHeld, s.heldAt = true, p
	return s.settleInput(ctx)
}

// Release moves the pointer to the target, the button held, and lets the
// left button up there. Releasing a button that is not down is an error.
func (s *Session) Release(ctx context.Context, t target.Target) error {
	defer s.charge("input")()
	if !s.buttonHeld {
		return fmt.Errorf("release: the button is not down (press first)")
	}
	p, err := s.Locate(ctx, t)
	if err != nil {
		return err
	}
	if err := s.mouse(ctx, input.DispatchMouseEventParams{Type: input.DispatchMouseEventTypeMouseMoved, X: p.X, Y: p.Y, Button: input.MouseButtonLeft, Buttons: 1}); err != nil {
		return err
	}
	if err := s.mouse(ctx, input.DispatchMouseEventParams{Type: input.DispatchMouseEventTypeMouseReleased, X: p.X, Y: p.Y, Button: input.MouseButtonLeft, ClickCount: 1}); err != nil {
		return err
	}
	s.buttonHeld = false
	return s.settleInput(ctx)
}

// Drag presses at from, moves in steps to to, and releases there. With
// frames > 0 it steps that many frames after the press and after each
// move, so a page reading the pointer in its animation loop sees the path.
func (s *Session) Drag(ctx context.Context, from, to target.Target, steps, frames int) error {
	return s.DragButton(ctx, from, to, steps, frames, input.MouseButtonLeft)
}

// DragButton is Drag with another mouse button: input.MouseButtonRight
// pans most three.js camera controls (OrbitControls, MapControls) where the
// left button orbits.
func (s *Session) DragButton(ctx context.Context, from, to target.Target, steps, frames int, button input.MouseButton) error {
	defer s.charge("input")()
	var buttons int64
	switch button {
	case input.MouseButtonLeft:
		buttons = 1
	case input.MouseButtonRight:
		buttons = 2
	case input.MouseButtonMiddle:
		buttons = 4
	default:
		return fmt.Errorf("drag: unsupported mouse button %q", button)
	}
	if s.buttonHeld {
		return fmt.Errorf("drag: the button is already down (release it first)")
	}
	a, err := s.Locate(ctx, from)
	if err != nil {
		return err
	}
	b, err := s.Locate(ctx, to)
	if err != nil {
		return err
	}
	steps = max(1, steps)
	if err := s.mouse(ctx, input.DispatchMouseEventParams{Type: input.DispatchMouseEventTypeMouseMoved, X: a.X, Y: a.Y}); err != nil {
		return err
	}
	if err := s.mouse(ctx, input.DispatchMouseEventParams{Type: input.DispatchMouseEventTypeMousePressed, X: a.X, Y: a.Y, Button: button, Buttons: buttons, ClickCount: 1}); err != nil {
		return err
	}
	if err := s.hold(ctx, frames); err != nil {
		return err
	}
	for i := 1; i <= steps; i++ {
		f := float64(i) / float64(steps)
		x, y := a.X+(b.X-a.X)*f, a.Y+(b.Y-a.Y)*f
		if err := s.mouse(ctx, input.DispatchMouseEventParams{Type: input.DispatchMouseEventTypeMouseMoved, X: x, Y: y, Button: button, Buttons: buttons}); err != nil {
			return err
		}
		if err := s.hold(ctx, frames); err != nil {
			return err
		}
	}
	if err := s.mouse(ctx, input.DispatchMouseEventParams{Type: input.DispatchMouseEventTypeMouseReleased, X: b.X, Y: b.Y, Button: button, ClickCount: 1}); err != nil {
		return err
	}
	return s.settleInput(ctx)
}

// Wheel scrolls by (dx, dy) CSS pixels at the target.
func (s *Session) Wheel(ctx context.Context, t target.Target, dx, dy float64) error {
	defer s.charge("input")()
	p, err := s.Locate(ctx, t)
	if err != nil {
		return err
	}
	params := wheelParams{Type: string(input.DispatchMouseEventTypeMouseWheel), X: p.X, Y: p.Y, DeltaX: dx, DeltaY: dy}
	if _, err := call(ctx, s, "dispatching a wheel event", dispatchWheel, params); err != nil {
		return err
	}
	s.input.sent("wheel")
	return s.settleInput(ctx)
}

// wheelParams is Input.dispatchMouseEvent for wheels: the protocol wants
// both deltas even when one is zero, which the generated type omits.
type wheelParams struct {
	Type   string  `json:"type"`
	X      float64 `json:"x"`
	Y      float64 `json:"y"`
	DeltaX float64 `json:"deltaX"`
	DeltaY float64 `json:"deltaY"`
}

var dispatchWheel = cdp.Command[wheelParams, cdp.Empty]{Method: input.CommandDispatchMouseEvent}

// keyByName maps KeyboardEvent.key values (and a few aliases) to key data.
var keyByName = func() map[string]*kb.Key {
	m := map[string]*kb.Key{}
	for r, k := range kb.Keys {
		if _, ok := m[k.Key]; !ok || (k.Text != "" && unicodeLower(r)) {
			m[k.Key] = k
		}
	}
	m["Space"] = kb.Keys[' ']
	m["Spacebar"] = kb.Keys[' ']
	m["Esc"] = m["Escape"]
	m["Return"] = m["Enter"]
	return m
}()

func unicodeLower(r rune) bool { return r >= 'a' && r <= 'z' }

// modifierKeys are the modifier keys a key event may hold, with their
// CDP modifier bit.
var modifierKeys = map[string]int64{
	"Alt":     int64(kb.ModifierAlt),
	"Control": int64(kb.ModifierCtrl),
	"Meta":    int64(kb.ModifierMeta),
	"Shift":   int64(kb.ModifierShift),
}

// Key sends a key event: kind is "down", "up" or "press" (down, hold
// frames stepped with the key down, then up); key is a KeyboardEvent.key
// value such as " ", "r", "1", "ArrowUp", "Enter".
// The modifier keys in with (Control, Shift, Alt, Meta) go down before it
// and up after it, in order, and set the event's ctrlKey/shiftKey/…: with
// Shift a letter is sent upper case; with Control, Alt or Meta a printable
// key inserts no text, as on a real keyboard.
func (s *Session) Key(ctx context.Context, kind, key string, hold int, with ...string) error {
	defer s.charge("input")()
	k, ok := keyByName[key]
	if !ok {
		return fmt.Errorf("unknown key %q (use KeyboardEvent.key values such as \" \", \"r\", \"ArrowUp\"): %w", key, target.ErrNotFound)
	}
	var mods int64
	var modEvs []*kb.Key
	for _, m := range with {
		bit, ok := modifierKeys[m]
		if !ok {
			return fmt.Errorf("unknown modifier key %q (want Control, Shift, Alt or Meta): %w", m, target.ErrNotFound)
		}
		mk := keyByName[m] // the modifier's name is its KeyboardEvent.key
		if mk == nil {
			return fmt.Errorf("no key data for modifier %q", m)
		}
		mods |= bit
		modEvs = append(modEvs, mk)
	}
	keyName, text, unmodified := k.Key, k.Text, k.Unmodified
	if mods&int64(kb.ModifierShift) != 0 && len(k.Key) == 1 && unicodeLower(rune(k.Key[0])) {
		keyName = strings.ToUpper(k.Key)
		text, unmodified = keyName, keyName
	}
	down := input.DispatchKeyEventParams{Type: input.DispatchKeyEventTypeKeyDown, Key: keyName, Code: k.Code, Text: text,
		UnmodifiedText: unmodified, WindowsVirtualKeyCode: k.Windows, NativeVirtualKeyCode: k.Native, Modifiers: mods}
	if !k.Print || mods&int64(kb.ModifierCtrl|kb.ModifierAlt|kb.ModifierMeta) != 0 {
		down.Type = input.DispatchKeyEventTypeRawKeyDown
		down.Text, down.UnmodifiedText = "", ""
	}
	up := input.DispatchKeyEventParams{Type: input.DispatchKeyEventTypeKeyUp, Key: keyName, Code: k.Code,
		WindowsVirtualKeyCode: k.Windows, NativeVirtualKeyCode: k.Native, Modifiers: mods}
	var evs []input.DispatchKeyEventParams
	holdAt := -1 // the hold frames run before evs[holdAt]
	switch kind {
	case "down":
		evs = []input.DispatchKeyEventParams{down}
	case "up":
		evs = []input.DispatchKeyEventParams{up}
	case "press", "":
		evs = []input.DispatchKeyEventParams{down, up}
		holdAt = 1
	default:
		return fmt.Errorf("key event kind %q: want down, up or press", kind)
	}
	if len(modEvs) > 0 {
		// Modifiers go down in order (each adding its bit) and up in reverse.
		var pre, post []input.DispatchKeyEventParams
		var held int64
		for i, m := range modEvs {
			held |= modifierKeys[with[i]]
			pre = append(pre, input.DispatchKeyEventParams{Type: input.DispatchKeyEventTypeRawKeyDown, Key: m.Key, Code: m.Code,
				WindowsVirtualKeyCode: m.Windows, NativeVirtualKeyCode: m.Native, Modifiers: held})
		}
		for i := len(modEvs) - 1; i >= 0; i-- {
			m := modEvs[i]
			held &^= modifierKeys[with[i]]
			post = append(post, input.DispatchKeyEventParams{Type: input.DispatchKeyEventTypeKeyUp, Key: m.Key, Code: m.Code,
				WindowsVirtualKeyCode: m.Windows, NativeVirtualKeyCode: m.Native, Modifiers: held})
		}
		if holdAt >= 0 {
			holdAt += len(pre)
		}
		evs = append(append(pre, evs...), post...)
	}
	for i, ev := range evs {
		if i == holdAt {
			if err := s.hold(ctx, hold); err != nil {
				return err
			}
		}
		if _, err := call(ctx, s, fmt.Sprintf("dispatching key %q", key), input.DispatchKeyEvent, ev); err != nil {
			return err
		}
		if ev.Type == input.DispatchKeyEventTypeKeyUp {
			s.input.sent("keyup")
		} else {
			s.input.sent("keydown")
		}
	}
	return s.settleInput(ctx)
}

// Type focuses the element, replaces its text with text as a user would
// type it, and fires change.
func (s *Session) Type(ctx context.Context, selector, text string) error {
	defer s.charge("input")()
	var found bool
	expr := fmt.Sprintf(`(() => { const el = document.querySelector(%s); if (!el) return false;
		el.focus(); if (typeof el.select === 'function') el.select(); return true; })()`, jsString(selector))
	if err := s.eval(ctx, s.cfg.CallTimeout, expr, false, &found); err != nil {
		return err
	}
	if !found {
		return fmt.Errorf("no element matches %q: %w", selector, target.ErrNotFound)
	}
	if _, err := call(ctx, s, fmt.Sprintf("typing into %q", selector), input.InsertText, input.InsertTextParams{Text: text}); err != nil {
		return err
	}
	change := fmt.Sprintf(`(() => { const el = document.querySelector(%s); if (el) el.dispatchEvent(new Event('change', {bubbles: true})); })()`, jsString(selector))
	if err := s.eval(ctx, s.cfg.CallTimeout, change, false, nil); err != nil {
		return err
	}
	// Inserted text is no counted event: wait two real frames, as for input
	// that landed where the page cannot count it.
	return s.eval(ctx, s.cfg.CallTimeout, "window.__wp.realFrame()", true, nil)
}

// Reload loads the page again from scratch: a fresh document, clock and
// random sequence.
func (s *Session) Reload(ctx context.Context) error {
	if s.buttonHeld {
		// The browser would keep the button down into the new document.
		if err := s.mouse(ctx, input.DispatchMouseEventParams{Type: input.DispatchMouseEventTypeMouseReleased, X: s.heldAt.X, Y: s.heldAt.Y, Button: input.MouseButtonLeft, ClickCount: 1}); err != nil {
			return err
		}
		s.buttonHeld = false
	}
	s.loaded.Store(false)
	s.frame.Store(0)
	s.rec.with(func(l *Log) { l.NavigatedAway = "" })
	return s.navigate(ctx)
}

// Pixels is a screenshot of the canvas with its frame number.
type Pixels struct {
	Frame int
	Rect  CanvasRect
	PNG   []byte
}

// CanvasPixels captures the canvas as the current frame drew it; it
// returns ErrUndrawn when that frame's draw calls were skipped. There is
// no wait for real frames first (Present): the screenshot forces a redraw
// and waits for it, and that redraw shows the canvas's last drawing even
// when drawing takes the GPU longer than a frame (TestCaptureShowsTheLastDrawnFrame).
func (s *Session) CanvasPixels(ctx context.Context) (Pixels, error) {
	defer s.charge("pixels")()
	if !s.Drawn() {
		return Pixels{}, fmt.Errorf("reading the canvas at frame %d: %w", s.Frame(), ErrUndrawn)
	}
	r, err := s.captureRect(ctx)
	if err != nil {
		return Pixels{}, err
	}
	png, err := s.Screenshot(ctx, &CanvasBox{X: r.Left, Y: r.Top, Width: r.Width, Height: r.Height}, s.cfg.GPUTimeout)
	if err != nil {
		return Pixels{}, err
	}
	return Pixels{Frame: s.Frame(), Rect: r, PNG: png}, nil
}

func jsString(s string) string {
	b, _ := json.Marshal(s)
	return string(b)
}
