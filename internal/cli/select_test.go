package cli

import (
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/worldprobe/worldprobe/internal/result"
	"github.com/worldprobe/worldprobe/internal/run"
	"github.com/worldprobe/worldprobe/internal/task"
)

// starterDir is the bundled starter suite.
func starterDir() string { return filepath.Join("..", "..", "suites", "starter") }

// TestTaskSubsets: a task, category or suite folder with --task globs
// selects tasks the same way for every command that takes them; 'task
// prompt --out' shows it without a browser (one prompt.md per task).
func TestTaskSubsets(t *testing.T) {
	rendering, err := filepath.Glob(filepath.Join(starterDir(), "rendering", "*", "task.yaml"))
	require.NoError(t, err)
	require.NotEmpty(t, rendering)
	for _, tc := range []struct {
		name string
		args []string
		want int
	}{
		{"a task folder", []string{filepath.Join(starterDir(), "simulation", "pendulum")}, 1},
		{"a category folder", []string{filepath.Join(starterDir(), "rendering")}, len(rendering)},
		{"a glob", []string{"--task", "*/pendulum,*/projectile", starterDir()}, 2},
	} {
		t.Run(tc.name, func(t *testing.T) {
			dir := t.TempDir()
			code, _, errOut := execute(t, append([]string{"task", "prompt", "--out", dir}, tc.args...)...)
			require.Equal(t, ExitOK, code, errOut)
			entries, err := filepath.Glob(filepath.Join(dir, "*", "*", "prompt.md"))
			require.NoError(t, err)
			require.Len(t, entries, tc.want)
		})
	}
	code, _, errOut := execute(t, "task", "prompt", "--task", "physics/*", starterDir())
	require.Equal(t, ExitUsage, code)
	require.Contains(t, errOut, `--task "physics/*" matches no task in ../../suites/starter (task ids look like simulation/bouncing-ball)`)
}

// TestRunSubsetErrors: a glob that matches nothing, and variants of none of
// the selected tasks, are refused before anything runs.
func TestRunSubsetErrors(t *testing.T) {
	code, _, errOut := execute(t, "run", "--oracle", "--out", t.TempDir(), "--task", "physics/*", starterDir())
	require.Equal(t, ExitUsage, code)
	require.Contains(t, errOut, `--task "physics/*" matches no task in ../../suites/starter`)

	variants := t.TempDir()
	code, _, errOut = execute(t, "suite", "perturb", "--task", "simulation/pendulum", "--variants", "1", "--out", variants, starterDir())
	require.Equal(t, ExitOK, code, errOut)
	code, _, errOut = execute(t, "run", "--oracle", "--out", t.TempDir(), "--variants", variants, "--task", "rendering/fog-depth", starterDir())
	require.Equal(t, ExitUsage, code)
	require.Contains(t, errOut, "--variants "+variants+": no variant of the 1 selected tasks (write them with 'worldprobe suite perturb')")
}

// TestFixtureCheckListsOnlyMisses: the end of a run counts the fixtures
// that failed as expected and names only those that did not.
func TestFixtureCheckListsOnlyMisses(t *testing.T) {
	tk := &task.Task{ID: "simulation/pendulum"}
	var plan []run.Planned
	var trials []*result.Trial
	for i, name := range []string{"fast", "frozen", "wrong-hud"} {
		key := "k" + name
		plan = append(plan, run.Planned{Key: key, Task: tk, Candidate: name,
			Expect: &task.Fixture{Name: name, Expect: task.Expect{Fails: []string{"swing"}}}})
		tr := &result.Trial{Key: key, Outcome: result.OutcomeOK}
		if i != 1 {
			tr.Assertions = []result.Assertion{{Probe: "swing", Status: result.StatusFail}}
		} else {
			tr.Pass = true
		}
		trials = append(trials, tr)
	}
	plan = append(plan, run.Planned{Key: "oracle", Task: tk, Candidate: "solution"})
	var b strings.Builder
	writeFixtureCheck(&b, plan, trials)
	require.Equal(t, "\nFixtures: 2 of 3 failed where their expect.yaml says; 1 did not:\n"+
		"  MISS simulation/pendulum/frozen: probe swing passed but should fail; every assertion passed\n", b.String())

	b.Reset()
	writeFixtureCheck(&b, plan[:1], trials)
	require.Equal(t, "\nFixtures: all 1 failed where their expect.yaml says\n", b.String())
}
