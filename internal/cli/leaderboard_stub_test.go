package cli

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/worldprobe/worldprobe/internal/report"
	"github.com/worldprobe/worldprobe/internal/task"
)

// run writes leaderboard.md and leaderboard.json beside report.html, with
// RoA and TEM for a model whose folder has gen.json records (cost and
// latency, as 'worldprobe gen' writes them) and n/a for the others; a
// gen.json it cannot read is named in a warning.
func TestRunWritesLeaderboards(t *testing.T) {
	suite := stubSuite(t, "simulation/bouncing-ball", "application/counter-panel")
	gpt := filepath.Join(t.TempDir(), "gpt")
	writePage(t, filepath.Join(gpt, "simulation", "bouncing-ball", "index.html"))
	writePage(t, filepath.Join(gpt, "application", "counter-panel", "index.html"))
	require.NoError(t, os.WriteFile(filepath.Join(gpt, "simulation", "bouncing-ball", genRecordFile),
		[]byte(`{"version": 1, "task": "simulation/bouncing-ball", "cost_usd": 0.03, "latency_ms": 45000}`), 0o644))
	bad := filepath.Join(gpt, "application", "counter-panel", genRecordFile)
	require.NoError(t, os.WriteFile(bad, []byte(`{"cost_usd": "free"}`), 0o644))
	out := filepath.Join(t.TempDir(), "run")

	code, _, stderr := executeStub(context.Background(), t, &stubExecutor{}, "run", suite, "--oracle", "--candidates", "gpt="+gpt, "--out", out)
	require.Equal(t, ExitOK, code, stderr)
	require.Contains(t, stderr, "WARNING: "+bad+": json: cannot unmarshal string into Go struct field genRecord.cost_usd of type float64 (its cost and time are left out of RoA and TEM)\n")
	md, err := os.ReadFile(filepath.Join(out, report.LeaderboardMarkdown))
	require.NoError(t, err)
	require.Contains(t, string(md), "# worldprobe run: suite\n")
	// The stub passes every page: V-Cov 1. bouncing-ball's human_hours is
	// 1.5: RoA = 1·1.5·60 / 0.03 = 3000, TEM = 1.5 / (45/3600) = 120.
	require.Contains(t, string(md), "| gpt | 2 | 2 | 100.0% | 100.0%–100.0% | 0.0% | 0.0% | 0.0% | 100.0% | 0 | 3000.0 | 120.00 |\n")
	require.Contains(t, string(md), "| oracle | 2 | 2 | 100.0% | 100.0%–100.0% | 0.0% | 0.0% | 0.0% | 100.0% | 0 | n/a | n/a |\n")

	var l report.Leaderboard
	b, err := os.ReadFile(filepath.Join(out, report.LeaderboardJSON))
	require.NoError(t, err)
	require.NoError(t, json.Unmarshal(b, &l))
	require.Len(t, l.Rows, 2)
	gptRow := l.Rows[0]
	require.Equal(t, "gpt", gptRow.Model)
	require.Equal(t, 1, gptRow.Economics.RoA.Trials)
	require.InDelta(t, 3000, *gptRow.Economics.RoA.Value, 1e-9)
	require.InDelta(t, 120, *gptRow.Economics.TEM.Value, 1e-9)
	require.Nil(t, l.Rows[1].Economics.RoA.Value)
	require.Equal(t, uint64(0), l.Bootstrap.Seed)
	require.Equal(t, 2000, l.Bootstrap.Resamples)
}

