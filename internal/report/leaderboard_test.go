package report

import (
	"bytes"
	"encoding/json"
	"flag"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/worldprobe/worldprobe/internal/metrics"
	"github.com/worldprobe/worldprobe/internal/result"
)

var update = flag.Bool("update", false, "rewrite the golden files in testdata")

// boardTrials is a small run with a bit of everything the leaderboard
// shows: two models, three samples of every task for model a (so pass@3),
// a model judged after error-only repair and after contract feedback
// (ranked apart), a Robust variant, crashes, an
// infrastructure error and failure attributions.
func boardTrials() []*result.Trial {
	var ts []*result.Trial
	add := func(model, repair, task, sub, diff string, sample int, v float64, attr string) {
		cat, _, _ := strings.Cut(task, "/")
		t := &result.Trial{Key: fmt.Sprintf("%s-%s-%s-%d", model, repair, task, sample), Model: model, Repair: repair, Task: task,
			Category: cat, Subdomain: sub, Difficulty: diff, Candidate: "c", Sample: sample, Outcome: result.OutcomeOK,
			VCov: v, ACov: min(1, v+0.5), SCov: v, TCov: v * v, Pass: v == 1, Attribution: attr}
		if attr == "crash" {
			t.Outcome, t.CrashKind, t.VCov, t.ACov, t.SCov, t.TCov = result.OutcomeCrash, "js_exception", 0, 0, 0, 0
		}
		ts = append(ts, t)
	}
	for s := range 3 {
		add("a", "", "simulation/ball", "rigid-bodies", "D2", s, []float64{1, 1, 0.5}[s], []string{"", "", "physics_violation"}[s])
		add("a", "", "rendering/fog", "atmosphere", "D3", s, []float64{0.75, 1, 0}[s], []string{"schema_drift", "", "crash"}[s])
		add("a", "", "application/chart", "", "D3", s, 0.5, "broken_interaction")
	}
	for s := range 3 {
		add("a", "", "simulation/ball-v1", "rigid-bodies", "D2", s, []float64{0.5, 1, 0.5}[s], []string{"physics_violation", "", "physics_violation"}[s])
		ts[len(ts)-1].Variant, ts[len(ts)-1].VariantOf = "v1", "simulation/ball"
	}
	add("b", "", "simulation/ball", "rigid-bodies", "D2", 0, 0.25, "state_mismatch")
	add("b", "", "rendering/fog", "atmosphere", "D3", 0, 0, "crash")
	add("b", "", "application/chart", "", "D3", 0, 1, "")
	add("b", result.RepairErrorOnly, "simulation/ball", "rigid-bodies", "D2", 0, 0.25, "state_mismatch")
	add("b", result.RepairErrorOnly, "rendering/fog", "atmosphere", "D3", 0, 1, "")
	add("b", result.RepairErrorOnly, "application/chart", "", "D3", 0, 1, "")
	add("b", result.RepairFeedback, "simulation/ball", "rigid-bodies", "D2", 0, 1, "")
	add("b", result.RepairFeedback, "rendering/fog", "atmosphere", "D3", 0, 0.5, "other")
	add("b", result.RepairFeedback, "application/chart", "", "D3", 0, 1, "")
	ts = append(ts, &result.Trial{Key: "infra", Model: "b", Task: "simulation/ball", Category: "simulation", Difficulty: "D2", Sample: 1,
		Outcome: result.OutcomeInfra, Attribution: "infra"})
	return ts
}

func boardOptions() metrics.BoardOptions {
	c := func(x float64) *float64 { return &x }
	hours := map[string]float64{"simulation/ball": 1.5, "simulation/ball-v1": 1.5, "rendering/fog": 2, "application/chart": 3}
	var gens []metrics.Generation
	for _, task := range []string{"simulation/ball", "rendering/fog", "application/chart"} {
		gens = append(gens, metrics.Generation{Model: "b", Task: task, CostUSD: c(0.02), ModelSeconds: c(40)},
			metrics.Generation{Model: "b", Task: task, Repair: result.RepairFeedback, CostUSD: c(0.05), ModelSeconds: c(95)})
	}
	return metrics.BoardOptions{Bootstrap: metrics.BootstrapOptions{Seed: 1}, Economics: metrics.EconomicsOptions{HumanHours: hours, Generations: gens}}
}

