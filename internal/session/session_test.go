package session

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"image/png"
	"log/slog"
	"math"
	"path/filepath"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/worldprobe/worldprobe/internal/pixel"
	"github.com/worldprobe/worldprobe/internal/target"
	"github.com/worldprobe/worldprobe/internal/testenv"
)

// shared is the browser and resolver of this package's tests.
var shared testenv.Harness

func TestMain(m *testing.M) {
	testenv.RunMain(m, 2, &shared)
}

func open(t *testing.T, page string) *Session {
	t.Helper()
	s, err := Open(context.Background(), shared.Browser, shared.Resolver, page, Config{Seed: 1, FPS: 60, Width: 800, Height: 600, SkipDraw: true, CallTimeout: 20 * time.Second})
	require.NoError(t, err)
	t.Cleanup(s.Close)
	require.True(t, s.Loaded())
	return s
}

type actionState struct {
	Clicks int       `json:"clicks"`
	Hits   int       `json:"hits"`
	Last   []float64 `json:"last"`
	Keys   []string  `json:"keys"`
	Name   string    `json:"name"`
	Wheel  float64   `json:"wheel"`
	Drags  int       `json:"drags"`
}

func state(t *testing.T, s *Session) actionState {
	t.Helper()
	st, err := s.ReadState(context.Background())
	require.NoError(t, err)
	var a actionState
	require.NoError(t, json.Unmarshal(st.JSON, &a))
	return a
}

func TestActions(t *testing.T) {
	ctx := context.Background()
	s := open(t, filepath.Join("testdata", "actions.html"))
	_, err := s.Step(ctx, 2, true)
	require.NoError(t, err)

	o, err := s.Object(ctx, "cube")
	require.NoError(t, err)
	require.Equal(t, "#ff0000", o.Color)
	require.Equal(t, []float64{0, 0, 0}, o.Position)
	require.True(t, o.OnScreen)
	require.InDelta(t, 200, o.Screen[0], 0.01)
	require.InDelta(t, 150, o.Screen[1], 0.01)

	require.NoError(t, s.Click(ctx, target.Target{Object: "cube"}, 0))
	a := state(t, s)
	require.Equal(t, 1, a.Clicks)
	require.Equal(t, 1, a.Hits)
	require.Equal(t, []float64{200, 150}, a.Last)

	require.NoError(t, s.Click(ctx, target.Target{At: []float64{10, 10}}, 0))
	a = state(t, s)
	require.Equal(t, 2, a.Clicks)
	require.Equal(t, 1, a.Hits, "a click off the cube misses it")

	require.NoError(t, s.Click(ctx, target.Target{World: []float64{0.4, 0.4, 0.5}}, 0))
	require.Equal(t, 2, state(t, s).Hits)

	require.NoError(t, s.Key(ctx, "press", " ", 0))
	require.NoError(t, s.Key(ctx, "press", "ArrowUp", 0))
	require.NoError(t, s.Key(ctx, "down", "r", 0))
	require.NoError(t, s.Type(ctx, "#name", "Ada"))
	require.NoError(t, s.Wheel(ctx, target.Target{At: []float64{200, 150}}, 0, 120))
	require.NoError(t, s.Drag(ctx, target.Target{At: []float64{50, 50}}, target.Target{At: []float64{150, 50}}, 5, 0))
	a = state(t, s)
	require.Equal(t, []string{" ", "ArrowUp", "r"}, a.Keys)
	require.Equal(t, "Ada", a.Name)
	require.Equal(t, 120.0, a.Wheel)
	require.Equal(t, 5, a.Drags)

	d, err := s.DOM(ctx, "#hud")
	require.NoError(t, err)
	require.True(t, d.Exists && d.Visible)
	require.Equal(t, "clicks: 4", d.Text)

	for _, bad := range []target.Target{{Selector: "#missing"}, {Object: "nothing"}, {World: []float64{0, 0, 50}}} {
		require.ErrorIs(t, s.Click(ctx, bad, 0), target.ErrNotFound, "target %s", bad)
	}
	require.ErrorIs(t, s.Key(ctx, "press", "NoSuchKey", 0), target.ErrNotFound)

	_, err = s.Step(ctx, 1, true)
	require.NoError(t, err)
	px, err := s.CanvasPixels(ctx)
	require.NoError(t, err)
	img, err := pixel.DecodePNG(px.PNG)
	require.NoError(t, err)
	r, g, b, _ := img.At(200, 150).RGBA()
	require.Equal(t, [3]uint32{255, 0, 0}, [3]uint32{r >> 8, g >> 8, b >> 8}, "the cube is red at its screen position")
	r, g, b, _ = img.At(5, 5).RGBA()
	require.Equal(t, [3]uint32{0, 0, 0}, [3]uint32{r >> 8, g >> 8, b >> 8})

	require.NoError(t, s.Reload(ctx))
	require.Equal(t, 0, s.Frame())
	_, err = s.Step(ctx, 1, false)
	require.NoError(t, err)
	require.Equal(t, 0, state(t, s).Clicks, "a reload starts from scratch")
}

