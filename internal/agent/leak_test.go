package agent

import (
	"context"
	"encoding/json"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"sync"
	"testing"
	"unicode"

	"github.com/stretchr/testify/require"
	"go.yaml.in/yaml/v3"

	"github.com/worldprobe/worldprobe/internal/llm"
	"github.com/worldprobe/worldprobe/internal/task"
)

// contractTexts are what a message to the model must not hold of a
// contract.yaml: every probe's name that is an identifier (not one English
// word the brief may use too, such as "orbit"), every assertion, and every
// line of 20 characters or more as written. Messages and descriptions
// restate the brief's requirements by design and are left out.
func contractTexts(t *testing.T, path string) (names, texts []string) {
	t.Helper()
	b, err := os.ReadFile(path)
	require.NoError(t, err)
	var c struct {
		Probes []struct {
			Name  string
			Steps []map[string]any
		}
	}
	require.NoError(t, yaml.Unmarshal(b, &c), path)
	require.NotEmpty(t, c.Probes, path)
	for _, p := range c.Probes {
		if strings.ContainsAny(p.Name, "_-") {
			names = append(names, p.Name)
		}
		for _, s := range p.Steps {
			if v, ok := s["assert"].(string); ok {
				texts = append(texts, v)
			}
		}
	}
	for _, line := range strings.Split(string(b), "\n") {
		if l := strings.TrimSpace(line); len(l) >= 20 {
			texts = append(texts, l)
		}
	}
	return names, texts
}

// fileLines are the lines of 20 characters or more, holding a letter, of
// every file under dir.
func fileLines(t *testing.T, dir string) []string {
	t.Helper()
	var out []string
	require.NoError(t, filepath.WalkDir(dir, func(path string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() {
			return err
		}
		b, err := os.ReadFile(path)
		if err != nil {
			return err
		}
		for _, line := range strings.Split(string(b), "\n") {
			if l := strings.TrimSpace(line); len(l) >= 20 && strings.IndexFunc(l, unicode.IsLetter) >= 0 {
				out = append(out, l)
			}
		}
		return nil
	}))
	return out
}

// scaffoldLines reports whether a line of fileLines is text of the task's
// scaffold folder (a whole line of it or a part of one): the prompt shows
// the scaffold, and a solution shares most of it.
func scaffoldLines(t *testing.T, tk *task.Task) func(string) bool {
	t.Helper()
	var text strings.Builder
	if tk.Scaffold != "" {
		require.NoError(t, filepath.WalkDir(filepath.Dir(tk.ScaffoldPath()), func(path string, d fs.DirEntry, err error) error {
			if err != nil || d.IsDir() {
				return err
			}
			b, err := os.ReadFile(path)
			text.Write(b)
			text.WriteByte('\n')
			return err
		}))
	}
	all := text.String()
	return func(l string) bool { return all != "" && strings.Contains(all, l) }
}

// explorer is a model that looks at everything the workspace offers:
// it lists the files, reads each, greps them, tries to finish with an
// empty page and gives up in words. It keeps every request it gets.
type explorer struct {
	mu  sync.Mutex
	got []llm.Request
}

func (e *explorer) Chat(_ context.Context, req llm.Request) (*llm.Response, error) {
	e.mu.Lock()
	defer e.mu.Unlock()
	e.got = append(e.got, req)
	call := func(name, args string) llm.ToolCall {
		return llm.ToolCall{ID: fmt.Sprintf("call_%d", len(e.got)), Name: name, Arguments: json.RawMessage(args)}
	}
	resp := &llm.Response{StopReason: llm.StopToolUse, Provider: "openai", Model: "test-gpt"}
	switch len(e.got) {
	case 1:
		resp.ToolCalls = []llm.ToolCall{call("list_files", `{}`)}
	case 2:
		resp.ToolCalls = []llm.ToolCall{call("read_file", `{"path":"brief.md"}`), call("read_file", `{"path":"state-interface.json"}`), call("read_file", `{"path":"index.html"}`)}
	case 3:
		resp.ToolCalls = []llm.ToolCall{call("grep", `{"pattern":"."}`), call("grep", `{"pattern":"state|probe|assert|contract|solution","ignore_case":true}`)}
	case 4:
		resp.ToolCalls = []llm.ToolCall{call("list_files", `{"path":"."}`), call("finish", `{}`)}
	default:
		resp.Text, resp.StopReason = "I could not write the page.", llm.StopEnd
	}
	return resp, nil
}

