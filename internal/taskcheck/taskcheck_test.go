package taskcheck

import (
	"context"
	"os"
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/worldprobe/worldprobe/internal/task"
	"github.com/worldprobe/worldprobe/internal/testenv"
	"github.com/worldprobe/worldprobe/internal/trial"
)

var judge *trial.Judge

func TestMain(m *testing.M) {
	code := func() int {
		b, res, err := testenv.Start(2)
		if err != nil {
			panic(err)
		}
		defer b.Close()
		judge = &trial.Judge{Browser: b, Resolver: res, SkipDraw: true}
		return m.Run()
	}()
	os.Exit(code)
}

func check(t *testing.T, dir string) *Report {
	t.Helper()
	tk, err := task.Load(dir)
	require.NoError(t, err)
	rep, err := Check(context.Background(), judge, tk, t.TempDir())
	require.NoError(t, err)
	return rep
}

func TestTinyTaskIsClean(t *testing.T) {
	rep := check(t, filepath.Join("..", "run", "testdata", "suite", "simulation", "tiny"))
	require.True(t, rep.OK(), "%+v", rep)
	require.True(t, rep.Stable)
	require.Len(t, rep.Fixtures, 1)
	require.Equal(t, "fails as expected: the box never moves", rep.Fixtures[0].Message)
}

// TestNamedStarterTasksAreClean checks the three tasks the issue fixes by id.
func TestNamedStarterTasksAreClean(t *testing.T) {
	for _, id := range []string{"simulation/bouncing-ball", "application/color-cycle-cube", "rendering/day-night-cycle"} {
		t.Run(id, func(t *testing.T) {
			t.Parallel()
			rep := check(t, filepath.Join("..", "..", "suites", "starter", filepath.FromSlash(id)))
			require.Empty(t, rep.Lint)
			require.True(t, rep.ReferenceOK, "%v", rep.ReferenceMsgs)
			require.True(t, rep.Stable)
			require.GreaterOrEqual(t, len(rep.Fixtures), 2)
			for _, f := range rep.Fixtures {
				require.True(t, f.OK, "fixture %s: %s", f.Name, f.Message)
			}
		})
	}
}