// TestCaptureHidesCaret: a focused text input over the canvas must not make
// captures of one frame differ, though its caret blinks on real time.
func TestCaptureHidesCaret(t *testing.T) {
	ctx := context.Background()
	s := open(t, filepath.Join("testdata", "caret.html"))
	require.NoError(t, s.Type(ctx, "#name", "Ada"))
	_, err := s.Step(ctx, 1, true)
	require.NoError(t, err)
	first, err := s.CanvasPixels(ctx)
	require.NoError(t, err)
	// The caret blinks every 500 ms: eight captures 150 ms apart span
	// more than two blink periods.
	for i := 0; i < 8; i++ {
		time.Sleep(150 * time.Millisecond)
		px, err := s.CanvasPixels(ctx)
		require.NoError(t, err)
		require.Equal(t, first.PNG, px.PNG, "capture %d differs from the first", i+1)
	}
}

// TestSceneSummaryCounts: hidden subtrees count in meshes and triangles but
// not in their visible_ counterparts; InstancedMesh counts drawn instances;
// bounds box what is drawn, mesh_bounds the visible meshes alone.
func TestSceneSummaryCounts(t *testing.T) {
	ctx := context.Background()
	s := open(t, filepath.Join("testdata", "scene.html"))
	_, err := s.Step(ctx, 1, true)
	require.NoError(t, err)
	sc, err := s.ReadScene(ctx)
	require.NoError(t, err)
	require.Equal(t, 4, sc.Meshes)
	require.Equal(t, 12+12+2+5*2, sc.Triangles)
	require.Equal(t, 2, sc.VisibleMeshes)
	require.Equal(t, 12+5*2, sc.VisibleTriangles)
	require.Equal(t, 5, sc.Instances)
	require.Equal(t, 1, sc.Lines)
	require.Equal(t, &Bounds{Min: []float64{-5, -2, -5}, Max: []float64{5, 0.5, 5}}, sc.Bounds, "the grid's lines are drawn: in bounds")
	require.Equal(t, &Bounds{Min: []float64{-0.5, -0.5, -0.5}, Max: []float64{0.5, 0.5, 0.5}}, sc.MeshBounds, "the visible box alone (hidden meshes and instanced meshes are not boxed)")
}

