package trial

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"image"
	"math"

	"github.com/worldprobe/worldprobe/internal/audio"
	"github.com/worldprobe/worldprobe/internal/contract"
	"github.com/worldprobe/worldprobe/internal/pixel"
	"github.com/worldprobe/worldprobe/internal/session"
	"github.com/worldprobe/worldprobe/internal/target"
	"github.com/worldprobe/worldprobe/internal/xr"
)

// page adapts a browser session to contract.Page.
type page struct {
	s   *session.Session
	fps float64
	// pixels caches the canvas capture of the current frame.
	pixelsFrame int
	pixels      image.Image
	canvasW     float64
	canvasH     float64
	// backend is the XR backend of the task (task.yaml xrBackend, one of
	// xr.Backends; "" is IWER's).
	backend string
	// room is the room the headset stands in (xrhands.go); nil for none.
	room *pageRoom
	// dir is the task folder, where an injectAudio step's wav: files are.
	dir string
}

// page offers every capability a contract step can ask for.
var (
	_ contract.Page          = (*page)(nil)
	_ contract.Pointer       = (*page)(nil)
	_ contract.XR            = (*page)(nil)
	_ contract.XRRoom        = (*page)(nil)
	_ contract.Keyboard      = (*page)(nil)
	_ contract.Inspector     = (*page)(nil)
	_ contract.Canvas        = (*page)(nil)
	_ contract.PixelDigester = (*page)(nil)
	_ contract.XRViewer      = (*page)(nil)
	_ contract.Semantics     = (*page)(nil)
	_ contract.View          = (*page)(nil)
	_ contract.Microphone    = (*page)(nil)
)

// The session outlives the page: the trial restarts it for the next probe
// and closes it at the end, so page has no Close.

func (p *page) Step(ctx context.Context, frames int) error {
	_, err := p.s.Step(ctx, frames, true)
	p.pixels = nil
	return mapErr(err)
}

// StepUndrawn steps frames without drawing the last one (contract.UndrawnStepper).
func (p *page) StepUndrawn(ctx context.Context, frames int) error {
	_, err := p.s.Step(ctx, frames, false)
	p.pixels = nil
	return mapErr(err)
}

func (p *page) Frame() int   { return p.s.Frame() }
func (p *page) FPS() float64 { return p.fps }

func (p *page) State(ctx context.Context) (any, error) {
	st, err := p.s.ReadState(ctx)
	if err != nil {
		return nil, mapErr(err)
	}
	return stateValue(st)
}

// stateValue is the state as contract.Page.State gives it: nil when the
// page has none.
func stateValue(st session.State) (any, error) {
	if !st.Present {
		return nil, nil
	}
	var v any
	if err := json.Unmarshal(st.JSON, &v); err != nil {
		return nil, fmt.Errorf("decoding the state: %w", err)
	}
	return v, nil
}

func toMap(v any) (map[string]any, error) {
	b, err := json.Marshal(v)
	if err != nil {
		return nil, err
	}
	var m map[string]any
	return m, json.Unmarshal(b, &m)
}

func (p *page) Object(ctx context.Context, name string) (map[string]any, error) {
	o, err := p.s.Object(ctx, name)
	if err != nil {
		return nil, mapErr(err)
	}
	return toMap(o)
}

func (p *page) Scene(ctx context.Context) (map[string]any, error) {
	sc, err := p.s.ReadScene(ctx)
	if err != nil {
		return nil, mapErr(err)
	}
	return toMap(sc)
}

func (p *page) DOM(ctx context.Context, selector string) (map[string]any, error) {
	d, err := p.s.DOM(ctx, selector)
	if err != nil {
		return nil, mapErr(err)
	}
	return map[string]any{"exists": d.Exists, "text": d.Text, "value": d.Value, "visible": d.Visible, "checked": d.Checked}, nil
}

