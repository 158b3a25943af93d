package agent

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/worldprobe/worldprobe/internal/llm"
	"github.com/worldprobe/worldprobe/internal/task"
)

// tinyTask is the one-task suite the run tests use: a box moving along x.
func tinyTask(t *testing.T) *task.Task {
	t.Helper()
	tk, err := task.Load(filepath.Join("..", "run", "testdata", "suite", "simulation", "tiny"))
	require.NoError(t, err)
	return tk
}

// newEnv is a fresh workspace of the tiny task, without a runtime.
func newEnv(t *testing.T) *Env {
	t.Helper()
	ws, err := NewWorkspace(tinyTask(t))
	require.NoError(t, err)
	t.Cleanup(func() { require.NoError(t, ws.Close()) })
	return &Env{Workspace: ws, Frames: 300}
}

// call runs the tool name with the arguments object args.
func call(t *testing.T, env *Env, name string, args any) (string, bool) {
	t.Helper()
	b, err := json.Marshal(args)
	require.NoError(t, err)
	text, failed, err := Call(context.Background(), env, llm.ToolCall{ID: "call_1", Name: name, Arguments: b})
	require.NoError(t, err)
	return text, failed
}

func TestWorkspaceHoldsOnlyWhatTheModelMaySee(t *testing.T) {
	tk := tinyTask(t)
	env := newEnv(t)
	text, failed := call(t, env, "list_files", map[string]any{})
	require.False(t, failed)
	prompt, err := tk.Prompt()
	require.NoError(t, err)
	require.Equal(t, fmt.Sprintf("brief.md %d bytes\nindex.html 0 bytes\nstate-interface.json %d bytes\n", len(prompt), 117), text)

	brief, err := env.Workspace.ReadFile(BriefFile)
	require.NoError(t, err)
	require.Equal(t, prompt, string(brief), "brief.md is what 'worldprobe task prompt' prints")
	iface, err := env.Workspace.ReadFile(InterfaceFile)
	require.NoError(t, err)
	require.Equal(t, `[
  {
    "path": "x",
    "type": "number",
    "unit": "m",
    "description": "position of the box along x"
  }
]
`, string(iface))
	text, _ = call(t, env, "read_file", map[string]any{"path": "index.html"})
	require.Equal(t, "index.html is empty (0 bytes)\n", text)
	require.Equal(t, filepath.Clean(os.TempDir()), filepath.Dir(env.Workspace.Dir), "a fresh temporary folder, not the task's")
}

