package mutate

import (
	"bytes"
	"strings"

	"github.com/tdewolff/parse/v2"
	"github.com/tdewolff/parse/v2/html"
)

// scriptElem is one inline <script> element of JavaScript.
type scriptElem struct {
	start, end int // byte range of its text in the page
	module     bool
}

// jsTypes are the type= values that make a script classic JavaScript.
var jsTypes = map[string]bool{
	"": true, "text/javascript": true, "application/javascript": true, "application/ecmascript": true,
	"text/ecmascript": true, "application/x-javascript": true, "text/x-javascript": true, "text/jscript": true,
	"text/livescript": true, "javascript": true,
}

// findScripts returns the inline JavaScript <script> elements of page, in
// document order. Scripts with src= and scripts of other types (importmap,
// application/json, shaders, …) are left out.
func findScripts(page []byte) []scriptElem {
	// The lexer lower-cases tag and attribute names in place: give it a copy.
	buf := make([]byte, len(page), len(page)+1)
	copy(buf, page)
	l := html.NewLexer(parse.NewInputBytes(buf))
	var out []scriptElem
	from := 0
	for {
		tt, _ := l.Next()
		if tt == html.ErrorToken {
			return out
		}
		if tt != html.StartTagToken || !bytes.Equal(l.Text(), []byte("script")) {
			continue
		}
		typ, hasSrc, ok := "", false, true
		for {
			tt, _ = l.Next()
			if tt != html.AttributeToken {
				break
			}
			switch string(l.AttrKey()) {
			case "src":
				hasSrc = true
			case "type":
				typ = strings.ToLower(strings.TrimSpace(unquoteAttr(l.AttrVal())))
			}
		}
		if tt == html.StartTagVoidToken || tt == html.ErrorToken {
			ok = false
		}
		module := typ == "module"
		if hasSrc || !(module || jsTypes[typ]) {
			ok = false
		}
		tt, data := l.Next()
		if tt != html.TextToken || !ok || len(data) == 0 {
			continue
		}
		off := addrIndex(buf, data, from)
		if off < 0 {
			continue
		}
		from = off + len(data)
		out = append(out, scriptElem{start: off, end: off + len(data), module: module})
	}
}

func unquoteAttr(v []byte) string {
	s := string(v)
	if len(s) >= 2 && (s[0] == '"' || s[0] == '\'') && s[len(s)-1] == s[0] {
		s = s[1 : len(s)-1]
	}
	return s
}

// addrIndex returns the offset of tok, a sub-slice of buf, searching at or
// after from and comparing addresses, or -1.
func addrIndex(buf, tok []byte, from int) int {
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
