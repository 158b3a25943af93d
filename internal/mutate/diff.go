package mutate

import (
	"fmt"
	"strings"
)

// diffContext is the number of unchanged lines around each change.
const diffContext = 3

type lineOp struct {
	kind byte // ' ', '-' or '+'
	text string
}

// unifiedDiff returns the unified diff (diff -u style, 3 lines of context)
// from a to b, or "" when they are equal.
func unifiedDiff(aName, bName string, a, b []byte) string {
	al, bl := splitLines(string(a)), splitLines(string(b))
	ops := diffLines(al, bl)
	var out strings.Builder
	var changes []int
	for i, o := range ops {
		if o.kind != ' ' {
			changes = append(changes, i)
		}
	}
	if len(changes) == 0 {
		return ""
	}
	fmt.Fprintf(&out, "--- %s\n+++ %s\n", aName, bName)
	// aLine[i], bLine[i]: 0-based line numbers of ops[i] in a and b
	aLine, bLine := make([]int, len(ops)+1), make([]int, len(ops)+1)
	for i, o := range ops {
		aLine[i+1], bLine[i+1] = aLine[i], bLine[i]
		if o.kind != '+' {
			aLine[i+1]++
		}
		if o.kind != '-' {
			bLine[i+1]++
		}
	}
	for c := 0; c < len(changes); {
		first := changes[c]
		last := first
		for c++; c < len(changes) && changes[c]-last <= 2*diffContext+1; c++ {
			last = changes[c]
		}
		from := max(0, first-diffContext)
		to := min(len(ops), last+1+diffContext)
		na, nb := 0, 0
		for _, o := range ops[from:to] {
			if o.kind != '+' {
				na++
			}
			if o.kind != '-' {
				nb++
			}
		}
		sa, sb := aLine[from]+1, bLine[from]+1
		if na == 0 {
			sa--
		}
		if nb == 0 {
			sb--
		}
		fmt.Fprintf(&out, "@@ -%s +%s @@\n", hunkRange(sa, na), hunkRange(sb, nb))
		for _, o := range ops[from:to] {
			out.WriteByte(o.kind)
			out.WriteString(o.text)
			if !strings.HasSuffix(o.text, "\n") {
				out.WriteString("\n\\ No newline at end of file\n")
			}
		}
	}
	return out.String()
}

func hunkRange(start, n int) string {
	if n == 1 {
		return fmt.Sprint(start)
	}
	return fmt.Sprintf("%d,%d", start, n)
}

// splitLines splits s after each newline; the last line may lack one.
func splitLines(s string) []string {
	if s == "" {
		return nil
	}
	lines := strings.SplitAfter(s, "\n")
	if lines[len(lines)-1] == "" {
		lines = lines[:len(lines)-1]
	}
	return lines
}

// diffLines returns a shortest edit script from a to b (Myers' algorithm on
// what is left after the common prefix and suffix).
func diffLines(a, b []string) []lineOp {
	pre := 0
	for pre < len(a) && pre < len(b) && a[pre] == b[pre] {
		pre++
	}
	suf := 0
	for suf < len(a)-pre && suf < len(b)-pre && a[len(a)-1-suf] == b[len(b)-1-suf] {
		suf++
	}
	var ops []lineOp
	for _, l := range a[:pre] {
		ops = append(ops, lineOp{' ', l})
	}
	ops = append(ops, myers(a[pre:len(a)-suf], b[pre:len(b)-suf])...)
	for _, l := range a[len(a)-suf:] {
		ops = append(ops, lineOp{' ', l})
	}
	return ops
}

// maxTrace bounds the memory myers spends on its trace (in ints); past it
// the middle is reported as removed and added whole.
const maxTrace = 1 << 24

func myers(a, b []string) []lineOp {
	n, m := len(a), len(b)
	whole := func() []lineOp {
		var ops []lineOp
		for _, l := range a {
			ops = append(ops, lineOp{'-', l})
		}
		for _, l := range b {
			ops = append(ops, lineOp{'+', l})
		}
		return ops
	}
	if n == 0 || m == 0 {
		return whole()
	}
	limit := n + m
	off := limit + 1
	v := make([]int, 2*limit+3)
	var trace [][]int
	for d := 0; d <= limit; d++ {
		if (d+1)*len(v) > maxTrace {
			return whole()
		}
		trace = append(trace, append([]int(nil), v...))
		for k := -d; k <= d; k += 2 {
			var x int
			if k == -d || k != d && v[off+k-1] < v[off+k+1] {
				x = v[off+k+1]
			} else {
				x = v[off+k-1] + 1
			}
			y := x - k
			for x < n && y < m && a[x] == b[y] {
				x++
				y++
			}
			v[off+k] = x
			if x >= n && y >= m {
				return backtrack(a, b, trace, off)
			}
		}
	}
	return whole()
}

func backtrack(a, b []string, trace [][]int, off int) []lineOp {
	var rev []lineOp
	x, y := len(a), len(b)
	for d := len(trace) - 1; d >= 0; d-- {
		v := trace[d]
		k := x - y
		var pk int
		if k == -d || k != d && v[off+k-1] < v[off+k+1] {
			pk = k + 1
		} else {
			pk = k - 1
		}
		px := v[off+pk]
		py := px - pk
		for x > px && y > py {
			rev = append(rev, lineOp{' ', a[x-1]})
			x--
			y--
		}
		if d == 0 {
			break
		}
		if x == px {
			rev = append(rev, lineOp{'+', b[py]})
		} else {
			rev = append(rev, lineOp{'-', a[px]})
		}
		x, y = px, py
	}
	for i, j := 0, len(rev)-1; i < j; i, j = i+1, j-1 {
		rev[i], rev[j] = rev[j], rev[i]
	}
	return rev
}
