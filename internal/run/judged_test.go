package run

import (
	"context"
	"os"
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/require"
)

// ReadJudged finds each finished trial's folder and, by planning the run
// folder's configuration again, its task and page; a trial whose page
// changed since it was judged has none.
func TestReadJudgedFindsEachTrialsPage(t *testing.T) {
	tasks := starterTasks(t)
	suite := filepath.Dir(filepath.Dir(tasks[0].Dir))
	sources := []Source{{Model: "oracle", Oracle: true}, {Model: "fixtures", Fixtures: true}}
	plan, err := Plan(tasks, sources, 1)
	require.NoError(t, err)
	out := filepath.Join(t.TempDir(), "run")
	cfg := Config{Suite: suite, Tasks: []string{tasks[0].ID, tasks[1].ID}, Sources: sources, Repeat: 1}
	_, err = Execute(context.Background(), Options{Out: out, Config: cfg, Plan: plan, Executor: &stubExecutor{}})
	require.NoError(t, err)

	js, err := ReadJudged(out)
	require.NoError(t, err)
	require.Len(t, js, len(plan))
	for i, j := range js {
		require.NotNil(t, j.Planned, j.Trial.Key)
		require.Equal(t, j.Trial.Key, j.Planned.Key)
		require.Equal(t, filepath.Join(out, "trials", j.Planned.Dir()), j.Dir)
		require.FileExists(t, j.Planned.Page)
		if i > 0 {
			require.Less(t, js[i-1].Trial.Key, j.Trial.Key, "sorted by key")
		}
	}

	// A fixture edited since: the task folder (which holds it) changed,
	// so every trial of that task judged another task than the folder's.
	var edited string
	for _, p := range plan {
		if p.Model == "fixtures" {
			edited = p.Task.ID
			require.NoError(t, os.WriteFile(p.Page, []byte("<!doctype html><p>changed</p>"), 0o644))
			break
		}
	}
	js, err = ReadJudged(out)
	require.NoError(t, err)
	require.Len(t, js, len(plan))
	for _, j := range js {
		require.Equal(t, j.Trial.Task == edited, j.Planned == nil, "%s %s", j.Trial.Task, j.Trial.Candidate)
	}

	_, err = ReadJudged(t.TempDir())
	require.ErrorContains(t, err, "has no config.json: not a 'worldprobe run' folder")
}
