package cli

import (
	"context"

	"github.com/worldprobe/worldprobe/internal/llm"
	"github.com/worldprobe/worldprobe/internal/worldjudge"
)

// judgeRoles are the roles 'worldprobe judge --models' needs: the reading
// side's and the looking side's.
var judgeRoles = []llm.Role{llm.CodeProbe, llm.EvidenceAgent, llm.BlindIdentifier, llm.VisualJudge, llm.Extract}

// judgeModels are the model roles of 'worldprobe judge': nil with
// --offline; else the models file, whose judgeRoles must each have a model
// with its API key set (the navigator role is optional). Neither
// flag, both flags, a models file that cannot be read or a role without its
// key is a usage error saying what to pass.
func judgeModels(ctx context.Context, io IO, o *JudgeOptions) (*llm.Registry, error) {
	switch {
	case o.Offline && o.ModelsFile != "":
		return nil, usageErr("judge takes --offline or --models FILE, not both")
	case o.Offline:
		return nil, nil
	case o.ModelsFile == "":
		return nil, usageErr("judge needs --models FILE (a models file giving the code_probe, evidence_agent, blind_identifier, visual_judge and extract roles a model; docs/models.md), or --offline to judge without models (every model half unjudged)")
	}
	reg, _, err := loadModels(io, o.ModelsFile, "", "", false)
	if err != nil {
		return nil, usageErr("--models: %v", err)
	}
	for _, role := range judgeRoles {
		info, name, noKey, err := roleModelInfo(ctx, reg, role, "")
		if err != nil {
			return nil, err
		}
		if noKey {
			return nil, usageErr("--models %s: the %s role's model %s needs an API key in $%s, which is not set (or pass --offline)", o.ModelsFile, role, name, info.KeyEnv)
		}
	}
	return reg, nil
}

// worldRoles takes the world judge's looking roles from models (nil:
// offline, none) and the optional navigator (nil without it: the legend
// alone frames biomes). A missing looking role is a usage error naming
// modelsFile.
func worldRoles(ctx context.Context, models *llm.Registry, modelsFile string) (worldjudge.LookModels, llm.Model, error) {
	if models == nil {
		return worldjudge.LookModels{}, nil, nil
	}
	look, err := worldjudge.NewLookModels(ctx, models)
	if err != nil {
		return worldjudge.LookModels{}, nil, usageErr("--models %s: %v", modelsFile, err)
	}
	navigator, err := models.Role(ctx, llm.Navigator)
	if err != nil {
		navigator = nil
	}
	return look, navigator, nil
}
