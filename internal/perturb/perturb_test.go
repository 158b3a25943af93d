package perturb

import (
	"math"
	"os"
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/worldprobe/worldprobe/internal/task"
)

const ballDir = "../task/testdata/suite/simulation/bouncing-ball"

func TestDrawIsDeterministicAndInRange(t *testing.T) {
	tk, err := task.Load(ballDir)
	require.NoError(t, err)
	a, b := Draw(tk, 1, 7), Draw(tk, 1, 7)
	require.Equal(t, a, b)
	require.NotEqual(t, a, Draw(tk, 2, 7), "variants differ")
	require.NotEqual(t, a, Draw(tk, 1, 8), "seeds differ")
	for n := 1; n <= 50; n++ {
		v := Draw(tk, n, 1)
		g := v["gravity"]
		require.GreaterOrEqual(t, g, 5.0)
		require.LessOrEqual(t, g, 15.0)
		require.GreaterOrEqual(t, math.Abs(g-9.81)/10, MinShift, "variant %d moves gravity enough", n)
		require.Equal(t, 0.8, v["restitution"], "a parameter without a range keeps its default")
		require.Equal(t, round(g, false), g, "three significant digits")
	}
}

func TestDrawInteger(t *testing.T) {
	lo, hi := 4.0, 40.0
	tk := &task.Task{ID: "simulation/x", Params: map[string]task.Param{"count": {Default: 10, Min: &lo, Max: &hi, Integer: true}}}
	for n := 1; n <= 20; n++ {
		c := Draw(tk, n, 3)["count"]
		require.Equal(t, math.Round(c), c)
		require.GreaterOrEqual(t, c, lo)
		require.LessOrEqual(t, c, hi)
	}
}

func TestWrite(t *testing.T) {
	tk, err := task.Load(ballDir)
	require.NoError(t, err)
	out := t.TempDir()
	vals := map[string]float64{"gravity": 12.3, "restitution": 0.8}
	v, err := Write(tk, 2, vals, out)
	require.NoError(t, err)
	require.Equal(t, "simulation/bouncing-ball-v2", v.Task.ID)
	require.Equal(t, "simulation/bouncing-ball", v.Task.VariantOf)
	require.Equal(t, 2, v.Task.Variant)
	require.Equal(t, "v2", v.Task.VariantName())
	require.Equal(t, 12.3, v.Task.Params["gravity"].Default)
	require.Equal(t, 15.0, *v.Task.Params["gravity"].Max, "the range is kept")
	brief, err := os.ReadFile(v.Task.BriefPath())
	require.NoError(t, err)
	require.Contains(t, string(brief), "Gravity is 12.3 m/s² and the\n  restitution 0.8. {#falls}")
	page, err := os.ReadFile(v.Task.SolutionPath())
	require.NoError(t, err)
	got, err := task.PageParams(page)
	require.NoError(t, err)
	require.Equal(t, vals, got)
	require.NoDirExists(t, filepath.Join(out, "simulation", "bouncing-ball-v2", "candidates"))
	require.FileExists(t, v.Task.ContractPath())
	for _, f := range task.Lint(v.Task) {
		require.NotContains(t, f.Message, "param", "the variant lints clean on parameters: %s", f)
	}
	// Writing again replaces the folder.
	_, err = Write(tk, 2, vals, out)
	require.NoError(t, err)
}
