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
}

// page offers every capability a contract step can ask for.
var (
	_ contract.Page          = (*page)(nil)
	_ contract.Pointer       = (*page)(nil)
	_ contract.XR            = (*page)(nil)
	_ contract.Keyboard      = (*page)(nil)
	_ contract.Inspector     = (*page)(nil)
	_ contract.Canvas        = (*page)(nil)
	_ contract.PixelDigester = (*page)(nil)
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
	p.pixels = nil
	arg, err := json.Marshal(map[string]any{"device": device, "position": position, "orientation": orientation})
	if err != nil {
		return err
	}
	return p.xr(ctx, `const a = `+string(arg)+`;
const o = a.device === 'head' ? d : (d.primaryInputMode = 'hand', d.hands[a.device]);
o.position.set(a.position[0], a.position[1], a.position[2]);
if (a.orientation) o.quaternion.set(a.orientation[0], a.orientation[1], a.orientation[2], a.orientation[3]);`)
}

// XRPinch sets a hand's pinch (contract.XR).
func (p *page) XRPinch(ctx context.Context, hand string, value float64) error {
	p.pixels = nil
	arg, err := json.Marshal(map[string]any{"hand": hand, "value": value})
	if err != nil {
		return err
	}
	return p.xr(ctx, `const a = `+string(arg)+`;
d.primaryInputMode = 'hand';
d.hands[a.hand].updatePinchValue(a.value);`)
}

// xr runs body with d bound to the page's emulated headset.
func (p *page) xr(ctx context.Context, body string) error {
	var ok bool
	if err := p.s.Eval(ctx, 0, `(() => { const d = window.`+xr.DeviceGlobal+`; if (!d) return false; `+body+` return true; })()`, &ok); err != nil {
		return mapErr(err)
	}
	if !ok {
		return contract.Infra(errors.New("the page has no XR headset: set xr: in the task's task.yaml (docs/xr.md)"))
	}
	return nil
}
