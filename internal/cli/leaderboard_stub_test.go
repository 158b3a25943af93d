package cli

import (
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/worldprobe/worldprobe/internal/report"
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
