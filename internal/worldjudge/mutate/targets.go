// Package mutate is worldprobe's version of WorldBench's mutation test
// (worldprobe judge mutate): features of a world are removed by
// construction — a builder function's body deleted, the builder made dead
// code, or its call disabled in place with if (false) — and the changed
// biomes are judged again, to see how many points each judge keeps on
// items that are no longer built: a code-only judge, a snapshot-only
// judge, the full judge by WorldBench's rules, and the full judge with
// coverage (a quote earns only if its lines ran).
//
// The edits are made on the parsed script (internal/mutate's Remove, on
// github.com/tdewolff/parse/v2/js), never with regular expressions.
package mutate

import (
	"fmt"
	"sort"
	"strings"
	"unicode"

	jsmutate "github.com/worldprobe/worldprobe/internal/mutate"
	"github.com/worldprobe/worldprobe/internal/worldjudge"
	"github.com/worldprobe/worldprobe/internal/worldjudge/probe"
	"github.com/worldprobe/worldprobe/internal/worldjudge/rubric"
)

// Where a target came from.
const (
	// FromFlag: the user named the function (--function).
	FromFlag = "flag"
	// FromQuotes: the code probe's verified quotes of the target's items
	// lie in the function's body (with models).
	FromQuotes = "quotes"
	// FromKeywords: the function's name matches a biome's scope alias or
	// a word of one of its items' ids (the rubric's keyword hints).
	FromKeywords = "keywords"
)

// Target is a builder function to remove and what it builds.
type Target struct {
	Function string `json:"function"`
	From     string `json:"from"`
	// Why says how the function was picked (the quote, the alias).
	Why string `json:"why"`
	// Lines of the definition, and of its body.
	Lines    [2]int    `json:"lines"`
	Body     [2]int    `json:"body"`
	Biomes   []string  `json:"biomes,omitempty"`
	Items    []ItemRef `json:"items,omitempty"`
	builder  jsmutate.Builder
	quoteSet map[string]bool
}

// ItemRef names one rubric item whose code the target builds.
type ItemRef struct {
	Test   string  `json:"test"`
	Biome  string  `json:"biome,omitempty"`
	Item   string  `json:"item"`
	Points float64 `json:"points"`
}

func (i ItemRef) key() string { return i.Test + "/" + i.Biome + "/" + i.Item }

// Reported tests: WC003–WC005 items have a code half whose quote can be
// located; WC001's items are about the whole island and WC002's are parts.
var removable = map[string]bool{"WC003": true, "WC004": true, "WC005": true}

// byName finds the named builders (FromFlag); a name the page lacks is an
// error naming it.
func byName(builders []jsmutate.Builder, names []string) ([]*Target, error) {
	var out []*Target
	for _, n := range names {
		var b *jsmutate.Builder
		for i := range builders {
			if builders[i].Name == n {
				b = &builders[i]
				break
			}
		}
		if b == nil {
			return nil, fmt.Errorf("--function %s: no function of that name in the world", n)
		}
		out = append(out, newTarget(*b, FromFlag, "named with --function"))
	}
	return out, nil
}

func newTarget(b jsmutate.Builder, from, why string) *Target {
	return &Target{Function: b.Name, From: from, Why: why, Lines: [2]int{b.From, b.To}, Body: [2]int{b.BodyFrom, b.BodyTo}, builder: b}
}

// innermost is the builder whose body holds lines [from, to] and is the
// smallest such, or nil.
func innermost(builders []jsmutate.Builder, from, to int) *jsmutate.Builder {
	var best *jsmutate.Builder
	for i := range builders {
		b := &builders[i]
		if b.BodyFrom <= from && to <= b.BodyTo && (best == nil || b.BodyTo-b.BodyFrom < best.BodyTo-best.BodyFrom) {
			best = b
		}
	}
	return best
}

// byQuotes maps every verified look quote of the original judgement's
// WC003–WC005 code halves to the innermost builder holding its lines: a
// builder becomes a target for the items it builds. The render loop (a
// function whose body asks for the next frame) is never a target: its
// removal stops the whole world.
func byQuotes(builders []jsmutate.Builder, rep *worldjudge.Report, html string) []*Target {
	byFn := map[string]*Target{}
	var order []string
	for _, tr := range rep.Tests {
		if !removable[tr.ID] {
			continue
		}
		for _, it := range tr.Items {
			for _, h := range it.Halves {
				if h.Half != rubric.HalfCode {
					continue
				}
				for _, ev := range h.Evidence {
					// source text that is code (a hint proves nothing)
					if ev.Kind != "look" || !ev.Verdict.Verified || len(ev.Lines) == 0 || ev.Refused != "" && ev.Refused != probe.RefusedNotRun {
						continue
					}
					from, to := ev.Lines[0].From, ev.Lines[len(ev.Lines)-1].To
					b := innermost(builders, from, to)
					if b == nil || renderLoop(html, *b) {
						continue
					}
					t := byFn[b.Name]
					if t == nil {
						t = newTarget(*b, FromQuotes, "")
						byFn[b.Name] = t
						order = append(order, b.Name)
					}
					t.addItem(ItemRef{Test: tr.ID, Biome: it.Biome, Item: it.ID, Points: it.Points}, fmt.Sprintf("%s %s quote at line %d", tr.ID, it.ID, from))
				}
			}
		}
	}
	var out []*Target
	for _, n := range order {
		out = append(out, byFn[n])
	}
	sort.SliceStable(out, func(a, b int) bool { return out[a].Lines[0] < out[b].Lines[0] })
	return out
}

