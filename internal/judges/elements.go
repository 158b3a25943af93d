package judges

import (
	"fmt"
	"regexp"
	"sort"
	"strconv"
	"strings"

	"github.com/worldprobe/worldprobe/internal/task"
)

// Element is a page element a task names, as the DOM check looks for it.
type Element struct {
	// Selector finds it: "#hud" for an id, or a task.yaml control's
	// selector as written.
	Selector string `json:"selector"`
	// MayHide is set when the brief says the element is shown or hidden at
	// times ("is shown while a bar is hovered"): then only its existence is
	// checked, not that it is visible.
	MayHide bool `json:"may_hide,omitempty"`
	// Labels are the text labels the brief says the element shows, e.g.
	// "Bounces:" for "shows `Bounces: N`": its text must contain each.
	Labels []string `json:"labels,omitempty"`
	// From says where the task names it first: "brief.md:25" or
	// "task.yaml controls".
	From string `json:"from"`
}

var (
	// hashRE is a CSS id selector in backticks: `#hud`.
	hashRE = regexp.MustCompile("`#([A-Za-z][\\w-]*)`")
	// idRE is the word id or ids followed by a name in backticks:
	// "with id `hud`", "ids `width`, `height` and `depth`".
	idRE = regexp.MustCompile("\\bids?\\s+`([A-Za-z][\\w-]*)`")
	// listRE continues a list of ids: ", `b`", " and `c`", " … `slot-4`".
	listRE = regexp.MustCompile("^(\\s*,\\s*(?:and\\s+|or\\s+)?|\\s+and\\s+|\\s+or\\s+|\\s*(?:…|\\.\\.\\.)\\s*)`([A-Za-z][\\w-]*)`")
	// colourRE is a hex colour, which `#ffcc00` is rather than an id.
	colourRE = regexp.MustCompile(`^([0-9a-fA-F]{3}|[0-9a-fA-F]{6}|[0-9a-fA-F]{8})$`)
	// hideRE says in a sentence that something is shown or hidden at times.
	hideRE = regexp.MustCompile(`(?i)\b(is|are)\s+(only\s+)?(shown|visible|hidden|displayed|empty)\b|\bappears?\b`)
	// pronounRE starts a sentence that goes on about the element before.
	pronounRE = regexp.MustCompile(`^\s*(It|Its)\s`)
	// showsRE introduces what an element shows.
	showsRE = regexp.MustCompile(`\bshows?\b`)
	// spanRE is a backticked span.
	spanRE = regexp.MustCompile("`([^`]+)`")
	// labelRE is a text label ending in a colon: "Bounces:", "Time scale:".
	labelRE = regexp.MustCompile(`([A-Z][A-Za-z]*(?: [a-z][A-Za-z]*)*):`)
	// numberedRE splits a name into a prefix and a trailing number.
	numberedRE = regexp.MustCompile(`^(.*?)(\d+)$`)
)

// mention is one element named in a sentence, at [start, end).
type mention struct {
	id         string
	start, end int
}

// Elements lists the page elements the task names, deterministically, in
// the order they are first named, each once. They are read from the
// brief as the model gets it (parameters filled in, requirement ids
// removed), sentence by sentence, and from task.yaml's controls — never
// from the contract:
//
//   - an id selector in backticks names an element: `#hue`;
//   - so does the word id or ids before a name in backticks: "with id
//     `hud`", and each name of a list after it ("ids `width`, `height`
//     and `depth`"); "`slot-1` … `slot-4`" names slot-1 to slot-4;
//   - a backticked #name that is a hex colour (`#ffcc00`) is not an id;
//   - an element named in a sentence that says something "is shown",
//     "is visible", "is hidden", "is displayed", "is empty" or "appears"
//     may be hidden (or have no size) when the page loads: only its
//     existence is checked;
//   - a sentence that names no element and starts with "It" or "Its"
//     goes on about the element the sentence before named last ("… with
//     id `readout` shows the distance. It is empty while …");
//   - after an element, "shows" followed by backticked text gives the text
//     labels it must show: each "Word:" or "Two words:" in that text
//     ("shows `Score: N  Lives: M`" gives "Score:" and "Lives:");
//   - every selector of task.yaml's controls (the inputs the brief gives
//     the user, e.g. {click: {selector: "#inc"}}) names an element.
//
// A sentence ends at a full stop followed by a capital letter or at a
// semicolon, outside backticks.
func Elements(t *task.Task) ([]Element, error) {
	brief, err := t.Brief()
	if err != nil {
		return nil, err
	}
	var out []Element
	index := map[string]int{}
	add := func(e Element) *Element {
		if i, ok := index[e.Selector]; ok {
			o := &out[i]
			o.MayHide = o.MayHide || e.MayHide
			for _, l := range e.Labels {
				if !contains(o.Labels, l) {
					o.Labels = append(o.Labels, l)
				}
			}
			return o
		}
		index[e.Selector] = len(out)
		out = append(out, e)
		return &out[len(out)-1]
	}
	for _, b := range blocks(task.StripRequirementIDs(brief)) {
		last := "" // the element the block's last sentence named last
		for _, s := range sentences(b.text) {
			ms := mentions(s)
			hide := hideRE.MatchString(s)
			if len(ms) == 0 && last != "" && pronounRE.MatchString(s) {
				// "It is empty while …", "It shows `X: N`": the sentence
				// goes on about the element named last.
				ms = []mention{{id: last, start: -1, end: -1}}
			}
			labels := labelsOf(s, ms)
			for _, m := range ms {
				add(Element{Selector: "#" + m.id, MayHide: hide, Labels: labels[m.start], From: fmt.Sprintf("%s:%d", task.BriefFile, b.line)})
			}
			if len(ms) > 0 {
				last = ms[len(ms)-1].id
			}
		}
	}
	for _, sel := range controlSelectors(t.Controls) {
		add(Element{Selector: sel, From: task.TaskFile + " controls"})
	}
	return out, nil
}

