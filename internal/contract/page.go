package contract

import (
	"context"
	"errors"
	"fmt"
	"strconv"

	"github.com/worldprobe/worldprobe/internal/navmesh"
	"github.com/worldprobe/worldprobe/internal/target"
)

// Target is where an action lands (see package target).
type Target = target.Target

// Page is one loaded page as a contract sees it: the small core every
// page has (a clock, a state, a reload). What else a page can do — take
// pointer or keyboard input, describe its scene, show its pixels, later
// take XR input — it offers through the capability interfaces below
// ([Pointer], [Keyboard], [Inspector], [Canvas], [PixelDigester],
// [UndrawnStepper], [XR], [XRViewer], [Semantics], [Bodies], [Panels],
// [Microphone]), which
// a step detects by type assertion. A step that needs a capability the
// page lacks is an infrastructure error: the harness, not the page, is
// wrong. The caller implements Page over a browser session; the contract
// package only drives it. contracttest.Conformance is the suite every
// implementation passes.
//
// Methods that take a selector, object name or point return an error
// wrapping [target.ErrNotFound] when it does not resolve (no such element
// or object, or a point off the canvas). Any other error is a page failure
// (the page crashed, hung, …) unless it is wrapped with [Infra], which
// marks an infrastructure problem.
//
// Values returned by State and the observation methods are decoded JSON:
// map[string]any, []any, float64, string, bool and nil.
type Page interface {
	// Step advances the virtual clock by frames frames.
	Step(ctx context.Context, frames int) error
	// Frame is the number of frames stepped since the page (re)loaded.
	Frame() int
	// FPS is the page's virtual frame rate.
	FPS() float64
	// State reads window.__3D_STATE__; nil when the page defines none.
	State(ctx context.Context) (any, error)
	// Reload reloads the page; the frame counter starts again from zero.
	Reload(ctx context.Context) error
}

// UndrawnStepper is a page that can step frames without drawing the last
// one: its JavaScript runs exactly as in Step (timers, callbacks, render
// calls), only the draw calls are not carried out. The engine steps this
// way whenever no step reads pixels before the next frame; a page without
// it draws the last frame of every Step.
type UndrawnStepper interface {
	StepUndrawn(ctx context.Context, frames int) error
}

// Pointer is a page that takes mouse input on its canvas and elements.
type Pointer interface {
	// Click presses the primary button at the target, steps hold frames
	// with it down, and lets it up at the same point.
	Click(ctx context.Context, t Target, hold int) error
	// Drag presses at from, moves to to in steps pointer moves, and
	// releases; it steps one frame after the press and after each move
	// (DragFrames(steps) in all).
	Drag(ctx context.Context, from, to Target, steps int) error
	// Press moves the pointer to the target and holds the primary button
	// down there; moves until the next Release carry the button (a drag
	// whose middle a probe can step and assert on).
	Press(ctx context.Context, t Target) error
	// Release moves the pointer to the target and lets the primary button up.
	Release(ctx context.Context, t Target) error
	// Move moves the pointer to the target.
	Move(ctx context.Context, t Target) error
	// Wheel scrolls by dx, dy at the target.
	Wheel(ctx context.Context, t Target, dx, dy float64) error
}

