package cli

import (
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/require"
)

// TestJudgeMutateUsage: usage errors name what is wrong before any
// browser starts; --help teaches the three removals and the columns.
func TestJudgeMutateUsage(t *testing.T) {
	rub := filepath.Join("..", "..", "suites", "worldbench", "island")
	world := filepath.Join("..", "worldjudge", "capture", "testdata", "isle", "world.html")
	for _, tc := range []struct {
		args []string
		msg  string
	}{
		{[]string{"judge", "mutate", "--rubric", rub, "--offline"}, "judge mutate needs exactly one WORLD"},
		{[]string{"judge", "mutate", "--offline", world}, "judge mutate needs --rubric DIR"},
		{[]string{"judge", "mutate", "--rubric", rub, "--offline", "--function", "buildLava", world}, "--function buildLava: " + world + " defines no function of that name"},
		{[]string{"judge", "mutate", "--rubric", rub, world}, "judge needs --models FILE"},
	} {
		code, _, errOut := execute(t, tc.args...)
		require.Equal(t, ExitUsage, code, "args %v: %s", tc.args, errOut)
		require.Contains(t, errOut, tc.msg)
	}
	code, out, _ := execute(t, "judge", "mutate", "--help")
	require.Equal(t, ExitOK, code)
	for _, s := range []string{"delete", "dead", "disabled", "if (false)", "code-only", "snapshot-only", "full + coverage", "--function", "keyword hints", "mutate.json"} {
		require.Contains(t, out, s)
	}
}