// capture returns the canvas pixels of the current frame, taken once.
func (p *page) capture(ctx context.Context) (image.Image, error) {
	if p.pixels != nil && p.pixelsFrame == p.s.Frame() {
		return p.pixels, nil
	}
	px, err := p.s.CanvasPixels(ctx)
	if errors.Is(err, session.ErrUndrawn) {
		return nil, contract.Infra(err) // the engine's mistake, not the page's
	}
	if err != nil {
		return nil, mapErr(err)
	}
	img, err := pixel.DecodePNG(px.PNG)
	if err != nil {
		return nil, err
	}
	p.pixels, p.pixelsFrame, p.canvasW, p.canvasH = img, px.Frame, px.Rect.Width, px.Rect.Height
	return img, nil
}

// ViewPNG is the user's view of the freshly drawn frame (contract.View):
// the canvas as composited, which on an XR task with IWER's defaults
// (stereo off) is the headset's one full-canvas view.
func (p *page) ViewPNG(ctx context.Context) ([]byte, error) {
	px, err := p.s.CanvasPixels(ctx)
	if errors.Is(err, session.ErrUndrawn) {
		return nil, contract.Infra(err) // the engine's mistake, not the page's
	}
	if err != nil {
		return nil, mapErr(err)
	}
	return px.PNG, nil
}

// PixelDigest returns the SHA-256 of the RGBA pixels of the last drawn frame.
func (p *page) PixelDigest(ctx context.Context) (string, error) {
	img, err := p.capture(ctx)
	if err != nil {
		return "", err
	}
	h := sha256.New()
	b := img.Bounds()
	row := make([]byte, 0, 4*b.Dx())
	for y := b.Min.Y; y < b.Max.Y; y++ {
		row = row[:0]
		for x := b.Min.X; x < b.Max.X; x++ {
			r, g, bl, a := img.At(x, y).RGBA()
			row = append(row, byte(r>>8), byte(g>>8), byte(bl>>8), byte(a>>8))
		}
		h.Write(row)
	}
	return hex.EncodeToString(h.Sum(nil)), nil
}

func (p *page) Pixel(ctx context.Context, x, y float64) (map[string]any, error) {
	img, err := p.capture(ctx)
	if err != nil {
		return nil, err
	}
	b := img.Bounds()
	ix, iy := b.Min.X+int(math.Floor(x)), b.Min.Y+int(math.Floor(y))
	if ix < b.Min.X || iy < b.Min.Y || ix >= b.Max.X || iy >= b.Max.Y {
		return nil, fmt.Errorf("pixel (%g, %g) is outside the %dx%d canvas: %w", x, y, b.Dx(), b.Dy(), target.ErrNotFound)
	}
	c := pixel.At(img, ix, iy)
	return colorMap(c.R, c.G, c.B, c.A), nil
}

func (p *page) Region(ctx context.Context, x, y, w, h float64) (map[string]any, error) {
	img, err := p.capture(ctx)
	if err != nil {
		return nil, err
	}
	return regionMean(img, x, y, w, h)
}

// regionMean is the mean colour of the canvas rectangle (x, y, w, h) in
// canvas pixels. A rectangle without area or not wholly inside the canvas
// is an error: a partly clipped mean would silently measure another area.
func regionMean(img image.Image, x, y, w, h float64) (map[string]any, error) {
	b := img.Bounds()
	if !(w > 0 && h > 0) {
		return nil, fmt.Errorf("region (%g, %g, %g, %g) has no area: %w", x, y, w, h, target.ErrNotFound)
	}
	r := image.Rect(int(math.Floor(x)), int(math.Floor(y)), int(math.Ceil(x+w)), int(math.Ceil(y+h))).Add(b.Min)
	if !r.In(b) {
		return nil, fmt.Errorf("region (%g, %g, %g, %g) is not inside the %dx%d canvas: %w", x, y, w, h, b.Dx(), b.Dy(), target.ErrNotFound)
	}
	m := pixel.Mean(img, r)
	return colorMap(m.R, m.G, m.B, m.A), nil
}