// TestPressMoveRelease: a held button makes moves drags until it is let up.
func TestPressMoveRelease(t *testing.T) {
	ctx := context.Background()
	s := open(t, filepath.Join("testdata", "actions.html"))
	_, err := s.Step(ctx, 2, true)
	require.NoError(t, err)

	require.NoError(t, s.Press(ctx, target.Target{At: []float64{50, 50}}))
	a := state(t, s)
	require.Equal(t, 1, a.Clicks, "the press went down on the canvas")
	require.Equal(t, []float64{50, 50}, a.Last)
	require.Error(t, s.Press(ctx, target.Target{At: []float64{50, 50}}), "a held button cannot be pressed again")

	require.NoError(t, s.Move(ctx, target.Target{At: []float64{80, 50}}))
	require.NoError(t, s.Move(ctx, target.Target{At: []float64{110, 50}}))
	require.Equal(t, 2, state(t, s).Drags, "moves while held are drags")
	require.NoError(t, s.Release(ctx, target.Target{At: []float64{140, 50}}))
	require.Equal(t, 3, state(t, s).Drags, "the release moves to its target with the button held")
	require.Error(t, s.Release(ctx, target.Target{At: []float64{140, 50}}), "nothing to release")

	require.NoError(t, s.Move(ctx, target.Target{At: []float64{60, 60}}))
	require.Equal(t, 3, state(t, s).Drags, "after the release a move is no drag")

	// A reload lets a held button up: the new document sees plain moves.
	require.NoError(t, s.Press(ctx, target.Target{At: []float64{50, 50}}))
	require.NoError(t, s.Reload(ctx))
	_, err = s.Step(ctx, 1, true)
	require.NoError(t, err)
	require.NoError(t, s.Move(ctx, target.Target{At: []float64{90, 90}}))
	require.Equal(t, 0, state(t, s).Drags)
	require.NoError(t, s.Press(ctx, target.Target{At: []float64{50, 50}}), "the button is up after the reload")
}

// TestSplitViewportProjection: object screen positions follow the viewport
// each camera rendered to; clicks at {object} land in the last view.
func TestSplitViewportProjection(t *testing.T) {
	ctx := context.Background()
	s := open(t, filepath.Join("testdata", "split.html"))
	_, err := s.Step(ctx, 1, true)
	require.NoError(t, err)
	o, err := s.Object(ctx, "cube")
	require.NoError(t, err)
	// front: x = 1 of [-2, 2] over 0..200 → 150; y = 0 → 100.
	// top: viewport x 200..400, y 0..100 from the top (GL 100..200 from the
	// bottom); x = 1 → 200 + 150 = 350; z = 0 → 50.
	require.Len(t, o.Views, 2)
	require.Equal(t, ObjectView{Camera: "front", Screen: []float64{150, 100}, OnScreen: true}, o.Views[0])
	require.Equal(t, ObjectView{Camera: "top", Screen: []float64{350, 50}, OnScreen: true}, o.Views[1])
	require.Equal(t, []float64{350, 50}, o.Screen, "screen is where the last view drew it")

	// The projections are where the pixels are.
	px, err := s.CanvasPixels(ctx)
	require.NoError(t, err)
	img, err := pixel.DecodePNG(px.PNG)
	require.NoError(t, err)
	for _, at := range [][2]int{{150, 100}, {350, 50}} {
		r, g, b, _ := img.At(at[0], at[1]).RGBA()
		require.Equal(t, [3]uint32{255, 0, 0}, [3]uint32{r >> 8, g >> 8, b >> 8}, "the cube is drawn at %v", at)
	}
}

// TestComposerProjection: on a page drawn through a post-processing
// composer (the scene into a render target with a perspective camera, the
// canvas with a full-screen quad and an orthographic camera, a HUD scene
// over it, the scene drawn again from the side into a render target nothing
// shows), an object is projected with the camera that drew its scene to
// what ends on screen, and the pixel there is the object's. An object in a
// scene no draw of the frame contains keeps the old rule (the last camera
// drawn with, over the whole canvas). Projections are rounded to 1e-6 px.
func TestComposerProjection(t *testing.T) {
	ctx := context.Background()
	s := open(t, filepath.Join("testdata", "composer.html"))
	_, err := s.Step(ctx, 1, true)
	require.NoError(t, err)
	// cube (0.5, 0.25, -2), a 90° camera with aspect 2: NDC (0.125, 0.125)
	// on the 400x200 canvas → (225, 87.5).
	cube, err := s.Object(ctx, "cube")
	require.NoError(t, err)
	require.Equal(t, []float64{225, 87.5}, cube.Screen)
	require.True(t, cube.OnScreen)
	// badge (1.5, 0.5) in the HUD's [-2, 2] x [-1, 1] → (350, 50).
	badge, err := s.Object(ctx, "badge")
	require.NoError(t, err)
	require.Equal(t, []float64{350, 50}, badge.Screen)
	require.True(t, badge.OnScreen)
	// loose (-1, -0.5, 0), in no drawn scene: the side camera (the last
	// drawn with) at (5, 0, -2) looking down -x, 60°, sees it 6 m ahead, 2 m
	// left and 0.5 m down; projected over the whole canvas.
	loose, err := s.Object(ctx, "loose")
	require.NoError(t, err)
	f := 1 / math.Tan(math.Pi/6)
	require.Len(t, loose.Screen, 2)
	require.InDelta(t, (1-2*f/6)/2*400, loose.Screen[0], 1e-5)
	require.InDelta(t, (1+0.5*f/6)/2*200, loose.Screen[1], 1e-5)

	// objectPixel reads the canvas at the floor of the screen position.
	px, err := s.CanvasPixels(ctx)
	require.NoError(t, err)
	img, err := pixel.DecodePNG(px.PNG)
	require.NoError(t, err)
	for _, c := range []struct {
		at   [2]int
		want [3]uint32
	}{{[2]int{225, 87}, [3]uint32{255, 0, 0}}, {[2]int{350, 50}, [3]uint32{0, 255, 0}}} {
		r, g, b, _ := img.At(c.at[0], c.at[1]).RGBA()
		require.Equal(t, c.want, [3]uint32{r >> 8, g >> 8, b >> 8}, "the pixel at %v", c.at)
	}
}

