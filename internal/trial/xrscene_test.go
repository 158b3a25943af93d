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

// xrSceneContract checks contacts and 3D panels on
// internal/xr/testdata/xr-scene-ui.html.
const xrSceneContract = `version: 1
probes:
  - name: contacts
    level: state
    steps:
      - step: 3
      - assert: 'contact("cube", "table") && contact({"role": "grabbable"}, {"role": "surface"}, 0.0)'
      - assert: '!contact("cube", "hover") && contact("cube", "hover", 0.0501) && !contact("cube", "hover", 0.0499)'
      - assert: contacts("cube", 0.06).map(c, c.name + ":" + string(c.gap)) == ["table:0", "hover:0.05"]
      - assert: touching(object("block"), object("crate"), 0.0) && !contact("block", "crate")
      - assert: contact("block", "crate", 0.0657) && !contact("block", "crate", 0.0656)
      - assert: contacts("crate", 0.1).map(c, c.name + ":" + string(c.gap)) == ["floor:0", "rig:0.065685", "block:0.065685"]
      - assert: contacts("block").map(c, c.name) == ["floor"]
      - assert: contact("rig", "block")
  - name: panels
    level: state
    steps:
      - step: 3
      - assert: panelText("menu") == "Start game\nStart" && panel("menu").texts.map(t, t.object + ":" + t.source) == ["title:text", "startButton:label"]
      - assert: 'uiVisible({"role": "menu"}) && panel("menu").samples == 54 && panel("menu").hidden == 0'
      - assert: panelText("toast") == "Saved" && !panel("toast").visible && !uiVisible("toast")
      - assert: panelText("hint") == "" && panel("hint").unread == ["hint"] && uiVisible("hint")
      - assert: panelText("sign") == "Exit" && size(panel("sign").unread) == 0
      - assert: 'panelText("score") == "Score: 3" && panel("score").texts[0].source == "element" && uiVisible("score") && panel("score").samples == 2'
      - assert: panel("secret").occluded && panel("secret").samples == 18 && !uiVisible("secret")
      - assert: '!panel("peek").occluded && panel("peek").hidden == 8 && panel("peek").samples == 18 && uiVisible("peek")'
      - assert: '!panel("behind").in_view && !uiVisible("behind")'
      - assert: uiVisible("nothing")
`

// TestXRContactsAndPanels: contact(), contacts() and the panel functions
// in real Chromium on a three.js VR app: exact gaps between boxes, one of
// them turned and scaled by its parent, and what the page holds as text
// and what the user's eyes see of each panel (IWER gives three.js two eye
// cameras, so a flat panel's 9 samples count twice: the menu's three
// meshes 54; the ledge hides the peek panel's top row, 4 samples an eye).
func TestXRContactsAndPanels(t *testing.T) {
	page, err := filepath.Abs(filepath.Join("..", "xr", "testdata", "xr-scene-ui.html"))
	require.NoError(t, err)
	dir := filepath.Join(t.TempDir(), "xr", "scene")
	tk, c := writeTask(t, dir, map[string]string{
		"task.yaml":     "id: xr/scene\ntitle: XR scene\ncategory: xr\ndifficulty: D1\nviewport: {width: 800, height: 600}\nxr: metaQuest3\nstate:\n  - {path: presenting, type: boolean}\n",
		"brief.md":      "# XR scene\n\nExpose the state.\n",
		"contract.yaml": xrSceneContract,
	})
	want := []string{
		"contacts:7 pass ",
		"contacts:8 pass ",
		"contacts:9 pass ",
		"contacts:10 pass ",
		"contacts:11 pass ",
		"contacts:12 pass ",
		"contacts:13 pass ",
		`contacts:14 error contact("rig", "block"): contact: object "rig" is an ancestor of object "block": it contains it`,
		"panels:19 pass ",
		"panels:20 pass ",
		"panels:21 pass ",
		"panels:22 pass ",
		"panels:23 pass ",
		"panels:24 pass ",
		"panels:25 pass ",
		"panels:26 pass ",
		"panels:27 pass ",
		`panels:28 error uiVisible("nothing"): no scene object named "nothing": target not found`,
	}
	for i := range 1 {
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
		require.Equal(t, want, got, "run %d:\n%s", i, strings.Join(got, "\n"))
	}
}
