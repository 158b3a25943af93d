package gen

import (
	"fmt"
	"path"
	"regexp"
	"strings"
)

// Failure says why a reply gave no page.
type Failure string

// Failures of a reply.
const (
	// NoHTML: the reply holds no HTML page (prose only, or code that is
	// not a page).
	NoHTML Failure = "no_html"
	// Refusal: the model declined the task.
	Refusal Failure = "refusal"
)

// Extraction is a model's reply reduced to one HTML file.
type Extraction struct {
	// HTML is the page; "" when the reply gave none (Failure says why).
	HTML string `json:"-"`
	// From says where the page came from: "fenced block", "unfenced
	// document" or "bare markup".
	From string `json:"from,omitempty"`
	// Inlined names the files of the reply put into the page where it
	// referred to them (<script src="main.js">, <link href="style.css">).
	Inlined []string `json:"inlined,omitempty"`
	// Dropped says what of the reply's code was left out, and why.
	Dropped []string `json:"dropped,omitempty"`
	// Missing names the local files the page refers to that the reply
	// does not hold.
	Missing []string `json:"missing,omitempty"`
	// Unclosed is true when the page's code block or document does not end
	// (no closing fence, no </html>): a cut-off reply.
	Unclosed bool `json:"unclosed,omitempty"`
	// Failure is set when HTML is empty.
	Failure Failure `json:"failure,omitempty"`
	// Reason explains Failure.
	Reason string `json:"reason,omitempty"`
}

// Languages of code blocks, as Extract names them.
const (
	langHTML = "html"
	langJS   = "javascript"
	langCSS  = "css"
)

// block is one fenced code block of a reply.
type block struct {
	info   string // the fence's info string
	lang   string // langHTML, langJS, langCSS, another language or ""
	name   string // its file name, when the reply gives one
	body   string
	closed bool
	lines  int
	prose  string // the last line of prose before it
}

var (
	fenceOpen = regexp.MustCompile("^ {0,3}(`{3,}|~{3,})[ \t]*(.*)$")
	// fileName is a file name with an extension a page is made of.
	fileName = regexp.MustCompile(`(?i)(?:^|[\s"'` + "`" + `*(:=/])((?:[\w.-]+/)*[\w.-]+\.(?:html?|m?js|css))(?:$|[\s"'` + "`" + `*):,;.!?])`)
	// docStart finds the start of an HTML document.
	docStart = regexp.MustCompile(`(?i)<!doctype\s+html|<html[\s>]`)
	docEnd   = regexp.MustCompile(`(?i)</html\s*>`)
	// quotedName is a name in backticks or bold.
	quotedName = regexp.MustCompile("`([^`]+)`|\\*\\*([^*]+)\\*\\*")
	scriptTag  = regexp.MustCompile(`(?i)<script\b`)
	refusal    = regexp.MustCompile(`(?i)^\W*(?:i['’]?m sorry|i am sorry|sorry,|i can['’]?t|i cannot|i can ?not|i won['’]?t|i will not|i['’]?m (?:not able|unable)|i am (?:not able|unable)|unfortunately,? i (?:can['’]?t|cannot|am unable)|as an ai)\b`)
)

// parseBlocks splits a reply into its fenced code blocks. A block whose
// closing fence is missing runs to the end of the reply.
func parseBlocks(reply string) []block {
	lines := strings.Split(reply, "\n")
	var out []block
	var prose string
	for i := 0; i < len(lines); i++ {
		m := fenceOpen.FindStringSubmatch(lines[i])
		if m == nil || (m[1][0] == '`' && strings.Contains(m[2], "`")) {
			if t := strings.TrimSpace(lines[i]); t != "" {
				prose = t
			}
			continue
		}
		fence, info := m[1], strings.TrimSpace(m[2])
		b := block{info: info, prose: prose}
		var body []string
		for i++; i < len(lines); i++ {
			t := strings.TrimSpace(lines[i])
			if strings.HasPrefix(t, fence[:1]) && strings.Trim(t, fence[:1]) == "" && len(t) >= len(fence) && indent(lines[i]) <= 3 {
				b.closed = true
				break
			}
			body = append(body, lines[i])
		}
		b.body = strings.Join(body, "\n")
		b.lines = len(body)
		b.lang, b.name = blockKind(b)
		out = append(out, b)
		prose = ""
	}
	return out
}

func indent(line string) int { return len(line) - len(strings.TrimLeft(line, " ")) }

