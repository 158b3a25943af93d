package trial

import (
	"context"
	"fmt"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/worldprobe/worldprobe/internal/result"
)

// xrWorldContract checks the XR assertions on internal/xr/testdata/xr-world.html:
// world transforms under two rotated, scaled parents, semantic tags, the
// user's view and the XR event log over a pinch.
const xrWorldContract = `version: 1
probes:
  - name: world_frame
    level: state
    steps:
      - step: 3
      - assert: object("gem").position == [1.0, 1.0, -2.5]
      - assert: object("gem").quaternion == [0.5, 0.5, -0.5, 0.5]
      - assert: object("gem").scale == [2.0, 2.0, 2.0] && object("gem").forward == [0.0, -1.0, 0.0]
      - assert: 'object("gem").bbox == {"min": [0.8, 0.7, -2.6], "max": [1.2, 1.3, -2.4]}'
  - name: tags
    level: state
    steps:
      - step: 3
      - assert: tagged("grabbable").map(o, o.name) == ["gem", "ball"]
      - assert: 'object({"role": "surface"}).name == "table"'
      - assert: 'object({"role": "grabbable", "name": "ball"}).position == [0.0, 0.85, -1.0]'
      - assert: 'above(object({"name": "ball"}), object("table")) && touching(object("ball"), object("table"), 0.0)'
      - assert: 'object({"role": "grabbable"}).name == "gem"'
      - assert: size(tagged("nothing")) == 0
  - name: view
    level: state
    steps:
      - step: 3
      # the 0.5 m panel 1 m ahead, 90° vertical field of view, 4:3 eye:
      # 0.375 × 0.5 of the NDC square, 0.046875 of the view
      - assert: inView("panel") && coverage("panel") == 0.046875
      - assert: '!inView("marker") && coverage("marker") == 0.0'
      - assert: inView("marker")
      - assert: facing(xr().head, xr().head.forward, object("panel"), 0.001) && withinReach(xr().head, object("ball"), 1.3)
      - head: {position: [0, 1.6, 0], orientation: [0, 1, 0, 0]}
      - assert: inView("marker") && !inView("panel") && xr().head.forward == [0.0, 0.0, 1.0]
  - name: pinch
    level: transition
    steps:
      - step: 2
      - hand: {hand: right, position: [0.2, 1.3, -0.4]}
      - hand: {hand: right, pinch: 1}
      - hand: {hand: right, pinch: 0}
      - assert: s.selects == 1
      - assert: xr().presenting && xr().mode == "immersive-vr" && xr().inputs.map(i, i.hand + ":" + i.input) == ["left:hand", "right:hand"]
      - assert: xrEvents().filter(e, e.type.startsWith("select")).map(e, e.type + ":" + e.hand + ":" + string(int(e.frame))) == ["select:right:%d", "selectstart:right:%d", "selectend:right:%d"]
`

