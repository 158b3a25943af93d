package session

import (
	"context"
	"errors"
	"fmt"
	"path/filepath"
	"testing"
	"time"

	"github.com/stretchr/testify/require"
	"github.com/worldprobe/worldprobe/internal/target"
)

// names lists the name of each body, text or object a page call returned.
func names[T any](list []T, name func(T) string) []string {
	out := []string{}
	for _, v := range list {
		out = append(out, name(v))
	}
	return out
}

// bodyNames lists the names of the bodies Bodies returned.
func bodyNames(bodies []any) []string {
	return names(bodies, func(b any) string { return b.(map[string]any)["name"].(string) })
}

// textObjects lists the object each of a panel's texts came from.
func textObjects(p map[string]any) []string {
	return names(p["texts"].([]any), func(t any) string { return t.(map[string]any)["object"].(string) })
}

// TestSceneWalkBounds: the bounds of the runtime's scene walks (object's
// bbox, tagged, contact's bodies and solids, panel's texts, samples and
// occluders) on testdata/walkbounds.html, exactly: a walk keeps at most
// 200,000 objects on its stack (a parent's first children are the ones
// left out) and visits at most 200,000; each gathers at most 1,000 tagged
// objects, 10,000 bodies, 100,000 solids or 10,000 texts; children that
// claim to number 2**31 end there too, those that hold nothing after
// 400,000 entries read; a getter that throws loses its object's subtree,
// not the walk. object() by name finds a name 20,000 levels deep, and
// returns past a hollow scene (children that claim 2**31 entries and
// hold none), as the scene summary of that scene does: both read 400,000
// entries at most. Then the same with getters on
// Object.prototype named like the fields a walk could read from its own
// objects: nothing changes.
func TestSceneWalkBounds(t *testing.T) {
	ctx := context.Background()
	s := open(t, filepath.Join("testdata", "walkbounds.html"))
	_, err := s.Step(ctx, 1, true)
	require.NoError(t, err)

	check := func(t *testing.T) {
		// big: c0 (left off the stack) and c200000 (past 200,000
		// visits) are not walked; c1 and c199999 are.
		tagged, err := s.Tagged(ctx, "edge", "")
		require.NoError(t, err)
		require.Equal(t, []string{"c1", "c199999"}, names(tagged, func(o ObjectInfo) string { return o.Name }))
		o, err := s.Object(ctx, "big")
		require.NoError(t, err)
		require.Equal(t, &Bounds{Min: []float64{0.5, -0.5, -5}, Max: []float64{2.5, 0.5, -5}}, o.BBox)
		bodies, err := s.Bodies(ctx, ObjectRef{Name: "c1"}, true)
		require.NoError(t, err)
		require.Equal(t, []string{"c1", "c199999"}, bodyNames(bodies))
		bodies, err = s.Bodies(ctx, ObjectRef{Name: "big"}, false)
		require.NoError(t, err)
		require.Equal(t, []any{
			[]any{0.5, -0.5, -5.0, 1.0, 0.0, 0.0, 0.0, 1.0, 0.0, 0.0, 0.0, 0.0},
			[]any{1.5, -0.5, -5.0, 1.0, 0.0, 0.0, 0.0, 1.0, 0.0, 0.0, 0.0, 0.0},
		}, bodies[0].(map[string]any)["solids"])
		p, err := s.Panel(ctx, ObjectRef{Name: "big"})
		require.NoError(t, err)
		require.Equal(t, "one\nlast", p["text"])
		require.Equal(t, []string{"c1", "c199999"}, textObjects(p))
		require.Equal(t, 18.0, p["samples"], "9 samples of each of the two walked squares")

		// many: each walk's own cap.
		tagged, err = s.Tagged(ctx, "many", "")
		require.NoError(t, err)
		require.Equal(t, 1000, len(tagged))
		require.Equal(t, "m999", tagged[999].Name)
		bodies, err = s.Bodies(ctx, ObjectRef{Name: "m0"}, true)
		require.NoError(t, err)
		require.Equal(t, 10000, len(bodies))
		require.Equal(t, "m9999", bodyNames(bodies)[9999])
		bodies, err = s.Bodies(ctx, ObjectRef{Name: "many"}, false)
		require.NoError(t, err)
		solids := bodies[0].(map[string]any)["solids"].([]any)
		require.Equal(t, 100000, len(solids))
		require.Equal(t, 98.5, solids[99999].([]any)[0], "m99999, at x = 99")
		p, err = s.Panel(ctx, ObjectRef{Name: "many"})
		require.NoError(t, err)
		objects := textObjects(p)
		require.Equal(t, 10000, len(objects))
		require.Equal(t, "m9999", objects[9999])

		// liar: 2**31 children, each the same mesh.
		tagged, err = s.Tagged(ctx, "echo", "")
		require.NoError(t, err)
		require.Equal(t, 1000, len(tagged))
		o, err = s.Object(ctx, "liar")
		require.NoError(t, err)
		require.Equal(t, &Bounds{Min: []float64{-0.5, -0.5, -5}, Max: []float64{0.5, 0.5, -5}}, o.BBox)

		// thorny: a getter that throws loses that object's subtree, not
		// the walk.
		tagged, err = s.Tagged(ctx, "thorn", "")
		require.NoError(t, err)
		require.Equal(t, []string{"thornA", "thornB", "thornD"}, names(tagged, func(o ObjectInfo) string { return o.Name }))
		o, err = s.Object(ctx, "thorny")
		require.NoError(t, err)
		require.Equal(t, &Bounds{Min: []float64{-0.5, -0.5, -5}, Max: []float64{1.5, 0.5, -5}}, o.BBox, "thornA and thornB; thornC's geometry throws, and thornD is lost with it")

		// hollow: 2**31 children, all empty but the last (tip): each
		// walk reads 400,000 of them and returns.
		tagged, err = s.Tagged(ctx, "hollow", "")
		require.NoError(t, err)
		require.Equal(t, []string{"tip"}, names(tagged, func(o ObjectInfo) string { return o.Name }))
		o, err = s.Object(ctx, "hollow")
		require.NoError(t, err)
		require.Equal(t, &Bounds{Min: []float64{6.5, -0.5, -5}, Max: []float64{7.5, 0.5, -5}}, o.BBox)
		bodies, err = s.Bodies(ctx, ObjectRef{Tag: true, Role: "hollow"}, true)
		require.NoError(t, err)
		require.Equal(t, []string{"tip"}, bodyNames(bodies))
		p, err = s.Panel(ctx, ObjectRef{Name: "hollow"})
		require.NoError(t, err)
		require.Equal(t, "tip text", p["text"])
		require.Equal(t, false, p["in_view"], "tip is right of the 90° view")

		// object() by name: deep, 20,000 levels, before hollow; behind,
		// in the scene after hollow; nowhere, in no scene. Each returns
		// within the call timeout (20 s), hollow read 400,000 entries
		// far, first to last (so its tip is not found by name).
		o, err = s.Object(ctx, "bottom")
		require.NoError(t, err)
		require.Equal(t, []any{"bottom", []float64{3, 1, -5}, &Bounds{Min: []float64{2.5, 0.5, -5}, Max: []float64{3.5, 1.5, -5}}}, []any{o.Name, o.Position, o.BBox})
		start := time.Now()
		o, err = s.Object(ctx, "behind")
		require.NoError(t, err)
		require.Equal(t, []any{"behind", []float64{-3, 0, -5}, &Bounds{Min: []float64{-3.5, -0.5, -5}, Max: []float64{-2.5, 0.5, -5}}}, []any{o.Name, o.Position, o.BBox})
		t.Logf("object(\"behind\"), past hollow: %v", time.Since(start))
		start = time.Now()
		_, err = s.Object(ctx, "nowhere")
		require.ErrorIs(t, err, target.ErrNotFound)
		t.Logf("object(\"nowhere\"): %v", time.Since(start))
		_, err = s.Object(ctx, "tip")
		require.ErrorIs(t, err, target.ErrNotFound, "tip is hollow's entry 2**31-1, past the 400,000 read")
	}
	t.Run("bounds", check)

	// room: the walls are not walked, so nothing hides the screen; the
	// second wall moved to child 199999 hides it.
	p, err := s.Panel(ctx, ObjectRef{Name: "screen"})
	require.NoError(t, err)
	require.Equal(t, []any{9.0, 0.0, false}, []any{p["samples"], p["hidden"], p["occluded"]})
	require.Equal(t, "hello", p["text"])

	var forged []string
	require.NoError(t, s.Eval(ctx, 0, `['truncated', 'visited', 'seen', 'enough', 'more', 'limit', 'depth', 'skip', 'stop', 'done', 'state', 'result', 'bounds', 'opts']
		.map((p) => { Object.defineProperty(Object.prototype, p, { get() { return 'forged'; }, set(v) {}, configurable: true }); return p; })`, &forged))
	require.Len(t, forged, 14)
	t.Run("forged prototype", check)

	var moved bool
	require.NoError(t, s.Eval(ctx, 0, `window.moveWall()`, &moved))
	require.True(t, moved)
	p, err = s.Panel(ctx, ObjectRef{Name: "screen"})
	require.NoError(t, err)
	require.Equal(t, []any{9.0, 9.0, true}, []any{p["samples"], p["hidden"], p["occluded"]})

	// The summary of hollow, once rendered: its root alone, the walk cut
	// short after 400,000 empty entries read; with the getters (and
	// setters) on Object.prototype, then without them.
	var rendered bool
	require.NoError(t, s.Eval(ctx, 0, `renderer.render(hollow, camera), true`, &rendered))
	require.True(t, rendered)
	summary := func(t *testing.T) {
		start := time.Now()
		sc, err := s.ReadScene(ctx)
		require.NoError(t, err)
		t.Logf("summary of hollow: %v", time.Since(start))
		require.Equal(t, Scene{
			Scenes: 8, Renderers: 1, RenderCalls: 2, Objects: 1,
			Camera:   &Camera{Type: "PerspectiveCamera", Name: "eye", Position: []float64{0, 0, 0}},
			Rendered: true, Truncated: true,
		}, sc)
	}
	t.Run("summary, forged prototype", summary)
	var removed int
	require.NoError(t, s.Eval(ctx, 0, `['truncated', 'visited', 'seen', 'enough', 'more', 'limit', 'depth', 'skip', 'stop', 'done', 'state', 'result', 'bounds', 'opts']
		.filter((p) => delete Object.prototype[p]).length`, &removed))
	require.Equal(t, 14, removed)
	t.Run("summary", summary)
}

