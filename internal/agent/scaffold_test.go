package agent

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/worldprobe/worldprobe/internal/task"
)

// TestWorkspaceStartsFromTheScaffold: for a task with a scaffold, index.html
// starts as the scaffold page, the scaffold's other files are under
// scaffold/, brief.md is the prompt (scaffold included) and the system text
// says where the scaffold is.
func TestWorkspaceStartsFromTheScaffold(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "simulation", "mover-scaffold")
	require.NoError(t, task.CopyTree(filepath.Join("..", "taskcheck", "testdata", "suite", "simulation", "mover-scaffold"), dir))
	require.NoError(t, os.WriteFile(filepath.Join(dir, "scaffold", "notes.txt"), []byte("speed 1 m/s\n"), 0o644))
	tk, err := task.Load(dir)
	require.NoError(t, err)
	ws, err := NewWorkspace(tk)
	require.NoError(t, err)
	t.Cleanup(func() { require.NoError(t, ws.Close()) })

	page, err := ws.Page()
	require.NoError(t, err)
	want, err := os.ReadFile(filepath.Join(dir, "scaffold", "index.html"))
	require.NoError(t, err)
	require.Equal(t, string(want), string(page))
	notes, err := ws.ReadFile("scaffold/notes.txt")
	require.NoError(t, err)
	require.Equal(t, "speed 1 m/s\n", string(notes))
	files, err := ws.Files(".")
	require.NoError(t, err)
	var names []string
	for _, f := range files {
		names = append(names, f.Path)
	}
	require.Equal(t, []string{"brief.md", "index.html", "scaffold/notes.txt", "state-interface.json"}, names)
	brief, err := ws.ReadFile(BriefFile)
	require.NoError(t, err)
	prompt, err := tk.Prompt()
	require.NoError(t, err)
	require.Equal(t, prompt, string(brief))
	require.True(t, strings.Contains(prompt, "## Scaffold\n") && strings.Contains(prompt, "### notes.txt\n"), prompt)

	p, err := PromptOf(tk)
	require.NoError(t, err)
	require.Equal(t, Instructions+"\n\n"+ScaffoldInstructions, p.System)
	plain, err := PromptOf(tinyTask(t))
	require.NoError(t, err)
	require.Equal(t, Instructions, plain.System, "a task without a scaffold keeps the system text (and its digest)")
}