// XR is a page with an emulated XR headset (task.yaml xr:). Poses are in
// the session's local-floor space: metres, y up, the floor at y = 0.
type XR interface {
	// XRPose places a tracked device — "head", or the "left" or "right"
	// hand — at position and, when orientation is not nil, turns it to that
	// quaternion [x, y, z, w]. Moving a hand switches the headset to hand
	// input. The page sees the pose from the next frame on.
	XRPose(ctx context.Context, device string, position, orientation []float64) error
	// XRPinch sets a hand's pinch in [0, 1]: 1 closes it (a select starts),
	// 0 opens it (the select ends).
	XRPinch(ctx context.Context, hand string, value float64) error
	// XRPinchPose closes a hand's thumb and index finger into the pinch
	// pose without pinching (closed), or gives the hand back the pose it
	// had before (open), from the next frame. A real hand's fingers meet
	// before the system reports a pinch and part after it ends; the hand
	// step closes them a frame before the pinch and opens them a frame
	// after it, so a page sees no jump of the fingertips at the pinch's
	// events.
	XRPinchPose(ctx context.Context, hand string, closed bool) error

	// The methods below drive GenXR-Test's action vocabulary. A hand is
	// "left" or "right"; a device is "head", a hand ("left", "right":
	// tracked hands) or a controller ("left-controller",
	// "right-controller"). XRPose takes every device: placing a hand
	// switches the headset to hand input, placing a controller to
	// controller input.

	// XRPoseOf reads where a device is now: position [x, y, z] and
	// orientation [x, y, z, w], as the page will see it on the next frame.
	XRPoseOf(ctx context.Context, device string) (position, orientation []float64, err error)
	// XRInputMode is the headset's input now: "hand" or "controller".
	XRInputMode(ctx context.Context) (string, error)
	// XRController switches the headset to controller input and sets the
	// hand's controller buttons (IWER's ids: trigger, squeeze, thumbstick,
	// thumbrest, a-button, b-button on the right, x-button, y-button on
	// the left) to values in [0, 1], and its thumbstick axes to [x, y] in
	// [-1, 1] when thumbstick is not nil. A button the controller does not
	// have is an error wrapping target.ErrNotFound. Trigger is the select
	// and squeeze the squeeze: their events fire on the next frame.
	XRController(ctx context.Context, hand string, buttons map[string]float64, thumbstick []float64) error
	// XRGesture switches the headset to hand input and shapes the hand as
	// pose (one of [XRGestures]) from the next frame on; the pinch value
	// (the select) is left as it is.
	XRGesture(ctx context.Context, hand, pose string) error
	// XRSelect sets the select of the hand's active input — the pinch of a
	// tracked hand, the trigger of a controller — to value in [0, 1].
	XRSelect(ctx context.Context, hand string, value float64) error
	// XRTouchOffset is the point of the hand's active input that touches
	// things — the index fingertip of a tracked hand (in its current
	// gesture and pinch), the grip of a controller — in the frame of its
	// device (XRPose's position and orientation).
	XRTouchOffset(ctx context.Context, hand string) ([]float64, error)
	// XRLocomote moves the user as a body: the head, both hands and both
	// controllers are turned by yaw degrees about the vertical line through
	// the head (counter-clockwise seen from above: 90 turns the user to
	// their left), and then moved by translation [x, y, z].
	XRLocomote(ctx context.Context, translation []float64, yaw float64) error
}

// XRHands is a page whose XR user's tracked hands can be read and shaped
// joint by joint (hand-joint targets, setHandPose). Joints are named as
// WebXR names them (target.HandJoints).
type XRHands interface {
	// XRJointPose is where a joint of a tracked hand is as the page's next
	// XR frame reports it: position [x, y, z] and orientation [x, y, z, w]
	// in local-floor space. A hand whose active input is a controller has
	// no joints: an error wrapping [target.ErrNotFound].
	XRJointPose(ctx context.Context, hand, joint string) (position, orientation []float64, err error)
	// XRHandPose switches the headset to hand input and shapes the hand:
	// each named joint turned to its rotation relative to its parent joint
	// (a quaternion [x, y, z, w]; the wrist's parent is the hand's own
	// frame), the others keeping their rotations relative to their
	// parents in the hand's current shape, every bone its length. The page
	// reads the joints from the next frame. A backend whose hands cannot
	// be shaped joint by joint is an infrastructure error naming it.
	XRHandPose(ctx context.Context, hand string, rotations map[string][]float64) error
}

// XRNavigator is a page whose XR user can walk over the walkable area of
// the room the headset stands in (navigateTo).
type XRNavigator interface {
	// XRWalkable is the walkable area of the headset's room as it is now,
	// the boxes added with addObjects included (navmesh.Defaults), and the
	// room's name. A nil grid means no room bounds the walk (a task
	// without room:, the XR Blocks backend's open floor): the whole floor
	// is walkable.
	XRWalkable(ctx context.Context) (room string, grid *navmesh.Grid, err error)
}

// XRRoom is a page whose XR headset stands in a room (task.yaml room:)
// that the harness can furnish: boxes added to the room are detected by
// the page's session as meshes on the next frame, as the room's own are.
type XRRoom interface {
	// XRRoomObjects edits the objects the harness added to the room and
	// returns their ids, in the order they were added. op is "add" (new
	// ids only), "update" (ids added before: each box is replaced, so the
	// page sees its mesh removed and a new one added), "remove" (ids) or
	// "clear" (every added object; the room's own stay). An id that is
	// already there (add) or not there (update, remove) wraps
	// [target.ErrNotFound]; a headset in no room is an infrastructure error.
	XRRoomObjects(ctx context.Context, op string, objects []RoomObject, ids []string) ([]string, error)
}

