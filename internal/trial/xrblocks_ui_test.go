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

// TestXRBlocksPanelText: the text of XR Blocks' own UI — a UICard holding
// a UIText and a UIButton — as panelText reads it, before and after the
// app changes the text, and a hidden card's, and the card by its tag
// (the simulator draws its own scene after the app's); on the XR Blocks
// backend. The card is drawn: XR Blocks loads its UI backend
// (@pmndrs/uikit) on the first card, and the backend's prelude maps the
// bare imports of that graph the page's import map leaves out, all served
// from web/node_modules. The pixel at the card's origin is its grey
// (the sky behind it is white when no card is drawn), and uiVisible sees
// it with the app's camera, not the simulator's last orthographic pass;
// XR Blocks draws the card's meshes in its private UI group, so the card
// has no box and its one sample is its origin.
func TestXRBlocksPanelText(t *testing.T) {
	page, err := filepath.Abs(filepath.Join("..", "xr", "testdata", "xrblocks-ui.html"))
	require.NoError(t, err)
	dir := filepath.Join(t.TempDir(), "xr", "xrblocks-ui")
	tk, c := writeTask(t, dir, map[string]string{
		"task.yaml": "id: xr/xrblocks-ui\ntitle: XR Blocks UI\ncategory: xr\ndifficulty: D1\nviewport: {width: 640, height: 480}\ntimeout: 120s\nxr: metaQuest3\nxrBackend: xrblocks\n" +
			"state:\n  - {path: frames, type: number}\n",
		"brief.md": "# XR Blocks UI\n\nExpose the state.\n",
		"contract.yaml": `version: 1
probes:
  - name: menu
    level: state
    steps:
      - step: 3
      - assert: 'panelText("menu") == "Score: 0\nGo" && panel("menu").texts.map(t, t.object + ":" + t.source) == ["UIText:text", "UIButton:label"]'
      - step: 10
      - assert: 'panelText("menu") == "Score: 1\nGo" && panel("menu").visible'
      - assert: 'panelText("toast") == "Saved" && !panel("toast").visible && !uiVisible("toast")'
      - assert: 'tagged("menu").map(o, o.name) == ["menu"] && panelText({"role": "menu"}) == panelText("menu")'
      - assert: '[objectPixel("menu").r, objectPixel("menu").g, objectPixel("menu").b, objectPixel("menu").a] == [138, 138, 142, 255]'
      - assert: 'uiVisible("menu") && panel("menu").samples == 1 && panel("menu").hidden == 0 && object("menu").bbox == null'
`,
	})
	r := &Runner{Browser: shared.Browser, Resolver: shared.Resolver, SkipDraw: true, Load: func() float64 { return 0.2 }}
	tr, err := r.Run(context.Background(), Input{Key: "k", Task: tk, Contract: c, Page: page, Model: "m", Candidate: "c", Dir: t.TempDir()})
	require.NoError(t, err)
	require.Equal(t, result.OutcomeOK, tr.Outcome, "%s: %s", tr.CrashKind, tr.CrashMessage)
	var got []string
	for _, a := range tr.Assertions {
		if a.Probe != "interface" {
			got = append(got, fmt.Sprintf("%s:%d %s %s", a.Probe, a.Line, a.Status, a.Message))
		}
	}
	require.Equal(t, []string{"menu:7 pass ", "menu:9 pass ", "menu:10 pass ", "menu:11 pass ", "menu:12 pass ", "menu:13 pass "}, got, strings.Join(got, "\n"))
}