func colorMap(r, g, b, a float64) map[string]any {
	return map[string]any{"r": r, "g": g, "b": b, "a": a, "luma": pixel.Luma(r, g, b)}
}

func (p *page) Click(ctx context.Context, t contract.Target, hold int) error {
	p.pixels = nil
	return mapErr(p.s.Click(ctx, t, hold))
}

func (p *page) Drag(ctx context.Context, from, to contract.Target, steps int) error {
	p.pixels = nil
	return mapErr(p.s.Drag(ctx, from, to, steps, 1))
}

func (p *page) Press(ctx context.Context, t contract.Target) error {
	return mapErr(p.s.Press(ctx, t))
}

func (p *page) Release(ctx context.Context, t contract.Target) error {
	return mapErr(p.s.Release(ctx, t))
}

func (p *page) Move(ctx context.Context, t contract.Target) error {
	return mapErr(p.s.Move(ctx, t))
}

func (p *page) Wheel(ctx context.Context, t contract.Target, dx, dy float64) error {
	return mapErr(p.s.Wheel(ctx, t, dx, dy))
}

func (p *page) Key(ctx context.Context, kind, key string, with []string, hold int) error {
	p.pixels = nil
	return mapErr(p.s.Key(ctx, kind, key, hold, with...))
}

func (p *page) Type(ctx context.Context, selector, text string) error {
	return mapErr(p.s.Type(ctx, selector, text))
}

func (p *page) Reload(ctx context.Context) error {
	p.pixels = nil
	return mapErr(p.s.Reload(ctx))
}

// mapErr translates session errors into the contract's vocabulary: a
// missing target, a page failure, or (cancellation) infrastructure.
func mapErr(err error) error {
	switch {
	case err == nil:
		return nil
	case errors.Is(err, context.Canceled):
		return contract.Infra(err)
	}
	return err
}

// XRPose moves the emulated headset or a hand (contract.XR); the page has
// a headset only when its task sets xr:.
func (p *page) XRPose(ctx context.Context, device string, position, orientation []float64) error {
	if p.onXRBlocks() {
		if device == "left-controller" || device == "right-controller" {
			return xrbCannot("place a controller", "XR Blocks' simulator has hands, no controllers")
		}
		return p.xrbCall(ctx, "pose", []any{device, position, orientation}, nil)
	}
	p.pixels = nil
	return p.xrValue(ctx, map[string]any{"device": device, "position": position, "orientation": orientation}, `const o = `+xrDevice+`;
o.position.set(a.position[0], a.position[1], a.position[2]);
if (a.orientation) o.quaternion.set(a.orientation[0], a.orientation[1], a.orientation[2], a.orientation[3]);
return {};`, nil)
}

// XRPinch sets a hand's pinch (contract.XR).
func (p *page) XRPinch(ctx context.Context, hand string, value float64) error {
	if p.onXRBlocks() {
		return p.xrbCall(ctx, "select", []any{hand, value}, nil)
	}
	p.pixels = nil
	return p.xrValue(ctx, map[string]any{"hand": hand, "value": value}, `d.primaryInputMode = 'hand';
d.hands[a.hand].updatePinchValue(a.value);
return {};`, nil)
}

// XRPinchPose closes a hand's fingers into IWER's pinch pose, remembering
// the pose it had, or gives that pose back (contract.XR).
func (p *page) XRPinchPose(ctx context.Context, hand string, closed bool) error {
	if p.onXRBlocks() {
		// XR Blocks' simulator closes and opens the fingers itself, over
		// the frames after the pinch starts or ends; its pinch pose is its
		// select, so the fingers cannot close first.
		return nil
	}
	p.pixels = nil
	return p.xrValue(ctx, map[string]any{"hand": hand, "closed": closed}, `d.primaryInputMode = 'hand';
const h = d.hands[a.hand], was = '`+xr.PoseBeforePinch+`';
if (a.closed) {
  if (h.poseId !== 'pinch') Object.defineProperty(h, was, { value: h.poseId, configurable: true, writable: true });
  h.poseId = 'pinch';
} else {
  h.poseId = h[was] || 'default';
}
return {};`, nil)
}