// TestXRAssertions: the XR assertions judge a three.js VR app through the
// contract engine, with the headset moved and the right hand pinched by
// head and hand steps; every verdict and message is the same over three
// runs.
func TestXRAssertions(t *testing.T) {
	page, err := filepath.Abs(filepath.Join("..", "xr", "testdata", "xr-world.html"))
	require.NoError(t, err)
	// After the settle frame of the hand move (frame 3) the fingers close
	// in frame 4 and the pinch is reported in frame 5: IWER fires select
	// and selectstart there; opening ends it in frame 6 (selectend), the
	// fingers parting a frame later.
	contractText := fmt.Sprintf(xrWorldContract, 5, 5, 6)
	run := func(xrLine string) (*result.Trial, error) {
		dir := filepath.Join(t.TempDir(), "xr", "world")
		tk, c := writeTask(t, dir, map[string]string{
			"task.yaml":     "id: xr/world\ntitle: XR world\ncategory: xr\ndifficulty: D1\nviewport: {width: 800, height: 600}\n" + xrLine + "state:\n  - {path: presenting, type: boolean}\n  - {path: frames, type: number}\n  - {path: selects, type: number}\n",
			"brief.md":      "# XR world\n\nExpose the state.\n",
			"contract.yaml": contractText,
		})
		r := &Runner{Browser: shared.Browser, Resolver: shared.Resolver, SkipDraw: true, Load: func() float64 { return 0.2 }}
		return r.Run(context.Background(), Input{Key: "k", Task: tk, Contract: c, Page: page, Model: "m", Candidate: "c", Dir: t.TempDir()})
	}
	verdicts := func(tr *result.Trial) []string {
		var out []string
		for _, a := range tr.Assertions {
			if a.Probe == "interface" {
				continue
			}
			out = append(out, fmt.Sprintf("%s:%d %s %s", a.Probe, a.Line, a.Status, a.Message))
		}
		return out
	}
	// Three assertions are meant not to pass: a tag two objects carry, the
	// marker behind the user before the head turns, and nothing else.
	want := []string{
		"world_frame:7 pass ",
		"world_frame:8 pass ",
		"world_frame:9 pass ",
		"world_frame:10 pass ",
		"tags:15 pass ",
		"tags:16 pass ",
		"tags:17 pass ",
		"tags:18 pass ",
		`tags:19 error object({"role": "grabbable"}): 2 scene objects are tagged {role: "grabbable", name: ""}: name one (tagged() lists them): target not found`,
		"tags:20 pass ",
		"view:27 pass ",
		"view:28 pass ",
		`view:29 fail inView("marker") is false`,
		"view:30 pass ",
		"view:32 pass ",
		"pinch:40 pass ",
		"pinch:41 pass ",
		"pinch:42 pass ",
	}
	for i := range 3 {
		tr, err := run("xr: metaQuest3\n")
		require.NoError(t, err)
		require.Equal(t, result.OutcomeOK, tr.Outcome, "%s: %s", tr.CrashKind, tr.CrashMessage)
		got := verdicts(tr)
		require.Equal(t, want, got, "run %d:\n%s", i, strings.Join(got, "\n"))
	}

	// Without xr: the page has no headset: xr() stops the run as the
	// task's fault, never scored against the page.
	flat, err := filepath.Abs(filepath.Join("..", "inspect", "testdata", "pages", "ok.html"))
	require.NoError(t, err)
	page = flat
	contractText = "version: 1\nprobes:\n  - name: looks\n    level: state\n    steps:\n      - step: 2\n      - assert: xr().presenting\n"
	_, err = run("")
	require.EqualError(t, err, "running the contract of xr/world: probe looks: assert: the page has no XR headset: set xr: in the task's task.yaml (docs/xr.md)")
}

// TestXRProjectionUsesTheEyes: while a page presents an XR session, an
// object's screen position (object().screen, objectPixel) comes from the
// eyes' cameras and viewports, not from the camera the page passed to
// render. three.js r147 leaves that camera with the page's own 70°
// projection; a cube 40° below the horizon is outside it but inside the
// left eye's 90° view, drawn at about (419, 552) of the 800×600 canvas:
// eye space (0.0315, −0.42, −0.5) for IWER's 63 mm eyes, NDC (0.04725,
// −0.84) with the 4:3 aspect, and the left eye's viewport the whole canvas
// (IWER shows one eye unless stereo is switched on).
func TestXRProjectionUsesTheEyes(t *testing.T) {
	page, err := filepath.Abs(filepath.Join("..", "xr", "testdata", "three-r147-vr.html"))
	require.NoError(t, err)
	dir := filepath.Join(t.TempDir(), "xr", "old-three")
	tk, c := writeTask(t, dir, map[string]string{
		"task.yaml": "id: xr/old-three\ntitle: old three\ncategory: xr\ndifficulty: D1\nviewport: {width: 800, height: 600}\nxr: metaQuest3\nstate:\n  - {path: presenting, type: boolean}\n",
		"brief.md":  "# old three\n\nExpose the state.\n",
		"contract.yaml": `version: 1
probes:
  - name: eyes
    level: state
    steps:
      - step: 3
      - assert: s.presenting && inView("cube")
      - assert: object("cube").on_screen
      - assert: object("cube").screen[0] > 410.0 && object("cube").screen[0] < 428.0 && object("cube").screen[1] > 546.0 && object("cube").screen[1] < 558.0
      - assert: objectPixel("cube").r > 200 && objectPixel("cube").g < 60
`,
	})
	r := &Runner{Browser: shared.Browser, Resolver: shared.Resolver, SkipDraw: true, Load: func() float64 { return 0.2 }}
	tr, err := r.Run(context.Background(), Input{Key: "k", Task: tk, Contract: c, Page: page, Model: "m", Candidate: "c", Dir: t.TempDir()})
	require.NoError(t, err)
	require.Equal(t, result.OutcomeOK, tr.Outcome, "%s: %s", tr.CrashKind, tr.CrashMessage)
	var got []string
	for _, a := range tr.Assertions {
		if a.Probe == "eyes" {
			got = append(got, fmt.Sprintf("%d %s %s", a.Line, a.Status, a.Message))
		}
	}
	require.Equal(t, []string{"7 pass ", "8 pass ", "9 pass ", "10 pass "}, got)
}