// TestPathsAreConfined: absolute paths, '..' and symbolic links are
// refused by every tool that takes a path, with a reason the model can
// act on; nothing outside the workspace is read or written.
func TestPathsAreConfined(t *testing.T) {
	env := newEnv(t)
	outside := t.TempDir()
	secret := filepath.Join(outside, "secret.txt")
	require.NoError(t, os.WriteFile(secret, []byte("outside\n"), 0o644))
	require.NoError(t, os.Symlink(outside, filepath.Join(env.Workspace.Dir, "out")))
	require.NoError(t, os.Symlink(secret, filepath.Join(env.Workspace.Dir, "leak.txt")))
	require.NoError(t, os.Symlink("brief.md", filepath.Join(env.Workspace.Dir, "inside.md")))

	cases := []struct{ path, want string }{
		{"/etc/passwd", `error: path "/etc/passwd" is absolute: paths are relative to the folder, e.g. index.html`},
		{secret, fmt.Sprintf("error: path %q is absolute: paths are relative to the folder, e.g. index.html", secret)},
		{"../secret.txt", `error: path "../secret.txt" has a '..' component: every file is inside the folder, e.g. index.html`},
		{"js/../../secret.txt", `error: path "js/../../secret.txt" has a '..' component: every file is inside the folder, e.g. index.html`},
		{`..\secret.txt`, `error: path "..\\secret.txt" has a '..' component: every file is inside the folder, e.g. index.html`},
		{"out/secret.txt", `error: path "out/secret.txt" goes through the symbolic link out: the tools do not follow links`},
		{"leak.txt", `error: path "leak.txt" goes through the symbolic link leak.txt: the tools do not follow links`},
		{"inside.md", `error: path "inside.md" goes through the symbolic link inside.md: the tools do not follow links`},
		{"", "error: no path given: give a path inside the folder, e.g. index.html"},
	}
	for _, c := range cases {
		for _, tool := range []struct {
			name string
			args map[string]any
		}{
			{"read_file", map[string]any{"path": c.path}},
			{"write_file", map[string]any{"path": c.path, "content": "pwned\n"}},
			{"edit_file", map[string]any{"path": c.path, "old_text": "outside", "new_text": "pwned"}},
			{"list_files", map[string]any{"path": c.path}},
			{"grep", map[string]any{"pattern": "outside", "path": c.path}},
		} {
			if c.path == "" && (tool.name == "list_files" || tool.name == "grep") {
				continue // no path: the whole folder
			}
			text, failed := call(t, env, tool.name, tool.args)
			require.True(t, failed, "%s %q", tool.name, c.path)
			require.Equal(t, c.want, text, "%s %q", tool.name, c.path)
		}
	}
	b, err := os.ReadFile(secret)
	require.NoError(t, err)
	require.Equal(t, "outside\n", string(b), "nothing outside was written")
	entries, err := os.ReadDir(outside)
	require.NoError(t, err)
	require.Len(t, entries, 1)

	// Listing and grepping the whole folder name the links, never follow them.
	text, _ := call(t, env, "list_files", map[string]any{})
	require.Contains(t, text, "leak.txt (symbolic link, not followed)\n")
	require.Contains(t, text, "out (symbolic link, not followed)\n")
	text, _ = call(t, env, "grep", map[string]any{"pattern": "outside"})
	require.Equal(t, "no match\n", text)

	// A '..'-free path inside is fine, however written.
	text, failed := call(t, env, "write_file", map[string]any{"path": "./js//main.js", "content": "let a = 1;\n"})
	require.False(t, failed, text)
	require.Equal(t, "wrote js/main.js: 11 bytes, 1 line\n", text)
}

func TestEditFileNeedsExactlyOneMatch(t *testing.T) {
	env := newEnv(t)
	page := "<script>\n  let speed = 1;\n  let size = 1;\n  box.scale.set(size, size, size);\n</script>\n"
	text, failed := call(t, env, "write_file", map[string]any{"path": "index.html", "content": page})
	require.False(t, failed)
	require.Equal(t, "wrote index.html: 87 bytes, 5 lines\n", text)

	text, failed = call(t, env, "edit_file", map[string]any{"path": "index.html", "old_text": "let spd = 1;", "new_text": "let spd = 2;"})
	require.True(t, failed)
	require.Equal(t, "error: old_text does not occur in index.html, so nothing was changed: read_file shows the exact text; check spaces, indentation and line ends", text)

	text, failed = call(t, env, "edit_file", map[string]any{"path": "index.html", "old_text": "  let speed = 1;\n\n", "new_text": "x"})
	require.True(t, failed)
	require.Equal(t, "error: old_text does not occur in index.html, so nothing was changed: it does occur without its leading or trailing spaces and line ends; copy it exactly", text)

	text, failed = call(t, env, "edit_file", map[string]any{"path": "index.html", "old_text": "= 1;", "new_text": "= 2;"})
	require.True(t, failed)
	require.Equal(t, "error: old_text occurs 2 times in index.html (at lines 2, 3), so nothing was changed: include more of the surrounding lines so that it occurs once", text)

	text, failed = call(t, env, "edit_file", map[string]any{"path": "index.html", "old_text": "", "new_text": "x"})
	require.True(t, failed)
	require.Equal(t, "error: old_text is empty: give the exact text to replace (write_file writes a whole file)", text)

	got, err := env.Workspace.ReadFile("index.html")
	require.NoError(t, err)
	require.Equal(t, page, string(got), "a refused edit changes nothing")

	text, failed = call(t, env, "edit_file", map[string]any{"path": "index.html", "old_text": "let size = 1;\n", "new_text": "let size = 2;\n  let depth = 3;\n"})
	require.False(t, failed)
	require.Equal(t, "edited index.html at line 3: 1 line replaced by 2 lines; the file now has 6 lines\n", text)
	got, err = env.Workspace.ReadFile("index.html")
	require.NoError(t, err)
	require.Equal(t, "<script>\n  let speed = 1;\n  let size = 2;\n  let depth = 3;\n  box.scale.set(size, size, size);\n</script>\n", string(got))

	text, failed = call(t, env, "edit_file", map[string]any{"path": "main.js", "old_text": "a", "new_text": "b"})
	require.True(t, failed)
	require.Equal(t, "error: main.js: no such file or folder (list_files shows what there is)", text)
}