// xrDevice is a JavaScript expression for the IWER object of a.device:
// the device itself for "head", a hand for "left" and "right" (the
// headset switches to hand input), a controller for "left-controller" and
// "right-controller" (it switches to controller input).
const xrDevice = `(a.device === 'head' ? d : a.device.endsWith('-controller') ? (d.primaryInputMode = 'controller', d.controllers[a.device.slice(0, -11)]) : (d.primaryInputMode = 'hand', d.hands[a.device]))`

// xrPrivate is a JavaScript function that reads IWER's private state of
// an object by its symbol's description ('@iwer/xr-space', …), since the
// page may have replaced the global IWER that exports the symbols.
const xrPrivate = `const priv = (o, name) => { const k = Object.getOwnPropertySymbols(o).find((s) => s.description === name); return k ? o[k] : undefined; };`

// xrValue runs body, which returns {v: VALUE} or {err: MESSAGE}, with d
// bound to the page's emulated headset and a to arg, and decodes VALUE
// into out. An err is a target that does not resolve (target.ErrNotFound).
func (p *page) xrValue(ctx context.Context, arg any, body string, out any) error {
	b, err := json.Marshal(arg)
	if err != nil {
		return err
	}
	var r struct {
		OK  bool            `json:"ok"`
		Err string          `json:"err"`
		V   json.RawMessage `json:"v"`
	}
	expr := `(() => { const d = window.` + xr.DeviceGlobal + `; if (!d) return {ok: false}; const a = ` + string(b) + `; ` + xrPrivate +
		` const r = (() => { ` + body + ` })(); return Object.assign({ok: true}, r); })()`
	if err := p.s.Eval(ctx, 0, expr, &r); err != nil {
		return mapErr(err)
	}
	if !r.OK {
		return contract.Infra(errors.New("the page has no XR headset: set xr: in the task's task.yaml (docs/xr.md)"))
	}
	if r.Err != "" {
		return fmt.Errorf("%s: %w", r.Err, target.ErrNotFound)
	}
	if out == nil {
		return nil
	}
	if err := json.Unmarshal(r.V, out); err != nil {
		return fmt.Errorf("decoding the headset's answer: %w", err)
	}
	return nil
}

// XRPoseOf reads a device's pose (contract.XR).
func (p *page) XRPoseOf(ctx context.Context, device string) (position, orientation []float64, err error) {
	if p.onXRBlocks() {
		var v struct{ P, Q []float64 }
		err := p.xrbCall(ctx, "poseOf", []any{device}, &v)
		return v.P, v.Q, err
	}
	var v struct{ P, Q []float64 }
	err = p.xrValue(ctx, map[string]any{"device": device}, `const o = a.device === 'head' ? d : a.device.endsWith('-controller') ? d.controllers[a.device.slice(0, -11)] : d.hands[a.device];
if (!o) return {err: 'no XR device ' + a.device};
return {v: {p: [o.position.x, o.position.y, o.position.z], q: [o.quaternion.x, o.quaternion.y, o.quaternion.z, o.quaternion.w]}};`, &v)
	return v.P, v.Q, err
}

// XRInputMode reads the headset's input mode (contract.XR).
func (p *page) XRInputMode(ctx context.Context) (string, error) {
	if p.onXRBlocks() {
		return "hand", nil // XR Blocks' simulator has hands only
	}
	var mode string
	err := p.xrValue(ctx, nil, `return {v: d.primaryInputMode};`, &mode)
	return mode, err
}

