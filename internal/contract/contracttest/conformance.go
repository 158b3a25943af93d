// Package contracttest is the conformance suite of contract.Page: one set
// of tests that every implementation passes — the in-memory fake the
// contract package's tests drive, and the real browser session behind
// every trial — so that what a contract observes cannot depend on which
// one ran it. Each implementation shows the conformance world (package
// world) and the suite checks the Page methods and every capability the
// page offers against the world's expected values: clock and state,
// reload, pointer, keyboard, inspection and pixels. A capability the page
// does not offer is skipped, so a page with fewer capabilities (a future
// XR-only surface) runs the same suite.
package contracttest

import (
	"context"
	"errors"
	"fmt"
	"math"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/worldprobe/worldprobe/internal/contract"
	"github.com/worldprobe/worldprobe/internal/contract/contracttest/world"
	"github.com/worldprobe/worldprobe/internal/pixel"
	"github.com/worldprobe/worldprobe/internal/target"
)

// Opener opens a fresh page of the conformance world at fps; it closes the
// page through t.Cleanup.
type Opener func(t *testing.T, fps float64) contract.Page

// Conformance runs the suite against pages from open.
func Conformance(t *testing.T, open Opener) {
	t.Run("clock", func(t *testing.T) { testClock(t, open) })
	t.Run("reload", func(t *testing.T) { testReload(t, open) })
	t.Run("pointer", func(t *testing.T) { testPointer(t, open) })
	t.Run("targets", func(t *testing.T) { testTargets(t, open) })
	t.Run("keyboard", func(t *testing.T) { testKeyboard(t, open) })
	t.Run("inspector", func(t *testing.T) { testInspector(t, open) })
	t.Run("semantics", func(t *testing.T) { testSemantics(t, open) })
	t.Run("bodies", func(t *testing.T) { testBodies(t, open) })
	t.Run("panels", func(t *testing.T) { testPanels(t, open) })
	t.Run("canvas", func(t *testing.T) { testCanvas(t, open) })
	t.Run("undrawn", func(t *testing.T) { testUndrawn(t, open) })
}

// testUndrawn: stepping undrawn runs the page exactly as stepping drawn
// does (the same state after the same frames), and pixels are refused, as
// an infrastructure error, until a frame is drawn again (pages open with
// draw skipping on, as trials run them).
func testUndrawn(t *testing.T, open Opener) {
	ctx := context.Background()
	p, u := openWith[contract.UndrawnStepper](t, open, "the page cannot step undrawn")
	drawnPage := open(t, 60)
	require.NoError(t, u.StepUndrawn(ctx, 7))
	require.NoError(t, drawnPage.Step(ctx, 7))
	require.Equal(t, 7, p.Frame())
	require.Equal(t, ballY(t, state(t, drawnPage)), ballY(t, state(t, p)), "the same state drawn or not")
	if c, ok := p.(contract.Canvas); ok {
		_, err := c.Pixel(ctx, 5, 5)
		require.Error(t, err, "pixels of an undrawn frame")
		require.True(t, contract.IsInfra(err), "reading an undrawn frame is the harness's mistake: %v", err)
		require.NoError(t, p.Step(ctx, 1))
		_, err = c.Pixel(ctx, 5, 5)
		require.NoError(t, err, "drawn again")
	}
}

// openWith opens a page of the conformance world at 60 fps and returns it
// with its capability T, skipping the test (with why) when it has none.
func openWith[T any](t *testing.T, open Opener, why string) (contract.Page, T) {
	t.Helper()
	p := open(t, 60)
	c, ok := p.(T)
	if !ok {
		t.Skip(why)
	}
	return p, c
}

// state reads the page's state as a map.
func state(t *testing.T, p contract.Page) map[string]any {
	t.Helper()
	st, err := p.State(context.Background())
	require.NoError(t, err)
	m, ok := st.(map[string]any)
	require.True(t, ok, "the state is an object, not %T", st)
	return m
}

