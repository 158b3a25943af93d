package cli

import (
	"context"
	"log/slog"

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
	if missing, err := judgeRoleWithoutKey(ctx, reg); err != nil {
		return nil, err
	} else if missing != nil {
		return nil, usageErr("--models %s: the %s role's model %s needs an API key in $%s, which is not set (or pass --offline)", o.ModelsFile, missing.role, missing.model, missing.env)
	}
	return reg, nil
}

// roleWithoutKey is a role whose model's API key is not in the
// environment: the role, its model's name and the key's variable.
type roleWithoutKey struct {
	role       llm.Role
	model, env string
}

// judgeRoleWithoutKey is the first of the world judge's roles (judgeRoles)
// whose model in reg has no API key set, or nil when every one has it.
func judgeRoleWithoutKey(ctx context.Context, reg *llm.Registry) (*roleWithoutKey, error) {
	for _, role := range judgeRoles {
		info, name, noKey, err := roleModelInfo(ctx, reg, role, "")
		if err != nil {
			return nil, err
		}
		if noKey {
			return &roleWithoutKey{role: role, model: name, env: info.KeyEnv}, nil
		}
	}
	return nil, nil
}

// worldRoles takes the world judge's looking roles from models (nil:
// offline, none) and the optional navigator (nil without it: the legend
// alone frames biomes). A missing looking role is a usage error naming
// modelsFile, and so is a navigator the file configures that cannot be
// used (its key unset, a model the provider does not know); the built-in
// navigator default without its key is only logged, since the navigator
// is optional.
func worldRoles(ctx context.Context, models *llm.Registry, modelsFile string) (worldjudge.LookModels, llm.Model, error) {
	if models == nil {
		return worldjudge.LookModels{}, nil, nil
	}
	look, err := worldjudge.NewLookModels(ctx, models)
	if err != nil {
		return worldjudge.LookModels{}, nil, usageErr("--models %s: %v", modelsFile, err)
	}
	navigator, err := optionalRole(ctx, models, llm.Navigator)
	if err != nil {
		return worldjudge.LookModels{}, nil, usageErr("--models %s: %v (the navigator is optional: leave its role out to frame biomes by the legend alone)", modelsFile, err)
	}
	return look, navigator, nil
}

// optionalRole is role's model, or nil when the models file leaves the
// role out and its built-in default cannot be used here (no API key). A
// role the file configures must work: its error is returned.
func optionalRole(ctx context.Context, models *llm.Registry, role llm.Role) (llm.Model, error) {
	if _, configured := models.Config().Roles[role]; configured {
		return models.Role(ctx, role)
	}
	info, name, noKey, err := roleModelInfo(ctx, models, role, "")
	if err != nil {
		return nil, err
	}
	if noKey {
		slog.InfoContext(ctx, "optional model role left out: its default model has no API key",
			slog.String("role", string(role)), slog.String("model", name), slog.String("key_env", info.KeyEnv))
		return nil, nil
	}
	return models.Role(ctx, role)
}