// TestKeyModifiers: modifiers go down before the key and up after it, and
// the key's event carries their flags; Shift upper-cases a letter.
func TestKeyModifiers(t *testing.T) {
	ctx := context.Background()
	s := open(t, filepath.Join("testdata", "keys.html"))
	events := func() []string {
		st, err := s.ReadState(ctx)
		require.NoError(t, err)
		var v struct{ Events []string }
		require.NoError(t, json.Unmarshal(st.JSON, &v))
		return v.Events
	}
	require.NoError(t, s.Key(ctx, "press", "z", 0, "Control"))
	require.Equal(t, []string{"d:Control:C", "d:z:C", "u:z:C", "u:Control"}, events())
	require.NoError(t, s.Key(ctx, "press", "z", 0, "Control", "Shift"))
	require.Equal(t, []string{"d:Control:C", "d:Shift:CS", "d:Z:CS", "u:Z:CS", "u:Shift:C", "u:Control"}, events()[4:])
	require.NoError(t, s.Key(ctx, "press", "y", 0))
	require.Equal(t, []string{"d:y", "u:y"}, events()[10:])
	require.ErrorIs(t, s.Key(ctx, "press", "y", 0, "Hyper"), target.ErrNotFound)
}

// TestHeldInput: a key press and a click hold their input for the given
// frames, and a drag steps a frame after the press and after each move, so
// a page that reads input only in its animation loop sees every one; with
// no hold, the same loop never sees the press.
func TestHeldInput(t *testing.T) {
	ctx := context.Background()
	s := open(t, filepath.Join("testdata", "polling.html"))
	var st struct {
		KeyFrames, KeyPresses, ButtonFrames, Clicks int
		Path                                        []float64
	}
	read := func() {
		t.Helper()
		_, err := s.Step(ctx, 1, true)
		require.NoError(t, err)
		raw, err := s.ReadState(ctx)
		require.NoError(t, err)
		require.NoError(t, json.Unmarshal(raw.JSON, &st))
	}
	_, err := s.Step(ctx, 1, true)
	require.NoError(t, err)
	require.NoError(t, s.Key(ctx, "press", " ", 0))
	read()
	require.Equal(t, 0, st.KeyPresses, "a press with no frame between down and up is invisible to the loop")

	require.NoError(t, s.Key(ctx, "press", " ", 3))
	read()
	require.Equal(t, 1, st.KeyPresses)
	require.Equal(t, 3, st.KeyFrames)
	require.Equal(t, 6, s.Frame(), "1, the first read 1, 3 held, the second read 1")

	require.NoError(t, s.Click(ctx, target.Target{At: []float64{50, 50}}, 3))
	read()
	require.Equal(t, 1, st.Clicks)
	require.Equal(t, 3, st.ButtonFrames)

	require.NoError(t, s.Drag(ctx, target.Target{At: []float64{20, 20}}, target.Target{At: []float64{120, 20}}, 4, 1))
	read()
	require.Equal(t, 2, st.Clicks)
	require.Equal(t, 3+5, st.ButtonFrames, "a frame after the press and after each of 4 moves")
	require.Equal(t, []float64{50, 50, 50, 20, 45, 70, 95, 120}, st.Path)
}

