package capture

import (
	"context"
	"encoding/json"
	"fmt"
	"math"
	"regexp"
	"sort"
	"strings"

	"github.com/worldprobe/worldprobe/internal/target"
	"github.com/worldprobe/worldprobe/internal/worldjudge/measure"
	"github.com/worldprobe/worldprobe/internal/worldjudge/rubric"
)

// Legend is the deterministic framing of the biomes from the world's own
// legend: every clickable element of the page whose text names a biome is
// clicked, the page's own camera flight runs for LegendSettleSeconds of
// page time, and one frame per biome is saved with the HUD hidden
// (biome_<id>) — at the day: the camera is posed where the flight left it
// in a document stepped to the day sample.
type Legend struct {
	// Buttons are the clickable elements the page offered, in page order,
	// with the biome each was matched to (empty when none).
	Buttons []LegendButton `json:"buttons"`
	// Framed are the biomes with a frame, in rubric order.
	Framed []string `json:"framed"`
	// Note says how the pass went or why no biome was framed.
	Note string `json:"note"`
}

// LegendButton is one clickable element of the page's UI.
type LegendButton struct {
	Text  string `json:"text"`
	Biome string `json:"biome,omitempty"`
	// View is the frame saved after clicking it.
	View string `json:"view,omitempty"`
	// Error is why clicking it failed (the frame is then missing).
	Error string `json:"error,omitempty"`
	// Pose is where the page's camera came to rest after the click: its
	// position and a point it looked at (the bursts pose it at the day: bursts.go).
	Pose []float64 `json:"pose,omitempty"`
}

// LegendSettleSeconds is the page time given to the camera flight a
// legend click starts before its frame is taken (WorldBench waits 3 s
// after a click; the corpus worlds' flights last up to 2.4 s).
const LegendSettleSeconds = 3.0

// legendScan tags and lists the page's clickable elements: buttons,
// links, elements with a click role or an onclick handler, and the
// outermost element of a cursor:pointer run, visible and with a short
// text; an element inside another candidate is left out.
const legendScan = `(() => {
  const out = [];
  try {
    const roles = /^(button|link|tab|option|menuitem|menuitemradio|radio|listitem)$/;
    const all = document.body ? document.body.querySelectorAll('*') : [];
    const cands = [];
    for (const el of all) {
      if (el.tagName === 'CANVAS' || el.tagName === 'SCRIPT' || el.tagName === 'STYLE') continue;
      const cs = getComputedStyle(el);
      if (cs.visibility === 'hidden' || cs.display === 'none') continue;
      const r = el.getBoundingClientRect();
      if (r.width < 2 || r.height < 2) continue;
      const tag = el.tagName;
      let click = tag === 'BUTTON' || tag === 'A' || typeof el.onclick === 'function' || roles.test(el.getAttribute('role') || '');
      if (!click && cs.cursor === 'pointer') {
        const p = el.parentElement;
        click = !p || getComputedStyle(p).cursor !== 'pointer';
      }
      if (!click) continue;
      const text = String(el.innerText || el.textContent || '').replace(/\s+/g, ' ').trim();
      if (!text || text.length > 80) continue;
      cands.push({ el, text });
    }
    for (const c of cands) {
      if (cands.some(o => o !== c && o.el.contains(c.el))) continue;
      c.el.setAttribute('data-wj-legend', String(out.length));
      out.push(c.text);
    }
  } catch (e) {}
  return JSON.stringify(out);
})()`

const showHUD = `(() => { const s = document.getElementById('__wj_hide'); if (s) s.remove(); return true; })()`

var wordRe = regexp.MustCompile(`[a-z]+`)

// stem lowercases a word and drops a plural s ("grasslands" → "grassland").
func stem(w string) string {
	w = strings.ToLower(w)
	if len(w) > 3 && strings.HasSuffix(w, "s") && !strings.HasSuffix(w, "ss") {
		w = strings.TrimSuffix(w, "s")
	}
	return w
}

// sameWord: two stemmed words are one when equal, when the shorter (5
// letters or more) begins the longer ("coast", "coastal"), or when they
// share their first 6 letters ("volcano", "volcanic").
func sameWord(a, b string) bool {
	if a == b {
		return true
	}
	if len(a) > len(b) {
		a, b = b, a
	}
	if len(a) >= 5 && strings.HasPrefix(b, a) {
		return true
	}
	return len(a) >= 6 && a[:6] == b[:6]
}

// legendWords are words of a biome label too common to name a biome.
var legendWords = map[string]bool{"the": true, "and": true, "of": true, "dense": true, "basin": true}

