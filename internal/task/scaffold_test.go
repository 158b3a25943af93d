package task

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"
)

// scaffoldTask is a copy of the bouncing-ball task given a scaffold of two
// files, the page holding a code fence of its own.
func scaffoldTask(t *testing.T) (*Task, string) {
	t.Helper()
	dir := copyDir(t, ballDir)
	require.NoError(t, os.MkdirAll(filepath.Join(dir, "scaffold", "lib"), 0o755))
	write := func(rel, body string) {
		require.NoError(t, os.WriteFile(filepath.Join(dir, rel), []byte(body), 0o644))
	}
	write("scaffold/index.html", "<!DOCTYPE html>\n<script>// ```not a fence```\n</script>\n")
	write("scaffold/lib/util.js", "export const g = 9.81;\n")
	write("scaffold/.notes", "hidden\n")
	y, err := os.ReadFile(filepath.Join(dir, TaskFile))
	require.NoError(t, err)
	write(TaskFile, strings.Replace(string(y), "state:\n", "scaffold: scaffold/index.html\nstate:\n", 1))
	tk, err := Load(dir)
	require.NoError(t, err)
	return tk, dir
}

func TestPromptHoldsTheScaffold(t *testing.T) {
	tk, _ := scaffoldTask(t)
	require.Equal(t, "scaffold/index.html", tk.Scaffold)
	files, err := tk.ScaffoldFiles()
	require.NoError(t, err)
	require.Equal(t, []string{"index.html", "lib/util.js"}, files)
	prompt, err := tk.Prompt()
	require.NoError(t, err)
	plain := copyDir(t, ballDir)
	pt, err := Load(plain)
	require.NoError(t, err)
	without, err := pt.Prompt()
	require.NoError(t, err)
	require.Equal(t, without+"\n"+"## Scaffold\n\n"+
		"You do not start from nothing: the app below exists, and the brief above describes it as it must be after your change. "+
		"Change it so that it does everything the brief asks, and keep what it already does right working. "+
		"Your answer is the whole changed page, `index.html`: one complete HTML file, not a diff or only the changed parts. "+
		"The other files are shown for reference and are not served beside your page: put what it needs from them inside it.\n"+
		"\n### index.html\n\n````html\n<!DOCTYPE html>\n<script>// ```not a fence```\n</script>\n````\n"+
		"\n### lib/util.js\n\n```javascript\nexport const g = 9.81;\n```\n", prompt)
}

func TestLintScaffold(t *testing.T) {
	tk, dir := scaffoldTask(t)
	file := filepath.Join(dir, ContractFile)
	require.Equal(t, []Finding{{File: file, Message: "the task has a scaffold but no probe labelled kind: fail_to_pass: label the probes of the change the task asks for"}}, Lint(tk))

	require.NoError(t, os.Remove(filepath.Join(dir, "scaffold", "index.html")))
	_, err := tk.Prompt()
	require.ErrorContains(t, err, "scaffold: stat ")
	require.Contains(t, Lint(tk), Finding{File: filepath.Join(dir, TaskFile), Line: 12,
		Message: "scaffold scaffold/index.html: missing page: no such file or directory"})

	plain, err := Load(copyDir(t, ballDir))
	require.NoError(t, err)
	c, err := os.ReadFile(plain.ContractPath())
	require.NoError(t, err)
	labelled := strings.Replace(string(c), "    level: ", "    kind: pass_to_pass\n    level: ", 1)
	require.NoError(t, os.WriteFile(plain.ContractPath(), []byte(labelled), 0o644))
	require.Equal(t, []Finding{{File: plain.ContractPath(), Line: 3,
		Message: "probe falls_under_gravity is labelled pass_to_pass, but the task has no scaffold: set scaffold: in task.yaml, or drop the kind"}}, Lint(plain))
}