// openBigScene opens testdata/bigscene.html and draws its first frame.
func openBigScene(b *testing.B) *Session {
	b.Helper()
	ctx := context.Background()
	s, err := Open(ctx, shared.Browser, shared.Resolver, filepath.Join("testdata", "bigscene.html"), Config{Seed: 1, FPS: 60, Width: 800, Height: 600, SkipDraw: true, CallTimeout: 60 * time.Second})
	require.NoError(b, err)
	b.Cleanup(s.Close)
	_, err = s.Step(ctx, 1, true)
	require.NoError(b, err)
	return s
}

// BenchmarkSceneWalks times the page calls that walk the scene, one page
// call an op, on testdata/bigscene.html (three.js, 20,001 meshes):
// object's bbox (the 20,000 boxes' group), tagged (a role no object has:
// the whole scene walked), the group's 20,000 solids, one box's body with
// the 199 other named boxes and the probe, and a panel in front of the
// boxes (its texts, its solids, then 20,000 occluders tested for each of
// its 9 samples).
func BenchmarkSceneWalks(b *testing.B) {
	ctx := context.Background()
	s := openBigScene(b)
	for _, c := range []struct {
		name string
		call func() error
	}{
		{"bbox", func() error {
			o, err := s.Object(ctx, "grid")
			if err == nil && o.BBox == nil {
				err = errors.New("no bbox")
			}
			return err
		}},
		{"tagged", func() error { _, err := s.Tagged(ctx, "nothing", ""); return err }},
		{"solids", func() error { _, err := s.Bodies(ctx, ObjectRef{Name: "grid"}, false); return err }},
		{"bodies", func() error {
			bodies, err := s.Bodies(ctx, ObjectRef{Name: "b0"}, true)
			if err == nil && len(bodies) != 201 {
				err = fmt.Errorf("%d bodies, want 201 (b0, the 199 other named boxes, the probe)", len(bodies))
			}
			return err
		}},
		{"panel", func() error {
			p, err := s.Panel(ctx, ObjectRef{Name: "probe"})
			if err == nil && (p["text"] != "probe" || p["samples"] != 9.0 || p["hidden"] != 0.0) {
				err = fmt.Errorf("panel %v", p)
			}
			return err
		}},
	} {
		b.Run(c.name, func(b *testing.B) {
			for i := 0; i < b.N; i++ {
				if err := c.call(); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}

// BenchmarkSceneWalksInPage makes the calls of BenchmarkSceneWalks ten
// times in one evaluation (an op is the ten), so the DevTools round trip
// and the decoding of the result in Go count once, not ten times; empty
// is an evaluation that calls nothing, search looks for a name no object
// has (object()'s search by name, the whole scene walked; its result is
// null), summary is the scene summary.
func BenchmarkSceneWalksInPage(b *testing.B) {
	ctx := context.Background()
	s := openBigScene(b)
	for _, c := range []struct{ name, call string }{
		{"empty", ""},
		{"bbox", `objectInfo("grid")`},
		{"tagged", `taggedInfo("nothing", "")`},
		{"solids", `bodiesInfo({name: "grid"}, false)`},
		{"bodies", `bodiesInfo({name: "b0"}, true)`},
		{"panel", `panelInfo({name: "probe"})`},
		{"search", `objectInfo("nothing")`},
		{"summary", `sceneSummary()`},
	} {
		expr := `(() => { let n = 0; for (let i = 0; i < 10; i++) n += 1; return n; })()`
		if c.call != "" {
			expr = `(() => { let n = 0; for (let i = 0; i < 10; i++) n += window.__wp.` + c.call + `.length; return n; })()`
		}
		b.Run(c.name, func(b *testing.B) {
			for i := 0; i < b.N; i++ {
				var n int
				if err := s.Eval(ctx, time.Minute, expr, &n); err != nil {
					b.Fatal(err)
				}
				if n < 10 {
					b.Fatalf("%s: %d characters in ten results", c.call, n)
				}
			}
		})
	}
}
