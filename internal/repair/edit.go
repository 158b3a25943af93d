package repair

import (
	"fmt"
	"regexp"
	"slices"
	"sort"
	"strings"
)

// Edit is one change a model asks for: the one place of the page that
// reads Search becomes Replace.
type Edit struct {
	// Search is the text to replace, exactly as the page has it; Replace
	// what takes its place ("" deletes it).
	Search, Replace string
	// Line is the line of the reply where the edit's block starts.
	Line int
}

// The lines that delimit an edit block (see [EditFormat]): 5 to 9 marker
// characters, the words in any case, spaces around allowed.
var (
	searchMark  = regexp.MustCompile(`(?i)^\s*<{5,9}\s*SEARCH\s*$`)
	dividerMark = regexp.MustCompile(`^\s*={5,9}\s*$`)
	replaceMark = regexp.MustCompile(`(?i)^\s*>{5,9}\s*REPLACE\s*$`)
)

// Malformed is a block of a reply that could not be read as an edit.
type Malformed struct {
	// Line is the line of the reply where the block starts.
	Line int `json:"line"`
	// Reason says what is wrong with it, for the model.
	Reason string `json:"reason"`
}

func (m Malformed) String() string {
	return fmt.Sprintf("the block at line %d of your answer %s", m.Line, m.Reason)
}

// ParseEdits reads the SEARCH/REPLACE blocks of a model's reply, in order.
// Whatever is around the blocks — prose, code fences, file names — is
// ignored, and CRLF line ends read as LF. An edit's Search and Replace are
// the lines between the markers joined by "\n" (the line end before a
// marker belongs to the marker). A block that is cut off or lacks its
// divider is left out and reported in malformed.
func ParseEdits(reply string) (edits []Edit, malformed []Malformed) {
	lines := strings.Split(strings.ReplaceAll(reply, "\r\n", "\n"), "\n")
	const (
		outside = iota
		inSearch
		inReplace
	)
	state, start := outside, 0
	var search, replace []string
	for i, l := range lines {
		n := i + 1
		switch state {
		case outside:
			if searchMark.MatchString(l) {
				state, start, search, replace = inSearch, n, nil, nil
			}
		case inSearch:
			switch {
			case dividerMark.MatchString(l):
				state = inReplace
			case searchMark.MatchString(l):
				malformed = append(malformed, Malformed{start, "has no ======= line before the next <<<<<<< SEARCH"})
				start, search = n, nil
			case replaceMark.MatchString(l):
				malformed = append(malformed, Malformed{start, "has no ======= line between its SEARCH and REPLACE parts"})
				state = outside
			default:
				search = append(search, l)
			}
		case inReplace:
			switch {
			case replaceMark.MatchString(l):
				edits = append(edits, Edit{Search: strings.Join(search, "\n"), Replace: strings.Join(replace, "\n"), Line: start})
				state = outside
			case searchMark.MatchString(l):
				malformed = append(malformed, Malformed{start, "is not closed by a >>>>>>> REPLACE line before the next <<<<<<< SEARCH"})
				state, start, search, replace = inSearch, n, nil, nil
			default:
				replace = append(replace, l)
			}
		}
	}
	if state != outside {
		malformed = append(malformed, Malformed{start, "is cut off: it has no >>>>>>> REPLACE line"})
	}
	return edits, malformed
}

// Rejection says why an edit was not applied.
type Rejection struct {
	// Edit is the edit's number in the reply, from 1.
	Edit int `json:"edit"`
	// Reason says why, for the model.
	Reason string `json:"reason"`
}

func (r Rejection) String() string { return fmt.Sprintf("edit %d %s", r.Edit, r.Reason) }

// Applied is what [Apply] did.
type Applied struct {
	// Page is the page with the accepted edits.
	Page string
	// Accepted are the numbers (from 1) of the edits applied, Rejected
	// the others with the reason.
	Accepted []int
	Rejected []Rejection
}

