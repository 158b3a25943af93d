package probe

import (
	"fmt"
	"regexp"
	"strings"
	"sync"
	"unicode/utf8"

	"github.com/worldprobe/worldprobe/internal/pagescript"
	"github.com/worldprobe/worldprobe/internal/worldjudge/quote"
)

// LoopDepth is how many calls deep from the frame loop's callback a
// function still counts as run every frame (WorldBench's LOOP_DEPTH): the
// callback is depth 0, a function it calls depth 1, … up to LoopDepth.
const LoopDepth = 4

// RunsEveryFrame tells whether a quote's code (comments and white space
// removed) sits inside the frame loop: the callback given to
// requestAnimationFrame or setAnimationLoop (inline, or a function named
// there), or a function those call, up to LoopDepth calls deep. Functions
// are found by brace matching over the page's inline scripts with
// comments and strings masked, and calls by name (a method call counts
// for every function or method of that name): WorldBench's rule, whose
// "unknown" is "no". It returns where the code runs, or "" and why not.
func (c *Checker) RunsEveryFrame(q string) (string, string) {
	c.loopOnce.Do(func() { c.loops = frameLoops(c.html) })
	n := quote.Normalize(CodeOnly(q))
	if n == "" {
		return "", "the quote holds no code"
	}
	found, roots := false, 0
	for _, s := range c.loops {
		roots += s.roots
		for _, o := range s.find(n) {
			found = true
			if b := s.innermost(o); b != nil {
				return b.chain(), ""
			}
		}
	}
	switch {
	case !found:
		return "", "its code is not found in the page's inline scripts"
	case roots == 0:
		return "", "the page's scripts never call requestAnimationFrame or setAnimationLoop"
	}
	return "", fmt.Sprintf("it is not inside the frame loop's callback nor in a function it calls (up to %d calls deep)", LoopDepth)
}

// loopScript is one inline script's frame-loop analysis.
type loopScript struct {
	text   string
	ws     string // text without white space
	wsPos  []int  // wsPos[i]: the offset in text of ws[i]
	bodies []*loopBody
	roots  int
}

// loopBody is a function body that runs every frame: text[from] is its
// '{' (or the first byte of an arrow's expression body), text[to] its
// '}' (or the byte after the expression).
type loopBody struct {
	from, to int
	name     string
	depth    int
	parent   *loopBody
}

// chain says how the body is reached: "updateSun ← animate ← requestAnimationFrame".
func (b *loopBody) chain() string {
	var parts []string
	for x := b; x != nil; x = x.parent {
		parts = append(parts, x.name)
	}
	return strings.Join(parts, " ← ")
}

func (s *loopScript) find(n string) []int {
	var out []int
	for i := 0; ; {
		j := strings.Index(s.ws[i:], n)
		if j < 0 {
			return out
		}
		out = append(out, s.wsPos[i+j])
		i += j + 1
	}
}

// innermost is the shallowest frame body holding offset o, or nil.
func (s *loopScript) innermost(o int) *loopBody {
	var best *loopBody
	for _, b := range s.bodies {
		if b.from < o && o < b.to && (best == nil || b.depth < best.depth) {
			best = b
		}
	}
	return best
}

var (
	identRe        = `[A-Za-z_$][\w$]*`
	funcDeclRe     = regexp.MustCompile(`\bfunction\b\s*\*?\s*(` + identRe + `)\s*\(`)
	funcAssignRe   = regexp.MustCompile(`(` + identRe + `)\s*[:=]\s*(?:async\s+)?function\b\s*\*?\s*(?:` + identRe + `)?\s*\(`)
	arrowRe        = regexp.MustCompile(`(` + identRe + `)\s*[:=]\s*(?:async\s*)?(\(|` + identRe + `\s*=>)`)
	callRe2        = regexp.MustCompile(`(` + identRe + `)\s*\(`)
	loopCallRe     = regexp.MustCompile(`\b(requestAnimationFrame|setAnimationLoop)\s*\(`)
	leadingIdentRe = regexp.MustCompile(`^` + identRe)
	chainRe        = regexp.MustCompile(`^` + identRe + `(?:\s*\.\s*` + identRe + `)*`)
	notFunc        = map[string]bool{"if": true, "for": true, "while": true, "switch": true, "catch": true, "with": true, "function": true, "return": true, "typeof": true, "new": true, "await": true, "yield": true, "super": true, "import": true}
)

