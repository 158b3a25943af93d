package gen

import (
	"flag"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"
)

var update = flag.Bool("update", false, "rewrite the golden pages in testdata/pages")

// reply reads a model reply from testdata/replies.
func reply(t *testing.T, name string) string {
	t.Helper()
	b, err := os.ReadFile(filepath.Join("testdata", "replies", name))
	require.NoError(t, err)
	return string(b)
}

// golden compares a page with testdata/pages/NAME (rewritten with -update).
func golden(t *testing.T, name, got string) {
	t.Helper()
	path := filepath.Join("testdata", "pages", name)
	if *update {
		require.NoError(t, os.MkdirAll(filepath.Dir(path), 0o755))
		require.NoError(t, os.WriteFile(path, []byte(got), 0o644))
	}
	want, err := os.ReadFile(path)
	require.NoError(t, err, "run go test ./internal/gen -run Extract -update to write it")
	require.Equal(t, string(want), got)
}

// between is the text of s after the first from and before the next to.
func between(s, from, to string) string {
	_, rest, ok := strings.Cut(s, from)
	if !ok {
		return ""
	}
	in, _, _ := strings.Cut(rest, to)
	return in
}

func TestExtractProseAndFence(t *testing.T) {
	r := reply(t, "claude_prose_fence.md")
	ex := Extract(r)
	require.Equal(t, Extraction{HTML: between(r, "```html\n", "```\n"), From: "fenced block"}, ex,
		"the page is the html block exactly; the sentence before and the notes after are dropped")
	require.True(t, strings.HasPrefix(ex.HTML, "<!DOCTYPE html>\n<html lang=\"en\">\n"))
	require.True(t, strings.HasSuffix(ex.HTML, "</body>\n</html>\n"))
}

func TestExtractThreeFilesInlined(t *testing.T) {
	ex := Extract(reply(t, "gpt_three_files.md"))
	require.Equal(t, "fenced block", ex.From)
	require.Equal(t, []string{"style.css", "main.js"}, ex.Inlined)
	require.Empty(t, ex.Dropped)
	require.Empty(t, ex.Missing)
	require.False(t, ex.Unclosed)
	require.Empty(t, ex.Failure)
	require.Contains(t, ex.HTML, "<style>\nhtml, body { margin: 0; height: 100%; overflow: hidden; }\n")
	require.Contains(t, ex.HTML, "<script>\nconst colors = ['red', 'green', 'blue'];\n")
	require.Contains(t, ex.HTML, `"<\/script>"`, "a </script> inside the inlined code no longer ends the element")
	require.Contains(t, ex.HTML, `<script src="https://cdn.jsdelivr.net/npm/three@0.149.0/build/three.min.js"></script>`, "CDN scripts stay as they are")
	require.NotContains(t, ex.HTML, "main.js\"")
	require.NotContains(t, ex.HTML, "style.css")
	golden(t, "gpt_three_files.html", ex.HTML)
}

func TestExtractDropsWhatThePageDoesNotUse(t *testing.T) {
	r := reply(t, "extra_blocks.md")
	ex := Extract(r)
	require.Equal(t, Extraction{
		HTML: between(r, "```html\n", "```\n"),
		From: "fenced block",
		Dropped: []string{
			"helpers.js (javascript, 1 line): the page does not refer to it",
			"an html block (1 line): another HTML block; the page is an html block (13 lines)",
			"a bash block (1 line): not part of a page",
		},
		Missing: []string{"physics.js"},
	}, ex)
}

func TestExtractUnfencedDocument(t *testing.T) {
	r := reply(t, "unfenced.md")
	ex := Extract(r)
	want := "<!DOCTYPE html>\n" + between(r, "<!DOCTYPE html>\n", "</html>") + "</html>\n"
	require.Equal(t, Extraction{HTML: want, From: "unfenced document"}, ex)
	require.NotContains(t, ex.HTML, "Sure!")
	require.NotContains(t, ex.HTML, "Let me know")
}