// ballY is the ball's height in the state.
func ballY(t *testing.T, st map[string]any) float64 {
	t.Helper()
	pos := st["ball"].(map[string]any)["position"].([]any)
	return pos[1].(float64)
}

// notFound fails the test unless err wraps target.ErrNotFound; what (a
// format with args) names the call.
func notFound(t *testing.T, err error, what string, args ...any) {
	t.Helper()
	if !errors.Is(err, target.ErrNotFound) {
		t.Fatalf("%s: want target.ErrNotFound, got %v", fmt.Sprintf(what, args...), err)
	}
}

// fallen is the ball's height after frames unpaused frames at fps.
func fallen(frames int, fps float64) float64 {
	y, v := world.StartY, 0.0
	for range frames {
		y, v = world.Fall(y, v, fps)
	}
	return y
}

func testClock(t *testing.T, open Opener) {
	ctx := context.Background()
	for _, fps := range []float64{60, 30} {
		p := open(t, fps)
		require.Equal(t, fps, p.FPS())
		require.Equal(t, 0, p.Frame(), "a fresh page has stepped no frame")
		require.NoError(t, p.Step(ctx, 5))
		require.NoError(t, p.Step(ctx, 7))
		require.Equal(t, 12, p.Frame())
		st := state(t, p)
		require.Equal(t, 12.0, st["frame"], "the page ran one animation frame per stepped frame")
		require.InDelta(t, fallen(12, fps), ballY(t, st), 1e-9, "the page's dt is 1/%g s per frame", fps)
		require.Equal(t, "run", st["mode"])
		require.Equal(t, false, st["paused"])
	}
}

func testReload(t *testing.T, open Opener) {
	ctx := context.Background()
	p := open(t, 60)
	require.NoError(t, p.Step(ctx, 20))
	require.NoError(t, p.Reload(ctx))
	require.Equal(t, 0, p.Frame(), "the frame counter starts again")
	st := state(t, p)
	require.Equal(t, 0.0, st["frame"])
	require.Equal(t, world.StartY, ballY(t, st), "a reload starts the world again")
	require.NoError(t, p.Step(ctx, 3))
	require.InDelta(t, fallen(3, 60), ballY(t, state(t, p)), 1e-9)
}

func testPointer(t *testing.T, open Opener) {
	ctx := context.Background()
	p, ptr := openWith[contract.Pointer](t, open, "the page takes no pointer input")
	require.NoError(t, p.Step(ctx, 1))

	require.NoError(t, ptr.Click(ctx, target.Target{Selector: "#pause"}, 3))
	require.Equal(t, 4, p.Frame(), "a click steps its hold")
	require.Equal(t, true, state(t, p)["paused"], "clicking #pause pauses")
	require.NoError(t, p.Step(ctx, 1))
	require.NoError(t, ptr.Click(ctx, target.Target{Selector: "#pause"}, 2))
	require.Equal(t, 7, p.Frame())
	require.Equal(t, false, state(t, p)["paused"], "clicking again resumes")

	require.NoError(t, p.Step(ctx, 1))
	require.NoError(t, ptr.Press(ctx, target.Target{At: []float64{100, 100}}))
	require.Equal(t, true, state(t, p)["down"], "press holds the button down on the canvas")
	require.NoError(t, ptr.Move(ctx, target.Target{At: []float64{120, 100}}))
	require.NoError(t, p.Step(ctx, 1))
	require.Equal(t, true, state(t, p)["down"], "a move carries the held button")
	require.NoError(t, ptr.Release(ctx, target.Target{At: []float64{140, 100}}))
	require.Equal(t, false, state(t, p)["down"], "release lets it up")
	require.Equal(t, 9, p.Frame(), "press, move and release step no frame")

	require.NoError(t, p.Step(ctx, 1))
	require.NoError(t, ptr.Drag(ctx, target.Target{At: []float64{100, 100}}, target.Target{At: []float64{200, 100}}, 4))
	require.Equal(t, 10+contract.DragFrames(4), p.Frame(), "a drag steps a frame after the press and after each move")
	require.Equal(t, false, state(t, p)["down"], "a drag ends with the button up")

	require.NoError(t, p.Step(ctx, 1))
	require.NoError(t, ptr.Wheel(ctx, target.Target{At: []float64{400, 300}}, 0, 120))
	require.NoError(t, p.Step(ctx, 1))
	require.Equal(t, 120.0, state(t, p)["wheel"], "the page saw the wheel's deltaY")
}

