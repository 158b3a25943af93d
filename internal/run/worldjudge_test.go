package run

import (
	"context"
	"errors"
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/worldprobe/worldprobe/internal/task"
)

// How the world judge judges (offline, or with which models) is part of a
// world-judged trial's key and spec, and of the run's configuration: a run
// folder judged offline is not resumed with models (the change is named),
// and trials of other tasks keep their keys.
func TestWorldJudgeIsPartOfTheKey(t *testing.T) {
	world, err := task.Load(filepath.Join("..", "cli", "testdata", "worldsuite", "world", "tiny-isle"))
	require.NoError(t, err)
	tasks := append(starterTasks(t)[:1], world)
	plan := func(judging string) []Planned {
		p, err := Plan(tasks, []Source{oracle}, 1)
		require.NoError(t, err)
		if judging != "" {
			JudgeWorlds(p, judging)
		}
		return p
	}
	none, offline, models := plan(""), plan("offline"), plan("models code_probe=openai/gpt-4.1")
	require.Len(t, offline, 2)
	require.Equal(t, none[0].Key, offline[0].Key, "a contract task's key does not change")
	require.Equal(t, "", offline[0].WorldJudge)
	require.NotEqual(t, none[1].Key, offline[1].Key)
	require.NotEqual(t, offline[1].Key, models[1].Key)
	require.Equal(t, offline[1].Key, plan("offline")[1].Key, "the same configuration, the same key")
	s, err := offline[1].Spec(t.TempDir())
	require.NoError(t, err)
	require.Equal(t, "offline", s.WorldJudge)
	require.Equal(t, offline[1].Key, s.Key)

	out := filepath.Join(t.TempDir(), "run")
	cfg := Config{Suite: "/suites/mixed", Tasks: []string{tasks[0].ID, world.ID}, Sources: []Source{oracle}, Repeat: 1, WorldJudge: "offline"}
	_, err = Execute(context.Background(), Options{Out: out, Config: cfg, Plan: offline, Executor: &stubExecutor{}})
	require.NoError(t, err)
	sum, err := Execute(context.Background(), Options{Out: out, Config: cfg, Plan: plan("offline"), Executor: &stubExecutor{}})
	require.NoError(t, err)
	require.Equal(t, 2, sum.Kept)
	cfg.WorldJudge = "models code_probe=openai/gpt-4.1"
	_, err = Execute(context.Background(), Options{Out: out, Config: cfg, Plan: models, Executor: &stubExecutor{}})
	var ce *ConfigError
	require.True(t, errors.As(err, &ce), "%v", err)
	require.ErrorContains(t, err, "world judge: offline → models code_probe=openai/gpt-4.1")
}