// frameLoops analyses every inline JavaScript of a page.
func frameLoops(html string) []*loopScript {
	var out []*loopScript
	for _, el := range pagescript.Inline([]byte(html)) {
		if el.JavaScript() {
			out = append(out, analyseLoop(html[el.Start:el.End]))
		}
	}
	return out
}

func analyseLoop(text string) *loopScript {
	s := &loopScript{text: text}
	var ws strings.Builder
	for i := 0; i < len(text); {
		r, n := utf8.DecodeRuneInString(text[i:])
		if !quote.IsSpace(r) {
			ws.WriteString(text[i : i+n]) // the bytes as they are, so offsets map one to one
			for k := 0; k < n; k++ {
				s.wsPos = append(s.wsPos, i+k)
			}
		}
		i += n
	}
	s.ws = ws.String()
	code := maskJS(text)
	match := matchBrackets(code)
	defs := functionDefs(code, match)
	seen := map[int]bool{}
	var level []*loopBody
	add := func(b *loopBody) {
		if b != nil && !seen[b.from] {
			seen[b.from] = true
			s.bodies = append(s.bodies, b)
			level = append(level, b)
		}
	}
	for _, m := range loopCallRe.FindAllStringSubmatchIndex(code, -1) {
		s.roots++
		via := code[m[2]:m[3]]
		p := m[1] - 1
		end := match[p]
		if end < 0 {
			continue
		}
		arg := skipSpace(code, p+1)
		if arg >= end {
			continue
		}
		if b := funcBodyAt(code, match, arg, end); b != nil {
			b.name = "the " + via + " callback"
			add(b)
			continue
		}
		ch := chainRe.FindString(code[arg:end])
		if ch == "" {
			continue
		}
		parts := strings.Split(strings.ReplaceAll(ch, " ", ""), ".")
		name := parts[len(parts)-1]
		if name == "bind" && len(parts) > 1 {
			name = parts[len(parts)-2]
		}
		root := &loopBody{name: via}
		for _, d := range defs[name] {
			add(&loopBody{from: d[0], to: d[1], name: name, parent: root})
		}
	}
	for depth := 1; depth <= LoopDepth && len(level) > 0; depth++ {
		cur := level
		level = nil
		for _, b := range cur {
			for _, m := range callRe2.FindAllStringSubmatchIndex(code[b.from:b.to], -1) {
				name := code[b.from+m[2] : b.from+m[3]]
				if notFunc[name] {
					continue
				}
				for _, d := range defs[name] {
					add(&loopBody{from: d[0], to: d[1], name: name, depth: depth, parent: b})
				}
			}
		}
	}
	return s
}

// functionDefs are the bodies of the script's named functions: function
// declarations, functions and arrows assigned to a name or a property,
// and methods.
func functionDefs(code string, match []int) map[string][][2]int {
	defs := map[string][][2]int{}
	put := func(name string, b *loopBody) {
		if b != nil {
			defs[name] = append(defs[name], [2]int{b.from, b.to})
		}
	}
	taken := map[int]bool{} // '(' offsets already read as a definition's parameters
	for _, m := range funcDeclRe.FindAllStringSubmatchIndex(code, -1) {
		taken[m[1]-1] = true
		put(code[m[2]:m[3]], bodyAfterParams(code, match, m[1]-1))
	}
	for _, m := range funcAssignRe.FindAllStringSubmatchIndex(code, -1) {
		taken[m[1]-1] = true
		put(code[m[2]:m[3]], bodyAfterParams(code, match, m[1]-1))
	}
	for _, m := range arrowRe.FindAllStringSubmatchIndex(code, -1) {
		if notFunc[code[m[2]:m[3]]] {
			continue
		}
		if b := funcBodyAt(code, match, m[4], len(code)); b != nil {
			put(code[m[2]:m[3]], b)
		}
	}
	// Methods: name(params) { … } not preceded by '.', not a keyword.
	for _, m := range callRe2.FindAllStringSubmatchIndex(code, -1) {
		name, p := code[m[2]:m[3]], m[1]-1
		if notFunc[name] || taken[p] || (m[2] > 0 && code[m[2]-1] == '.') {
			continue
		}
		if before := strings.TrimRight(code[:m[2]], " \t\r\n"); strings.HasSuffix(before, ".") {
			continue
		}
		if match[p] < 0 {
			continue
		}
		if q := skipSpace(code, match[p]+1); q < len(code) && code[q] == '{' && match[q] > q {
			put(name, &loopBody{from: q, to: match[q]})
		}
	}
	return defs
}

