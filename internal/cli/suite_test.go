package cli

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/worldprobe/worldprobe/internal/task"
)

func moverSuite() string { return filepath.Join("..", "taskcheck", "testdata", "suite") }

// TestPerturbCheckAndRunVariants writes Robust variants, proves each
// reference passes its contract with the drawn values, and judges them next
// to the Core tasks: the leaderboard shows Core vs. Robust V-Cov.
func TestPerturbCheckAndRunVariants(t *testing.T) {
	out := filepath.Join(t.TempDir(), "variants")
	code, stdout, stderr := execute(t, "suite", "perturb", moverSuite(), "--variants", "1", "--seed", "3", "--out", out, "--check")
	require.Equal(t, ExitOK, code, "stdout: %s\nstderr: %s", stdout, stderr)
	require.Contains(t, stdout, "2 variants of 2 tasks written to "+out)
	require.Contains(t, stderr, "checked simulation/mover-v1: clean")
	require.Contains(t, stderr, "checked simulation/mover-weak-v1: clean")

	var recs []VariantRecord
	b, err := os.ReadFile(filepath.Join(out, "variants.json"))
	require.NoError(t, err)
	require.NoError(t, json.Unmarshal(b, &recs))
	require.Len(t, recs, 2)
	v1, err := task.Load(filepath.Join(out, "simulation", "mover-v1"))
	require.NoError(t, err)
	require.Equal(t, recs[0].Values["speed"], v1.Params["speed"].Default)
	require.NotEqual(t, 1.0, v1.Params["speed"].Default, "the variant moved the speed")
	brief, err := v1.Brief()
	require.NoError(t, err)
	require.Contains(t, brief, "at "+task.FormatParam(v1.Params["speed"].Default)+" m/s")

	// Same seed, same draw.
	again := filepath.Join(t.TempDir(), "again")
	code, stdout2, _ := execute(t, "suite", "perturb", moverSuite(), "--variants", "1", "--seed", "3", "--out", again)
	require.Equal(t, ExitOK, code)
	// The first run also printed the check table; the draw is what precedes it.
	drawn, _, ok := strings.Cut(stdout, "task  ")
	require.True(t, ok, "the --check run prints its table: %s", stdout)
	require.Equal(t, drawn, strings.ReplaceAll(stdout2, again, out))

	run := filepath.Join(t.TempDir(), "run")
	code, stdout, stderr = execute(t, "run", moverSuite(), "--variants", out, "--oracle", "--out", run)
	require.Equal(t, ExitOK, code, stderr)
	require.Contains(t, stdout, "core  robust    drop")
	require.Contains(t, stdout, "100.0%  100.0%    0.0%")

	// Variants must be variants.
	code, _, stderr = execute(t, "run", moverSuite(), "--variants", moverSuite(), "--oracle", "--out", filepath.Join(t.TempDir(), "r"))
	require.Equal(t, ExitUsage, code)
	require.Contains(t, stderr, "is not a Robust variant")
}
