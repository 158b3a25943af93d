package mutate

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"
	"github.com/tdewolff/parse/v2"
	"github.com/tdewolff/parse/v2/js"
)

func parseBuf(t *testing.T, src []byte) ([]byte, *js.AST) {
	t.Helper()
	buf := make([]byte, len(src), len(src)+1)
	copy(buf, src)
	ast, err := js.Parse(parse.NewInputBytes(buf), js.Options{})
	require.NoError(t, err)
	return buf, ast
}

// parsesIn parses text in the first context that takes it: plain, in an
// async generator function, or in a class constructor (super, #private).
func parsesIn(text string, exprs bool) error {
	wrap := [][2]string{{"", ""}, {"async function* __f() {", "\n}"}, {"class __C extends Object { #priv; static #count; constructor() {", "\n} }"}}
	var err error
	for _, w := range wrap {
		t := text
		if exprs {
			t = "(" + text + "\n);"
		}
		if err = parses(w[0] + t + w[1]); err == nil {
			return nil
		}
	}
	return err
}

func parses(src string) error {
	buf := make([]byte, len(src), len(src)+1)
	copy(buf, src)
	_, err := js.Parse(parse.NewInputBytes(buf), js.Options{})
	return err
}

// checkSpans asserts what the node table says about buf: names and
// literals cover exactly their tokens, expressions re-parse on their own,
// expression statements re-parse as statements, operators sit where their
// text is, and children lie inside their parents.
func checkSpans(t *testing.T, where string, buf []byte, nodes []node) {
	t.Helper()
	for i, nd := range nodes {
		text := string(buf[nd.start:nd.end])
		require.LessOrEqual(t, nd.start, nd.end, "%s: entry %d", where, i)
		if nd.parent >= 0 {
			p := nodes[nd.parent]
			require.True(t, p.start <= nd.start && nd.end <= p.end, "%s: entry %d %q outside its parent %q", where, i, text, buf[p.start:p.end])
		}
		switch nd.kind {
		case kVar:
			require.Equal(t, nd.name, text, "%s: identifier", where)
			continue
		case kName:
			require.Contains(t, text, nd.name, "%s: property name", where)
			continue
		}
		switch n := nd.n.(type) {
		case *js.LiteralExpr:
			require.Equal(t, string(n.Data), text, "%s: literal", where)
		case *js.BinaryExpr:
			require.True(t, strings.HasPrefix(string(buf[nd.op:]), n.Op.String()), "%s: operator %s of %q at %q", where, n.Op, text, buf[nd.op:min(nd.op+5, len(buf))])
		case *js.ExprStmt:
			require.NoError(t, parsesIn(text, false), "%s: statement %q", where, text)
		}
		if e, ok := nd.n.(js.IExpr); ok {
			switch e.(type) {
			case *js.MethodDecl:
				require.NoError(t, parses("(class {"+text+"\n})"), "%s: method %q", where, text)
			case *js.VarDecl, *js.Var, *js.LiteralExpr:
			default:
				if _, isStmt := nd.n.(js.IStmt); !isStmt || isFunc(nd.n) {
					require.NoError(t, parsesIn(text, true), "%s: expression %q (%T)", where, text, nd.n)
				}
			}
		}
	}
}

func TestWalkSyntax(t *testing.T) {
	src, err := os.ReadFile(filepath.Join("testdata", "syntax.js"))
	require.NoError(t, err)
	buf, ast := parseBuf(t, src)
	nodes, _, err := walkScript(buf, ast)
	require.NoError(t, err)
	checkSpans(t, "syntax.js", buf, nodes)

	// spot checks
	find := func(text string) bool {
		for _, nd := range nodes {
			if string(buf[nd.start:nd.end]) == text {
				return true
			}
		}
		return false
	}
	for _, want := range []string{
		"x++;", "/ab+c/gi", "`a${b}c${`nested ${d}`}e`", "obj?.a?.[0]?.(1) ?? null",
		"async (a1, b1 = 2, ...cs) => { await a1; }", "x => x * 2", "#priv in this",
		"new Foo", "new Foo.Bar(1)(2)", "import.meta.url", "a = b\n/hi/g.exec(c)",
	} {
		require.True(t, find(want), "no node spans %q", want)
	}
}

func TestWalkStarterScripts(t *testing.T) {
	files, err := filepath.Glob(filepath.Join("..", "..", "suites", "starter", "*", "*", "solution", "index.html"))
	require.NoError(t, err)
	for _, f := range files {
		page, err := os.ReadFile(f)
		require.NoError(t, err)
		for _, s := range findScripts(page) {
			buf, ast := parseBuf(t, page[s.Start:s.End])
			nodes, _, err := walkScript(buf, ast)
			require.NoError(t, err, f)
			checkSpans(t, f, buf, nodes)
		}
	}
}

func TestWalkRejectsMisalignment(t *testing.T) {
	// an AST of other source cannot be aligned
	_, ast := parseBuf(t, []byte("a = 1;"))
	other := []byte("b = 2;")
	buf := make([]byte, len(other), len(other)+1)
	copy(buf, other)
	_, _, err := walkScript(buf, ast)
	require.Error(t, err)
}

func TestUnifiedDiff(t *testing.T) {
	a := "1\n2\n3\n4\n5\n6\n7\n8\n9\n10\n11\n12\n13\n14\n15\n16\n17\n18\n19\n20\n"
	b := strings.Replace(strings.Replace(a, "3\n", "three\n", 1), "18\n", "", 1)
	want := `--- a/f
+++ b/f
@@ -1,6 +1,6 @@
 1
 2
-3
+three
 4
 5
 6
@@ -15,6 +15,5 @@
 15
 16
 17
-18
 19
 20
`
	require.Equal(t, want, unifiedDiff("a/f", "b/f", []byte(a), []byte(b)))
	require.Equal(t, "", unifiedDiff("a/f", "b/f", []byte(a), []byte(a)))

	// nearby changes share a hunk; a missing final newline is marked
	c := strings.Replace(strings.Replace(a, "5\n", "five\n", 1), "11\n", "eleven\n", 1)
	d := unifiedDiff("a/f", "b/f", []byte(a), []byte(c))
	require.Equal(t, 1, strings.Count(d, "@@ -"), d)
	require.Contains(t, d, "@@ -2,13 +2,13 @@\n")
	e := unifiedDiff("a/f", "b/f", []byte("x\ny"), []byte("x\nz"))
	require.Equal(t, "--- a/f\n+++ b/f\n@@ -1,2 +1,2 @@\n x\n-y\n\\ No newline at end of file\n+z\n\\ No newline at end of file\n", e)
	// insertion into an empty file
	require.Equal(t, "--- a/f\n+++ b/f\n@@ -0,0 +1 @@\n+new\n", unifiedDiff("a/f", "b/f", nil, []byte("new\n")))
}