// XRController sets a controller's buttons and thumbstick (contract.XR).
// IWER only warns about a button the controller lacks or a binary button
// given a value between 0 and 1; here both are errors.
func (p *page) XRController(ctx context.Context, hand string, buttons map[string]float64, thumbstick []float64) error {
	if p.onXRBlocks() {
		return xrbCannot("press a controller's buttons", "XR Blocks' simulator has hands, no controllers")
	}
	p.pixels = nil
	return p.xrValue(ctx, map[string]any{"hand": hand, "buttons": buttons, "thumbstick": thumbstick}, `d.primaryInputMode = 'controller';
const c = d.controllers[a.hand];
if (!c) return {err: 'no ' + a.hand + ' controller'};
const cfg = c.gamepadConfig;
const ids = Object.keys(a.buttons || {}).sort();
for (const id of ids) {
  const b = cfg.buttons.find((b) => b && b.id === id);
  if (!b) return {err: 'the ' + a.hand + ' controller (' + c.profileId + ') has no button ' + id};
  const v = a.buttons[id];
  if (b.type === 'binary' && v !== 0 && v !== 1) return {err: 'button ' + id + ' of the ' + a.hand + ' controller is binary: want 0 or 1, got ' + v};
}
if (a.thumbstick && !cfg.axes.some((x) => x && x.id === 'thumbstick')) return {err: 'the ' + a.hand + ' controller has no thumbstick axes'};
for (const id of ids) c.updateButtonValue(id, a.buttons[id]);
if (a.thumbstick) c.updateAxes('thumbstick', a.thumbstick[0], a.thumbstick[1]);
return {};`, nil)
}

// XRGesture shapes a hand (contract.XR); the gestures IWER lacks are
// installed by the prelude (package xr).
func (p *page) XRGesture(ctx context.Context, hand, pose string) error {
	if p.onXRBlocks() {
		return p.xrbCall(ctx, "gesture", []any{hand, pose}, nil)
	}
	p.pixels = nil
	return p.xrValue(ctx, map[string]any{"hand": hand, "pose": pose}, `d.primaryInputMode = 'hand';
const h = d.hands[a.hand];
if (!h) return {err: 'no ' + a.hand + ' hand'};
const poses = (priv(h, '@iwer/xr-hand-input') || {}).poses || {};
if (!Object.prototype.hasOwnProperty.call(poses, a.pose)) return {err: 'the headset has no hand pose ' + a.pose};
h.poseId = a.pose;
return {};`, nil)
}

// XRSelect sets the select of a hand's active input (contract.XR).
func (p *page) XRSelect(ctx context.Context, hand string, value float64) error {
	if p.onXRBlocks() {
		return p.xrbCall(ctx, "select", []any{hand, value}, nil)
	}
	p.pixels = nil
	return p.xrValue(ctx, map[string]any{"hand": hand, "value": value}, `if (d.primaryInputMode === 'controller') {
  const c = d.controllers[a.hand];
  if (!c) return {err: 'no ' + a.hand + ' controller'};
  c.updateButtonValue('trigger', a.value);
} else {
  const h = d.hands[a.hand];
  if (!h) return {err: 'no ' + a.hand + ' hand'};
  h.updatePinchValue(a.value);
}
return {};`, nil)
}

// XRTouchOffset is the touching point of a hand's active input in its
// device's frame (contract.XR): the index fingertip's joint offset of a
// tracked hand, recomputed from its gesture and pinch, or the translation
// of a controller's grip offset.
func (p *page) XRTouchOffset(ctx context.Context, hand string) ([]float64, error) {
	if p.onXRBlocks() {
		var v []float64
		err := p.xrbCall(ctx, "touchOffset", []any{hand}, &v)
		return v, err
	}
	var v []float64
	err := p.xrValue(ctx, map[string]any{"hand": hand}, `let space;
if (d.primaryInputMode === 'controller') {
  const c = d.controllers[a.hand];
  if (!c) return {err: 'no ' + a.hand + ' controller'};
  space = c.inputSource.gripSpace;
  if (!space) return {v: [0, 0, 0]};
} else {
  const h = d.hands[a.hand];
  if (!h) return {err: 'no ' + a.hand + ' hand'};
  h.updateHandPose();
  space = h.inputSource.hand.get('index-finger-tip');
}
const m = (priv(space, '@iwer/xr-space') || {}).offsetMatrix;
if (!m) return {err: 'the headset does not expose the ' + a.hand + ' touch point'};
return {v: [m[12], m[13], m[14]]};`, &v)
	return v, err
}

