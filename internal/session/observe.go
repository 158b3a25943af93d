package session

import (
	"bytes"
	"context"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"strings"
	"time"

	"github.com/chromedp/cdproto/page"
	"github.com/chromedp/cdproto/runtime"
	"github.com/chromedp/chromedp"
)

// StateIssues lists what the state reader had to change or drop.
type StateIssues struct {
	NonFinite []string     `json:"nonfinite"`
	Cycles    []string     `json:"cycles"`
	Errors    []StateError `json:"errors"`
	Truncated bool         `json:"truncated"`
}

// StateError is a getter or state function that threw.
type StateError struct {
	Path    string `json:"path"`
	Message string `json:"message"`
}

// State is window.__3D_STATE__ as canonical JSON.
type State struct {
	// Present is false when the page defines no __3D_STATE__.
	Present bool `json:"present"`
	// JSON is the canonical encoding: object keys sorted, numbers as the page
	// printed them, NaN and ±Infinity as the strings "NaN", "Infinity",
	// "-Infinity", typed arrays as arrays, cycles as "[Circular]".
	JSON json.RawMessage `json:"value"`
	// Hash is the sha256 of JSON, in hex.
	Hash   string      `json:"hash"`
	Issues StateIssues `json:"issues"`
}

// stateReadLimit bounds one read of the state when the session has no
// call timeout; otherwise a read is a call like any other: the page's
// getters, Proxy traps and state function run in it, so it gets the page's
// deadline (--timeout, doubled when a trial is retried under load).
const stateReadLimit = 10 * time.Second

// StateReadTimeout is the error of a state read the page did not return
// from within Limit (a getter, trap or state function that never returns).
// It wraps ErrUnresponsive.
type StateReadTimeout struct{ Limit time.Duration }

func (e *StateReadTimeout) Error() string {
	return fmt.Sprintf("the page did not return from reading its state within %s", e.Limit)
}

// Unwrap makes errors.Is(err, ErrUnresponsive) hold.
func (e *StateReadTimeout) Unwrap() error { return ErrUnresponsive }

// readLimit is how long one read of the state may take.
func (s *Session) readLimit() time.Duration {
	if s.cfg.CallTimeout > 0 {
		return s.cfg.CallTimeout
	}
	return stateReadLimit
}

// stateReadErr names a read the page did not return from.
func (s *Session) stateReadErr(err error) error {
	if errors.Is(err, ErrUnresponsive) {
		return &StateReadTimeout{Limit: s.readLimit()}
	}
	return err
}

// ReadState reads and canonicalises window.__3D_STATE__.
func (s *Session) ReadState(ctx context.Context) (State, error) {
	defer s.charge("observe")()
	var raw string
	if err := s.eval(ctx, s.readLimit(), fmt.Sprintf("window.__wp.readState(%d)", s.cfg.StateCap), false, &raw); err != nil {
		return State{}, s.stateReadErr(err)
	}
	return decodeState(raw)
}

// ReadStateUntouched is ReadState in V8's side-effect-free evaluation
// (Runtime.evaluate with throwOnSideEffect, as DevTools' eager evaluation
// uses it): the page's getters, Proxy traps and state function run, but
// V8 stops the read before any of them changes something that existed
// before it began. untouched is true when the read completed so: the page
// is then exactly as it would have been had nobody read it, and the state
// is what ReadState would have returned. It is false when V8 could not
// rule out a side effect: the read was stopped before it, nothing was
// read, and the page is still untouched (the caller reads again in a
// fresh page if it needs the state). The error is ReadState's: the page
// hung or crashed while read.
func (s *Session) ReadStateUntouched(ctx context.Context) (st State, untouched bool, err error) {
	defer s.charge("observe")()
	var raw string
	opts := []chromedp.EvaluateOption{func(p *runtime.EvaluateParams) { p.ThrowOnSideEffect = ptrTo(true) }}
	if err := s.evalWith(ctx, s.readLimit(), fmt.Sprintf("window.__wp.readState(%d, true)", s.cfg.StateCap), opts, &raw); err != nil {
		if sideEffect(err) {
			return State{}, false, nil
		}
		return State{}, false, s.stateReadErr(err)
	}
	var refused struct {
		Untouchable bool `json:"untouchable"`
	}
	if json.Unmarshal([]byte(raw), &refused) == nil && refused.Untouchable {
		// The page changed what the result arrays inherit.
		return State{}, false, nil
	}
	st, err = decodeState(raw)
	return st, err == nil, err
}

