package resolve

import (
	"fmt"
	"strconv"
	"strings"
)

// version is a parsed semantic version (major.minor.patch[-pre]).
// Build metadata is dropped.
type version struct {
	Major, Minor, Patch int
	Pre                 string
}

func (v version) String() string {
	s := fmt.Sprintf("%d.%d.%d", v.Major, v.Minor, v.Patch)
	if v.Pre != "" {
		s += "-" + v.Pre
	}
	return s
}

// compare orders versions the semver way: numerically by component, and
// a pre-release before its release.
func (v version) compare(w version) int {
	for _, d := range [...]int{v.Major - w.Major, v.Minor - w.Minor, v.Patch - w.Patch} {
		if d < 0 {
			return -1
		}
		if d > 0 {
			return 1
		}
	}
	switch {
	case v.Pre == w.Pre:
		return 0
	case v.Pre == "":
		return 1
	case w.Pre == "":
		return -1
	case v.Pre < w.Pre:
		return -1
	default:
		return 1
	}
}

func abs(n int) int {
	if n < 0 {
		return -n
	}
	return n
}

// nearer reports whether a is strictly nearer to anchor than b under the
// nearest-version rule: the smallest distance compared component-wise in
// (major, minor, patch) order, and on a tie the older version.
func nearer(a, b, anchor version) bool {
	da := [3]int{abs(a.Major - anchor.Major), abs(a.Minor - anchor.Minor), abs(a.Patch - anchor.Patch)}
	db := [3]int{abs(b.Major - anchor.Major), abs(b.Minor - anchor.Minor), abs(b.Patch - anchor.Patch)}
	for i := range da {
		if da[i] != db[i] {
			return da[i] < db[i]
		}
	}
	return a.compare(b) < 0
}

// parseVersion parses a full version "1.2.3", "v1.2.3" or "1.2.3-beta.1".
func parseVersion(s string) (version, bool) {
	v, n, ok := parsePartial(s)
	if !ok || n != 3 {
		return version{}, false
	}
	return v, true
}

// parsePartial parses a possibly partial version ("1", "1.2", "1.2.3-pre",
// with "x", "X" or "*" allowed for missing parts). n is the number of
// numeric components given (0–3); wildcard components stop the count.
func parsePartial(s string) (v version, n int, ok bool) {
	s = strings.TrimPrefix(strings.TrimPrefix(strings.TrimSpace(s), "="), "v")
	if s == "" {
		return version{}, 0, false
	}
	if i := strings.IndexByte(s, '+'); i >= 0 {
		s = s[:i]
	}
	core, pre, _ := strings.Cut(s, "-")
	parts := strings.Split(core, ".")
	if len(parts) > 3 {
		return version{}, 0, false
	}
	nums := [3]int{}
	wild := false
	for i, p := range parts {
		if p == "x" || p == "X" || p == "*" {
			wild = true
			continue
		}
		x, err := strconv.Atoi(p)
		if err != nil || x < 0 || wild {
			return version{}, 0, false
		}
		nums[i] = x
		n = i + 1
	}
	if pre != "" && n < 3 {
		return version{}, 0, false
	}
	return version{nums[0], nums[1], nums[2], pre}, n, true
}

// comparator is one bound of a range: op is one of "<", "<=", ">", ">=", "=".
type comparator struct {
	op string
	v  version
}

func (c comparator) match(v version) bool {
	d := v.compare(c.v)
	switch c.op {
	case "<":
		return d < 0
	case "<=":
		return d <= 0
	case ">":
		return d > 0
	case ">=":
		return d >= 0
	default:
		return d == 0
	}
}

// versionRange is an npm-style range: a union of intersections of bounds.
// The empty range (no sets) matches everything.
type versionRange struct {
	sets [][]comparator
}

func (r versionRange) match(v version) bool {
	if len(r.sets) == 0 {
		return true
	}
	for _, set := range r.sets {
		ok := true
		for _, c := range set {
			if !c.match(v) {
				ok = false
				break
			}
		}
		if ok {
			return true
		}
	}
	return false
}

// lowerBound returns the smallest lower bound of the range, the version a
// range "means" when none of the vendored versions satisfies it.
func (r versionRange) lowerBound() (version, bool) {
	var best version
	found := false
	for _, set := range r.sets {
		for _, c := range set {
			if c.op == ">=" || c.op == "=" || c.op == ">" {
				if !found || c.v.compare(best) < 0 {
					best, found = c.v, true
				}
			}
		}
	}
	return best, found
}