// TestLateLoadsLandBeforeTheNextFrame: what a page asks for while it runs
// (in a frame, in a timer, in an input handler) is there by the next frame,
// however the frames are chunked, even though the harness skips its network
// wait between chunks while the page makes no network-capable call.
func TestLateLoadsLandBeforeTheNextFrame(t *testing.T) {
	ctx := context.Background()
	type loads struct{ Frame, Fetched, Image, Timer, Handler int }
	var lastWaits int
	run := func(chunks []int) loads {
		s := open(t, filepath.Join("testdata", "lateloads", "index.html"))
		for i, n := range chunks {
			if i == 2 {
				require.NoError(t, s.Key(ctx, "press", "a", 0))
			}
			_, err := s.Step(ctx, n, false)
			require.NoError(t, err)
		}
		raw, err := s.ReadState(ctx)
		require.NoError(t, err)
		var l loads
		require.NoError(t, json.Unmarshal(raw.JSON, &l))
		lastWaits = s.waits
		return l
	}
	// Frame 1 is the first stepped frame; timers due in frame 30 run at the
	// start of frame 31, so their fetch lands for frame 32. The key press
	// comes after 2 + 3 = 5 frames.
	want := loads{Frame: 60, Fetched: 11, Image: 21, Timer: 32, Handler: 6}
	require.Equal(t, want, run([]int{2, 3, 55}))
	// The waits: after the key press, and after each of the frames 10, 20
	// and 31 that asked for something. None before the first frame: the
	// load's own wait saw the network quiet, and nothing happened since.
	require.Equal(t, 4, lastWaits, "frames that ask for nothing do not wait")
	ones := []int{2, 3}
	for range 55 {
		ones = append(ones, 1)
	}
	require.Equal(t, want, run(ones))
}

// TestHarnessOwnCallsDoNotDirtyTheNetwork: the runtime's own insertions
// (the style that hides carets, added when input settles) are not the
// page's network-capable calls, so a click on a page that loads nothing
// is followed by frames stepped without a network wait. Before, each
// document's first settle made its next Step wait about 25 ms.
func TestHarnessOwnCallsDoNotDirtyTheNetwork(t *testing.T) {
	ctx := context.Background()
	s := open(t, filepath.Join("testdata", "input", "index.html"))
	_, err := s.Step(ctx, 1, false)
	require.NoError(t, err)
	require.NoError(t, s.Click(ctx, target.Target{At: []float64{50, 50}}, 2))
	_, err = s.Step(ctx, 3, false)
	require.NoError(t, err)
	require.Equal(t, 0, s.waits, "no Step waited for the network")
	var hidden bool
	require.NoError(t, s.Eval(ctx, time.Second, "!!document.getElementById('__wp-no-caret')", &hidden))
	require.True(t, hidden, "the caret style was added")
}

// TestCaptureShowsTheLastDrawnFrame: a canvas capture shows the frame just
// drawn, with no wait for real frames before the screenshot, even when the
// GPU takes longer than a frame to draw it. Each frame of the page fills
// the canvas with its own colour (frame mod 7); frames are stepped 1 to 3
// at a time so that a capture of any earlier frame would show.
func TestCaptureShowsTheLastDrawnFrame(t *testing.T) {
	ctx := context.Background()
	s := open(t, filepath.Join("testdata", "capture", "index.html"))
	var got, want []string
	for i := range 21 {
		_, err := s.Step(ctx, 1+i%3, true)
		require.NoError(t, err)
		px, err := s.CanvasPixels(ctx)
		require.NoError(t, err)
		img, err := png.Decode(bytes.NewReader(px.PNG))
		require.NoError(t, err)
		r, g, b, _ := img.At(img.Bounds().Dx()/2, img.Bounds().Dy()/2).RGBA()
		k := px.Frame % 7
		want = append(want, fmt.Sprintf("frame %d: %d%d%d", px.Frame, k&1, k>>1&1, k>>2&1))
		bit := func(v uint32) int {
			if v > 0x8000 {
				return 1
			}
			return 0
		}
		got = append(got, fmt.Sprintf("frame %d: %d%d%d", px.Frame, bit(r), bit(g), bit(b)))
	}
	require.Equal(t, want, got)
}