func TestExtractNoHTML(t *testing.T) {
	ex := Extract(reply(t, "no_html.md"))
	require.Equal(t, Extraction{Failure: NoHTML,
		Reason: `the reply has no code block and no HTML document (443 characters of prose: "To build this scene you would need three parts: 1. A Three.js scene with a perspective camera looking at the floor. 2. A sphere mesh named ` +
			"`ball`" + `, moved every f…")`}, ex)

	ex = Extract(reply(t, "js_only.md"))
	require.Equal(t, Extraction{Failure: NoHTML, Reason: "the reply has no HTML page, only a javascript block (3 lines), a css block (1 line)"}, ex)

	require.Equal(t, Extraction{Failure: NoHTML, Reason: "the reply is empty"}, Extract(" \n"))
}

func TestExtractRefusal(t *testing.T) {
	require.Equal(t, Extraction{Failure: Refusal, Reason: `the model declined: "I'm sorry, but I can't help with that request."`},
		Extract(reply(t, "refusal.md")))
	require.Equal(t, Refusal, Extract("Unfortunately, I cannot create this page.").Failure)
	require.Equal(t, NoHTML, Extract("The scene would have a red cube.").Failure, "prose is no refusal")
}

func TestExtractCutOffReply(t *testing.T) {
	r := strings.TrimSuffix(reply(t, "truncated_1.md"), "\n")
	ex := Extract(r)
	require.Equal(t, Extraction{HTML: between(r, "```html\n", "\x00") + "\n", From: "fenced block", Unclosed: true}, ex)
	require.True(t, strings.HasSuffix(ex.HTML, "Math.sin(th\n"))
}

// TestExtractSmallCases: the ways replies name files and fence code.
func TestExtractSmallCases(t *testing.T) {
	page := "<!DOCTYPE html>\n<html><body>\n<script type=\"module\" src='app.js'></script>\n</body></html>"
	cases := []struct {
		name, reply string
		html        string
		inlined     []string
		dropped     []string
	}{
		{
			name:    "an unnamed block goes where the page loads the one local script",
			reply:   "```html\n" + page + "\n```\n\nAnd the script:\n\n```js\nconsole.log(1)\n```\n",
			html:    "<!DOCTYPE html>\n<html><body>\n<script type=\"module\">\nconsole.log(1)\n</script>\n</body></html>\n",
			inlined: []string{"app.js (an unnamed javascript block)"},
		},
		{
			name:    "the file named by the info string",
			reply:   "```html\n" + page + "\n```\n```js app.js\nconsole.log(2)\n```\n",
			html:    "<!DOCTYPE html>\n<html><body>\n<script type=\"module\">\nconsole.log(2)\n</script>\n</body></html>\n",
			inlined: []string{"app.js"},
		},
		{
			name:    "the file named by a comment on the block's first line",
			reply:   "```html\n" + page + "\n```\n```javascript\n// app.js\nconsole.log(3)\n```\n",
			html:    "<!DOCTYPE html>\n<html><body>\n<script type=\"module\">\n// app.js\nconsole.log(3)\n</script>\n</body></html>\n",
			inlined: []string{"app.js"},
		},
		{
			name:    "index.html wins over a longer page, named by its info string",
			reply:   "```html title=\"index.html\"\n<html><body>short</body></html>\n```\n```html\n<!DOCTYPE html>\n<html><body>a longer demo page</body></html>\n```\n",
			html:    "<html><body>short</body></html>\n",
			dropped: []string{"an html block (2 lines): another HTML block; the page is index.html (html, 1 line)"},
		},
		{
			name:  "a four-backtick fence holds a three-backtick line",
			reply: "````html\n<!DOCTYPE html>\n<html><body><pre>\n```\n</pre></body></html>\n````\n",
			html:  "<!DOCTYPE html>\n<html><body><pre>\n```\n</pre></body></html>\n",
		},
		{
			name:  "an unlabelled block that is a document",
			reply: "Here you go:\n```\n<!DOCTYPE html>\n<html><body>x</body></html>\n```\n",
			html:  "<!DOCTYPE html>\n<html><body>x</body></html>\n",
		},
		{
			name:  "a mention of three.js before the page names no file",
			reply: "This page loads `three.js` from a CDN:\n```html\n<html><body>y</body></html>\n```\n",
			html:  "<html><body>y</body></html>\n",
		},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			ex := Extract(c.reply)
			require.Equal(t, c.html, ex.HTML)
			require.Equal(t, c.inlined, ex.Inlined)
			require.Equal(t, c.dropped, ex.Dropped)
			require.Empty(t, ex.Missing)
			require.Empty(t, ex.Failure)
		})
	}
}
