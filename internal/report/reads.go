package report

import (
	"strconv"
	"strings"
)

// Where an assertion reads a state from.
const (
	fromState    = "s"        // the state read when the assertion ran
	fromSnapshot = "snapshot" // a snapshot taken earlier in the probe
	fromTrace    = "trace"    // the samples of a trace step
)

// read is one state path an assertion reads: s.ball.position[1] is
// {fromState, "", ball.position[1]}; before.x is {fromSnapshot, "before",
// x}; the x.y of trace.fall.map(x, x.y) is {fromTrace, "fall", y}.
type read struct {
	From string
	Name string
	Path statePath
}

// lambdaMacros are the CEL macros whose first argument names each element
// of the list they are called on.
var lambdaMacros = map[string]bool{"map": true, "all": true, "exists": true, "exists_one": true, "filter": true}

// exprReads lists the state paths expr reads (docs/contracts.md: s, the
// snapshots named in snapshots, trace.<name> and the variables of macros
// over a trace), in the order they first appear, each once. It reads the
// expression's tokens, not its meaning: a path it cannot follow (into a
// function's result, through a computed index) is left out, which leaves
// a plot out but never draws a wrong one.
func exprReads(expr string, snapshots map[string]bool) []read {
	toks := tokenize(expr)
	var out []read
	seen := map[string]bool{}
	add := func(r read) {
		if len(r.Path) == 0 {
			return
		}
		k := r.From + "\x00" + r.Name + "\x00" + r.Path.String()
		if !seen[k] {
			seen[k] = true
			out = append(out, r)
		}
	}
	vars := map[string]string{} // macro variable → trace name
	for i := 0; i < len(toks); i++ {
		t := toks[i]
		if t.kind != tokIdent || i > 0 && toks[i-1].text == "." {
			continue
		}
		if i+1 < len(toks) && toks[i+1].text == "(" {
			continue // a function call
		}
		path, method, next := chain(toks, i+1)
		switch {
		case t.text == "s":
			add(read{From: fromState, Path: path})
		case t.text == "trace":
			if len(path) == 0 || path[0].Key == "" {
				break
			}
			name, rest := path[0].Key, path[1:]
			if len(rest) > 0 && rest[0].Key == "" {
				rest = rest[1:] // trace.fall[0].y: a sample's y
				add(read{From: fromTrace, Name: name, Path: rest})
			} else if len(rest) == 0 && lambdaMacros[method] && next+2 < len(toks) &&
				toks[next].text == "(" && toks[next+1].kind == tokIdent && toks[next+2].text == "," {
				vars[toks[next+1].text] = name
			}
		case vars[t.text] != "":
			add(read{From: fromTrace, Name: vars[t.text], Path: path})
		case snapshots[t.text]:
			add(read{From: fromSnapshot, Name: t.text, Path: path})
		}
	}
	return out
}

// interfaceRead is the path an interface-probe assertion checks (its expr
// is "ball.position: vec3").
func interfaceRead(expr string) (read, bool) {
	p, _, _ := strings.Cut(expr, ":")
	toks := tokenize(strings.TrimSpace(p))
	if len(toks) == 0 || toks[0].kind != tokIdent {
		return read{}, false
	}
	path, _, next := chain(toks, 1)
	if next != len(toks) {
		return read{}, false
	}
	return read{From: fromState, Path: append(statePath{{Key: toks[0].text}}, path...)}, true
}

// chain reads the member steps from toks[i] on: .key, [int], ["key"]. It
// stops before a method call, whose name it returns with the index of
// the token after the name.
func chain(toks []token, i int) (p statePath, method string, next int) {
	for i < len(toks) {
		switch {
		case toks[i].text == "." && i+1 < len(toks) && toks[i+1].kind == tokIdent:
			if i+2 < len(toks) && toks[i+2].text == "(" {
				return p, toks[i+1].text, i + 2
			}
			p = append(p, segment{Key: toks[i+1].text})
			i += 2
		case toks[i].text == "[" && i+2 < len(toks) && toks[i+2].text == "]" && toks[i+1].kind == tokInt:
			n, err := strconv.Atoi(toks[i+1].text)
			if err != nil {
				return p, "", i
			}
			p = append(p, segment{Index: n})
			i += 3
		case toks[i].text == "[" && i+2 < len(toks) && toks[i+2].text == "]" && toks[i+1].kind == tokString:
			p = append(p, segment{Key: toks[i+1].text})
			i += 3
		default:
			return p, "", i
		}
	}
	return p, "", i
}

type tokKind int

const (
	tokPunct tokKind = iota
	tokIdent
	tokInt
	tokNumber
	tokString
)

type token struct {
	kind tokKind
	text string // a string literal's value, unquoted when it is simple
}

// tokenize splits a CEL expression into identifiers, numbers, string
// literals and one-character punctuation; spaces are dropped.
func tokenize(s string) []token {
	var out []token
	for i := 0; i < len(s); {
		c := s[i]
		switch {
		case c == ' ' || c == '\t' || c == '\n' || c == '\r':
			i++
		case c == '"' || c == '\'' || (c == 'r' || c == 'R' || c == 'b' || c == 'B') && i+1 < len(s) && (s[i+1] == '"' || s[i+1] == '\''):
			raw := c == 'r' || c == 'R'
			if c != '"' && c != '\'' {
				i++
			}
			j, val := stringLit(s, i, raw)
			out = append(out, token{kind: tokString, text: val})
			i = j
		case c == '_' || c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z':
			j := i + 1
			for j < len(s) && (s[j] == '_' || s[j] >= 'a' && s[j] <= 'z' || s[j] >= 'A' && s[j] <= 'Z' || s[j] >= '0' && s[j] <= '9') {
				j++
			}
			out = append(out, token{kind: tokIdent, text: s[i:j]})
			i = j
		case c >= '0' && c <= '9':
			j, kind := i, tokInt
			for j < len(s) && (s[j] >= '0' && s[j] <= '9' || s[j] == '.' || s[j] == 'e' || s[j] == 'E' || s[j] == 'x' ||
				s[j] >= 'a' && s[j] <= 'f' || s[j] >= 'A' && s[j] <= 'F' || s[j] == 'u' || s[j] == 'U' ||
				(s[j] == '-' || s[j] == '+') && (s[j-1] == 'e' || s[j-1] == 'E')) {
				if s[j] == '.' || s[j] == 'e' || s[j] == 'E' {
					kind = tokNumber
				}
				j++
			}
			out = append(out, token{kind: kind, text: s[i:j]})
			i = j
		default:
			out = append(out, token{kind: tokPunct, text: s[i : i+1]})
			i++
		}
	}
	return out
}

// stringLit reads the string literal that starts at s[i] (a quote; three
// quotes for a multi-line one) and returns the index after it with its
// value (escapes other than \" \' \\ kept as written).
func stringLit(s string, i int, raw bool) (int, string) {
	q := s[i : i+1]
	if strings.HasPrefix(s[i:], q+q+q) {
		q = q + q + q
	}
	var b strings.Builder
	j := i + len(q)
	for j < len(s) {
		if strings.HasPrefix(s[j:], q) {
			return j + len(q), b.String()
		}
		if s[j] == '\\' && !raw && j+1 < len(s) {
			switch s[j+1] {
			case '"', '\'', '\\':
				b.WriteByte(s[j+1])
			default:
				b.WriteString(s[j : j+2])
			}
			j += 2
			continue
		}
		b.WriteByte(s[j])
		j++
	}
	return j, b.String()
}