// blockKind finds a block's language and file name: from its info string
// ("html", "js main.js", "html title=\"index.html\"", "css:style.css"), a
// comment on its first line ("// main.js", "<!-- index.html -->"), the
// prose line just before it ("**main.js**", "### `style.css`"), or, for the
// language, its content.
func blockKind(b block) (lang, name string) {
	fields := strings.FieldsFunc(b.info, func(r rune) bool { return r == ' ' || r == '\t' || r == ':' || r == '=' || r == '{' || r == '}' })
	if len(fields) > 0 {
		lang = normLang(strings.Trim(fields[0], `"'.`))
	}
	for _, f := range fields {
		if n := fileIn(" " + strings.Trim(f, `"'`) + " "); n != "" {
			name = n
			break
		}
	}
	first := strings.TrimSpace(firstLine(b.body))
	if name == "" && (strings.HasPrefix(first, "//") || strings.HasPrefix(first, "/*") || strings.HasPrefix(first, "<!--")) {
		c := strings.TrimSpace(strings.Trim(first, "/*<!->"))
		for _, p := range []string{"file:", "filename:", "File:", "Filename:"} {
			c = strings.TrimSpace(strings.TrimPrefix(c, p))
		}
		if n := fileIn(" " + c + " "); n != "" && n == strings.TrimPrefix(c, "./") {
			name = n
		}
	}
	if name == "" {
		name = proseName(b.prose)
	}
	if lang == "" || lang == "text" || lang == "plaintext" {
		switch {
		case name != "":
			lang = langOfFile(name)
		case docStart.MatchString(b.body):
			lang = langHTML
		}
	}
	if name != "" && lang != "" && langOfFile(name) != lang {
		name = "" // "three.js" in a line of prose before an HTML block names no file of it
	}
	return lang, name
}

// proseName is the file a line of prose announces for the block after it:
// the line is the name alone, under Markdown decoration ("### main.js",
// "**index.html**:"), or it names the file in backticks or bold.
func proseName(line string) string {
	bare := strings.Trim(line, " #*`_:-–—>")
	if n := fileIn(" " + bare + " "); n != "" && n == strings.TrimPrefix(bare, "./") {
		return n
	}
	for _, quoted := range quotedName.FindAllStringSubmatch(line, -1) {
		q := strings.TrimSpace(quoted[1] + quoted[2])
		if n := fileIn(" " + q + " "); n != "" && n == strings.TrimPrefix(q, "./") {
			return n
		}
	}
	return ""
}

// fileIn returns the first file name of a page's kind in s.
func fileIn(s string) string {
	m := fileName.FindStringSubmatch(s)
	if m == nil {
		return ""
	}
	return strings.TrimPrefix(m[1], "./")
}

func firstLine(s string) string {
	s = strings.TrimLeft(s, "\n")
	if i := strings.IndexByte(s, '\n'); i >= 0 {
		return s[:i]
	}
	return s
}

func normLang(s string) string {
	switch strings.ToLower(s) {
	case "html", "htm", "xhtml", "html5":
		return langHTML
	case "js", "javascript", "mjs", "jsx", "es6", "ecmascript", "module":
		return langJS
	case "css":
		return langCSS
	}
	if n := fileIn(" " + s + " "); n != "" {
		return langOfFile(n)
	}
	return strings.ToLower(s)
}

func langOfFile(name string) string {
	switch strings.ToLower(path.Ext(name)) {
	case ".html", ".htm":
		return langHTML
	case ".js", ".mjs":
		return langJS
	case ".css":
		return langCSS
	}
	return ""
}

// Extract reduces a model's reply to one HTML file:
//   - a fenced code block holding the page (```html, or an unlabelled block
//     that is an HTML document), with the prose around it dropped;
//   - with several blocks, the page is the block named index.html, else the
//     longest full document; JavaScript and CSS blocks it refers to by file
//     name (<script src="main.js">, <link rel="stylesheet" href="style.css">)
//     are inlined in their place, and everything else is dropped and named
//     in Dropped;
//   - without a fence, the document from <!DOCTYPE html> or <html> to
//     </html>;
//   - otherwise no page: a refusal when the reply declines, else no_html,
//     with the reason.
//
// A page whose block or document does not end (a cut-off reply) is kept,
// marked Unclosed.
func Extract(reply string) Extraction {
	blocks := parseBlocks(reply)
	page := -1
	for i, b := range blocks {
		if b.lang != langHTML {
			continue
		}
		if page < 0 || better(b, blocks[page]) {
			page = i
		}
	}
	if page >= 0 {
		return assemble(blocks, page)
	}
	outside := reply
	for _, b := range blocks {
		outside = strings.Replace(outside, b.body, "", 1)
	}
	if ex, ok := unfenced(outside); ok {
		for _, b := range blocks {
			ex.Dropped = append(ex.Dropped, describe(b)+": not part of the page")
		}
		return ex
	}
	return noPage(reply, blocks)
}

