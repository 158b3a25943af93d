package repair

import (
	"bytes"
	"encoding/json"
	"errors"
	"strings"
	"unicode/utf8"

	"github.com/tdewolff/parse/v2"
	"github.com/tdewolff/parse/v2/html"
	"github.com/tdewolff/parse/v2/js"
)

// Kinds of the findings the static parse gives.
const (
	KindSyntaxError    = "JavaScript syntax error"
	KindImportMapError = "import map error"
)

// Script is one inline <script> element of a page.
type Script struct {
	// Text is the script's source; Offset the byte offset in the page
	// where it starts.
	Text   string
	Offset int
	// Type is its type= attribute, lower case ("" for a classic script,
	// "module", "importmap", …).
	Type string
}

// Kind says what the script holds: "classic", "module", "importmap", or
// "" for another type (a shader, JSON data), which is not parsed.
func (s Script) Kind() string {
	switch s.Type {
	case "", "text/javascript", "application/javascript", "application/ecmascript", "text/ecmascript",
		"application/x-javascript", "text/x-javascript", "text/jscript", "javascript":
		return "classic"
	case "module", "importmap":
		return s.Type
	}
	return ""
}

// Scripts returns the inline scripts of page in document order; scripts
// with a src= attribute (their code is in another file) are left out.
func Scripts(page string) []Script {
	// The lexer lower-cases names in place and needs room for a NUL.
	buf := make([]byte, len(page), len(page)+1)
	copy(buf, page)
	l := html.NewLexer(parse.NewInputBytes(buf))
	var out []Script
	from := 0
	for {
		tt, _ := l.Next()
		if tt == html.ErrorToken {
			return out
		}
		if tt != html.StartTagToken || !bytes.Equal(l.Text(), []byte("script")) {
			continue
		}
		typ, src := "", false
		for {
			tt, _ = l.Next()
			if tt != html.AttributeToken {
				break
			}
			switch string(l.AttrKey()) {
			case "src":
				src = true
			case "type":
				typ = strings.ToLower(strings.TrimSpace(strings.Trim(string(l.AttrVal()), `"'`)))
			}
		}
		if tt != html.StartTagCloseToken {
			continue
		}
		tt, data := l.Next()
		if tt != html.TextToken || src || len(data) == 0 {
			continue
		}
		off := offsetOf(buf, data, from)
		if off < 0 {
			continue
		}
		from = off + len(data)
		out = append(out, Script{Text: page[off : off+len(data)], Offset: off, Type: typ})
	}
}

// offsetOf is the offset in buf of tok, a sub-slice of it, at or after
// from (found by address, not by content), or -1.
func offsetOf(buf, tok []byte, from int) int {
	for from < len(buf) {
		i := bytes.Index(buf[from:], tok)
		if i < 0 {
			return -1
		}
		if off := from + i; &buf[off] == &tok[0] {
			return off
		}
		from += i + 1
	}
	return -1
}

// ScriptErrors parses every inline script of page — classic scripts and
// modules with the JavaScript parser of tdewolff/parse, import maps as
// JSON — and returns a finding for each that does not parse, at the line
// and column of the page where the parser stopped.
func ScriptErrors(page string) []Finding {
	var out []Finding
	for _, s := range Scripts(page) {
		switch s.Kind() {
		case "classic", "module":
			buf := make([]byte, len(s.Text), len(s.Text)+1)
			copy(buf, s.Text)
			_, err := js.Parse(parse.NewInputBytes(buf), js.Options{})
			var perr *parse.Error
			if errors.As(err, &perr) {
				line, col := pagePosition(page, s.Offset, perr.Line, perr.Column)
				out = append(out, Finding{Kind: KindSyntaxError, Text: perr.Message + scriptName(s), Line: line, Column: col})
			} else if err != nil {
				line, col := pagePosition(page, s.Offset, 1, 1)
				out = append(out, Finding{Kind: KindSyntaxError, Text: err.Error() + scriptName(s), Line: line, Column: col})
			}
		case "importmap":
			var v any
			err := json.Unmarshal([]byte(s.Text), &v)
			var serr *json.SyntaxError
			if errors.As(err, &serr) {
				at := s.Offset + int(serr.Offset)
				if serr.Offset > 0 {
					at-- // the offset is after the byte that failed
				}
				line, col := positionOf(page, min(at, len(page)))
				out = append(out, Finding{Kind: KindImportMapError, Text: "the import map is not valid JSON: " + err.Error(), Line: line, Column: col})
			} else if err != nil {
				line, col := positionOf(page, s.Offset)
				out = append(out, Finding{Kind: KindImportMapError, Text: "the import map is not valid JSON: " + err.Error(), Line: line, Column: col})
			}
		}
	}
	return out
}

func scriptName(s Script) string {
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
