package cli

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/worldprobe/worldprobe/internal/testenv"
)

type judgeJSON struct {
	Name    string `json:"name"`
	Status  string `json:"status"`
	Reason  string `json:"reason"`
	Capture struct {
		Views []struct {
			Name string `json:"name"`
			File string `json:"file"`
		} `json:"views"`
		DayNight *struct {
			Day, Night string
			Pinned     bool
		} `json:"day_night"`
		Bursts []struct {
			Name     string  `json:"name"`
			Fraction float64 `json:"fraction"`
			Overlay  string  `json:"overlay"`
		} `json:"bursts"`
	} `json:"capture"`
	Coverage *struct {
		Functions    int `json:"functions"`
		FunctionsRun int `json:"functions_run"`
	} `json:"coverage"`
	Tests []struct {
		ID    string `json:"id"`
		Items []struct {
			ID     string `json:"id"`
			Halves []struct {
				Half, Status string
			} `json:"halves"`
		} `json:"items"`
	} `json:"tests"`
	Score struct {
		Max      float64  `json:"max"`
		Earned   *float64 `json:"earned"`
		Unjudged float64  `json:"unjudged"`
	} `json:"score"`
}

func readJudge(t *testing.T, path string) judgeJSON {
	t.Helper()
	b, err := os.ReadFile(path)
	require.NoError(t, err)
	var j judgeJSON
	require.NoError(t, json.Unmarshal(b, &j))
	return j
}

// TestJudgeOffline judges a small world of our own and two broken ones:
// each gets a report, the broken ones with a named reason, and the run
// exits 1. (A hanging world: TestJudgeHangingWorld.)
func TestJudgeOffline(t *testing.T) {
	out := t.TempDir()
	isle := filepath.Join("..", "worldjudge", "capture", "testdata", "isle", "world.html")
	td := filepath.Join("testdata", "judge")
	code, stdout, errOut := execute(t, "judge", "--rubric", filepath.Join("..", "..", "suites", "worldbench", "island"), "--offline",
		"--out", out, "--horizon", "60", "--samples", "4", "--timeout", "5s", "--jobs", "1", "--viewport", "480x300",
		isle, filepath.Join(td, "notaworld.html"), filepath.Join(td, "nocanvas.html"))
	require.Equal(t, ExitFailed, code, "stdout %s\nstderr %s", stdout, errOut)
	require.Contains(t, stdout, "isle: complete, 15 frames")

	j := readJudge(t, filepath.Join(out, "isle", "judge.json"))
	require.Equal(t, "complete", j.Status)
	require.Len(t, j.Capture.Views, 15) // 4 time samples, 4 orbits, 4 + 3 burst frames
	for _, v := range j.Capture.Views {
		require.FileExists(t, filepath.Join(out, "isle", v.File))
	}
	require.NotNil(t, j.Capture.DayNight)
	require.True(t, j.Capture.DayNight.Pinned)
	require.Len(t, j.Capture.Bursts, 2)
	require.Greater(t, j.Capture.Bursts[0].Fraction, 0.0)
	require.NotNil(t, j.Coverage)
	require.Equal(t, 3, j.Coverage.Functions, "buildIsle, buildVolcano, animate")
	require.Equal(t, 2, j.Coverage.FunctionsRun, "every function ran but buildVolcano")
	require.Nil(t, j.Score.Earned, "offline, the score stays open")
	require.Equal(t, 280.0, j.Score.Max)
	for _, tr := range j.Tests {
		for _, it := range tr.Items {
			for _, h := range it.Halves {
				if h.Half == "code" {
					require.Equal(t, "unjudged", h.Status, "%s/%s", tr.ID, it.ID)
				}
			}
		}
	}
	html, err := os.ReadFile(filepath.Join(out, "isle", "report.html"))
	require.NoError(t, err)
	require.Contains(t, string(html), `<img src="frames/time_00.png"`)

	reasons := map[string]string{
		"notaworld": "structural: the file names none of three, canvas, webgl",
		"nocanvas":  "the page has no canvas",
	}
	for name, reason := range reasons {
		j := readJudge(t, filepath.Join(out, name, "judge.json"))
		require.NotEqual(t, "complete", j.Status, name)
		require.Contains(t, j.Reason, reason, name)
		require.FileExists(t, filepath.Join(out, name, "report.html"))
		require.Contains(t, stdout, name+": "+j.Status+" (")
	}
}