// Apply applies edits to page. Every edit's Search is looked up in page as
// given (not as earlier edits left it), so the edits of one reply are
// written against the page the model saw. An edit is rejected, with the
// reason, when its Search is empty, occurs nowhere or more than once
// (overlapping occurrences count), changes nothing, or overlaps the text
// of an edit accepted before it; the accepted ones are applied together.
// On a page with CRLF line ends an edit that does not occur as written is
// looked up with its line ends made CRLF.
func Apply(page string, edits []Edit) Applied {
	type span struct{ start, end, edit int }
	var taken []span
	out := Applied{}
	var replace []string
	for i, e := range edits {
		n := i + 1
		reject := func(format string, args ...any) {
			out.Rejected = append(out.Rejected, Rejection{Edit: n, Reason: fmt.Sprintf(format, args...)})
		}
		search, repl := e.Search, e.Replace
		if strings.TrimSpace(search) == "" {
			reject("has an empty SEARCH part: SEARCH must hold the exact text to replace (to add lines, put the line before them in SEARCH and repeat it in REPLACE, followed by the new lines)")
			continue
		}
		if search == repl {
			reject("changes nothing: its REPLACE part is the same as its SEARCH part")
			continue
		}
		at := occurrences(page, search)
		if len(at) == 0 && strings.Contains(page, "\r\n") && !strings.Contains(search, "\r\n") {
			crlf := strings.ReplaceAll(search, "\n", "\r\n")
			if at = occurrences(page, crlf); len(at) > 0 {
				search, repl = crlf, strings.ReplaceAll(repl, "\n", "\r\n")
			}
		}
		switch {
		case len(at) == 0:
			reject("does not apply: its SEARCH text is not in the page%s", missHint(page, search))
			continue
		case len(at) > 1:
			reject("does not apply: its SEARCH text occurs %d times in the page (at lines %s), and it must occur exactly once: add the lines around the place to change until it is unique",
				len(at), lineList(page, at))
			continue
		}
		s := span{at[0], at[0] + len(search), n}
		if j := slices.IndexFunc(taken, func(t span) bool { return s.start < t.end && t.start < s.end }); j >= 0 {
			reject("overlaps edit %d (both change text at line %d of the page): give the change as one block", taken[j].edit, lineOf(page, max(s.start, taken[j].start)))
			continue
		}
		taken = append(taken, s)
		for len(replace) < n {
			replace = append(replace, "")
		}
		replace[n-1] = repl
		out.Accepted = append(out.Accepted, n)
	}
	sort.Slice(taken, func(i, j int) bool { return taken[i].start < taken[j].start })
	var b strings.Builder
	last := 0
	for _, s := range taken {
		b.WriteString(page[last:s.start])
		b.WriteString(replace[s.edit-1])
		last = s.end
	}
	b.WriteString(page[last:])
	out.Page = b.String()
	return out
}

// occurrences are the offsets of every occurrence of s in page,
// overlapping ones included.
func occurrences(page, s string) []int {
	var at []int
	for from := 0; from <= len(page)-len(s); {
		i := strings.Index(page[from:], s)
		if i < 0 {
			break
		}
		at = append(at, from+i)
		from += i + 1
	}
	return at
}

// lineOf is the 1-based line of page at byte offset off.
func lineOf(page string, off int) int { return strings.Count(page[:off], "\n") + 1 }

// lineList names the lines of the offsets at: "12 and 40", "3, 9 and 20".
func lineList(page string, at []int) string {
	var ls []string
	for _, off := range at {
		ls = append(ls, fmt.Sprint(lineOf(page, off)))
	}
	if len(ls) == 1 {
		return ls[0]
	}
	return strings.Join(ls[:len(ls)-1], ", ") + " and " + ls[len(ls)-1]
}

// missHint helps a model whose SEARCH text is not in the page: the first
// of its lines that is not in the page as written, and where the page has
// that line with other spacing.
func missHint(page, search string) string {
	pageLines := strings.Split(strings.ReplaceAll(page, "\r\n", "\n"), "\n")
	have := map[string]bool{}
	trimmed := map[string]int{}
	for i, l := range pageLines {
		have[l] = true
		if _, ok := trimmed[strings.TrimSpace(l)]; !ok {
			trimmed[strings.TrimSpace(l)] = i + 1
		}
	}
	lines := strings.Split(search, "\n")
	for i, l := range lines {
		if strings.TrimSpace(l) == "" {
			continue
		}
		// SEARCH may start inside a page line and end inside another: its
		// first line may be the end of a page line, its last the start of
		// one, a single line any part of one.
		if have[l] || partOfLine(pageLines, l, i == 0, i == len(lines)-1) {
			continue
		}
		if n, ok := trimmed[strings.TrimSpace(l)]; ok && strings.TrimSpace(l) != "" {
			return fmt.Sprintf(" (its line %q is at line %d of the page with other spacing or indentation: copy the page's lines exactly)", shorten(l, 80), n)
		}
		return fmt.Sprintf(" (its line %q is not in the page: copy the page's lines exactly, without changing them)", shorten(l, 80))
	}
	return " (each of its lines is in the page, but not one after the other like this: copy a run of consecutive lines of the page)"
}

// partOfLine reports whether l is the end of a page line (first), the
// start of one (last) or, when both, any part of one.
func partOfLine(pageLines []string, l string, first, last bool) bool {
	for _, pl := range pageLines {
		switch {
		case first && last && strings.Contains(pl, l),
			first && strings.HasSuffix(pl, l),
			last && strings.HasPrefix(pl, l):
			return true
		}
	}
	return false
}

// shorten cuts s to n runes with an ellipsis.
func shorten(s string, n int) string {
	s = strings.TrimSpace(s)
	r := []rune(s)
	if len(r) <= n {
		return s
	}
	return string(r[:n-1]) + "…"
}