// parseRange parses the subset of npm range syntax that appears in CDN
// URLs and package.json files: exact and partial versions, x-ranges,
// ^ and ~, comparison operators, hyphen ranges and "||".
func parseRange(s string) (versionRange, error) {
	var r versionRange
	s = strings.TrimSpace(s)
	if s == "" || s == "*" || s == "latest" || s == "x" {
		return r, nil
	}
	for _, alt := range strings.Split(s, "||") {
		set, err := parseRangeSet(strings.TrimSpace(alt))
		if err != nil {
			return versionRange{}, fmt.Errorf("parse range %q: %w", s, err)
		}
		if set == nil { // "*" inside a union: matches everything
			return versionRange{}, nil
		}
		r.sets = append(r.sets, set)
	}
	return r, nil
}

func parseRangeSet(s string) ([]comparator, error) {
	if s == "" || s == "*" || s == "x" {
		return nil, nil
	}
	fields := strings.Fields(s)
	// Hyphen range "a - b".
	if len(fields) == 3 && fields[1] == "-" {
		lo, _, ok1 := parsePartial(fields[0])
		hi, hn, ok2 := parsePartial(fields[2])
		if !ok1 || !ok2 {
			return nil, fmt.Errorf("bad hyphen range %q", s)
		}
		set := []comparator{{">=", lo}}
		switch hn {
		case 3:
			set = append(set, comparator{"<=", hi})
		case 2:
			set = append(set, comparator{"<", version{hi.Major, hi.Minor + 1, 0, ""}})
		case 1:
			set = append(set, comparator{"<", version{hi.Major + 1, 0, 0, ""}})
		}
		return set, nil
	}
	// Join operators separated from their version by spaces (">= 1.2").
	var toks []string
	for i := 0; i < len(fields); i++ {
		f := fields[i]
		if (f == ">=" || f == "<=" || f == ">" || f == "<" || f == "=" || f == "^" || f == "~") && i+1 < len(fields) {
			f += fields[i+1]
			i++
		}
		toks = append(toks, f)
	}
	var set []comparator
	for _, t := range toks {
		cs, err := parseComparator(t)
		if err != nil {
			return nil, err
		}
		set = append(set, cs...)
	}
	if len(set) == 0 {
		return nil, nil
	}
	return set, nil
}

func parseComparator(t string) ([]comparator, error) {
	op := ""
	for _, p := range [...]string{">=", "<=", ">", "<", "=", "^", "~>", "~"} {
		if strings.HasPrefix(t, p) {
			op, t = p, t[len(p):]
			break
		}
	}
	v, n, ok := parsePartial(t)
	if !ok {
		return nil, fmt.Errorf("bad version %q", t)
	}
	switch op {
	case "^":
		var hi version
		switch {
		case n == 0:
			return nil, nil
		case v.Major > 0 || n == 1:
			hi = version{v.Major + 1, 0, 0, ""}
		case v.Minor > 0 || n == 2:
			hi = version{0, v.Minor + 1, 0, ""}
		default:
			hi = version{0, 0, v.Patch + 1, ""}
		}
		return []comparator{{">=", v}, {"<", hi}}, nil
	case "~", "~>":
		switch n {
		case 0:
			return nil, nil
		case 1:
			return []comparator{{">=", v}, {"<", version{v.Major + 1, 0, 0, ""}}}, nil
		default:
			return []comparator{{">=", v}, {"<", version{v.Major, v.Minor + 1, 0, ""}}}, nil
		}
	case "", "=":
		switch n {
		case 0:
			return nil, nil
		case 1:
			return []comparator{{">=", v}, {"<", version{v.Major + 1, 0, 0, ""}}}, nil
		case 2:
			return []comparator{{">=", v}, {"<", version{v.Major, v.Minor + 1, 0, ""}}}, nil
		default:
			return []comparator{{"=", v}}, nil
		}
	case ">", "<=":
		// Partial upper/lower bounds: ">1.2" means ">=1.3.0", "<=1.2" means "<1.3.0".
		switch n {
		case 0:
			if op == ">" {
				return []comparator{{"<", version{}}}, nil // matches nothing
			}
			return nil, nil
		case 1:
			v = version{v.Major + 1, 0, 0, ""}
		case 2:
			v = version{v.Major, v.Minor + 1, 0, ""}
		default:
			return []comparator{{op, v}}, nil
		}
		if op == ">" {
			return []comparator{{">=", v}}, nil
		}
		return []comparator{{"<", v}}, nil
	default: // ">=", "<"
		if n == 0 {
			if op == "<" {
				return []comparator{{"<", version{}}}, nil
			}
			return nil, nil
		}
		return []comparator{{op, v}}, nil
	}
}
