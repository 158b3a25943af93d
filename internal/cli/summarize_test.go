package cli

import (
	"os"
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/require"
)

func TestTaskSummarize(t *testing.T) {
	dir := t.TempDir()
	write := func(name, body string) string {
		p := filepath.Join(dir, name)
		require.NoError(t, os.WriteFile(p, []byte(body), 0o600))
		return p
	}
	mutants := `[` + `{"id": "delete-call-1", "status": "killed"}` + `]`
	hardened := `{"total": 12, "killed": 11, "equivalent": 1, "mutants": ` + mutants + `, "selection": {"seed": 1, "max": 20}}`
	a := write("a.json", `[{"task": "simulation/a", "reference_ok": true, "stable": true, "fixtures": [{"ok": true}],
		"mutation": `+hardened+`}]`)
	// b is first weak, then re-checked and hardened: the last report wins.
	b1 := write("b1.json", `[{"task": "rendering/b", "reference_ok": true, "stable": true,
		"mutation": {"total": 12, "killed": 10, "survived": 2, "selection": {"seed": 1, "max": 20}}}]`)
	b2 := write("b2.json", `[{"task": "rendering/b", "reference_ok": true, "stable": true,
		"mutation": `+hardened+`}]`)

	code, stdout, stderr := execute(t, "task", "summarize", a, b1)
	require.Equal(t, ExitFailed, code, stderr)
	require.Contains(t, stdout, "on 2 tasks (up to 20 mutants per task at seed 1)")
	require.Contains(t, stdout, "| rendering/b | 0/0 | - | 12 | 10 | 0 | 2 | 83.3% | 0/0 | pass ×3 |\n| simulation/a |")
	require.Contains(t, stdout, "1 of 2 tasks hardened")

	out := filepath.Join(dir, "summary.md")
	code, stdout, stderr = execute(t, "task", "summarize", "--out", out, a, b1, b2)
	require.Equal(t, ExitOK, code, stderr)
	require.Empty(t, stdout)
	doc, err := os.ReadFile(out)
	require.NoError(t, err)
	require.Contains(t, string(doc), "2 of 2 tasks hardened")

	code, _, stderr = execute(t, "task", "summarize", write("bad.json", `{"task": 1}`))
	require.Equal(t, ExitUsage, code)
	require.Contains(t, stderr, "is not the JSON of 'task check --json'")
}
