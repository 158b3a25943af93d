package cli

import (
	"context"

	"github.com/worldprobe/worldprobe/internal/browser"
	"github.com/worldprobe/worldprobe/internal/resolve"
	"github.com/worldprobe/worldprobe/internal/task"
	"github.com/worldprobe/worldprobe/internal/trial"
	"github.com/worldprobe/worldprobe/internal/worldjudge"
)

// worldJudges is the runner's world judge for the tasks judged against a
// rubric (task.yaml judge:), as 'worldprobe judge' judges: offline with
// --offline (every model half unjudged), else with the roles of --models
// (each of judgeRoles with its key set). nil when no task is world-judged.
func worldJudges(ctx context.Context, io IO, o *RunOptions, tasks []*task.Task, b *browser.Browser, res *resolve.Resolver) (func(*task.Task) (trial.Judge, error), error) {
	if !worldJudged(tasks) {
		return nil, nil
	}
	if err := worldFlags(o, tasks); err != nil {
		return nil, err
	}
	models, err := judgeModels(ctx, io, &JudgeOptions{Offline: o.Offline, ModelsFile: o.looks.ModelsFile})
	if err != nil {
		return nil, err
	}
	jo := worldjudge.Options{Offline: models == nil}
	if models != nil {
		jo.Models = models // an interface: never a typed nil
	}
	if jo.Look, jo.Capture.Navigator, err = worldRoles(ctx, models, o.looks.ModelsFile); err != nil {
		return nil, err
	}
	return worldjudge.TrialJudges(b, res, jo), nil
}

// worldJudged reports whether a task is judged against a rubric.
func worldJudged(tasks []*task.Task) bool {
	for _, t := range tasks {
		if t.WorldJudged() {
			return true
		}
	}
	return false
}

// worldFlags refuses, before any browser starts, a suite with a
// world-judged task and neither --models nor --offline.
func worldFlags(o *RunOptions, tasks []*task.Task) error {
	if worldJudged(tasks) && !o.Offline && o.looks.ModelsFile == "" {
		return usageErr("the suite has tasks judged against a rubric (judge: in their task.yaml): give --models FILE (the code_probe, evidence_agent, blind_identifier and visual_judge roles; docs/models.md) or --offline to judge them without models (every model half unjudged)")
	}
	return nil
}
