package mutate

import (
	"bytes"
	"flag"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"
	"github.com/tdewolff/parse/v2"
	"github.com/tdewolff/parse/v2/js"
)

var update = flag.Bool("update", false, "rewrite the golden files in testdata")

// formatGolden lists mutants as the golden files hold them.
func formatGolden(ms []Mutant) string {
	var b strings.Builder
	for _, m := range ms {
		fmt.Fprintf(&b, "== %s %d:%d %s\n%s", m.ID, m.Line, m.Col, m.Description, m.Diff)
	}
	return b.String()
}

// TestGolden runs each operator alone on testdata/<operator>.html and
// compares the mutants with testdata/<operator>.golden (go test -update
// rewrites them).
func TestGolden(t *testing.T) {
	for _, op := range Operators() {
		t.Run(op.Name, func(t *testing.T) {
			src, err := os.ReadFile(filepath.Join("testdata", op.Name+".html"))
			require.NoError(t, err)
			rep, err := GenerateReport(src, op.Name+".html", Options{Operators: []string{op.Name}})
			require.NoError(t, err)
			require.Empty(t, rep.Stats.Skipped)
			require.NotEmpty(t, rep.Mutants, "no %s mutant", op.Name)
			for _, m := range rep.Mutants {
				require.Equal(t, op.Name, m.Operator)
			}
			got := formatGolden(rep.Mutants)
			golden := filepath.Join("testdata", op.Name+".golden")
			if *update {
				require.NoError(t, os.WriteFile(golden, []byte(got), 0o644))
				return
			}
			want, err := os.ReadFile(golden)
			require.NoError(t, err, "run go test ./internal/mutate -update to create it")
			require.Equal(t, string(want), got)
		})
	}
}

func readTestPage(t *testing.T, name string) []byte {
	t.Helper()
	src, err := os.ReadFile(filepath.Join("testdata", name))
	require.NoError(t, err)
	return src
}

// allTestPages is every testdata page concatenated into one page's worth
// of scripts: plenty of mutants of every operator.
func allTestPages(t *testing.T) []byte {
	t.Helper()
	var b bytes.Buffer
	for _, op := range Operators() {
		b.Write(readTestPage(t, op.Name+".html"))
	}
	return b.Bytes()
}

func TestDeterminism(t *testing.T) {
	src := allTestPages(t)
	a, err := Generate(src, "page.html", Options{Seed: 3, Max: 15})
	require.NoError(t, err)
	b, err := Generate(src, "page.html", Options{Seed: 3, Max: 15})
	require.NoError(t, err)
	require.Equal(t, a, b)
	require.Len(t, a, 15)

	// every operator is represented when Max allows it
	ops := map[string]bool{}
	for _, m := range a {
		ops[m.Operator] = true
	}
	require.Len(t, ops, len(Operators()))

	// another seed draws another selection, with the same IDs for the same mutants
	all, err := Generate(src, "page.html", Options{})
	require.NoError(t, err)
	byID := map[string]Mutant{}
	for _, m := range all {
		byID[m.ID] = m
	}
	ids := func(ms []Mutant) string {
		var s []string
		for _, m := range ms {
			s = append(s, m.ID)
			require.Equal(t, byID[m.ID], m, "mutant %s differs from the unselected run", m.ID)
		}
		return strings.Join(s, " ")
	}
	differs := false
	for seed := int64(4); seed < 10; seed++ {
		c, err := Generate(src, "page.html", Options{Seed: seed, Max: 15})
		require.NoError(t, err)
		if ids(c) != ids(a) {
			differs = true
		}
	}
	require.True(t, differs, "six other seeds all drew the same mutants")

	// output order is enumeration order
	pos := map[string]int{}
	for i, m := range all {
		pos[m.ID] = i
	}
	for i := 1; i < len(a); i++ {
		require.Less(t, pos[a[i-1].ID], pos[a[i].ID])
	}

	// IDs do not depend on the operator filter
	only, err := Generate(src, "page.html", Options{Operators: []string{OpFreezeTime}})
	require.NoError(t, err)
	for _, m := range only {
		require.Equal(t, byID[m.ID], m)
	}

	// selecting by ID gives exactly those mutants, in enumeration order,
	// whatever Max and Seed say
	picked, err := Generate(src, "page.html", Options{IDs: []string{a[2].ID, a[0].ID}, Max: 1, Seed: 99})
	require.NoError(t, err)
	require.Equal(t, []Mutant{a[0], a[2]}, picked)
}