// XRLocomote moves the user (contract.XR).
func (p *page) XRLocomote(ctx context.Context, translation []float64, yaw float64) error {
	if p.onXRBlocks() {
		return p.xrbCall(ctx, "locomote", []any{translation, yaw}, nil)
	}
	p.pixels = nil
	return p.xrValue(ctx, map[string]any{"t": translation, "yaw": yaw}, `const h = [d.position.x, d.position.y, d.position.z];
const half = a.yaw * Math.PI / 360, s = Math.sin(half), c = Math.cos(half);
const cy = Math.cos(2 * half), sy = Math.sin(2 * half);
const turn = (o) => {
  const q = o.quaternion;
  const x = q.x, y = q.y, z = q.z, w = q.w;
  q.set(c * x + s * z, c * y + s * w, c * z - s * x, c * w - s * y);
};
const move = (o) => {
  if (!o) return;
  const dx = o.position.x - h[0], dz = o.position.z - h[2];
  o.position.set(h[0] + cy * dx + sy * dz + a.t[0], o.position.y + a.t[1], h[2] - sy * dx + cy * dz + a.t[2]);
  turn(o);
};
move(d);
for (const k of ['left', 'right']) { move(d.hands[k]); move(d.controllers[k]); }
return {};`, nil)
}

// XRRoomObjects edits the boxes added to the headset's room through
// @iwer/sem (contract.XRRoom).
func (p *page) XRRoomObjects(ctx context.Context, op string, objects []contract.RoomObject, ids []string) ([]string, error) {
	p.pixels = nil
	type box struct {
		ID     string         `json:"id"`
		Entity map[string]any `json:"entity"`
	}
	boxes := []box{}
	for _, o := range objects {
		e, err := xr.BoxEntity(o.ID, o.Label, o.Position, o.Size, o.Yaw)
		if err != nil {
			return nil, contract.Infra(err)
		}
		boxes = append(boxes, box{o.ID, e})
	}
	if ids == nil {
		ids = []string{}
	}
	var out *[]string
	if err := p.xrValue(ctx, map[string]any{"op": op, "objects": boxes, "ids": ids}, xr.RoomObjectsJS, &out); err != nil {
		return nil, err
	}
	if out == nil {
		return nil, contract.Infra(errors.New("the headset stands in no room: set room: in the task's task.yaml (docs/xr.md)"))
	}
	return *out, nil
}

// Tagged describes the objects whose semantic tag matches (contract.Semantics).
func (p *page) Tagged(ctx context.Context, role, name string) ([]any, error) {
	objs, err := p.s.Tagged(ctx, role, name)
	if err != nil {
		return nil, mapErr(err)
	}
	out := make([]any, len(objs))
	for i, o := range objs {
		if out[i], err = toMap(o); err != nil {
			return nil, err
		}
	}
	return out, nil
}

// Bodies describes an object's solids, and its neighbours' with others
// (contract.Bodies: contact, contacts).
func (p *page) Bodies(ctx context.Context, ref contract.ObjectRef, others bool) ([]any, error) {
	out, err := p.s.Bodies(ctx, session.ObjectRef{Name: ref.Name, Role: ref.Role, Tag: ref.Tag}, others)
	if err != nil {
		return nil, mapErr(err)
	}
	return out, nil
}