func TestReadFileLineRanges(t *testing.T) {
	env := newEnv(t)
	var lines []string
	for i := 1; i <= 10; i++ {
		lines = append(lines, fmt.Sprintf("line %d", i))
	}
	_, failed := call(t, env, "write_file", map[string]any{"path": "a.txt", "content": strings.Join(lines, "\n")})
	require.False(t, failed)
	cases := []struct {
		args   map[string]any
		want   string
		failed bool
	}{
		{map[string]any{"path": "a.txt", "start_line": 3, "end_line": 4}, "a.txt, lines 3-4 of 10:\nline 3\nline 4\n", false},
		{map[string]any{"path": "a.txt", "start_line": 9}, "a.txt, lines 9-10 of 10:\nline 9\nline 10\n[no newline at the end of the file]\n", false},
		{map[string]any{"path": "a.txt", "end_line": 2}, "a.txt, lines 1-2 of 10:\nline 1\nline 2\n", false},
		{map[string]any{"path": "a.txt", "start_line": 8, "end_line": 400}, "a.txt, lines 8-10 of 10:\nline 8\nline 9\nline 10\n[no newline at the end of the file]\n", false},
		{map[string]any{"path": "a.txt", "start_line": 11}, "error: a.txt has 10 lines: start_line 11 is past its end", true},
		{map[string]any{"path": "a.txt", "start_line": 5, "end_line": 4}, "error: start_line 5 is after end_line 4", true},
		{map[string]any{"path": "a.txt", "lines": "1-2"}, `error: the arguments are not the JSON object the tool takes (json: unknown field "lines"); its schema lists them`, true},
		{map[string]any{"path": "."}, "error: . is a folder (list_files shows what it holds)", true},
	}
	for _, c := range cases {
		text, failed := call(t, env, "read_file", c.args)
		require.Equal(t, c.failed, failed, "%v", c.args)
		require.Equal(t, c.want, text, "%v", c.args)
	}
	text, _ := call(t, env, "read_file", map[string]any{"path": "brief.md"})
	require.True(t, strings.HasPrefix(text, "brief.md, all 14 lines:\n## Behaviour\n"), text)
}

