package report

import (
	"bufio"
	"bytes"
	"encoding/json"
	"fmt"
	"os"
	"strconv"
	"strings"
)

// traceLine is one line of a trial's trace.jsonl: a state the contract
// read (docs/schemas.md). The report reads these fields only; State is
// kept both decoded (to look paths up) and as its JSON text (to show it).
type traceLine struct {
	Probe string          `json:"probe"`
	Kind  string          `json:"kind"`
	Name  string          `json:"name,omitempty"`
	Line  int             `json:"line,omitempty"`
	Frame int             `json:"frame"`
	Raw   json.RawMessage `json:"state"`
	State any             `json:"-"`
}

// stateText is the line's state as one line of JSON for a person.
func (l traceLine) stateText(n int) string {
	if l.State == nil {
		return cut(string(l.Raw), n)
	}
	return compact(l.State, n)
}

// maxTraceLine bounds one line of trace.jsonl (a state of a few MiB is
// already more than the page runtime lets a page publish).
const maxTraceLine = 64 << 20

// readTrace reads a trace.jsonl; a line that is not JSON is an error
// naming it.
func readTrace(path string) ([]traceLine, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, fmt.Errorf("reading %s: %w", path, err)
	}
	defer f.Close()
	var out []traceLine
	sc := bufio.NewScanner(f)
	sc.Buffer(make([]byte, 0, 64<<10), maxTraceLine)
	for n := 1; sc.Scan(); n++ {
		b := bytes.TrimSpace(sc.Bytes())
		if len(b) == 0 {
			continue
		}
		var l traceLine
		if err := json.Unmarshal(b, &l); err != nil {
			return out, fmt.Errorf("reading %s: line %d: %w", path, n, err)
		}
		if len(l.Raw) > 0 {
			if err := json.Unmarshal(l.Raw, &l.State); err != nil {
				return out, fmt.Errorf("reading %s: line %d: %w", path, n, err)
			}
		}
		l.Raw = append(json.RawMessage(nil), l.Raw...)
		out = append(out, l)
	}
	if err := sc.Err(); err != nil {
		return out, fmt.Errorf("reading %s: %w", path, err)
	}
	return out, nil
}

// segment is one step of a state path: a key, or an index when Key is
// empty and Index ≥ 0.
type segment struct {
	Key   string
	Index int
}

// statePath is a path into a state, e.g. ball.position[1].
type statePath []segment

func (p statePath) String() string {
	var b strings.Builder
	for i, s := range p {
		switch {
		case s.Key == "":
			fmt.Fprintf(&b, "[%d]", s.Index)
		case isIdent(s.Key):
			if i > 0 {
				b.WriteByte('.')
			}
			b.WriteString(s.Key)
		default:
			fmt.Fprintf(&b, "[%s]", strconv.Quote(s.Key))
		}
	}
	return b.String()
}

// index is p with one more index step.
func (p statePath) index(i int) statePath {
	return append(append(statePath(nil), p...), segment{Index: i})
}

// lookup follows p into v; false when a step is missing.
func lookup(v any, p statePath) (any, bool) {
	for _, s := range p {
		switch x := v.(type) {
		case map[string]any:
			if s.Key == "" {
				return nil, false
			}
			var ok bool
			if v, ok = x[s.Key]; !ok {
				return nil, false
			}
		case []any:
			if s.Key != "" || s.Index < 0 || s.Index >= len(x) {
				return nil, false
			}
			v = x[s.Index]
		default:
			return nil, false
		}
	}
	return v, true
}

// number is v as a float64 when it is a JSON number.
func number(v any) (float64, bool) {
	f, ok := v.(float64)
	return f, ok
}

// vectorLen is the length of v when it is a list of 2 to 4 numbers (a
// position, a velocity, a colour), else 0.
func vectorLen(v any) int {
	xs, ok := v.([]any)
	if !ok || len(xs) < 2 || len(xs) > 4 {
		return 0
	}
	for _, x := range xs {
		if _, ok := x.(float64); !ok {
			return 0
		}
	}
	return len(xs)
}

// compact is v as one line of JSON (keys sorted, < > & as themselves:
// the page escapes what it shows), cut to n runes.
func compact(v any, n int) string {
	var b bytes.Buffer
	enc := json.NewEncoder(&b)
	enc.SetEscapeHTML(false)
	if err := enc.Encode(v); err != nil {
		return cut(fmt.Sprint(v), n)
	}
	return cut(strings.TrimSuffix(b.String(), "\n"), n)
}

// cut shortens s to n runes, ending it with … when it was longer.
func cut(s string, n int) string {
	r := []rune(s)
	if len(r) <= n {
		return s
	}
	return string(r[:n-1]) + "…"
}

func isIdent(s string) bool {
	if s == "" {
		return false
	}
	for i, r := range s {
		if !(r == '_' || r >= 'a' && r <= 'z' || r >= 'A' && r <= 'Z' || i > 0 && r >= '0' && r <= '9') {
			return false
		}
	}
	return true
}
