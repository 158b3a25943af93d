// Package pagescript finds the inline <script> elements of an HTML page
// with tdewolff/parse's HTML lexer: where each one's text is in the page,
// and what kind of script it is.
package pagescript

import (
	"bytes"
	"strings"

	"github.com/tdewolff/parse/v2"
	"github.com/tdewolff/parse/v2/html"
)

// Script is one inline <script> element of a page.
type Script struct {
	// Start and End are the byte range of its text in the page.
	Start, End int
	// Type is its type= attribute, unquoted, trimmed and lower case ("" for
	// none).
	Type string
}

// classicTypes are the type= values that make a script classic JavaScript.
var classicTypes = map[string]bool{
	"": true, "text/javascript": true, "application/javascript": true, "application/ecmascript": true,
	"text/ecmascript": true, "application/x-javascript": true, "text/x-javascript": true, "text/jscript": true,
	"text/livescript": true, "javascript": true,
}

// Kind says what the script holds: "classic", "module", "importmap", or
// "" for another type (a shader, JSON data), which is no JavaScript.
func (s Script) Kind() string {
	switch {
	case classicTypes[s.Type]:
		return "classic"
	case s.Type == "module", s.Type == "importmap":
		return s.Type
	}
	return ""
}

// JavaScript reports whether the script is classic JavaScript or a module.
func (s Script) JavaScript() bool {
	k := s.Kind()
	return k == "classic" || k == "module"
}

// Inline returns the inline scripts of page, of every type, in document
// order. Scripts with a src= attribute (their code is in another file)
// and empty ones are left out.
func Inline(page []byte) []Script {
	// The lexer lower-cases tag and attribute names in place and wants room
	// for a NUL: give it a copy.
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
		typ, hasSrc := "", false
		for {
			tt, _ = l.Next()
			if tt != html.AttributeToken {
				break
			}
			switch string(l.AttrKey()) {
			case "src":
				hasSrc = true
			case "type":
				typ = strings.ToLower(strings.TrimSpace(unquote(l.AttrVal())))
			}
		}
		if tt != html.StartTagCloseToken {
			continue // <script/> or the end of the input
		}
		tt, data := l.Next()
		if tt != html.TextToken || hasSrc || len(data) == 0 {
			continue
		}
		off := Offset(buf, data, from)
		if off < 0 {
			continue
		}
		from = off + len(data)
		out = append(out, Script{Start: off, End: off + len(data), Type: typ})
	}
}

func unquote(v []byte) string {
	s := string(v)
	if len(s) >= 2 && (s[0] == '"' || s[0] == '\'') && s[len(s)-1] == s[0] {
		s = s[1 : len(s)-1]
	}
	return s
}

// Offset returns the offset in buf of tok, a sub-slice of buf, searching
// at or after from and comparing addresses (not content: the same text may
// stand earlier), or -1.
func Offset(buf, tok []byte, from int) int {
	if len(tok) == 0 {
		return -1
	}
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