// TestOutputsAreCapped: a file larger than the cap is read up to a whole
// line under it, with the line to read on from; every tool's output is
// cut at MaxOutput.
func TestOutputsAreCapped(t *testing.T) {
	env := newEnv(t)
	var b strings.Builder
	lineOf := func(i int) string { return fmt.Sprintf("const v%04d = %04d; // %s\n", i, i, strings.Repeat("-", 40)) }
	require.Len(t, lineOf(1), 64)
	for i := 1; b.Len() < 3*MaxOutput; i++ {
		b.WriteString(lineOf(i))
	}
	_, failed := call(t, env, "write_file", map[string]any{"path": "big.js", "content": b.String()})
	require.False(t, failed)
	// 768 lines of 64 bytes; 251 of them (16064 bytes) fit under the cap
	// with room for the lines around them.
	text, _ := call(t, env, "read_file", map[string]any{"path": "big.js"})
	require.LessOrEqual(t, len(text), MaxOutput)
	require.True(t, strings.HasPrefix(text, "big.js, lines 1-251 of 768:\n"+lineOf(1)), text[:80])
	require.True(t, strings.HasSuffix(text, lineOf(251)+"[cut at line 251 to keep the output short; read on with start_line 252]\n"))
	text, _ = call(t, env, "read_file", map[string]any{"path": "big.js", "start_line": 252, "end_line": 253})
	require.Equal(t, "big.js, lines 252-253 of 768:\n"+lineOf(252)+lineOf(253), text)

	text, _ = call(t, env, "grep", map[string]any{"pattern": `v0\d\d\d`})
	require.Equal(t, 101, strings.Count(text, "\n"))
	require.True(t, strings.HasSuffix(text, "big.js:100: "+lineOf(100)+"[768 matches, the first 100 shown; narrow the pattern or the path]\n"))

	long := strings.Repeat("é", MaxOutput) // 2 bytes each
	cut := capOutput(long, MaxOutput)
	require.LessOrEqual(t, len(cut), MaxOutput)
	require.True(t, strings.HasSuffix(cut, fmt.Sprintf("\n[output cut: %d of %d bytes shown; ask for less, e.g. a line range]\n", MaxOutput-120, 2*MaxOutput)))
	require.True(t, strings.HasPrefix(cut, "éé"))
	require.Equal(t, "short", capOutput("short", MaxOutput))
}

func TestGrep(t *testing.T) {
	env := newEnv(t)
	call(t, env, "write_file", map[string]any{"path": "index.html", "content": "<script>\nwindow.__3D_STATE__ = { x: 0 };\nfunction Animate() {}\n</script>\n"})
	call(t, env, "write_file", map[string]any{"path": "js/util.js", "content": "function animate() {}\n"})
	cases := []struct {
		args   map[string]any
		want   string
		failed bool
	}{
		{map[string]any{"pattern": "__3D_STATE__"}, "brief.md:4:   Expose `x` in `window.__3D_STATE__`.\nbrief.md:8: Expose the page's state as `window.__3D_STATE__`: a plain object (getters are fine) that is read as JSON at any frame, so keep it current every frame. A dotted path `a.b` means `window.__3D_STATE__.a.b`. It must contain:\nindex.html:2: window.__3D_STATE__ = { x: 0 };\n", false},
		{map[string]any{"pattern": `function\s+animate`}, "js/util.js:1: function animate() {}\n", false},
		{map[string]any{"pattern": `function\s+animate`, "ignore_case": true}, "index.html:3: function Animate() {}\njs/util.js:1: function animate() {}\n", false},
		{map[string]any{"pattern": "function", "path": "js"}, "js/util.js:1: function animate() {}\n", false},
		{map[string]any{"pattern": "function", "path": "index.html"}, "index.html:3: function Animate() {}\n", false},
		{map[string]any{"pattern": "nothing here"}, "no match\n", false},
		{map[string]any{"pattern": "a(b"}, "error: pattern \"a(b\" is not a regular expression: error parsing regexp: missing closing ): `a(b`", true},
		{map[string]any{"pattern": ""}, "error: no pattern given", true},
	}
	for _, c := range cases {
		text, failed := call(t, env, "grep", c.args)
		require.Equal(t, c.failed, failed, "%v", c.args)
		require.Equal(t, c.want, text, "%v", c.args)
	}
}