// better reports whether a is a better page than b: the file named
// index.html, then a full document, then the longer.
func better(a, b block) bool {
	ai, bi := strings.EqualFold(path.Base(a.name), "index.html"), strings.EqualFold(path.Base(b.name), "index.html")
	if ai != bi {
		return ai
	}
	ad, bd := docStart.MatchString(a.body), docStart.MatchString(b.body)
	if ad != bd {
		return ad
	}
	return len(a.body) > len(b.body)
}

// assemble makes the page of blocks[page], inlining the blocks it refers
// to and naming the rest as dropped.
func assemble(blocks []block, page int) Extraction {
	b := blocks[page]
	ex := Extraction{From: "fenced block", Unclosed: !b.closed || !docEnd.MatchString(b.body) && docStart.MatchString(b.body)}
	html := b.body
	used := make([]bool, len(blocks))
	used[page] = true
	// Named blocks go where the page names them.
	for i, o := range blocks {
		if used[i] || o.name == "" || (o.lang != langJS && o.lang != langCSS) {
			continue
		}
		if h, ok := inline(html, o, o.name); ok {
			html, used[i] = h, true
			ex.Inlined = append(ex.Inlined, o.name)
		}
	}
	// An unnamed block goes where the page refers to the one file of its
	// kind that no block is named for, when it is the only such block.
	for _, lang := range []string{langJS, langCSS} {
		refs := localRefs(html, lang)
		var unnamed []int
		for i, o := range blocks {
			if !used[i] && o.lang == lang && o.name == "" {
				unnamed = append(unnamed, i)
			}
		}
		if len(refs) == 1 && len(unnamed) == 1 {
			if h, ok := inline(html, blocks[unnamed[0]], refs[0]); ok {
				html, used[unnamed[0]] = h, true
				ex.Inlined = append(ex.Inlined, refs[0]+" (an unnamed "+lang+" block)")
			}
		}
	}
	for i, o := range blocks {
		if used[i] {
			continue
		}
		why := "the page does not refer to it"
		switch {
		case o.lang == langHTML:
			why = "another HTML block; the page is " + describe(b)
		case o.lang != langJS && o.lang != langCSS:
			why = "not part of a page"
		}
		ex.Dropped = append(ex.Dropped, describe(o)+": "+why)
	}
	for _, lang := range []string{langJS, langCSS} {
		ex.Missing = append(ex.Missing, localRefs(html, lang)...)
	}
	ex.HTML = strings.TrimSpace(html) + "\n"
	return ex
}

// describe names a block in messages: "main.js (javascript, 40 lines)".
func describe(b block) string {
	lang := b.lang
	if lang == "" {
		lang = "no language"
	}
	lines := fmt.Sprintf("%d lines", b.lines)
	if b.lines == 1 {
		lines = "1 line"
	}
	if b.name != "" {
		return fmt.Sprintf("%s (%s, %s)", b.name, lang, lines)
	}
	article := "a"
	if lang == langHTML || strings.ContainsRune("aeiou", rune(lang[0])) {
		article = "an"
	}
	return fmt.Sprintf("%s %s block (%s)", article, lang, lines)
}

var (
	scriptSrc = regexp.MustCompile(`(?is)<script\b([^>]*?)\s+src\s*=\s*(?:"([^"]*)"|'([^']*)'|([^\s>]+))([^>]*)>\s*</script\s*>`)
	linkHref  = regexp.MustCompile(`(?is)<link\b[^>]*?\bhref\s*=\s*(?:"([^"]*)"|'([^']*)'|([^\s>]+))[^>]*>`)
	stylesRel = regexp.MustCompile(`(?i)\brel\s*=\s*["']?stylesheet`)
)

// localRefs lists the local files (no scheme, no //host) the page loads as
// scripts (lang javascript) or stylesheets (css).
func localRefs(html, lang string) []string {
	var out []string
	for _, r := range refs(html, lang) {
		out = append(out, r.target)
	}
	return out
}

type ref struct {
	start, end int
	target     string // the path referred to, without "./"
	attrs      string // a script's other attributes (type="module", defer)
}