// block is a paragraph or a bullet of a brief, its lines joined, with the
// line it starts on.
type block struct {
	text string
	line int
}

// blocks splits a brief into paragraphs and bullets (a line starting
// with "- ", indented or not, starts one), leaving out headings and
// table rows.
func blocks(brief string) []block {
	var out []block
	var cur *block
	flush := func() {
		if cur != nil {
			out = append(out, *cur)
			cur = nil
		}
	}
	for i, line := range strings.Split(brief, "\n") {
		t := strings.TrimSpace(line)
		switch {
		case t == "" || strings.HasPrefix(t, "#") || strings.HasPrefix(t, "|"):
			flush()
		case strings.HasPrefix(t, "- "):
			flush()
			cur = &block{text: strings.TrimPrefix(t, "- "), line: i + 1}
		case cur == nil:
			cur = &block{text: t, line: i + 1}
		default:
			cur.text += " " + t
		}
	}
	flush()
	return out
}

// sentences splits text at a full stop followed by a space and a capital
// letter, and at a semicolon, outside backticks.
func sentences(text string) []string {
	var out []string
	inCode := false
	start := 0
	for i := 0; i < len(text); i++ {
		switch c := text[i]; {
		case c == '`':
			inCode = !inCode
		case inCode:
		case c == ';':
			out = append(out, text[start:i])
			start = i + 1
		case c == '.' && i+2 < len(text) && text[i+1] == ' ' && text[i+2] >= 'A' && text[i+2] <= 'Z':
			out = append(out, text[start:i+1])
			start = i + 1
		}
	}
	if strings.TrimSpace(text[start:]) != "" {
		out = append(out, text[start:])
	}
	return out
}

// mentions finds the elements a sentence names, in order.
func mentions(s string) []mention {
	var out []mention
	for _, m := range hashRE.FindAllStringSubmatchIndex(s, -1) {
		id := s[m[2]:m[3]]
		if colourRE.MatchString(id) {
			continue
		}
		out = append(out, mention{id: id, start: m[0], end: m[1]})
	}
	for _, m := range idRE.FindAllStringSubmatchIndex(s, -1) {
		prev := mention{id: s[m[2]:m[3]], start: m[2] - 1, end: m[1]}
		out = append(out, prev)
		for {
			l := listRE.FindStringSubmatchIndex(s[prev.end:])
			if l == nil {
				break
			}
			next := mention{id: s[prev.end+l[4] : prev.end+l[5]], start: prev.end + l[4] - 1, end: prev.end + l[1]}
			sep := strings.TrimSpace(s[prev.end+l[2] : prev.end+l[3]])
			if sep == "…" || sep == "..." {
				for _, id := range numberedRange(prev.id, next.id) {
					out = append(out, mention{id: id, start: next.start, end: next.start})
				}
			}
			out = append(out, next)
			prev = next
		}
	}
	sort.SliceStable(out, func(i, j int) bool { return out[i].start < out[j].start })
	return out
}

// numberedRange is the names strictly between a and b when both are one
// prefix followed by a number ("slot-1", "slot-4": slot-2, slot-3), at
// most 100 of them; none otherwise.
func numberedRange(a, b string) []string {
	ma, mb := numberedRE.FindStringSubmatch(a), numberedRE.FindStringSubmatch(b)
	if ma == nil || mb == nil || ma[1] != mb[1] {
		return nil
	}
	from, _ := strconv.Atoi(ma[2])
	to, _ := strconv.Atoi(mb[2])
	if to-from > 101 {
		return nil
	}
	var out []string
	for k := from + 1; k < to; k++ {
		out = append(out, ma[1]+strconv.Itoa(k))
	}
	return out
}

// labelsOf finds, for the mentions of a sentence (by start), the text
// labels it says they show: after "shows", the "Word:" labels of the
// backticked spans up to the next mention belong to the mention before.
func labelsOf(s string, ms []mention) map[int][]string {
	out := map[int][]string{}
	for _, sh := range showsRE.FindAllStringIndex(s, -1) {
		owner, limit := -1, len(s)
		for i, m := range ms {
			if m.end <= sh[0] {
				owner = i
			} else if m.start >= sh[1] {
				limit = m.start
				break
			}
		}
		if owner < 0 {
			continue
		}
		key := ms[owner].start
		for _, sp := range spanRE.FindAllStringSubmatch(s[sh[1]:limit], -1) {
			for _, l := range labelRE.FindAllStringSubmatch(sp[1], -1) {
				if label := l[1] + ":"; !contains(out[key], label) {
					out[key] = append(out[key], label)
				}
			}
		}
	}
	return out
}

// controlSelectors lists the selectors of task.yaml's controls, in order,
// each once.
func controlSelectors(controls []map[string]any) []string {
	var out []string
	var walk func(v any)
	walk = func(v any) {
		switch x := v.(type) {
		case map[string]any:
			keys := make([]string, 0, len(x))
			for k := range x {
				keys = append(keys, k)
			}
			sort.Strings(keys)
			for _, k := range keys {
				if s, ok := x[k].(string); ok && k == "selector" {
					if !contains(out, s) {
						out = append(out, s)
					}
					continue
				}
				walk(x[k])
			}
		case []any:
			for _, e := range x {
				walk(e)
			}
		}
	}
	for _, c := range controls {
		walk(map[string]any(c))
	}
	return out
}

func contains(list []string, s string) bool {
	for _, x := range list {
		if x == s {
			return true
		}
	}
	return false
}