func testTargets(t *testing.T, open Opener) {
	ctx := context.Background()
	p, ptr := openWith[contract.Pointer](t, open, "the page takes no pointer input")
	require.NoError(t, p.Step(ctx, 1))
	for _, bad := range []target.Target{
		{Selector: "#missing"},
		{Object: "nothing"},
		{Object: "hidden"},                // behind the camera
		{World: []float64{0, 0, 50}},      // behind the camera
		{World: []float64{100, 5, 0}},     // far off to the side
		{At: []float64{-5, 10}},           // left of the canvas
		{At: []float64{10, world.Height}}, // just below it
	} {
		err := ptr.Click(ctx, bad, 1)
		notFound(t, err, "click %s", bad)
	}
	for _, good := range []target.Target{
		{Object: "ball"},
		{World: []float64{0, 5, 0}},
		{At: []float64{0, 0}},
		{At: []float64{world.Width - 1, world.Height - 1}},
	} {
		require.NoError(t, ptr.Move(ctx, good), "move %s", good)
	}
}

func testKeyboard(t *testing.T, open Opener) {
	ctx := context.Background()
	p, kb := openWith[contract.Keyboard](t, open, "the page takes no keyboard input")
	require.NoError(t, p.Step(ctx, 1))
	require.NoError(t, kb.Key(ctx, "press", " ", nil, 2))
	require.Equal(t, 3, p.Frame(), "a key press steps its hold")
	require.Equal(t, true, state(t, p)["paused"], "space pauses")
	require.NoError(t, p.Step(ctx, 1))
	require.NoError(t, kb.Key(ctx, "down", " ", nil, 0))
	require.Equal(t, false, state(t, p)["paused"], "space going down resumes")
	require.NoError(t, p.Step(ctx, 1))
	require.NoError(t, kb.Key(ctx, "up", " ", nil, 0))
	require.Equal(t, false, state(t, p)["paused"], "its keyup does nothing")
	require.Equal(t, 5, p.Frame(), "down and up step no frame")
	err := kb.Key(ctx, "press", "NoSuchKey", nil, 1)
	notFound(t, err, "an unknown key name")

	require.NoError(t, p.Step(ctx, 1))
	require.NoError(t, kb.Type(ctx, "#name", "hello"))
	if in, ok := p.(contract.Inspector); ok {
		d, err := in.DOM(ctx, "#name")
		require.NoError(t, err)
		require.Equal(t, "hello", d["value"])
	}
	err = kb.Type(ctx, "#missing", "x")
	notFound(t, err, "typing into a missing element")
}

// testSemantics: objects are found by their semantic tag (the world's ball
// is tagged {role: target, name: ball}); no match is an empty list.
func testSemantics(t *testing.T, open Opener) {
	ctx := context.Background()
	p, sem := openWith[contract.Semantics](t, open, "the page offers no semantic tags")
	require.NoError(t, p.Step(ctx, 2))
	for _, q := range [][2]string{{"target", ""}, {"", "ball"}, {"target", "ball"}} {
		found, err := sem.Tagged(ctx, q[0], q[1])
		require.NoError(t, err)
		require.Len(t, found, 1, "tagged %q", q)
		o := found[0].(map[string]any)
		require.Equal(t, "ball", o["name"])
		require.Equal(t, map[string]any{"role": "target", "name": "ball"}, o["semantic"])
	}
	for _, q := range [][2]string{{"nothing", ""}, {"target", "hidden"}} {
		found, err := sem.Tagged(ctx, q[0], q[1])
		require.NoError(t, err)
		require.Empty(t, found, "tagged %q", q)
	}
}

