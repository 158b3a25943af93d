// Package coverage maps V8's precise block coverage of a world's inline
// scripts back to the lines of its HTML file, so that a code quote can be
// asked whether its lines ever ran while the world was captured: worldprobe's
// rule "only code that runs earns credit".
//
// A line ran when some non-space character of it lies in a range V8 counted
// at least once (the innermost range decides: a block inside a called
// function that was never entered counts 0); it did not run when it has
// script code and none of it ran; other lines (markup, styles, blank) are
// unknown.
package coverage

import (
	"fmt"
	"sort"
	"unicode/utf16"

	"github.com/worldprobe/worldprobe/internal/session"
	"github.com/worldprobe/worldprobe/internal/worldjudge/quote"
)

// State is what coverage says of one line.
type State int8

// The states of a line.
const (
	Unknown State = iota
	NotRun
	Ran
)

// String names the state as reports do.
func (s State) String() string {
	switch s {
	case Ran:
		return "ran"
	case NotRun:
		return "not_run"
	}
	return "unknown"
}

// Report is the coverage of one HTML file's inline scripts.
type Report struct {
	// Lines is each line's state, indexed by 1-based line (index 0 unused).
	Lines []State `json:"-"`
	// Scripts counts the inline scripts found in the coverage (a reload
	// counts its document's scripts again), Functions their functions (each
	// place in the file once), FunctionsRun those called at least once in
	// any document.
	Scripts      int `json:"scripts"`
	Functions    int `json:"functions"`
	FunctionsRun int `json:"functions_run"`
	// CodeLines and LinesRun count the lines with script code and those
	// that ran.
	CodeLines int `json:"code_lines"`
	LinesRun  int `json:"lines_run"`
	// NeverCalled names (up to 50) the named functions no document called.
	NeverCalled []string `json:"never_called,omitempty"`
}

// Map builds the report of html's inline scripts from scripts, keeping
// those served at url (the page's own document) with a known position.
func Map(html, url string, scripts []session.CoverageScript) *Report {
	units := utf16.Encode([]rune(html))
	lineStart := []int{0}
	for i, u := range units {
		if u == '\n' {
			lineStart = append(lineStart, i+1)
		}
	}
	lines := len(lineStart)
	r := &Report{Lines: make([]State, lines+1)}
	called := map[string]bool{}
	named := map[string]bool{}
	fnRan := map[string]bool{}
	for _, sc := range scripts {
		if sc.URL != url || sc.StartLine < 0 || sc.StartLine >= lines || len(sc.Functions) == 0 {
			continue
		}
		r.Scripts++
		base := lineStart[sc.StartLine] + sc.StartColumn
		end := 0
		for _, f := range sc.Functions {
			for _, rg := range f.Ranges {
				end = max(end, int(rg.EndOffset))
			}
		}
		counts := make([]int64, end)
		for fi, f := range sc.Functions {
			for _, rg := range f.Ranges {
				a, b := max(0, int(rg.StartOffset)), min(end, int(rg.EndOffset))
				for i := a; i < b; i++ {
					counts[i] = rg.Count
				}
			}
			if fi == 0 || len(f.Ranges) == 0 {
				continue // the script's top level
			}
			// A function is one place in the file, however many documents
			// (a reload) ran its script.
			key := fmt.Sprintf("%d:%d:%d", sc.StartLine, sc.StartColumn, f.Ranges[0].StartOffset)
			if _, ok := fnRan[key]; !ok {
				fnRan[key] = false
			}
			if f.Ranges[0].Count > 0 {
				fnRan[key] = true
				called[f.FunctionName] = true
			}
			if f.FunctionName != "" {
				named[f.FunctionName] = true
			}
		}
		for i, c := range counts {
			p := base + i
			if p >= len(units) {
				break
			}
			if u := units[p]; u < 0x80 && quote.IsSpace(rune(u)) {
				continue
			}
			ln := sort.SearchInts(lineStart, p+1) // 1-based line
			switch {
			case c > 0:
				r.Lines[ln] = Ran
			case r.Lines[ln] == Unknown:
				r.Lines[ln] = NotRun
			}
		}
	}
	for _, ran := range fnRan {
		r.Functions++
		if ran {
			r.FunctionsRun++
		}
	}
	for _, st := range r.Lines {
		if st != Unknown {
			r.CodeLines++
		}
		if st == Ran {
			r.LinesRun++
		}
	}
	for n := range named {
		if !called[n] && len(r.NeverCalled) < 50 {
			r.NeverCalled = append(r.NeverCalled, n)
		}
	}
	sort.Strings(r.NeverCalled)
	return r
}

// Line is the state of a 1-based line.
func (r *Report) Line(n int) State {
	if r == nil || n < 1 || n >= len(r.Lines) {
		return Unknown
	}
	return r.Lines[n]
}

// SpanRan says whether the code in a span of lines ran: every line with
// code ran (and at least one has code).
func (r *Report) SpanRan(s quote.Span) bool {
	code := false
	for l := s.From; l <= s.To; l++ {
		switch r.Line(l) {
		case NotRun:
			return false
		case Ran:
			code = true
		}
	}
	return code
}

// QuoteRun is what coverage says of a verified quote.
type QuoteRun struct {
	// Ran: some occurrence of the quote (for a quote verified line by line:
	// of each matched line) lies on lines that all ran.
	Ran bool `json:"ran"`
	// Lines are the HTML lines the verdict pointed at, with their states.
	Lines []LineState `json:"lines"`
}

// LineState is one HTML line and its coverage.
type LineState struct {
	Line  int    `json:"line"`
	State string `json:"state"`
}

// Quote checks a verified quote against the coverage. An unverified quote
// never ran.
func (r *Report) Quote(v quote.Verdict) QuoteRun {
	var q QuoteRun
	if !v.Verified {
		return q
	}
	seen := map[int]bool{}
	add := func(s quote.Span) {
		for l := s.From; l <= s.To; l++ {
			if !seen[l] {
				seen[l] = true
				q.Lines = append(q.Lines, LineState{Line: l, State: r.Line(l).String()})
			}
		}
	}
	anyRan := func(spans []quote.Span) bool {
		ok := false
		for _, s := range spans {
			add(s)
			if r.SpanRan(s) {
				ok = true
			}
		}
		return ok
	}
	if v.How == "whole" {
		q.Ran = anyRan(v.Spans)
	} else {
		q.Ran = true
		matched := 0
		for _, l := range v.Lines {
			if !l.Matched {
				continue
			}
			matched++
			if !anyRan(l.Spans) {
				q.Ran = false
			}
		}
		q.Ran = q.Ran && matched > 0
	}
	sort.Slice(q.Lines, func(i, j int) bool { return q.Lines[i].Line < q.Lines[j].Line })
	return q
}