// RoomObject is a box added to the XR room: its ID (unique among the added
// objects), its semantic Label (one of RoomLabels, as WebXR names them),
// the Position of its centre and its Size [width, height, depth] in metres
// (local-floor space), turned by Yaw degrees about +y (counter-clockwise
// seen from above).
type RoomObject struct {
	ID       string
	Label    string
	Position []float64
	Size     []float64
	Yaw      float64
}

// RoomLabels are the semantic labels a RoomObject may carry: WebXR's names
// of the labels @iwer/sem maps from its captures' own.
var RoomLabels = []string{"table", "couch", "shelf", "bed", "lamp", "screen", "plant", "wall art", "other"}

// XRGestures are the hand shapes XR.XRGesture takes. "default" is IWER's
// relaxed hand, "point" and "pinch" IWER's own poses; the others are
// derived from the relaxed hand by worldprobe (package xr): "open-palm"
// straightens every finger, "fist" curls them, "thumbs-up" is the fist
// with the thumb straight, and "palm-up" is the open palm turned so that
// its palm faces +y and its fingers -z of the hand's frame (up and
// forward while the hand is not turned).
var XRGestures = []string{"default", "point", "pinch", "fist", "thumbs-up", "open-palm", "palm-up"}

// XRViewer is a page with an emulated XR headset (task.yaml xr:) that
// reports what the page sees of it. A page whose task sets no xr: has no
// headset: its methods return an infrastructure error saying so.
type XRViewer interface {
	// XRState is the headset as the page sees it through the last session
	// it was granted: session (a session was granted), mode, presenting, visibility, frames (XR frames delivered),
	// head {position, orientation, forward} in the session's local-floor
	// space (nil before the first XR frame) and inputs [{hand, input
	// ("hand" or "controller"), tracked, position}].
	XRState(ctx context.Context) (map[string]any, error)
	// XREvents is the log of the session's events, in order: {type, hand,
	// input, frame} (inputsourceschange adds change: "added" or
	// "removed"; visibilitychange adds visibility; planeschange and
	// mesheschange add count, the number of detected planes or meshes, when it changes).
	XREvents(ctx context.Context) ([]any, error)
	// XRView says whether the object is in the field of view of the user's
	// eyes (in_view) and which fraction of the view its box covers
	// (coverage). A missing object wraps [target.ErrNotFound].
	XRView(ctx context.Context, ref ObjectRef) (map[string]any, error)
}

// ObjectRef names a scene object: by Name (mesh.name) or, with Tag set, by
// its semantic tag (userData.semantic) Role and Name ("" matches any; the
// tag must match exactly one object).
type ObjectRef struct {
	Name string
	Role string
	Tag  bool
}

// String names the reference in messages and memo keys.
func (r ObjectRef) String() string {
	if r.Tag {
		return fmt.Sprintf("{role: %q, name: %q}", r.Role, r.Name)
	}
	return fmt.Sprintf("%q", r.Name)
}

// Semantics is a page that finds scene objects by their semantic tag
// (userData.semantic = {role, name}).
type Semantics interface {
	// Tagged describes, as Inspector.Object does, every object of the last
	// rendered scene whose tag has role and name ("" matches any), in
	// scene-graph order.
	Tagged(ctx context.Context, role, name string) ([]any, error)
}

// Bodies is a page that reports the shape of its scene objects as solids
// (geom.Solid), for contact() and contacts().
type Bodies interface {
	// Bodies describes the object ref names and, when others is set, after
	// it every other object of its scene (its topmost ancestor's subtree)
	// that has a name or a semantic tag and is neither that object, its ancestor nor its
	// descendant, in scene-graph order (depth first): each {name, semantic
	// ({role, name} or nil), uuid, ancestors (their uuids), solids}, where
	// solids lists, for every mesh, line, points or sprite of the object's
	// subtree (InstancedMeshes left out, as in object()'s bbox), its
	// geometry's own box under its full world transform as 12 numbers:
	// the corner the box's minimum maps to, then the images of its x, y
	// and z edges. A missing object or an ambiguous tag wraps
	// [target.ErrNotFound].
	Bodies(ctx context.Context, ref ObjectRef, others bool) ([]any, error)
}

// Panels is a page that reads the UI drawn in its 3D scene, for panel(),
// panelText() and uiVisible().
type Panels interface {
	// Panel describes the UI under the object ref names: {text, texts
	// [{object, source, text}], unread [names], visible, in_view,
	// occluded, samples, hidden} (docs/contracts.md, "Scene contacts and
	// 3D panels"). A missing object or an ambiguous tag wraps
	// [target.ErrNotFound].
	Panel(ctx context.Context, ref ObjectRef) (map[string]any, error)
}