func testInspector(t *testing.T, open Opener) {
	ctx := context.Background()
	p, in := openWith[contract.Inspector](t, open, "the page offers no inspection")
	require.NoError(t, p.Step(ctx, 10))
	y := ballY(t, state(t, p))
	o, err := in.Object(ctx, "ball")
	require.NoError(t, err)
	require.Equal(t, "ball", o["name"])
	require.Equal(t, true, o["visible"])
	require.Equal(t, "#ff0000", o["color"])
	pos := o["position"].([]any)
	require.InDelta(t, y, pos[1].(float64), 1e-6, "the object is where the state says")
	wx, wy, on := world.Project([3]float64{0, y, 0})
	require.True(t, on)
	require.Equal(t, true, o["on_screen"])
	screen := o["screen"].([]any)
	require.InDelta(t, wx, screen[0].(float64), 1, "screen x")
	require.InDelta(t, wy, screen[1].(float64), 1, "screen y")

	h, err := in.Object(ctx, "hidden")
	require.NoError(t, err)
	require.Equal(t, false, h["visible"])
	require.Equal(t, false, h["on_screen"])
	_, err = in.Object(ctx, "nothing")
	notFound(t, err, "a missing object")

	d, err := in.DOM(ctx, "#pause")
	require.NoError(t, err)
	require.Equal(t, true, d["exists"])
	require.Equal(t, true, d["visible"])
	require.Equal(t, "Pause", d["text"])
	d, err = in.DOM(ctx, "#nothing")
	require.NoError(t, err, "a missing element is not an error")
	require.Equal(t, false, d["exists"])

	sc, err := in.Scene(ctx)
	require.NoError(t, err)
	require.Equal(t, 2.0, sc["meshes"])
	require.Equal(t, 1.0, sc["visible_meshes"])
	require.Equal(t, 1.0, sc["lights"])
}

func testCanvas(t *testing.T, open Opener) {
	ctx := context.Background()
	p, c := openWith[contract.Canvas](t, open, "the page shows no pixels")
	require.NoError(t, p.Step(ctx, 2))
	px, err := c.Pixel(ctx, 5, 5)
	require.NoError(t, err)
	for i, k := range []string{"r", "g", "b"} {
		require.InDelta(t, world.Background[i], px[k].(float64), 1, "background %s", k)
	}
	require.Equal(t, 255.0, px["a"])
	require.InDelta(t, pixel.Luma(px["r"].(float64), px["g"].(float64), px["b"].(float64)), px["luma"].(float64), 0.01)

	x, y, _ := world.Project([3]float64{0, ballY(t, state(t, p)), 0})
	ball, err := c.Pixel(ctx, x, y)
	require.NoError(t, err)
	require.Greater(t, ball["r"].(float64), 200.0, "the ball is red where it projects")
	require.Less(t, ball["g"].(float64), 60.0)

	for _, off := range [][2]float64{{-1, 0}, {world.Width, 0}, {0, world.Height}} {
		_, err := c.Pixel(ctx, off[0], off[1])
		notFound(t, err, "pixel %v", off)
	}
	m, err := c.Region(ctx, 0, 0, 20, 20)
	require.NoError(t, err)
	for i, k := range []string{"r", "g", "b"} {
		require.InDelta(t, world.Background[i], m[k].(float64), 1, "background region %s", k)
	}
	_, err = c.Region(ctx, world.Width-10, 0, 20, 20)
	notFound(t, err, "a region past the edge")
	if math.IsNaN(m["luma"].(float64)) {
		t.Fatal("region luma is NaN")
	}
}