// TestRestartsWatchCompilationOnlyForDynamicImports: the debugger reports
// compiled scripts on a session's first load, and on later loads only when
// a page's scripts could import a module with import(), which the load
// event does not wait for. Either way the page's scene, built by a script
// its page imports (statically in the classic page, with await import()
// in the module page), is there before the first frame of every load.
func TestRestartsWatchCompilationOnlyForDynamicImports(t *testing.T) {
	ctx := context.Background()
	for _, tc := range []struct {
		page    string
		watched int
	}{
		{"classic-0.149.0.html", 1},
		{"module-0.170.0.html", 4},
	} {
		t.Run(tc.page, func(t *testing.T) {
			s := open(t, filepath.Join("testdata", "colors", tc.page))
			for i := range 4 {
				if i > 0 {
					require.NoError(t, s.Restart(ctx, 0))
				}
				_, err := s.Step(ctx, 1, false)
				require.NoError(t, err)
				o, err := s.Object(ctx, "teal")
				require.NoError(t, err, "load %d", i)
				require.Equal(t, "#00ffff", o.Color, "load %d", i)
			}
			require.Equal(t, tc.watched, s.watchedLoads, "loads watched")
			require.Equal(t, tc.watched > 1, s.mayImport.Load())
		})
	}
}

// TestBlobsMadeByReadingCountTowardsTheBudget: Blobs a page makes by
// reading a body (Response.blob) count towards its Blob budget like
// constructed ones: four of 60 MiB fit in 256 MiB, the fifth is refused
// with QuotaExceededError, sixteen of 1 MiB fill the rest, and then an
// encoded canvas is refused too (toBlob calls back with null,
// convertToBlob rejects).
func TestBlobsMadeByReadingCountTowardsTheBudget(t *testing.T) {
	ctx := context.Background()
	s := open(t, filepath.Join("testdata", "blobs", "index.html"))
	require.Equal(t, int64(256<<20), s.page.BlobBudget())
	var result json.RawMessage
	for deadline := time.Now().Add(60 * time.Second); time.Now().Before(deadline); time.Sleep(50 * time.Millisecond) {
		require.NoError(t, s.Eval(ctx, 10*time.Second, "window.result", &result))
		if string(result) != "null" {
			break
		}
	}
	require.JSONEq(t, `{"blobs":4,"err":"QuotaExceededError","small":16,"toBlob":"null","convert":"QuotaExceededError"}`, string(result))
}

// TestStorageEstimateTellsTheEnforcedQuota: navigator.storage.estimate()
// reports the quota the harness sets for the page's origin (its Blob
// budget, 256 MiB), not Chromium's default 10 GiB.
func TestStorageEstimateTellsTheEnforcedQuota(t *testing.T) {
	s := open(t, filepath.Join("testdata", "keys.html"))
	var quota float64
	require.NoError(t, s.eval(context.Background(), 10*time.Second, "navigator.storage.estimate().then((e) => e.quota)", true, &quota))
	require.Equal(t, float64(256<<20), quota)
}

