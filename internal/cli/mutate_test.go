package cli

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"
)

func TestTaskMutate(t *testing.T) {
	taskDir := filepath.Join("..", "..", "suites", "starter", "simulation", "bouncing-ball")
	out := t.TempDir()
	code, stdout, stderr := execute(t, "task", "mutate", "--max", "12", "--seed", "5", "--out", out, taskDir)
	require.Equal(t, ExitOK, code, stderr)
	require.Contains(t, stdout, "line:col")
	require.Contains(t, stdout, "12 of ")

	data, err := os.ReadFile(filepath.Join(out, "mutants.json"))
	require.NoError(t, err)
	var doc struct {
		Mutants []struct {
			ID, Operator, Diff string
			Line, Col          int
		} `json:"mutants"`
	}
	require.NoError(t, json.Unmarshal(data, &doc))
	require.Len(t, doc.Mutants, 12)
	ops := map[string]bool{}
	for _, m := range doc.Mutants {
		ops[m.Operator] = true
		require.True(t, strings.HasPrefix(m.ID, m.Operator+"-"), m.ID)
		require.Contains(t, stdout, m.ID)
		page, err := os.ReadFile(filepath.Join(out, m.ID, "index.html"))
		require.NoError(t, err)
		require.NotEmpty(t, page)
		diff, err := os.ReadFile(filepath.Join(out, m.ID, "mutant.diff"))
		require.NoError(t, err)
		require.Equal(t, m.Diff, string(diff))
		require.True(t, strings.HasPrefix(m.Diff, "--- a/index.html\n+++ b/index.html\n@@ "), m.Diff)
	}
	require.GreaterOrEqual(t, len(ops), 8, "the draw covers the operators")

	// the same flags print the same JSON
	code, a, _ := execute(t, "task", "mutate", "--json", "--max", "5", "--operators", "scale-constant,freeze-time", taskDir)
	require.Equal(t, ExitOK, code)
	_, b, _ := execute(t, "task", "mutate", "--json", "--max", "5", "--operators", "scale-constant,freeze-time", taskDir)
	require.Equal(t, a, b)
	require.NotContains(t, a, "delete-call")

	code, stdout, _ = execute(t, "task", "mutate", "--help")
	require.Equal(t, ExitOK, code)
	for _, op := range []string{"delete-state-update", "scale-constant", "freeze-time", "shift-boundary"} {
		require.Contains(t, stdout, op)
	}

	code, _, stderr = execute(t, "task", "mutate", "--operators", "nope", taskDir)
	require.Equal(t, ExitUsage, code)
	require.Contains(t, stderr, "unknown operator nope")
	code, _, _ = execute(t, "task", "mutate")
	require.Equal(t, ExitUsage, code)
	code, _, _ = execute(t, "task", "mutate", "no/such/task")
	require.Equal(t, ExitUsage, code)
}
