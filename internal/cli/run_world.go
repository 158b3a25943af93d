package cli

import (
	"context"
	"fmt"
	"sort"
	"strings"

	"github.com/worldprobe/worldprobe/internal/llm"
	"github.com/worldprobe/worldprobe/internal/task"
	"github.com/worldprobe/worldprobe/internal/worldjudge"
)

// worldSetup is the world judge's configuration for the tasks judged
// against a rubric (task.yaml judge:), as 'worldprobe judge' judges:
// offline with --offline (every model half unjudged), else with the roles
// of --models (each of judgeRoles with its key set), named (Options.Name)
// by worldJudging. nil when no task is world-judged.
func worldSetup(ctx context.Context, io IO, o *RunOptions, tasks []*task.Task) (*worldjudge.Options, error) {
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
	return worldModels(ctx, models, o.looks.ModelsFile)
}

// worldModels is the world judge's configuration with models (nil:
// offline), its roles taken from modelsFile's registry.
func worldModels(ctx context.Context, models *llm.Registry, modelsFile string) (*worldjudge.Options, error) {
	jo := &worldjudge.Options{Offline: models == nil, Judging: worldjudge.JudgingOffline}
	if models == nil {
		return jo, nil
	}
	jo.Models = models // an interface: never a typed nil
	var err error
	if jo.Look, jo.Capture.Navigator, err = worldRoles(ctx, models, modelsFile); err != nil {
		return nil, err
	}
	if jo.Judging, err = worldJudging(ctx, models, jo.Capture.Navigator != nil); err != nil {
		return nil, err
	}
	return jo, nil
}

// worldJudging names a world judge configuration with models, as trial
// keys record it: "models", then each role the judge asks (judgeRoles,
// and the navigator when it is used) with its chain of models —
// provider/model, the temperature when one is set, fallbacks after ">" —
// in role order; "navigator=none" when the legend alone frames biomes.
// Endpoints and keys are left out: the same models behind another URL
// judge the same way.
func worldJudging(ctx context.Context, models *llm.Registry, navigator bool) (string, error) {
	infos, err := models.Describe(ctx)
	if err != nil {
		return "", fmt.Errorf("naming the world judge's models: %w", err)
	}
	asked := map[llm.Role]bool{llm.Navigator: navigator}
	for _, r := range judgeRoles {
		asked[r] = true
	}
	parts := []string{"models"}
	for _, in := range infos {
		if !asked[in.Role] {
			continue
		}
		var chain []string
		for _, m := range in.Models {
			c := m.Provider + "/" + m.Model
			if m.Temperature != nil {
				c += fmt.Sprintf("@t=%g", *m.Temperature)
			}
			chain = append(chain, c)
		}
		parts = append(parts, string(in.Role)+"="+strings.Join(chain, ">"))
	}
	if !navigator {
		parts = append(parts, string(llm.Navigator)+"=none")
	}
	sort.Strings(parts[1:])
	return strings.Join(parts, " "), nil
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