// sideEffect reports whether err is V8 stopping a side-effect-free
// evaluation at a possible side effect. V8 throws it as an uncatchable
// termination, turned into an EvalError once the evaluation has unwound,
// so no page code can catch or fake it inside the evaluation.
func sideEffect(err error) bool {
	var ee *chromedp.ExceptionError
	if !errors.As(err, &ee) || ee.ExceptionDetails == nil || ee.Exception == nil {
		return false
	}
	return ee.Exception.ClassName == "EvalError" && strings.Contains(ee.Exception.Description, "side-effect")
}

func ptrTo[T any](v T) *T { return &v }

// decodeState decodes the runtime's readState reply.
func decodeState(raw string) (State, error) {
	var reply struct {
		Present bool            `json:"present"`
		Value   json.RawMessage `json:"value"`
		Issues  StateIssues     `json:"issues"`
	}
	if err := json.Unmarshal([]byte(raw), &reply); err != nil {
		return State{}, fmt.Errorf("decoding the page state: %w", err)
	}
	canon, err := Canonical(reply.Value)
	if err != nil {
		return State{}, err
	}
	sum := sha256.Sum256(canon)
	return State{Present: reply.Present, JSON: canon, Hash: hex.EncodeToString(sum[:]), Issues: reply.Issues}, nil
}

// Canonical re-encodes JSON with object keys sorted and numbers kept as
// written, so equal values give equal bytes.
func Canonical(raw []byte) ([]byte, error) {
	dec := json.NewDecoder(bytes.NewReader(raw))
	dec.UseNumber()
	var v any
	if err := dec.Decode(&v); err != nil {
		return nil, fmt.Errorf("canonicalising JSON: %w", err)
	}
	var buf bytes.Buffer
	enc := json.NewEncoder(&buf)
	enc.SetEscapeHTML(false)
	if err := enc.Encode(v); err != nil {
		return nil, fmt.Errorf("canonicalising JSON: %w", err)
	}
	return bytes.TrimRight(buf.Bytes(), "\n"), nil
}

// Camera is the camera last used to render.
type Camera struct {
	Type     string    `json:"type"`
	Name     string    `json:"name"`
	Position []float64 `json:"position"`
	FOV      *float64  `json:"fov"`
}

// Bounds is an axis-aligned box in world space.
type Bounds struct {
	Min []float64 `json:"min"`
	Max []float64 `json:"max"`
}

// Scene summarises the three.js scene graph seen through __THREE_DEVTOOLS__.
type Scene struct {
	ThreeRevision string `json:"three_revision"`
	Scenes        int    `json:"scenes"`
	Renderers     int    `json:"renderers"`
	RenderCalls   int    `json:"render_calls"`
	Objects       int    `json:"objects"`
	Meshes        int    `json:"meshes"`
	Lights        int    `json:"lights"`
	Triangles     int    `json:"triangles"`
	Points        int    `json:"points"`
	Lines         int    `json:"lines"`
	// VisibleMeshes and VisibleTriangles count only meshes that are
	// visible with all their ancestors (hidden LOD levels do not count).
	VisibleMeshes    int `json:"visible_meshes"`
	VisibleTriangles int `json:"visible_triangles"`
	// Instances is the sum of the drawn instance counts of InstancedMeshes.
	Instances int `json:"instances"`
	// Bounds is the world box of the visible meshes, points, lines and
	// sprites; MeshBounds that of the visible meshes alone (a floor mesh,
	// not a grid of lines). Nil when there are none.
	Bounds     *Bounds `json:"bounds"`
	MeshBounds *Bounds `json:"mesh_bounds"`
	Camera     *Camera `json:"camera"`
	Error      string  `json:"error,omitempty"`
	// Rendered is true when the scene summarised was passed to a hooked
	// renderer's render(); false when it is known only from a devtools
	// "observe" event, which page code can send with any object.
	Rendered bool `json:"rendered"`
	// Truncated is true when the walk stopped at one of its bounds:
	// 200,000 objects, 4,096 levels or 400,000 children entries read.
	Truncated bool `json:"truncated,omitempty"`
}