// TestIdleWaitsFinish: a script added after load and lazy images that never
// come into view are waited for only while they actually load, so no idle
// wait runs out its allowance (which would be logged).
func TestIdleWaitsFinish(t *testing.T) {
	for _, page := range []string{"late-script.html", "lazy.html", "lazy-js.html"} {
		t.Run(page, func(t *testing.T) {
			ctx := context.Background()
			var logs bytes.Buffer
			logger := slog.New(slog.NewTextHandler(&logs, &slog.HandlerOptions{Level: slog.LevelWarn}))
			s, err := Open(ctx, shared.Browser, shared.Resolver, filepath.Join("testdata", "idle", page),
				Config{Seed: 1, FPS: 60, Width: 800, Height: 600, SkipDraw: true, CallTimeout: 5 * time.Second, Logger: logger})
			require.NoError(t, err)
			defer s.Close()
			_, err = s.Step(ctx, 120, false)
			require.NoError(t, err)
			raw, err := s.ReadState(ctx)
			require.NoError(t, err)
			var st struct{ Frame, Ran int }
			require.NoError(t, json.Unmarshal(raw.JSON, &st))
			require.Equal(t, 120, st.Frame)
			if page == "late-script.html" {
				require.Equal(t, 1, st.Ran, "the added script ran")
			}
			require.NotContains(t, logs.String(), "idle wait ran out")
		})
	}
}

// TestInputSettlesOnTheEventsThePageSaw: after an action the harness waits
// only until the page has received the trusted events it was sent, not for
// real frames; input that lands where the page cannot count it (an iframe)
// falls back to two real frames and still arrives before the next read.
func TestInputSettlesOnTheEventsThePageSaw(t *testing.T) {
	ctx := context.Background()
	s := open(t, filepath.Join("testdata", "input", "index.html"))
	_, err := s.Step(ctx, 1, false)
	require.NoError(t, err)

	type seen struct {
		PadClicks   int `json:"padClicks"`
		PadMoves    int `json:"padMoves"`
		Keys        int `json:"keys"`
		FrameClicks int `json:"frameClicks"`
	}
	read := func() seen {
		t.Helper()
		st, err := s.ReadState(ctx)
		require.NoError(t, err)
		var v seen
		require.NoError(t, json.Unmarshal(st.JSON, &v))
		return v
	}

	require.NoError(t, s.Click(ctx, target.Target{At: []float64{100, 100}}, 0))
	require.NoError(t, s.Move(ctx, target.Target{At: []float64{120, 140}}))
	require.NoError(t, s.Key(ctx, "press", "a", 0))
	require.NoError(t, s.Key(ctx, "press", "b", 2))
	require.Equal(t, seen{PadClicks: 1, PadMoves: 2, Keys: 2}, read())
	require.Equal(t, 5, s.input.settles, "after the click, the move and each key, and before the held key's frames")
	require.Equal(t, 0, s.input.framesWaited, "every event was counted as it arrived: no real frame was waited for")
	require.Equal(t, map[string]int{"mousemove": 2, "mousedown": 1, "mouseup": 1, "keydown": 2, "keyup": 2, "wheel": 0}, s.input.seen)

	require.NoError(t, s.Click(ctx, target.Target{Selector: "#inner"}, 0))
	require.Equal(t, 1, read().FrameClicks, "the click inside the iframe arrived")
	require.Equal(t, 2, s.input.framesWaited, "the parent could not count it: two real frames")

	require.NoError(t, s.Click(ctx, target.Target{At: []float64{100, 100}}, 0))
	require.Equal(t, 2, read().PadClicks)
	require.Equal(t, 2, s.input.framesWaited, "counting resumes from what the page saw")

	require.NoError(t, s.Reload(ctx))
	require.Equal(t, inputLedger{}, s.input, "a new document starts a new count")
}

func TestInputLedgerWant(t *testing.T) {
	var l inputLedger
	require.Empty(t, l.want())
	l = inputLedger{seen: map[string]int{"mousemove": 4, "mousedown": 1}}
	for range 3 {
		l.sent("mousemove")
	}
	l.sent("mousedown")
	l.sent("keydown")
	l.sent("")
	require.Equal(t, map[string]int{"mousemove": 5, "mousedown": 2, "keydown": 1}, l.want(),
		"moves sent back to back may arrive as one event; the others are counted one for one")
}