// MatchLegend matches the texts of a page's clickable elements to the
// biomes: an element scores 2 for the biome's id and 1 for each other
// word of its label (plural s dropped, a few generic words ignored) found
// among its words; each biome takes its best-scoring element and each
// element serves one biome, best scores first (ties: the shorter text,
// then page order). The result maps biome ids to element indexes.
func MatchLegend(texts []string, biomes []rubric.Biome) map[string]int {
	type pair struct{ biome, elem, score int }
	var pairs []pair
	for bi, b := range biomes {
		id := stem(b.ID)
		var label []string
		for _, w := range wordRe.FindAllString(strings.ToLower(b.Label), -1) {
			if w := stem(w); !legendWords[w] && w != id {
				label = append(label, w)
			}
		}
		for ei, t := range texts {
			var words []string
			for _, w := range wordRe.FindAllString(strings.ToLower(t), -1) {
				words = append(words, stem(w))
			}
			has := func(k string) bool {
				for _, w := range words {
					if sameWord(k, w) {
						return true
					}
				}
				return false
			}
			s := 0
			if has(id) {
				s += 2
			}
			for _, w := range label {
				if has(w) {
					s++
				}
			}
			if s > 0 {
				pairs = append(pairs, pair{bi, ei, s})
			}
		}
	}
	sort.SliceStable(pairs, func(i, j int) bool {
		a, b := pairs[i], pairs[j]
		if a.score != b.score {
			return a.score > b.score
		}
		if la, lb := len(texts[a.elem]), len(texts[b.elem]); la != lb {
			return la < lb
		}
		if a.elem != b.elem {
			return a.elem < b.elem
		}
		return a.biome < b.biome
	})
	out := map[string]int{}
	used := map[int]bool{}
	for _, p := range pairs {
		id := biomes[p.biome].ID
		if _, ok := out[id]; ok || used[p.elem] {
			continue
		}
		out[id] = p.elem
		used[p.elem] = true
	}
	return out
}

// uiTexts marks the page's visible clickable elements (data-wj-legend,
// in order) and returns their texts (legendScan); a reply that is not a
// list of strings is no elements.
func (k *capturer) uiTexts(ctx context.Context) ([]string, error) {
	var raw string
	if err := k.s.Eval(ctx, k.limit(), legendScan, &raw); err != nil {
		return nil, pageErr{err}
	}
	var texts []string
	if err := json.Unmarshal([]byte(raw), &texts); err != nil {
		return nil, nil
	}
	return texts, nil
}

// legendFlights lists the page's clickable elements, matches them to the
// rubric's biomes and, for each biome in rubric order, clicks its
// element, lets LegendSettleSeconds of page time run (not drawn) and
// reads where the page's camera came to rest (LegendButton.Pose). It runs
// in the day-cycle pass's document, after the time samples; the bursts
// (bursts.go) then take the frames at the day.
func (k *capturer) legendFlights(ctx context.Context) error {
	lg := &Legend{Buttons: []LegendButton{}, Framed: []string{}}
	k.c.Legend = lg
	texts, err := k.uiTexts(ctx)
	if err != nil {
		return fmt.Errorf("reading the page's legend: %w", err)
	}
	for _, t := range texts {
		lg.Buttons = append(lg.Buttons, LegendButton{Text: t})
	}
	k.legendMatch = MatchLegend(texts, k.o.Biomes)
	if len(k.legendMatch) == 0 {
		lg.Note = fmt.Sprintf("no legend framing: none of the page's %d clickable elements names a biome", len(texts))
		return nil
	}
	settle := max(1, int(math.Round(LegendSettleSeconds*k.o.FPS)))
	for _, b := range k.o.Biomes {
		i, ok := k.legendMatch[b.ID]
		if !ok {
			continue
		}
		btn := &lg.Buttons[i]
		btn.Biome = b.ID
		if err := k.s.Click(ctx, target.Target{Selector: fmt.Sprintf(`[data-wj-legend="%d"]`, i)}, 1); err != nil {
			if pageGone(err) {
				return fmt.Errorf("clicking %q: %w", btn.Text, pageErr{err})
			}
			btn.Error = err.Error()
			continue
		}
		if _, err := k.advance(ctx, settle, false); err != nil {
			return fmt.Errorf("after clicking %q: %w", btn.Text, pageErr{err})
		}
		cam, err := k.camera(ctx)
		if err != nil {
			return fmt.Errorf("reading the camera after clicking %q: %w", btn.Text, pageErr{err})
		}
		if cam == nil || len(cam.Forward) != 3 {
			btn.Error = "the page rendered with no camera the harness could see"
			continue
		}
		btn.Pose = pose(cam)
	}
	return nil
}

// pose is a camera's position and a point it looks at (position +
// forward), as __wj.setPose takes them.
func pose(cam *camInfo) []float64 {
	p := make([]float64, 6)
	for i := 0; i < 3; i++ {
		p[i] = measure.Round(cam.Position[i], 4)
		p[3+i] = measure.Round(cam.Position[i]+cam.Forward[i], 4)
	}
	return p
}