// funcBodyAt reads a function expression starting at i (function …,
// async …, (params) => …, x => …) and returns its body, or nil.
func funcBodyAt(code string, match []int, i, end int) *loopBody {
	rest := code[i:]
	if strings.HasPrefix(rest, "async") {
		i = skipSpace(code, i+len("async"))
		rest = code[i:]
	}
	switch {
	case strings.HasPrefix(rest, "function"):
		p := strings.IndexByte(rest, '(')
		if p < 0 {
			return nil
		}
		return bodyAfterParams(code, match, i+p)
	case strings.HasPrefix(rest, "("):
		if match[i] < 0 {
			return nil
		}
		return arrowBody(code, match, skipSpace(code, match[i]+1), end)
	}
	if id := leadingIdentRe.FindString(rest); id != "" {
		return arrowBody(code, match, skipSpace(code, i+len(id)), end)
	}
	return nil
}

// arrowBody reads "=> body" at i.
func arrowBody(code string, match []int, i, end int) *loopBody {
	if !strings.HasPrefix(code[i:], "=>") {
		return nil
	}
	b := skipSpace(code, i+2)
	if b < len(code) && code[b] == '{' {
		if match[b] > b {
			return &loopBody{from: b, to: match[b]}
		}
		return nil
	}
	// An expression body: up to the first ',' or ';' outside brackets, or
	// the closing bracket around it.
	for k := b; k < len(code) && k < end; k++ {
		switch code[k] {
		case '(', '[', '{':
			if match[k] > k {
				k = match[k]
			}
		case ')', ']', '}', ',', ';':
			return &loopBody{from: b - 1, to: k}
		}
	}
	return &loopBody{from: b - 1, to: min(end, len(code))}
}

// bodyAfterParams is the braced body after the parameters opened at p.
func bodyAfterParams(code string, match []int, p int) *loopBody {
	if p < 0 || p >= len(code) || code[p] != '(' || match[p] < 0 {
		return nil
	}
	q := skipSpace(code, match[p]+1)
	if q < len(code) && code[q] == '{' && match[q] > q {
		return &loopBody{from: q, to: match[q]}
	}
	return nil
}

func skipSpace(code string, i int) int {
	for i < len(code) && (code[i] == ' ' || code[i] == '\t' || code[i] == '\n' || code[i] == '\r') {
		i++
	}
	return i
}

// maskJS blanks comments and the contents of string and template
// literals (same length, line breaks kept), so brackets and names in them
// are not read as code. Regular expression literals are not recognised.
func maskJS(text string) string {
	b := []byte(text)
	blank := func(i int) {
		if b[i] != '\n' {
			b[i] = ' '
		}
	}
	for i := 0; i < len(b); i++ {
		switch c := b[i]; {
		case c == '/' && i+1 < len(b) && b[i+1] == '/':
			for ; i < len(b) && b[i] != '\n'; i++ {
				blank(i)
			}
		case c == '/' && i+1 < len(b) && b[i+1] == '*':
			j := strings.Index(text[i+2:], "*/")
			stop := len(b)
			if j >= 0 {
				stop = i + 2 + j + 2
			}
			for ; i < stop; i++ {
				blank(i)
			}
			i--
		case c == '\'' || c == '"' || c == '`':
			for i++; i < len(b) && b[i] != c; i++ {
				if b[i] == '\\' && i+1 < len(b) {
					blank(i)
					i++
				}
				if c != '`' && b[i] == '\n' {
					break // an unterminated string ends at the line
				}
				blank(i)
			}
		}
	}
	return string(b)
}

// matchBrackets pairs (), [] and {}: match[i] is the offset of the
// bracket matching the one at i, or -1.
func matchBrackets(code string) []int {
	match := make([]int, len(code))
	for i := range match {
		match[i] = -1
	}
	pair := map[byte]byte{')': '(', ']': '[', '}': '{'}
	var stack []int
	for i := 0; i < len(code); i++ {
		switch c := code[i]; c {
		case '(', '[', '{':
			stack = append(stack, i)
		case ')', ']', '}':
			if n := len(stack); n > 0 && code[stack[n-1]] == pair[c] {
				match[stack[n-1]], match[i] = i, stack[n-1]
				stack = stack[:n-1]
			}
		}
	}
	return match
}

// loopCache is the Checker's lazily made frame-loop analysis.
type loopCache struct {
	loopOnce sync.Once
	loops    []*loopScript
}
