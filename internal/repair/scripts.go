package repair

import (
	"encoding/json"
	"errors"
	"strings"
	"unicode/utf8"

	"github.com/tdewolff/parse/v2"
	"github.com/tdewolff/parse/v2/js"

	"github.com/worldprobe/worldprobe/internal/pagescript"
)

// Kinds of the findings the static parse gives.
const (
	KindSyntaxError    = "JavaScript syntax error"
	KindImportMapError = "import map error"
)

// ScriptErrors parses every inline script of page — classic scripts and
// modules with the JavaScript parser of tdewolff/parse, import maps as
// JSON — and returns a finding for each that does not parse, at the line
// and column of the page where the parser stopped.
func ScriptErrors(page string) []Finding {
	var out []Finding
	for _, s := range pagescript.Inline([]byte(page)) {
		text := page[s.Start:s.End]
		switch s.Kind() {
		case "classic", "module":
			buf := make([]byte, len(text), len(text)+1)
			copy(buf, text)
			_, err := js.Parse(parse.NewInputBytes(buf), js.Options{})
			var perr *parse.Error
			if errors.As(err, &perr) {
				line, col := pagePosition(page, s.Start, perr.Line, perr.Column)
				out = append(out, Finding{Kind: KindSyntaxError, Text: perr.Message + scriptName(s), Line: line, Column: col})
			} else if err != nil {
				line, col := pagePosition(page, s.Start, 1, 1)
				out = append(out, Finding{Kind: KindSyntaxError, Text: err.Error() + scriptName(s), Line: line, Column: col})
			}
		case "importmap":
			var v any
			err := json.Unmarshal([]byte(text), &v)
			var serr *json.SyntaxError
			if errors.As(err, &serr) {
				at := s.Start + int(serr.Offset)
				if serr.Offset > 0 {
					at-- // the offset is after the byte that failed
				}
				line, col := positionOf(page, min(at, len(page)))
				out = append(out, Finding{Kind: KindImportMapError, Text: "the import map is not valid JSON: " + err.Error(), Line: line, Column: col})
			} else if err != nil {
				line, col := positionOf(page, s.Start)
				out = append(out, Finding{Kind: KindImportMapError, Text: "the import map is not valid JSON: " + err.Error(), Line: line, Column: col})
			}
		}
	}
	return out
}

func scriptName(s pagescript.Script) string {
	if s.Kind() == "module" {
		return " (in a module script)"
	}
	return ""
}

// pagePosition turns a line and column (from 1, columns in characters)
// of a script starting at byte offset start of page into the page's.
func pagePosition(page string, start, line, col int) (int, int) {
	pl, pc := positionOf(page, start)
	if line <= 1 {
		return pl, pc + col - 1
	}
	return pl + line - 1, col
}

// positionOf is the line and column (from 1, columns in characters) of
// byte offset off of page.
func positionOf(page string, off int) (line, col int) {
	before := page[:off]
	line = strings.Count(before, "\n") + 1
	if i := strings.LastIndexByte(before, '\n'); i >= 0 {
		before = before[i+1:]
	}
	return line, utf8.RuneCountInString(before) + 1
}