// TestLeaderboardGolden writes the Markdown and JSON leaderboards of
// boardTrials and compares them with testdata/leaderboard.{md,json}
// (go test ./internal/report -update rewrites them).
func TestLeaderboardGolden(t *testing.T) {
	dir := t.TempDir()
	l, err := NewLeaderboard("worldprobe run: golden", "", boardTrials(), boardOptions())
	require.NoError(t, err)
	require.NoError(t, WriteLeaderboards(dir, l))
	for _, name := range []string{LeaderboardMarkdown, LeaderboardJSON} {
		got, err := os.ReadFile(filepath.Join(dir, name))
		require.NoError(t, err)
		golden := filepath.Join("testdata", name)
		if *update {
			require.NoError(t, os.MkdirAll("testdata", 0o755))
			require.NoError(t, os.WriteFile(golden, got, 0o644))
			continue
		}
		want, err := os.ReadFile(golden)
		require.NoError(t, err, "run go test ./internal/report -update to create it")
		require.Equal(t, string(want), string(got), name)
	}
}

// The golden board's numbers, checked by hand where the golden file only
// shows them.
func TestLeaderboardNumbers(t *testing.T) {
	l, err := NewLeaderboard("t", "", boardTrials(), boardOptions())
	require.NoError(t, err)
	require.Equal(t, 21, l.Trials)
	require.Equal(t, 1, l.Infra)
	names := []string{}
	for _, r := range l.Rows {
		names = append(names, r.Name())
	}
	require.Equal(t, []string{"b (error-only)", "a", "b"}, names, "first-shot and error-only rows are ranked together")
	require.Len(t, l.Feedback, 1, "feedback rows are a leaderboard of their own")
	require.Equal(t, "b (feedback)", l.Feedback[0].Name())
	a, b := l.Rows[1], l.Rows[2]
	// a's pass@1: ball 2/3, fog 1/3, chart 0, ball-v1 1/3 → 1/3; pass@3:
	// 1, 1, 0, 1 → 3/4 (every task with a pass has one in any 3 of its 3
	// samples); pass@5 needs five samples.
	require.InDelta(t, 1.0/3, *a.PassAt(1), 1e-12)
	require.InDelta(t, 0.75, *a.PassAt(3), 1e-12)
	require.Nil(t, a.PassAt(5))
	require.Nil(t, b.PassAt(3), "b has one sample per task")
	require.Equal(t, 8, a.Attributions.Failed)
	require.InDelta(t, 3.0/8, a.Attributions.Share("broken_interaction"), 1e-12)
	require.Nil(t, a.Economics.RoA.Value, "a has no generation records")
	fb := l.Feedback[0]
	// RoA = (1·1.5 + 0.5·2 + 1·3)·60 / (3·0.05) = 5.5·60/0.15 = 2200;
	// TEM = 5.5 / (3·95/3600) = 69.47…
	require.InDelta(t, 2200, *fb.Economics.RoA.Value, 1e-9)
	require.InDelta(t, 5.5/(285.0/3600), *fb.Economics.TEM.Value, 1e-9)
	require.Equal(t, 3, b.Trials, "the infrastructure error is not scored")
	// RoA = (0.25·1.5 + 0 + 1·3)·60 / 0.06 = 3375.
	require.InDelta(t, 3375, *b.Economics.RoA.Value, 1e-9)

	var md bytes.Buffer
	Markdown(&md, l)
	// b after error-only repair: pass@1 2/3, V-Cov 2.25/3, against 1/3
	// first-shot; after feedback pass@1 2/3, in its own section.
	require.Contains(t, md.String(), "| b | error-only | 3 | 66.7% | 75.0% | 33.3 pts |")
	main, feedback, ok := strings.Cut(md.String(), "## Contract-feedback repair: a leaderboard of its own")
	require.True(t, ok)
	require.NotContains(t, main, "feedback |", "no feedback row above its own section")
	require.Contains(t, feedback, "| b (feedback) | 3 | 3 | 83.3% |")
	require.Contains(t, feedback, "- b: pass@1 33.3% first-shot, 66.7% after feedback (33.3 pts)")
	js, err := json.Marshal(l)
	require.NoError(t, err)
	require.Contains(t, string(js), `"roa":{"value":null`, "a's RoA is null in JSON, not 0")
}

func TestLeaderboardPartialAndEmpty(t *testing.T) {
	var md bytes.Buffer
	l, err := NewLeaderboard("t", "interrupted with 1 of 2 trials", nil, metrics.BoardOptions{})
	require.NoError(t, err)
	Markdown(&md, l)
	require.Equal(t, "# t\n\n**Partial:** interrupted with 1 of 2 trials\n\n0 scored trial(s). V-Cov's 95% interval: percentile bootstrap over tasks, "+
		"2000 resamples, seed 0. pass@k: unbiased, per task then averaged, where every task has k samples. RoA at R = 60 USD/h. "+
		"Every number is explained in docs/metrics.md.\n\n", md.String())
	_, err = NewLeaderboard("t", "", boardTrials(), metrics.BoardOptions{Economics: metrics.EconomicsOptions{HumanHours: map[string]float64{"x": -1}}})
	require.ErrorContains(t, err, "computing the leaderboard")
}
