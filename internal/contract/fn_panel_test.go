package contract

import (
	"testing"

	"github.com/stretchr/testify/require"
)

// panelScene is a menu whose description the fake hands back as the page
// would, a hidden toast, a panel behind a wall and one whose occlusion was
// not tested.
func panelScene(p *fakePage) {
	desc := func(text string, visible, inView bool, occluded any) map[string]any {
		return map[string]any{"text": text, "texts": []any{map[string]any{"object": "label", "source": "text", "text": text}},
			"unread": []any{}, "visible": visible, "in_view": inView, "occluded": occluded, "samples": 9.0, "hidden": 0.0}
	}
	p.objects = map[string]map[string]any{
		"menu":   {"name": "menu", "semantic": map[string]any{"role": "menu", "name": "main"}, "panel": desc("Start", true, true, false)},
		"toast":  {"name": "toast", "panel": desc("Saved", false, true, false)},
		"behind": {"name": "behind", "panel": desc("Exit", true, true, true)},
		"away":   {"name": "away", "panel": desc("Help", true, false, false)},
		"many":   {"name": "many", "panel": map[string]any{"text": "", "visible": true, "in_view": true, "occluded": nil, "occlusion_error": "the scene has more than 2000000 triangle tests to make"}},
	}
}

// TestPanelFunctions: panelText and uiVisible read one panel description
// per object and assertion; an untested occlusion is an error.
func TestPanelFunctions(t *testing.T) {
	o := &opener{tweak: panelScene}
	res := run(t, `
version: 1
probes:
  - name: ui
    level: state
    steps:
      - assert: 'panelText("menu") == "Start" && uiVisible({"role": "menu"}) && panel("menu").texts[0].source == "text"'
      - assert: panelText("toast") == "Saved" && !uiVisible("toast")
      - assert: '!uiVisible("behind") && !uiVisible("away")'
      - assert: uiVisible("many")
      - assert: uiVisible("nothing")
`, o, Options{})
	require.Equal(t, []string{
		`panelText("menu") == "Start" && uiVisible({"role": "menu"}) && panel("menu").texts[0].source == "text" | pass | `,
		`panelText("toast") == "Saved" && !uiVisible("toast") | pass | `,
		`!uiVisible("behind") && !uiVisible("away") | pass | `,
		`uiVisible("many") | error | uiVisible("many"): uiVisible: its occlusion could not be tested: the scene has more than 2000000 triangle tests to make`,
		`uiVisible("nothing") | error | uiVisible("nothing"): no scene object named "nothing": target not found`,
	}, messages(res))
	// One read per object and assertion.
	n := 0
	for _, c := range o.pages[0].calls {
		if c == "Panel" {
			n++
		}
	}
	require.Equal(t, 7, n)

	_, err := Parse("contract.yaml", []byte("version: 1\nprobes:\n  - name: p\n    level: state\n    steps:\n      - assert: uiVisible(3)\n      - assert: panelText([\"a\"]) == \"\"\n"))
	require.EqualError(t, err, `contract.yaml:6: probe p: assert: uiVisible: argument 1 must name an object ("cube") or a tag ({"role": …, "name": …}), got 3
contract.yaml:7: probe p: assert: panelText: argument 1 must name an object or a tag, not a list`)
}