// TestObjectColoursRoundInEveryThreeVersion: an object's colour is the
// nearest #rrggbb whatever three.js draws it: r128 and r149 truncate in
// getHex (hue 1/6 at full saturation read #feff00 there), r170 rounds and
// converts from its linear working space.
func TestObjectColoursRoundInEveryThreeVersion(t *testing.T) {
	ctx := context.Background()
	for _, page := range []string{"classic-0.128.0.html", "classic-0.149.0.html", "module-0.170.0.html"} {
		t.Run(page, func(t *testing.T) {
			s := open(t, filepath.Join("testdata", "colors", page))
			_, err := s.Step(ctx, 2, true)
			require.NoError(t, err)
			for name, want := range map[string]string{"light": "#ffff00", "teal": "#00ffff", "blue": "#336699"} {
				o, err := s.Object(ctx, name)
				require.NoError(t, err)
				require.Equal(t, want, o.Color, name)
			}
		})
	}
}

// TestPreludesRunAfterTheRuntimeBeforeThePage: a prelude sees the runtime
// (the virtual clock at 0) and the page sees what the prelude left, also
// after a restart, which injects the runtime anew.
func TestPreludesRunAfterTheRuntimeBeforeThePage(t *testing.T) {
	ctx := context.Background()
	prelude := `window.__preludeSaw = { runtime: Object.prototype.hasOwnProperty.call(window, '__wp'), now: performance.now() };`
	s, err := Open(ctx, shared.Browser, shared.Resolver, filepath.Join("testdata", "prelude.html"),
		Config{Seed: 1, FPS: 60, Width: 800, Height: 600, SkipDraw: true, CallTimeout: 20 * time.Second, Preludes: []string{prelude}})
	require.NoError(t, err)
	t.Cleanup(s.Close)
	want := `{"prelude":{"runtime":true,"now":0}}`
	for _, restart := range []bool{false, true} {
		if restart {
			require.NoError(t, s.Restart(ctx, 30))
		}
		raw, err := s.ReadState(ctx)
		require.NoError(t, err)
		require.JSONEq(t, want, string(raw.JSON), "restarted: %v", restart)
	}
}

// TestBeforeUnloadDoesNotKeepThePage: a page that asks to stay when left
// (beforeunload), after a click that lets Chromium show that dialog, is
// still reloaded and restarted between probes; the dialog is recorded.
func TestBeforeUnloadDoesNotKeepThePage(t *testing.T) {
	ctx := context.Background()
	s := open(t, filepath.Join("testdata", "beforeunload.html"))
	for i, again := range []func() error{func() error { return s.Reload(ctx) }, func() error { return s.Restart(ctx, 0) }} {
		_, err := s.Step(ctx, 2, false)
		require.NoError(t, err)
		require.NoError(t, s.Click(ctx, target.Target{At: []float64{100, 75}}, 0))
		require.Equal(t, 1, state(t, s).Clicks)
		require.NoError(t, again(), "attempt %d", i)
		require.True(t, s.Loaded(), "attempt %d", i)
		_, err = s.Step(ctx, 1, false)
		require.NoError(t, err)
		require.Equal(t, 0, state(t, s).Clicks, "attempt %d: the page started again", i)
	}
	require.Contains(t, s.Log().Dialogs, Dialog{Type: "beforeunload", Message: ""})
}

// TestStorageHasTheBlobBudget: IndexedDB and the Cache API of a page's
// context keep their bytes in the browser process, outside the renderer's
// memory cap, under an origin quota of 10 GiB by default. The page's
// quota is its Blob budget (256 MiB): 15 writes of 16 MiB fit, the 16th is
// refused, in IndexedDB and in the Cache API alike.
func TestStorageHasTheBlobBudget(t *testing.T) {
	require.Equal(t, int64(256<<20), shared.Browser.BlobBudget())
	s := open(t, filepath.Join("testdata", "storage_fill.html"))
	var got struct {
		IDB        int    `json:"idb"`
		IDBError   string `json:"idbError"`
		Cache      int    `json:"cache"`
		CacheError string `json:"cacheError"`
	}
	require.NoError(t, s.Eval(context.Background(), 60*time.Second, "fill()", &got))
	require.Equal(t, 15, got.IDB)
	require.Equal(t, "QuotaExceededError", got.IDBError)
	require.Equal(t, 15, got.Cache)
	require.Equal(t, "QuotaExceededError", got.CacheError)
}