func refs(html, lang string) []ref {
	var out []ref
	local := func(u string) bool {
		return u != "" && !strings.Contains(u, "://") && !strings.HasPrefix(u, "//") && !strings.HasPrefix(u, "data:")
	}
	switch lang {
	case langJS:
		for _, m := range scriptSrc.FindAllStringSubmatchIndex(html, -1) {
			u := group(html, m, 2, 3, 4)
			if local(u) {
				attrs := html[m[2]:m[3]] + html[m[10]:m[11]]
				out = append(out, ref{start: m[0], end: m[1], target: strings.TrimPrefix(u, "./"), attrs: attrs})
			}
		}
	case langCSS:
		for _, m := range linkHref.FindAllStringSubmatchIndex(html, -1) {
			u := group(html, m, 1, 2, 3)
			if local(u) && stylesRel.MatchString(html[m[0]:m[1]]) {
				out = append(out, ref{start: m[0], end: m[1], target: strings.TrimPrefix(u, "./")})
			}
		}
	}
	return out
}

// group returns the first of the submatches gs that matched.
func group(s string, m []int, gs ...int) string {
	for _, g := range gs {
		if m[2*g] >= 0 {
			return s[m[2*g]:m[2*g+1]]
		}
	}
	return ""
}

// inline puts block b in place of the page's reference to file name, if
// the page has one.
func inline(html string, b block, name string) (string, bool) {
	for _, r := range refs(html, b.lang) {
		if r.target != name && path.Base(r.target) != path.Base(name) {
			continue
		}
		var repl string
		if b.lang == langJS {
			attrs := strings.TrimSpace(r.attrs)
			if attrs != "" {
				attrs = " " + attrs
			}
			repl = "<script" + attrs + ">\n" + escapeEnd(b.body, "</script") + "\n</script>"
		} else {
			repl = "<style>\n" + escapeEnd(b.body, "</style") + "\n</style>"
		}
		return html[:r.start] + repl + html[r.end:], true
	}
	return html, false
}

var endTags = map[string]*regexp.Regexp{"</script": regexp.MustCompile(`(?i)</script`), "</style": regexp.MustCompile(`(?i)</style`)}

// escapeEnd keeps inlined code from closing its element early: "</script"
// becomes "<\/script".
func escapeEnd(code, tag string) string {
	return endTags[tag].ReplaceAllStringFunc(code, func(s string) string { return s[:1] + `\` + s[1:] })
}

// unfenced finds a page outside code blocks: an HTML document, or markup
// that is all of the reply.
func unfenced(text string) (Extraction, bool) {
	if loc := docStart.FindStringIndex(text); loc != nil {
		doc := text[loc[0]:]
		ex := Extraction{From: "unfenced document"}
		if ends := docEnd.FindAllStringIndex(doc, -1); len(ends) > 0 {
			doc = doc[:ends[len(ends)-1][1]]
		} else {
			ex.Unclosed = true
		}
		ex.HTML = strings.TrimSpace(doc) + "\n"
		return withMissing(ex), true
	}
	t := strings.TrimSpace(text)
	if strings.HasPrefix(t, "<") && scriptTag.MatchString(t) {
		return withMissing(Extraction{From: "bare markup", HTML: t + "\n"}), true
	}
	return Extraction{}, false
}

func withMissing(ex Extraction) Extraction {
	for _, lang := range []string{langJS, langCSS} {
		ex.Missing = append(ex.Missing, localRefs(ex.HTML, lang)...)
	}
	return ex
}

// noPage explains a reply without a page.
func noPage(reply string, blocks []block) Extraction {
	if len(blocks) == 0 && refusal.MatchString(strings.TrimSpace(reply)) {
		return Extraction{Failure: Refusal, Reason: "the model declined: " + quote(reply)}
	}
	if len(blocks) == 0 {
		if strings.TrimSpace(reply) == "" {
			return Extraction{Failure: NoHTML, Reason: "the reply is empty"}
		}
		return Extraction{Failure: NoHTML, Reason: fmt.Sprintf("the reply has no code block and no HTML document (%d characters of prose: %s)",
			len([]rune(strings.TrimSpace(reply))), quote(reply))}
	}
	var kinds []string
	for _, b := range blocks {
		kinds = append(kinds, describe(b))
	}
	return Extraction{Failure: NoHTML, Reason: "the reply has no HTML page, only " + strings.Join(kinds, ", ")}
}

// quote is the start of a text for a message: its first 160 characters on
// one line.
func quote(s string) string {
	s = strings.Join(strings.Fields(s), " ")
	if r := []rune(s); len(r) > 160 {
		s = string(r[:160]) + "…"
	}
	return fmt.Sprintf("%q", s)
}