// Panel describes the UI drawn under an object (contract.Panels: panel,
// panelText, uiVisible).
func (p *page) Panel(ctx context.Context, ref contract.ObjectRef) (map[string]any, error) {
	out, err := p.s.Panel(ctx, session.ObjectRef{Name: ref.Name, Role: ref.Role, Tag: ref.Tag})
	if err != nil {
		return nil, mapErr(err)
	}
	return out, nil
}

// XRState reads what the page sees of its headset (contract.XRViewer).
func (p *page) XRState(ctx context.Context) (map[string]any, error) {
	var m map[string]any
	return m, p.xrRead(ctx, "state", &m)
}

// XREvents reads the log of the page's XR session events (contract.XRViewer).
func (p *page) XREvents(ctx context.Context) ([]any, error) {
	var l []any
	return l, p.xrRead(ctx, "events", &l)
}

// XRView says where an object is in the XR user's view (contract.XRViewer).
func (p *page) XRView(ctx context.Context, ref contract.ObjectRef) (map[string]any, error) {
	if err := p.xrRead(ctx, "", nil); err != nil {
		return nil, err
	}
	v, err := p.s.XRView(ctx, session.ObjectRef{Name: ref.Name, Role: ref.Role, Tag: ref.Tag})
	if err != nil {
		return nil, mapErr(err)
	}
	return map[string]any{"in_view": v.InView, "coverage": v.Coverage}, nil
}

// xrRead calls the XR hook's reader (xr.HookGlobal) what and decodes its
// JSON into out; what "" only checks that the page has a headset.
func (p *page) xrRead(ctx context.Context, what string, out any) error {
	call := "null"
	if what != "" {
		call = "h." + what + "()"
	}
	var raw *string
	if err := p.s.Eval(ctx, 0, `(() => { const h = window.`+xr.HookGlobal+`; return h ? String(`+call+`) : null; })()`, &raw); err != nil {
		return mapErr(err)
	}
	if raw == nil {
		if p.onXRBlocks() {
			return xrbCannot("report the WebXR session (xr(), xrEvents(), inView, coverage)", "XR Blocks' simulator runs no WebXR session")
		}
		return contract.Infra(errors.New("the page has no XR headset: set xr: in the task's task.yaml (docs/xr.md)"))
	}
	if out == nil {
		return nil
	}
	if err := json.Unmarshal([]byte(*raw), out); err != nil {
		return fmt.Errorf("decoding the XR hook's %s: %w", what, err)
	}
	return nil
}

// InjectAudio plays a sound through the page's synthetic microphone from
// the current virtual time (contract.Microphone, docs/audio.md). A sound
// that cannot be had — a missing or malformed file, no espeak-ng — is an
// infrastructure error: the task's or the machine's, not the page's.
func (p *page) InjectAudio(ctx context.Context, s contract.Sound) error {
	samples, err := loadSound(ctx, p.dir, s)
	if err != nil {
		return contract.Infra(fmt.Errorf("injectAudio: %w", err))
	}
	if err := p.s.InjectMic(ctx, samples); err != nil {
		var refused *session.MicRefusal
		if errors.As(err, &refused) {
			return contract.Infra(fmt.Errorf("injectAudio %s: %w", s, err))
		}
		return mapErr(err)
	}
	return nil
}

// loadSound returns the samples an injectAudio step plays, as the synthetic
// microphone takes them (mono, audio.Rate): a wav: file of the task folder
// dir, read, mixed down and resampled, or say: text spoken by espeak-ng.
func loadSound(ctx context.Context, dir string, s contract.Sound) ([]float32, error) {
	if s.WAV == "" {
		return audio.Say(ctx, s.Say, s.Voice)
	}
	snd, err := audio.ReadWAV(dir, s.WAV)
	if err != nil {
		return nil, err
	}
	out, err := audio.Mono(snd)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", s.WAV, err)
	}
	return out, nil
}
