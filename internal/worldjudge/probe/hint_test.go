package probe

import (
	"context"
	"testing"

	"github.com/worldprobe/worldprobe/internal/worldjudge/quote"
)

func TestHint(t *testing.T) {
	for q, want := range map[string]string{
		"// palms along the beach\n// (placed below)": HintComment,
		"BIOMES.desert.id,":                           HintBiomeToken,
		"  delta.id":                                  HintBiomeToken,
		"{ x: 12, z: -40 },":                          HintWaypoint,
		"{ id: 'desert', label: 'Desert Basin', color: 0xdeb887, weather: 'sandstorm' },":    HintLegendRow,
		"{label:'Volcano', weather:'ash'}":                                                   HintLegendRow,
		"seasonEl.textContent = SEASONS[s];":                                                 HintHUDText,
		"hud.innerHTML += '<b>Rain</b>';":                                                    HintHUDText,
		"{ id: 'desert', label: 'Desert', color: 0xdeb887, build: () => placeCacti(cells) }": "",
		"for (const c of cells) placePalm(c.x, c.h, c.z);":                                   "",
		"{ x: 12, y: 3, z: -40 }":                                                            "",
		"seasonEl.textContent = SEASONS[s];\nscene.fog.color.set(TINT[s]);":                  "",
		"const x = 1; // a comment after code":                                               "",
		// WC005's exemptions: a HUD line that tints the world or moves something.
		"label.textContent = s; sun.intensity = day * 2;":     "",
		"hud.innerText = t; sky.background.set(c);":           "",
		"el.textContent = n; mesh.position.y += 1;":           "",
		"el.textContent = n; // sun.intensity in the comment": HintHUDText,
	} {
		if got := Hint(q); got != want {
			t.Errorf("Hint(%q) = %q, want %q", q, got, want)
		}
	}
}

// TestVerifyRefusesHints: a legend row is real source text (and would
// run) but earns nothing.
func TestVerifyRefusesHints(t *testing.T) {
	c := NewChecker("<script>\nconst B = [\n  { id: 'desert', label: 'Desert', color: 0xdeb887 },\n];\n</script>\n", nil, quote.WorldBench, nil)
	ev, err := c.Verify(context.Background(), "look", ByProbe, "{ id: 'desert', label: 'Desert', color: 0xdeb887 },")
	if err != nil {
		t.Fatal(err)
	}
	if !ev.Verdict.Verified || ev.Refused != HintLegendRow || ev.OK || len(ev.Lines) != 1 || ev.Lines[0].From != 3 {
		t.Fatalf("%+v", ev)
	}
}