func (t *Target) addItem(it ItemRef, why string) {
	if t.quoteSet == nil {
		t.quoteSet = map[string]bool{}
	}
	if t.quoteSet[it.key()] {
		return
	}
	t.quoteSet[it.key()] = true
	t.Items = append(t.Items, it)
	if it.Biome != "" && !contains(t.Biomes, it.Biome) {
		t.Biomes = append(t.Biomes, it.Biome)
	}
	if t.From == FromQuotes {
		if t.Why != "" {
			t.Why += "; "
		}
		t.Why += why
	}
}

func contains(xs []string, x string) bool {
	for _, y := range xs {
		if y == x {
			return true
		}
	}
	return false
}

// renderLoop: the builder's body asks for the next frame.
func renderLoop(html string, b jsmutate.Builder) bool {
	lines := strings.Split(html, "\n")
	for l := b.BodyFrom; l <= b.BodyTo && l <= len(lines); l++ {
		if strings.Contains(lines[l-1], "requestAnimationFrame") || strings.Contains(lines[l-1], "setAnimationLoop") {
			return true
		}
	}
	return false
}

// byKeywords picks the builders whose names match a biome's hints: its
// id and scope aliases (any test's; an alias of several words is one
// hint, its words joined), and the words of its items' ids (four letters
// or more) that no other biome's items use — an item word only when it is
// the one word of the name besides a verb (cactus, makePalm). A name matches
// a hint when one of its words (split at camelCase, digits and _) and the
// hint share a prefix of at least four letters and one starts the other,
// or share five. A builder matching several biomes takes the best match:
// an id or alias before an item word, then the longer shared prefix, then
// the first biome. The render loop is never a target.
func byKeywords(builders []jsmutate.Builder, r *rubric.Rubric, html string) []*Target {
	hints := map[string][]hint{}
	for _, bm := range r.Biomes {
		hints[bm.ID] = biomeHints(r, bm.ID)
	}
	var out []*Target
	for _, b := range builders {
		if renderLoop(html, b) {
			continue
		}
		best, biome := hint{}, ""
		bestLen := 0
		words := nameWords(b.Name)
		var nouns []string
		for _, w := range words {
			if !verbs[w] {
				nouns = append(nouns, w)
			}
		}
		for _, w := range words {
			for _, bm := range r.Biomes {
				for _, h := range hints[bm.ID] {
					n := matchHint(w, h.word)
					// an item word names the builder only when it is
					// all the name says (cactus, makePalm), not one word
					// of several (topColor, slopeOk)
					if n == 0 || h.rank == 1 && (len(nouns) != 1 || nouns[0] != w) {
						continue
					}
					if biome == "" || h.rank > best.rank || h.rank == best.rank && n > bestLen {
						best, biome, bestLen = h, bm.ID, n
					}
				}
			}
		}
		if biome == "" {
			continue
		}
		what := "a scope alias"
		if best.rank == 1 {
			what = "an item word"
		}
		t := newTarget(b, FromKeywords, fmt.Sprintf("its name matches %q, %s of %s", best.word, what, biome))
		t.Biomes = []string{biome}
		out = append(out, t)
	}
	return out
}

// verbs are the name words that say "build" (makePalm, addCactus).
var verbs = map[string]bool{"make": true, "build": true, "add": true, "create": true, "spawn": true, "draw": true, "gen": true, "generate": true, "place": true, "init": true, "new": true, "setup": true}

// hint is a word that names a biome: rank 2 for its id or a scope alias,
// 1 for a word of its items' ids.
type hint struct {
	word string
	rank int
}

func biomeHints(r *rubric.Rubric, biome string) []hint {
	seen := map[string]bool{}
	var out []hint
	add := func(w string, rank int) {
		if len(w) >= 4 && !seen[w] {
			seen[w] = true
			out = append(out, hint{w, rank})
		}
	}
	// an alias is one hint, its words joined (volcanic_ground, not ground)
	add(strings.Join(nameWords(biome), ""), 2)
	for _, t := range r.Tests {
		for _, a := range t.Scope[biome] {
			add(strings.Join(nameWords(a), ""), 2)
		}
	}
	// item words no other biome's items use
	owner := map[string]string{}
	for _, t := range r.Tests {
		for _, it := range t.Items {
			for _, w := range nameWords(it.ID) {
				if o, ok := owner[w]; ok && o != it.Biome {
					owner[w] = "*"
				} else if !ok {
					owner[w] = it.Biome
				}
			}
		}
	}
	for _, t := range r.Tests {
		for _, it := range t.Items {
			if it.Biome != biome {
				continue
			}
			for _, w := range nameWords(it.ID) {
				if owner[w] == biome {
					add(w, 1)
				}
			}
		}
	}
	return out
}

// nameWords splits an identifier or phrase into lower-case words at
// camelCase boundaries, digits, spaces and punctuation.
func nameWords(s string) []string {
	var out []string
	var cur []rune
	flush := func() {
		if len(cur) > 0 {
			out = append(out, strings.ToLower(string(cur)))
			cur = nil
		}
	}
	rs := []rune(s)
	for i, c := range rs {
		switch {
		case !unicode.IsLetter(c):
			flush()
		case unicode.IsUpper(c) && i > 0 && unicode.IsLower(rs[i-1]):
			flush()
			cur = append(cur, c)
		default:
			cur = append(cur, c)
		}
	}
	flush()
	return out
}

// matchHint is the prefix a name word shares with a hint when they match
// (see byKeywords), else 0.
func matchHint(w, h string) int {
	n := commonPrefix(w, h)
	if n >= 5 || n >= 4 && (n == len(w) || n == len(h)) {
		return n
	}
	return 0
}

func commonPrefix(a, b string) int {
	n := 0
	for n < len(a) && n < len(b) && a[n] == b[n] {
		n++
	}
	return n
}