// ReadScene summarises the scene the page rendered last.
func (s *Session) ReadScene(ctx context.Context) (Scene, error) {
	defer s.charge("observe")()
	var raw string
	if err := s.eval(ctx, 20*time.Second, "window.__wp.sceneSummary()", false, &raw); err != nil {
		return Scene{}, err
	}
	var sc Scene
	if err := json.Unmarshal([]byte(raw), &sc); err != nil {
		return Scene{}, fmt.Errorf("decoding the scene summary: %w", err)
	}
	return sc, nil
}

// GLStatus is what the runtime saw of WebGL.
type GLStatus struct {
	Contexts int      `json:"contexts"`
	Failed   int      `json:"failed"`
	Lost     int      `json:"lost"`
	Restored int      `json:"restored"`
	Kinds    []string `json:"kinds"`
}

// Status is the injected runtime's own record.
type Status struct {
	Frame         int       `json:"frame"`
	VirtualMs     float64   `json:"virtualMs"`
	Timers        int       `json:"timers"`
	RAFs          int       `json:"rafs"`
	GL            GLStatus  `json:"gl"`
	ThreeRevision string    `json:"threeRevision"`
	Dialogs       []Dialog  `json:"dialogs"`
	Blocked       []Blocked `json:"blocked"`
	Events        []any     `json:"events"`
	// ConsoleDropped counts the console calls the runtime did not pass on
	// to DevTools: past the first 500 of each document (a same-origin child
	// frame's are counted in its page's).
	ConsoleDropped int `json:"consoleDropped"`
}

// ReadStatus reads the runtime's record of WebGL, dialogs and refused actions.
func (s *Session) ReadStatus(ctx context.Context) (Status, error) {
	defer s.charge("observe")()
	var raw string
	if err := s.eval(ctx, 10*time.Second, "window.__wp.status()", false, &raw); err != nil {
		return Status{}, err
	}
	var st Status
	if err := json.Unmarshal([]byte(raw), &st); err != nil {
		return Status{}, fmt.Errorf("decoding the runtime status: %w", err)
	}
	return st, nil
}

// CanvasBox is the page's largest canvas: CSS box and backing size.
type CanvasBox struct {
	X           float64 `json:"x"`
	Y           float64 `json:"y"`
	Width       float64 `json:"width"`
	Height      float64 `json:"height"`
	PixelWidth  int     `json:"pixelWidth"`
	PixelHeight int     `json:"pixelHeight"`
}

// LargestCanvas finds the largest canvas, or nil when there is none.
func (s *Session) LargestCanvas(ctx context.Context) (*CanvasBox, error) {
	defer s.charge("observe")()
	var box *CanvasBox
	if err := s.eval(ctx, 10*time.Second, "window.__wp.largestCanvas()", false, &box); err != nil {
		return nil, err
	}
	return box, nil
}

// Screenshot captures the composited viewport, or the clip when non-nil, as PNG.
func (s *Session) Screenshot(ctx context.Context, clip *CanvasBox, limit time.Duration) ([]byte, error) {
	defer s.charge("pixels")()
	cctx, cancel := s.callCtx(ctx, limit)
	defer cancel()
	params := page.CaptureScreenshotParams{Format: page.CaptureScreenshotFormatPng}
	if clip != nil && clip.Width >= 1 && clip.Height >= 1 {
		params.Clip = &page.Viewport{X: clip.X, Y: clip.Y, Width: clip.Width, Height: clip.Height, Scale: 1}
	}
	res, err := chromedp.Call(cctx, page.CaptureScreenshot, params)
	if err != nil {
		if cerr := s.classify(ctx, cctx, err); cerr != nil {
			return nil, cerr
		}
		return nil, fmt.Errorf("taking a screenshot: %w", err)
	}
	return res.Data, nil
}