func TestOptionsErrors(t *testing.T) {
	_, err := Generate([]byte("<script>x=1</script>"), "p.html", Options{Operators: []string{"no-such-op"}})
	require.ErrorContains(t, err, "no-such-op")
	_, err = Generate([]byte("<script>x=1</script>"), "p.html", Options{Max: -1})
	require.Error(t, err)
	_, err = Generate([]byte("<script>function f(dt) { x = x + 2 * dt; }</script>"), "p.html", Options{IDs: []string{"scale-constant-1", "nope-7", "nope-3"}})
	require.EqualError(t, err, "no mutant with ID nope-3, nope-7 (see 'worldprobe task mutate --max 0')")
}

const mixedPage = `<!DOCTYPE html>
<html><head>
<script type="importmap">{ "imports": { "three": "./three.module.js" } }</script>
<script type="application/json" id="cfg">{ "speed": 2.5, "dt": 0.016, "x": "./a.png" }</script>
<script src="lib.js">function notMine() { a = 1; }</script>
<script type="x-shader/x-vertex">void main() { gl_Position = vec4(0.0); }</script>
</head><body>
<script>
function classic(dt) { speed = speed + 2 * dt; showHud(); }
</script>
<script type="module">
import * as THREE from 'three';
export function mod(dt) { velocity.y -= 9.81 * dt; if (velocity.y < 0) bounce(); }
</script>
</body></html>
`

func TestScriptTypes(t *testing.T) {
	src := []byte(mixedPage)
	rep, err := GenerateReport(src, "p.html", Options{})
	require.NoError(t, err)
	require.Equal(t, 2, rep.Stats.Scripts)
	classicAt := strings.Index(mixedPage, "function classic")
	moduleAt := strings.Index(mixedPage, "export function mod")
	lines := newLineIndex(src)
	var inClassic, inModule int
	untouched := []string{
		`<script type="importmap">{ "imports": { "three": "./three.module.js" } }</script>`,
		`<script type="application/json" id="cfg">{ "speed": 2.5, "dt": 0.016, "x": "./a.png" }</script>`,
		`<script src="lib.js">function notMine() { a = 1; }</script>`,
		`<script type="x-shader/x-vertex">void main() { gl_Position = vec4(0.0); }</script>`,
	}
	for _, m := range rep.Mutants {
		for _, u := range untouched {
			require.Contains(t, string(m.HTML), u, "mutant %s touched a non-JavaScript script", m.ID)
		}
		cl, _ := lines.lineCol(src, classicAt)
		ml, _ := lines.lineCol(src, moduleAt)
		switch m.Line {
		case cl:
			inClassic++
		case ml:
			inModule++
		default:
			t.Errorf("mutant %s at line %d, in neither script", m.ID, m.Line)
		}
	}
	require.Positive(t, inClassic)
	require.Positive(t, inModule)
}

// changedSpan returns the first differing byte and the lengths of the
// common suffix of a and b.
func changedSpan(a, b []byte) (start, suffix int) {
	for start < len(a) && start < len(b) && a[start] == b[start] {
		start++
	}
	for suffix < len(a)-start && suffix < len(b)-start && a[len(a)-1-suffix] == b[len(b)-1-suffix] {
		suffix++
	}
	return start, suffix
}

// TestBytesOutsideEditUnchanged checks that every mutant differs from its
// page only inside one JavaScript script, on or around the lines of the
// site, and that single-site operators change one small region.
func TestBytesOutsideEditUnchanged(t *testing.T) {
	for _, name := range []string{"delete-state-update.html", "scale-constant.html", "freeze-time.html", "disable-block.html"} {
		src := readTestPage(t, name)
		ms, err := Generate(src, name, Options{})
		require.NoError(t, err)
		scripts := findScripts(src)
		lines := newLineIndex(src)
		for _, m := range ms {
			start, suffix := changedSpan(src, m.HTML)
			end := len(src) - suffix
			inside := false
			for _, s := range scripts {
				if s.Start <= start && end <= s.End {
					inside = true
				}
			}
			require.True(t, inside, "%s: %s changed bytes outside a script", name, m.ID)
			l0, _ := lines.lineCol(src, start)
			l1, _ := lines.lineCol(src, max(start, end-1))
			require.LessOrEqual(t, l0, m.Line, "%s: %s", name, m.ID)
			switch m.Operator {
			case OpScaleConstant, OpShiftBoundary, OpFlipComparison, OpBreakAssetPath:
				// one token replaced: same line, and the rest of the page identical
				require.Equal(t, l0, l1, "%s: %s", name, m.ID)
				require.Equal(t, len(src)-start-suffix < 40, true, "%s: %s", name, m.ID)
			case OpDeleteStateUpdate, OpDeleteCall, OpDropDOMUpdate:
				require.GreaterOrEqual(t, l1, m.Line, "%s: %s", name, m.ID)
				require.Empty(t, m.HTML[start:len(m.HTML)-suffix], "%s: %s inserted text for a deletion", name, m.ID)
			}
		}
	}
}

