// Package quote verifies that a code quote is real source text of a world,
// with WorldBench's exact rules (../shared/reference/worldbench-judge.md
// section 11): the source is the page's inline scripts with every
// whitespace character removed; a quote of fewer than 8 characters proves
// nothing; it passes when it occurs whole, when a single-line quote's
// longest prefix found covers 85 % of it, or when 80 % of its substantive
// lines match that way. Unlike WorldBench it also says where: every
// occurrence is mapped back to the lines of the HTML file, so the coverage
// of those lines can be asked.
package quote

import (
	"regexp"
	"sort"
	"strings"
	"unicode"
	"unicode/utf8"
)

// Rules are the quote check's constants.
type Rules struct {
	// MinChars: a quote or line shorter than this (whitespace removed, in
	// characters) proves nothing.
	MinChars int
	// MinMatchShare: the share of a multi-line quote's substantive lines
	// that must match.
	MinMatchShare float64
	// MinPrefixShare: a line matches when the longest prefix of it found in
	// the source is at least this share of it.
	MinPrefixShare float64
}

// WorldBench are WorldBench's constants (MIN_LINE_CHARS, MIN_MATCH_SHARE,
// MIN_PREFIX_SHARE).
var WorldBench = Rules{MinChars: 8, MinMatchShare: 0.8, MinPrefixShare: 0.85}

// IsSpace is Python's str.isspace, which WorldBench's `\s` removal and
// strip() use: Unicode white space and the separators U+001C–U+001F.
func IsSpace(r rune) bool { return unicode.IsSpace(r) || (r >= 0x1c && r <= 0x1f) }

// Normalize removes every whitespace character.
func Normalize(s string) string {
	return strings.Map(func(r rune) rune {
		if IsSpace(r) {
			return -1
		}
		return r
	}, s)
}

// SplitLines splits as Python's str.splitlines: on \n, \r, \r\n, \v, \f,
// U+001C–U+001E, U+0085, U+2028 and U+2029, with no empty last line for a
// trailing break.
func SplitLines(s string) []string {
	var out []string
	start := 0
	for i := 0; i < len(s); {
		r, n := utf8.DecodeRuneInString(s[i:])
		switch r {
		case '\n', '\v', '\f', 0x1c, 0x1d, 0x1e, 0x85, 0x2028, 0x2029:
			out = append(out, s[start:i])
			i += n
			start = i
		case '\r':
			out = append(out, s[start:i])
			i += n
			if i < len(s) && s[i] == '\n' {
				i++
			}
			start = i
		default:
			i += n
		}
	}
	if start < len(s) {
		out = append(out, s[start:])
	}
	return out
}

var (
	styleRe  = regexp.MustCompile(`(?is)<style[^>]*>.*?</style>`)
	scriptRe = regexp.MustCompile(`(?is)<script[^>]*>(.*?)</script>`)
)

// Source is a world's source as the quote check sees it.
type Source struct {
	// JS is strip_to_js: the stripped inner text of every non-empty inline
	// script, joined by a blank line (the style-stripped HTML when there is
	// none).
	JS string
	// S is JS with every whitespace character removed.
	S string
	// line[i] is the 1-based line of the HTML file the i-th byte of S came
	// from.
	line []int32
}

// NewSource prepares an HTML file's text for quote checks.
func NewSource(html string) *Source {
	// Remove the style blocks, keeping each remaining byte's offset.
	var kept strings.Builder
	var offs []int
	last := 0
	for _, m := range styleRe.FindAllStringIndex(html, -1) {
		kept.WriteString(html[last:m[0]])
		for i := last; i < m[0]; i++ {
			offs = append(offs, i)
		}
		last = m[1]
	}
	kept.WriteString(html[last:])
	for i := last; i < len(html); i++ {
		offs = append(offs, i)
	}
	text := kept.String()
	lineAt := lineIndex(html)
	var js strings.Builder
	var jsOff []int // original offset of each byte of JS, -1 for joins
	for _, m := range scriptRe.FindAllStringSubmatchIndex(text, -1) {
		a, b := m[2], m[3]
		body := text[a:b]
		lead := len(body) - len(strings.TrimLeftFunc(body, IsSpace))
		body = strings.TrimFunc(body, IsSpace)
		if body == "" {
			continue
		}
		if js.Len() > 0 {
			js.WriteString("\n\n")
			jsOff = append(jsOff, -1, -1)
		}
		js.WriteString(body)
		for i := 0; i < len(body); i++ {
			jsOff = append(jsOff, offs[a+lead+i])
		}
	}
	src := &Source{JS: js.String()}
	if src.JS == "" {
		src.JS = text
		jsOff = offs
	}
	var s strings.Builder
	for i := 0; i < len(src.JS); {
		r, n := utf8.DecodeRuneInString(src.JS[i:])
		if !IsSpace(r) {
			s.WriteString(src.JS[i : i+n])
			ln := int32(0)
			if jsOff[i] >= 0 {
				ln = int32(lineAt(jsOff[i]))
			}
			for k := 0; k < n; k++ {
				src.line = append(src.line, ln)
			}
		}
		i += n
	}
	src.S = s.String()
	return src
}

// lineIndex returns a function from a byte offset of text to its 1-based
// line (lines end at \n).
func lineIndex(text string) func(int) int {
	starts := []int{0}
	for i := 0; i < len(text); i++ {
		if text[i] == '\n' {
			starts = append(starts, i+1)
		}
	}
	return func(off int) int { return sort.SearchInts(starts, off+1) }
}

