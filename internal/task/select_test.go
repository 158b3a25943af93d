package task

import (
	"os"
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/require"
)

func ids(ts []*Task) []string {
	var out []string
	for _, t := range ts {
		out = append(out, t.ID)
	}
	return out
}

func TestSelectFolderLevels(t *testing.T) {
	suite := filepath.Join("testdata", "suite")
	for _, tc := range []struct {
		name     string
		paths    []string
		patterns []string
		want     []string
	}{
		{"suite", []string{suite}, nil, []string{"rendering/lit-cube", "simulation/bouncing-ball"}},
		{"category", []string{filepath.Join(suite, "simulation")}, nil, []string{"simulation/bouncing-ball"}},
		{"task", []string{filepath.Join(suite, "rendering", "lit-cube")}, nil, []string{"rendering/lit-cube"}},
		{"glob over a suite", []string{suite}, []string{"rendering/*"}, []string{"rendering/lit-cube"}},
		{"glob by slug", []string{suite}, []string{"*/bouncing-ball"}, []string{"simulation/bouncing-ball"}},
		{"two globs, each task once", []string{suite}, []string{"*/*", "simulation/*"}, []string{"rendering/lit-cube", "simulation/bouncing-ball"}},
		{"the same task twice", []string{filepath.Join(suite, "simulation"), filepath.Join(suite, "simulation", "bouncing-ball")}, nil, []string{"simulation/bouncing-ball"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			ts, err := Select(tc.paths, tc.patterns)
			require.NoError(t, err)
			require.Equal(t, tc.want, ids(ts))
		})
	}
}

func TestSelectErrors(t *testing.T) {
	suite := filepath.Join("testdata", "suite")
	_, err := Select([]string{suite}, []string{"physics/*"})
	require.EqualError(t, err, `--task "physics/*" matches no task in testdata/suite (task ids look like simulation/bouncing-ball)`)

	_, err = Select([]string{suite}, []string{"[oops"})
	require.EqualError(t, err, `--task "[oops": syntax error in pattern`)

	empty := t.TempDir()
	_, err = Select([]string{empty}, nil)
	require.EqualError(t, err, empty+": no task.yaml here, in its subfolders or theirs (want a task folder, a category folder of task folders, or a suite folder of categories)")

	file := filepath.Join(empty, "x.txt")
	require.NoError(t, os.WriteFile(file, nil, 0o644))
	_, err = Select([]string{file}, nil)
	require.EqualError(t, err, file+": not a folder (give a task, category or suite folder)")
}

func TestFolderLevelOfTheStarterSuite(t *testing.T) {
	starter := filepath.Join("..", "..", "suites", "starter")
	for dir, want := range map[string]Level{
		starter:                              LevelSuite,
		filepath.Join(starter, "simulation"): LevelCategory,
		filepath.Join(starter, "simulation", "bouncing-ball"): LevelTask,
	} {
		got, err := FolderLevel(dir)
		require.NoError(t, err, dir)
		require.Equal(t, want, got, dir)
	}
	ts, err := Select([]string{starter}, []string{"simulation/*"})
	require.NoError(t, err)
	require.Len(t, ts, 10)
	for _, tk := range ts {
		require.Regexp(t, `^simulation/`, tk.ID)
	}
}