// TestLineCol checks positions against markers in a page with multi-byte
// characters before the sites.
func TestLineCol(t *testing.T) {
	page := "<!DOCTYPE html>\n<title>héllo wörld</title>\n<script>\n" +
		"const é = 'ü'; function f(dt) { v = 9.81 * dt; }\n" +
		"\tif (a <   b) go();\n" +
		"</script>\n"
	ms, err := Generate([]byte(page), "p.html", Options{})
	require.NoError(t, err)
	want := map[string][2]int{
		"scale-constant-1":      {4, 37}, // 9.81: "const é = 'ü'; function f(dt) { v = " is 36 characters
		"delete-state-update-1": {4, 33},
		"flip-comparison-1":     {5, 8},
		"delete-call-1":         {5, 15}, // a tab counts as one character
		"disable-block-1":       {4, 31},
	}
	got := map[string][2]int{}
	for _, m := range ms {
		got[m.ID] = [2]int{m.Line, m.Col}
	}
	for id, lc := range want {
		require.Equal(t, lc, got[id], "%s", id)
	}
}

// TestStarterSolutions mutates every starter reference solution: at least
// ten mutants each, every script of every mutant parses, no script skipped.
func TestStarterSolutions(t *testing.T) {
	files, err := filepath.Glob(filepath.Join("..", "..", "suites", "starter", "*", "*", "solution", "index.html"))
	require.NoError(t, err)
	require.NotEmpty(t, files)
	for _, f := range files {
		src, err := os.ReadFile(f)
		require.NoError(t, err)
		rep, err := GenerateReport(src, "index.html", Options{})
		require.NoError(t, err, f)
		require.Empty(t, rep.Stats.Skipped, f)
		require.GreaterOrEqual(t, len(rep.Mutants), 10, f)
		seen := map[string]bool{}
		for _, m := range rep.Mutants {
			require.False(t, seen[m.ID], "%s: duplicate id %s", f, m.ID)
			seen[m.ID] = true
			require.NotEqual(t, src, m.HTML, "%s: %s", f, m.ID)
			require.NotEmpty(t, m.Diff, "%s: %s", f, m.ID)
			for _, s := range findScripts(m.HTML) {
				buf := append([]byte(nil), m.HTML[s.Start:s.End]...)
				_, err := js.Parse(parse.NewInputBytes(buf), js.Options{})
				require.NoError(t, err, "%s: %s", f, m.ID)
			}
		}
		sel, err := Generate(src, "index.html", Options{Seed: 1, Max: 40})
		require.NoError(t, err)
		require.Len(t, sel, min(40, len(rep.Mutants)), f)
	}
}

// TestSyntaxPage runs every operator over testdata/syntax.js (every
// construct the walker knows) in a module script: no candidate may break
// the script, so Invalid stays 0.
func TestSyntaxPage(t *testing.T) {
	js := readTestPage(t, "syntax.js")
	js = js[bytes.IndexByte(js, '\n')+1:] // the shebang is only valid at the start of a file
	page := append(append([]byte("<!DOCTYPE html>\n<script type=\"module\">\n"), js...), "</script>\n"...)
	rep, err := GenerateReport(page, "syntax.html", Options{})
	require.NoError(t, err)
	require.Empty(t, rep.Stats.Skipped)
	require.Equal(t, 0, rep.Stats.Invalid, "operators produced unparsable scripts")
	require.Greater(t, len(rep.Mutants), 30)
	for _, m := range rep.Mutants {
		require.NotEmpty(t, m.Diff, m.ID)
	}
}