// Keyboard is a page that takes key events and typed text.
type Keyboard interface {
	// Key sends a key event; kind is "down", "up" or "press", key a
	// KeyboardEvent.key value such as "ArrowUp" or " ", with the modifier
	// keys in with (Control, Shift, Alt, Meta) held around it. A press
	// steps hold frames between the key going down and coming up.
	Key(ctx context.Context, kind, key string, with []string, hold int) error
	// Type focuses the element matching selector and types text.
	Type(ctx context.Context, selector, text string) error
}

// Sound is what an injectAudio step plays: a RIFF/WAVE file of the task
// folder (WAV, a slash-separated path relative to it) or text spoken by
// espeak-ng (Say, with Voice).
type Sound struct {
	WAV   string
	Say   string
	Voice string
}

// String renders the sound as the step writes it.
func (s Sound) String() string {
	if s.WAV != "" {
		return "{wav: " + s.WAV + "}"
	}
	return "{say: " + strconv.Quote(s.Say) + ", voice: " + s.Voice + "}"
}

// Microphone is a page with worldprobe's synthetic microphone
// (docs/audio.md): the streams its getUserMedia({audio}) answers play what
// is injected, and what the page reads of them depends on virtual time
// only.
type Microphone interface {
	// InjectAudio starts sound at the current virtual time. A sound that
	// cannot be had (a missing or malformed file, no espeak-ng) is an
	// infrastructure error.
	InjectAudio(ctx context.Context, sound Sound) error
}

// Inspector is a page that can describe its scene and document.
type Inspector interface {
	// Object describes a named scene object: name, position [x, y, z],
	// visible, color ("#rrggbb" or ""), screen [x, y] and on_screen, and
	// (library version 3) its world quaternion, scale, forward, bbox {min,
	// max} and semantic tag.
	Object(ctx context.Context, name string) (map[string]any, error)
	// DOM describes the first element matching selector: exists, text,
	// value, visible. A missing element is {exists: false}, not an error.
	DOM(ctx context.Context, selector string) (map[string]any, error)
	// Scene summarises the rendered scene (objects, meshes, lights, triangles, …).
	Scene(ctx context.Context) (map[string]any, error)
}

// Canvas is a page whose drawn pixels can be read.
type Canvas interface {
	// Pixel reads one pixel of the freshly drawn canvas: r, g, b, a, luma (0–255).
	Pixel(ctx context.Context, x, y float64) (map[string]any, error)
	// Region reads the mean r, g, b and luma of a canvas rectangle.
	Region(ctx context.Context, x, y, w, h float64) (map[string]any, error)
}

// View is a page that renders what its user sees as an image: the XR
// view camera's picture for a page presenting an XR session (the canvas
// IWER draws the headset's view into), the page's canvas otherwise.
type View interface {
	// ViewPNG is the user's view of the freshly drawn frame, PNG encoded.
	ViewPNG(ctx context.Context) ([]byte, error)
}

// ErrUnsupported is wrapped (as an infrastructure error) when a step or
// an observation needs a capability the page does not offer.
var ErrUnsupported = errors.New("the page does not offer this")

// capability returns page as a T, or an infrastructure error naming what
// it lacks (what: "pointer input").
func capability[T any](page Page, what string) (T, error) {
	c, ok := page.(T)
	if !ok {
		return c, Infra(fmt.Errorf("%s: %w (%T)", what, ErrUnsupported, page))
	}
	return c, nil
}

// Opener loads a fresh page at the given frame rate; Run calls it once per
// probe. When the returned Page implements io.Closer, Run closes it after
// the probe. An Opener error is a page failure unless wrapped with [Infra].
type Opener func(ctx context.Context, fps float64) (Page, error)

// InfraError marks an error as an infrastructure problem (the browser went
// away, a file could not be read, …): not the page's fault and not an
// assertion failure. Run stops and returns it.
type InfraError struct{ Err error }

// Error returns the wrapped error's message.
func (e *InfraError) Error() string { return e.Err.Error() }

// Unwrap returns the wrapped error.
func (e *InfraError) Unwrap() error { return e.Err }

// Infra wraps err as an [InfraError]; Infra(nil) is nil.
func Infra(err error) error {
	if err == nil {
		return nil
	}
	return &InfraError{Err: err}
}

// IsInfra reports whether err is, or wraps, an [InfraError].
func IsInfra(err error) bool {
	var ie *InfraError
	return errors.As(err, &ie)
}