// run reads each --candidates folder's repair from its gen.json records:
// a model's first-shot and error-only folders, given the same name, are
// two rows of one leaderboard, priced from their own records (the
// repaired page's cost includes the first shot's); its feedback folder
// is a leaderboard of its own, never ranked with them; a folder that
// mixes first-shot and repaired records, and two folders of the same
// model and repair, are refused.
func TestRunSeparatesFirstShotRepairedAndFeedbackPages(t *testing.T) {
	suite := stubSuite(t, "simulation/bouncing-ball", "application/counter-panel")
	root := t.TempDir()
	folder := func(name, repair string, cost float64) string {
		dir := filepath.Join(root, name, "sample-1")
		for _, id := range []string{"simulation/bouncing-ball", "application/counter-panel"} {
			writePage(t, filepath.Join(dir, filepath.FromSlash(id), "index.html"))
			rec := fmt.Sprintf(`{"version": 1, "task": %q, "status": "done", "cost_usd": %g, "latency_ms": 45000`, id, cost)
			if repair != "" {
				rec += fmt.Sprintf(`, "repair": %q`, repair)
			}
			require.NoError(t, os.WriteFile(filepath.Join(dir, filepath.FromSlash(id), genRecordFile), []byte(rec+"}"), 0o644))
		}
		return dir
	}
	first, fixed, fed := folder("gpt", "", 0.03), folder("gpt+error-only", "error-only", 0.045), folder("gpt+feedback", "feedback", 0.09)
	out := filepath.Join(t.TempDir(), "run")
	code, stdout, stderr := executeStub(context.Background(), t, &stubExecutor{}, "run", suite,
		"--candidates", "gpt="+first, "--candidates", "gpt="+fixed, "--candidates", "gpt="+fed, "--out", out)
	require.Equal(t, ExitOK, code, stderr)
	require.Contains(t, stdout, "\ncontract-feedback repair, ranked apart (the model saw its failed checks' messages):\n")

	trials := readTrials(t, out)
	require.Len(t, trials, 6)
	repairs := map[string]int{}
	for dir, tr := range trials {
		repairs[tr.Repair]++
		require.Equal(t, "gpt", tr.Model, dir)
	}
	require.Equal(t, map[string]int{"": 2, "error-only": 2, "feedback": 2}, repairs)
	require.NotNil(t, trials["simulation_bouncing-ball__gpt+error-only__bouncing-ball__s0"])

	var l report.Leaderboard
	b, err := os.ReadFile(filepath.Join(out, report.LeaderboardJSON))
	require.NoError(t, err)
	require.NoError(t, json.Unmarshal(b, &l))
	require.Len(t, l.Rows, 2, "first-shot and error-only: two rows")
	require.Equal(t, []string{"gpt", "gpt (error-only)"}, []string{l.Rows[0].Name(), l.Rows[1].Name()})
	require.Len(t, l.Feedback, 1)
	require.Equal(t, "gpt (feedback)", l.Feedback[0].Name())
	// Every page passes (the stub): RoA = (1.5 h + 1 h)·60 / (2 × the page's cost).
	require.InDelta(t, 150/0.06, *l.Rows[0].Economics.RoA.Value, 1e-9)
	require.InDelta(t, 150/0.09, *l.Rows[1].Economics.RoA.Value, 1e-9)
	require.InDelta(t, 150/0.18, *l.Feedback[0].Economics.RoA.Value, 1e-9)
	md, err := os.ReadFile(filepath.Join(out, report.LeaderboardMarkdown))
	require.NoError(t, err)
	main, apart, ok := strings.Cut(string(md), "## Contract-feedback repair: a leaderboard of its own")
	require.True(t, ok)
	require.NotContains(t, main, "gpt (feedback)")
	require.Contains(t, apart, "| gpt (feedback) | 2 | 2 | 100.0% |")

	// Resuming the same command keeps every trial.
	code, stdout, stderr = executeStub(context.Background(), t, &stubExecutor{}, "run", suite,
		"--candidates", "gpt="+first, "--candidates", "gpt="+fixed, "--candidates", "gpt="+fed, "--out", out)
	require.Equal(t, ExitOK, code, stderr)
	require.Contains(t, stdout, "6 trials (0 run, 6 kept)")

	code, _, stderr = executeStub(context.Background(), t, &stubExecutor{}, "run", suite,
		"--candidates", "gpt="+first, "--candidates", "gpt="+first, "--out", filepath.Join(t.TempDir(), "run2"))
	require.Equal(t, ExitUsage, code)
	require.Equal(t, "worldprobe: --candidates gpt="+first+" and --candidates gpt="+first+" are both model gpt's first-shot pages (no repair in their gen.json): give them different names (NAME=DIR)\n", stderr)

	require.NoError(t, os.WriteFile(filepath.Join(fixed, "simulation", "bouncing-ball", genRecordFile), []byte(`{"version": 1, "status": "done", "cost_usd": 0.03}`), 0o644))
	code, _, stderr = executeStub(context.Background(), t, &stubExecutor{}, "run", suite, "--candidates", "gpt="+fixed, "--out", filepath.Join(t.TempDir(), "run3"))
	require.Equal(t, ExitUsage, code)
	require.Equal(t, "worldprobe: --candidates gpt="+fixed+": its gen.json records mix pages made in different ways: error-only (application/counter-panel), first-shot (simulation/bouncing-ball); give each its own folder\n", stderr)
}

// A gen model folder's repair is read from the records of its sample-<k>
// folders; bench-models judges a repaired model folder under its model's
// name.
func TestRepairOfAModelFolder(t *testing.T) {
	tasks, err := task.Select([]string{filepath.Join("..", "..", "suites", "starter")}, []string{"simulation/pendulum"})
	require.NoError(t, err)
	dir := filepath.Join(t.TempDir(), "openai-gpt+error-only")
	for _, k := range []string{"sample-1", "sample-2"} {
		d := filepath.Join(dir, k, "simulation", "pendulum")
		require.NoError(t, os.MkdirAll(d, 0o755))
		require.NoError(t, os.WriteFile(filepath.Join(d, genRecordFile), []byte(`{"version": 1, "status": "done", "repair": "error-only"}`), 0o644))
	}
	r, err := repairOf(dir, tasks)
	require.NoError(t, err)
	require.Equal(t, "error-only", r)
	require.NoError(t, os.WriteFile(filepath.Join(dir, "sample-2", "simulation", "pendulum", genRecordFile), []byte(`{"version": 1, "status": "done"}`), 0o644))
	_, err = repairOf(dir, tasks)
	require.EqualError(t, err, "its gen.json records mix pages made in different ways: error-only (sample-1/simulation/pendulum), first-shot (sample-2/simulation/pendulum); give each its own folder")

	require.Equal(t, "openai-gpt", modelName(dir))
	require.Equal(t, "openai-gpt", modelName("out/gen/openai-gpt+feedback"))
	require.Equal(t, "openai-gpt+agent", modelName("out/gen/openai-gpt+agent"))
}