func TestWriteFileLimits(t *testing.T) {
	env := newEnv(t)
	text, failed := call(t, env, "write_file", map[string]any{"path": "index.html", "content": strings.Repeat("x", MaxFileBytes+1)})
	require.True(t, failed)
	require.Equal(t, "error: index.html: 524289 bytes is more than the 524288 a file may hold", text)
	text, failed = call(t, env, "write_file", map[string]any{"path": "index.html"})
	require.True(t, failed)
	require.Equal(t, "error: no content given: write_file takes the whole content of the file", text)
	for i := 3; i < MaxFiles; i++ {
		_, failed := call(t, env, "write_file", map[string]any{"path": fmt.Sprintf("f/%02d.txt", i), "content": "x"})
		require.False(t, failed, "file %d", i)
	}
	text, failed = call(t, env, "write_file", map[string]any{"path": "one-too-many.txt", "content": "x"})
	require.True(t, failed)
	require.Equal(t, "error: the folder already holds 64 files, the most it may", text)
	text, failed = call(t, env, "write_file", map[string]any{"path": "index.html", "content": "<p>still fine</p>\n"})
	require.False(t, failed, "an existing file may be written again: %s", text)
	text, failed = call(t, env, "write_file", map[string]any{"path": "f", "content": "x"})
	require.True(t, failed)
	require.Equal(t, "error: f is a folder", text)
}

func TestCallsTheModelGetsWrong(t *testing.T) {
	env := newEnv(t)
	text, failed, err := Call(context.Background(), env, llm.ToolCall{ID: "c", Name: "bash", Arguments: json.RawMessage(`{"cmd":"ls"}`)})
	require.NoError(t, err)
	require.True(t, failed)
	require.Equal(t, `error: there is no tool "bash"; the tools are list_files, read_file, grep, write_file, edit_file, run_page, finish`, text)
	text, failed, err = Call(context.Background(), env, llm.ToolCall{ID: "c", Name: "read_file", Arguments: json.RawMessage(`{"path": "index.ht`)})
	require.NoError(t, err)
	require.True(t, failed)
	require.Equal(t, "error: the arguments are not the JSON object the tool takes (unexpected EOF); its schema lists them", text)

	text, failed = call(t, env, "finish", map[string]any{"summary": "done"})
	require.True(t, failed)
	require.Equal(t, "error: index.html is empty: write the page with write_file before calling finish", text)
	require.False(t, env.Finished)
	text, failed = call(t, env, "run_page", map[string]any{})
	require.True(t, failed)
	require.Equal(t, "error: run_page is not available in this run", text)
	call(t, env, "write_file", map[string]any{"path": "index.html", "content": "<!DOCTYPE html><p>x</p>\n"})
	text, failed = call(t, env, "finish", map[string]any{"summary": "A page."})
	require.False(t, failed)
	require.Equal(t, "finished\n", text)
	require.True(t, env.Finished)
	require.Equal(t, "A page.", env.Summary)
}

// TestToolDefinitions: every tool declares an object schema that names
// its required arguments among its properties and allows no others.
func TestToolDefinitions(t *testing.T) {
	var names []string
	for _, d := range Definitions() {
		names = append(names, d.Name)
		var s struct {
			Type                 string                    `json:"type"`
			Properties           map[string]map[string]any `json:"properties"`
			Required             []string                  `json:"required"`
			AdditionalProperties *bool                     `json:"additionalProperties"`
		}
		require.NoError(t, json.Unmarshal(d.Parameters, &s), d.Name)
		require.Equal(t, "object", s.Type, d.Name)
		require.NotNil(t, s.AdditionalProperties, d.Name)
		require.False(t, *s.AdditionalProperties, d.Name)
		for _, r := range s.Required {
			require.Contains(t, s.Properties, r, d.Name)
		}
		for p, ps := range s.Properties {
			require.NotEmpty(t, ps["description"], "%s.%s", d.Name, p)
		}
		require.NotEmpty(t, d.Description, d.Name)
	}
	require.Equal(t, []string{"list_files", "read_file", "grep", "write_file", "edit_file", "run_page", "finish"}, names)
}