// TestNoMessageHoldsContractText: over every task of the starter suite,
// the workspace holds brief.md, state-interface.json and index.html only,
// and nothing sent to the model — the system text, the task's prompt, the
// tools' definitions and every tool result of a model that reads it all —
// holds a probe name, an assertion or a line of contract.yaml, nor a line
// of any file under solution/, solutions/ or candidates/.
func TestNoMessageHoldsContractText(t *testing.T) {
	tasks, err := task.LoadSuite(filepath.Join("..", "..", "suites", "starter"))
	require.NoError(t, err)
	require.Len(t, tasks, 40)
	checked := 0
	for _, tk := range tasks {
		ws, err := NewWorkspace(tk)
		require.NoError(t, err)
		files, err := ws.Files(".")
		require.NoError(t, err)
		var paths []string
		for _, f := range files {
			paths = append(paths, f.Path)
		}
		require.Equal(t, []string{BriefFile, PageFile, InterfaceFile}, paths, tk.ID)

		p, err := PromptOf(tk)
		require.NoError(t, err)
		m := &explorer{}
		res, err := Run(context.Background(), Config{Model: m, Prompt: p, Variant: "sample-1", Env: &Env{Workspace: ws, Frames: tk.Frames},
			Budget: Budget{MaxTurns: DefaultMaxTurns}})
		require.NoError(t, err)
		require.NoError(t, ws.Close())
		if tk.Scaffold == "" {
			require.Equal(t, 5, res.Turns, tk.ID)
			require.Equal(t, map[string]int{"finish": 1}, res.ToolErrors, "%s: only the finish with an empty page fails", tk.ID)
		} else {
			require.Equal(t, 4, res.Turns, "%s: index.html starts as the scaffold page, so the finish ends the run", tk.ID)
			require.Empty(t, res.ToolErrors, tk.ID)
		}

		// Everything the model was sent but its own turns.
		var sent strings.Builder
		for _, req := range m.got {
			for _, msg := range req.Messages {
				if msg.Role != llm.MsgAssistant {
					sent.WriteString(msg.TextContent() + "\n")
				}
			}
			defs, err := json.Marshal(req.Tools)
			require.NoError(t, err)
			sent.Write(defs)
		}
		text := sent.String()
		require.Contains(t, text, "brief.md, all ", "%s: the model read the brief", tk.ID)

		names, texts := contractTexts(t, tk.ContractPath())
		for _, n := range names {
			require.False(t, regexp.MustCompile(`\b`+regexp.QuoteMeta(n)+`\b`).MatchString(text), "%s: the model was sent probe %q", tk.ID, n)
			checked++
		}
		for _, s := range texts {
			require.False(t, strings.Contains(text, s), "%s: the model was sent text of contract.yaml: %q", tk.ID, s)
			checked++
		}
		given := scaffoldLines(t, tk)
		for _, dir := range []string{task.SolutionDir, "solutions", task.CandidatesDir} {
			lines := fileLines(t, filepath.Join(tk.Dir, dir))
			require.NotEmpty(t, lines, "%s/%s", tk.ID, dir)
			for _, l := range lines {
				if given(l) {
					continue // a line the scaffold already shows the model
				}
				require.False(t, strings.Contains(text, l), "%s: the model was sent a line of %s/: %q", tk.ID, dir, l)
				checked++
			}
		}
	}
	require.Greater(t, checked, 10000)
}