// Span is a range of lines of the HTML file, both ends included.
type Span struct {
	From int `json:"from"`
	To   int `json:"to"`
}

// maxSpans caps the occurrences reported per quote or line.
const maxSpans = 20

// spans maps the occurrences of needle in S to HTML line ranges.
func (s *Source) spans(needle string) []Span {
	var out []Span
	for from := 0; len(out) < maxSpans; {
		i := strings.Index(s.S[from:], needle)
		if i < 0 {
			break
		}
		i += from
		out = append(out, Span{From: int(s.line[i]), To: int(s.line[i+len(needle)-1])})
		from = i + 1
	}
	return out
}

// Line is one line of a quote as the check saw it.
type Line struct {
	// Text is the line as quoted, cut at its first "//".
	Text string `json:"text"`
	// Chars is its length with whitespace removed.
	Chars int `json:"chars"`
	// Whole: the line occurs in the source; else Prefix characters of it do.
	Whole  bool `json:"whole"`
	Prefix int  `json:"prefix"`
	// Matched: it counts as a hit.
	Matched bool `json:"matched"`
	// Spans are the HTML lines of its occurrences (of its matched prefix).
	Spans []Span `json:"spans,omitempty"`
}

// Verdict is the outcome of one quote check.
type Verdict struct {
	Verified bool `json:"verified"`
	// How: "whole" (the quote occurs), "prefix" (a single-line quote's
	// prefix), "lines" (enough of its lines match) or "" when refused.
	How string `json:"how,omitempty"`
	// Reason says why a quote was refused: "too_short", "no_substantive_lines",
	// "not_in_source".
	Reason string `json:"reason,omitempty"`
	// Chars is the quote's length with whitespace removed.
	Chars int `json:"chars"`
	// Hits and Lines count, in "lines" mode, matched and substantive lines.
	Hits  int `json:"hits,omitempty"`
	Total int `json:"substantive,omitempty"`
	// Spans are the HTML lines of the whole quote's occurrences ("whole").
	Spans []Span `json:"spans,omitempty"`
	// Lines are the substantive lines ("prefix" and "lines", and refusals
	// of multi-line quotes).
	Lines []Line `json:"line_matches,omitempty"`
}

// Check verifies q against the source with rules r.
func (s *Source) Check(q string, r Rules) Verdict {
	Q := Normalize(q)
	v := Verdict{Chars: utf8.RuneCountInString(Q)}
	if v.Chars < r.MinChars {
		v.Reason = "too_short"
		return v
	}
	if strings.Contains(s.S, Q) {
		v.Verified, v.How, v.Spans = true, "whole", s.spans(Q)
		return v
	}
	if !strings.Contains(strings.TrimFunc(q, IsSpace), "\n") {
		l := s.match(q, Q, r)
		if l.Matched {
			v.Verified, v.How, v.Lines = true, "prefix", []Line{l}
			return v
		}
	}
	for _, raw := range SplitLines(q) {
		cut, _, _ := strings.Cut(raw, "//")
		n := Normalize(cut)
		if utf8.RuneCountInString(n) < r.MinChars {
			continue
		}
		l := s.match(cut, n, r)
		v.Lines = append(v.Lines, l)
		v.Total++
		if l.Matched {
			v.Hits++
		}
	}
	if v.Total == 0 {
		v.Reason = "no_substantive_lines"
		return v
	}
	if float64(v.Hits)/float64(v.Total) >= r.MinMatchShare {
		v.Verified, v.How = true, "lines"
		return v
	}
	v.Reason = "not_in_source"
	return v
}

// match is line_match: the line occurs, or its longest prefix found in the
// source is at least MinPrefixShare of it.
func (s *Source) match(text, n string, r Rules) Line {
	chars := utf8.RuneCountInString(n)
	l := Line{Text: strings.TrimFunc(text, IsSpace), Chars: chars}
	if strings.Contains(s.S, n) {
		l.Whole, l.Prefix, l.Matched, l.Spans = true, chars, true, s.spans(n)
		return l
	}
	l.Prefix = s.longestPrefix(n)
	l.Matched = float64(l.Prefix) >= r.MinPrefixShare*float64(chars)
	if l.Prefix > 0 {
		l.Spans = s.spans(prefixRunes(n, l.Prefix))
	}
	return l
}

// longestPrefix is the length in characters of the longest prefix of n
// found in S, by binary search (a prefix that occurs has every shorter
// prefix occurring too).
func (s *Source) longestPrefix(n string) int {
	lo, hi := 0, utf8.RuneCountInString(n)
	for lo < hi {
		mid := (lo + hi + 1) / 2
		if strings.Contains(s.S, prefixRunes(n, mid)) {
			lo = mid
		} else {
			hi = mid - 1
		}
	}
	return lo
}

func prefixRunes(s string, n int) string {
	i := 0
	for k := 0; k < n && i < len(s); k++ {
		_, w := utf8.DecodeRuneInString(s[i:])
		i += w
	}
	return s[:i]
}

// Find lists where a whitespace-free needle occurs in S, as HTML line
// ranges (at most 20), first occurrence first.
func (s *Source) Find(needle string) []Span { return s.spans(needle) }

// LongestPrefix is the length in characters of the longest prefix of the
// whitespace-free n found in S.
func (s *Source) LongestPrefix(n string) int { return s.longestPrefix(n) }

// PrefixRunes is the first n characters of s.
func PrefixRunes(s string, n int) string { return prefixRunes(s, n) }
