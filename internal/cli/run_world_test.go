package cli

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/worldprobe/worldprobe/internal/result"
	"github.com/worldprobe/worldprobe/internal/store"
)

func worldSuite() string { return filepath.Join("testdata", "worldsuite") }

// TestRunWorldJudgedSuite runs the small world-judged suite of ours
// (testdata/worldsuite: a tiny isle with a day of 20 s and a legend, a
// rubric of one test and two pixel-judged items) offline: the trial is
// the load check and the world judge, its judge.json, judge.html and
// frames are in the trial folder and listed as its artifacts, and its
// open score — the two sight halves measured and passed, the two code
// halves unjudged — is in result.json, results.db, the leaderboard and
// report.html as open, never as zero.
func TestRunWorldJudgedSuite(t *testing.T) {
	out := filepath.Join(t.TempDir(), "run")
	code, stdout, stderr := execute(t, "run", worldSuite(), "--oracle", "--offline", "--out", out)
	require.Equal(t, ExitOK, code, "stderr: %s", stderr)
	trials := readTrials(t, out)
	require.Len(t, trials, 1)
	var dir string
	var tr *result.Trial
	for d, x := range trials {
		dir, tr = filepath.Join(out, "trials", d), x
	}
	require.Equal(t, result.OutcomeOK, tr.Outcome, "crash: %s", tr.CrashMessage)
	want := &result.World{Rubric: "test/tiny-isle", Mode: "offline", Status: "complete",
		WorldScore: result.WorldScore{Max: 4, Judged: 2, EarnedOfJudged: 2, Unjudged: 2},
		Tests:      []result.WorldTest{{ID: "WC005", WorldScore: result.WorldScore{Max: 4, Judged: 2, EarnedOfJudged: 2, Unjudged: 2}}},
		Report:     "judge.html", JSON: "judge.json"}
	require.Equal(t, want, tr.World)
	require.Equal(t, []result.Assertion{{Probe: "WC005", Level: "world", Kind: "world", Status: result.StatusUnjudged, Expr: "Temporal cycles",
		Message: "WC005: open — 2 of 2 judged points earned, 2 unjudged (of 4)"}}, tr.Assertions)
	require.False(t, tr.Pass, "an open score does not pass")
	require.Equal(t, 1, tr.Unjudged)
	for _, f := range []string{"judge.json", "judge.html", "frames/time_00.png", "frames/biome_peak.png", "frames/biome_meadow.png", "frames/burst_near_motion.png"} {
		require.FileExists(t, filepath.Join(dir, filepath.FromSlash(f)))
		require.Contains(t, tr.Artifacts, f)
	}
	entries, err := os.ReadDir(dir)
	require.NoError(t, err)
	for _, en := range entries {
		require.False(t, strings.HasPrefix(en.Name(), ".world-"), "the judge's scratch folder was left: %s", en.Name())
	}

	db, err := store.OpenSQLite(context.Background(), filepath.Join(out, "results.db"))
	require.NoError(t, err)
	defer db.Close()
	saved, err := db.Trials(context.Background())
	require.NoError(t, err)
	require.Len(t, saved, 1)
	require.Equal(t, want, saved[0].World)

	md, err := os.ReadFile(filepath.Join(out, "leaderboard.md"))
	require.NoError(t, err)
	require.Contains(t, string(md), "| oracle | world/tiny-isle | 1 | — | 1 open: 2 of 2 judged points earned |")
	page, err := os.ReadFile(filepath.Join(out, "report.html"))
	require.NoError(t, err)
	require.Contains(t, string(page), "World judge scores")
	require.Regexp(t, `data-model="oracle">✗ open</a>`, string(page), "the grid shows the open score as open")
	trialPage, err := os.ReadFile(filepath.Join(dir, "index.html"))
	require.NoError(t, err)
	require.Contains(t, string(trialPage), `<span class="chip unjudged">open</span> 2 of 2 judged points earned, 2 unjudged, of 4`)
	require.Contains(t, stdout, "1 trials (1 run, 0 kept)")
}

// TestRunWorldJudgedNeedsModelsOrOffline: a suite with a world-judged
// task and neither --models nor --offline is a usage error saying what
// to give.
func TestRunWorldJudgedNeedsModelsOrOffline(t *testing.T) {
	code, _, stderr := execute(t, "run", worldSuite(), "--oracle", "--out", filepath.Join(t.TempDir(), "run"))
	require.Equal(t, ExitUsage, code, "stderr: %s", stderr)
	require.Contains(t, stderr, "judged against a rubric (judge: in their task.yaml): give --models FILE")
}