func TestJudgeUsage(t *testing.T) {
	rub := filepath.Join("..", "..", "suites", "worldbench", "island")
	world := filepath.Join("testdata", "judge", "notaworld.html")
	for _, args := range [][]string{
		{"judge", "--offline", world},
		{"judge", "--rubric", rub, world},
		{"judge", "--rubric", rub, "--offline"},
		{"judge", "--rubric", rub, "--offline", "--samples", "1", world},
		{"judge", "--rubric", rub, "--offline", "no/such/world.html"},
		{"judge", "--rubric", "testdata", "--offline", world},
		{"judge", "--rubric", rub, "--offline", "--viewport", "huge", world},
	} {
		code, _, errOut := execute(t, args...)
		require.Equal(t, ExitUsage, code, "args %v: %s", args, errOut)
	}
	code, out, _ := execute(t, "judge", "--help")
	require.Equal(t, ExitOK, code)
	for _, s := range []string{"--rubric", "--offline", "unjudged", "judge.json", "report.html", "Exit status", "virtual clock"} {
		require.Contains(t, out, s)
	}
}

// TestJudgeCorpusWorlds judges every WorldBench corpus world offline (read
// in place from ../shared): each loads, its day and night are found, at
// least 15 views, both bursts measured.
func TestJudgeCorpusWorlds(t *testing.T) {
	testenv.Slow(t)
	root := filepath.Join("..", "..", "..", "shared", "corpus", "worldbench", "worlds")
	worlds, _ := filepath.Glob(filepath.Join(root, "*", "world.html"))
	if extra, _ := filepath.Glob(filepath.Join(root, "*.html")); len(extra) > 0 {
		worlds = append(worlds, extra...)
	}
	if len(worlds) == 0 {
		t.Skip("../shared/corpus/worldbench/worlds not present beside the project")
	}
	out := t.TempDir()
	args := append([]string{"judge", "--rubric", filepath.Join("..", "..", "suites", "worldbench", "island"), "--offline", "--out", out, "--jobs", "1"}, worlds...)
	code, stdout, errOut := execute(t, args...)
	t.Log(stdout)
	require.Equal(t, ExitOK, code, "stderr %s", errOut)
	for _, w := range worlds {
		name := filepath.Base(filepath.Dir(w))
		if filepath.Base(w) != "world.html" {
			name = strings.TrimSuffix(filepath.Base(w), ".html")
		}
		j := readJudge(t, filepath.Join(out, name, "judge.json"))
		require.Equal(t, "complete", j.Status, "%s: %s", name, j.Reason)
		require.GreaterOrEqual(t, len(j.Capture.Views), 15, name)
		require.NotNil(t, j.Capture.DayNight, name)
		require.True(t, j.Capture.DayNight.Pinned, "%s: no night darker than its day by the rubric's gap", name)
		require.Len(t, j.Capture.Bursts, 2, name)
	}
}

// TestJudgeHangingWorld: a world whose first frame never returns gets a
// report naming the hang. Slow: on a loaded machine the world is captured
// again with its deadline doubled, twice, before the hang is its own.
func TestJudgeHangingWorld(t *testing.T) {
	testenv.Slow(t)
	out := t.TempDir()
	code, stdout, errOut := execute(t, "judge", "--rubric", filepath.Join("..", "..", "suites", "worldbench", "island"), "--offline",
		"--out", out, "--timeout", "5s", "--jobs", "1", "--viewport", "320x200", filepath.Join("testdata", "judge", "hang.html"))
	require.Equal(t, ExitFailed, code, "stdout %s\nstderr %s", stdout, errOut)
	j := readJudge(t, filepath.Join(out, "hang", "judge.json"))
	require.Equal(t, "not_captured", j.Status)
	require.Contains(t, j.Reason, "time sample 0 (0 s): the page stopped responding")
	require.FileExists(t, filepath.Join(out, "hang", "report.html"))
}
