package cli

import (
	"context"
	"log/slog"

	"github.com/worldprobe/worldprobe/internal/llm"
)

// modelOptions are the registry options every command that calls models
// takes: warnings to stderr, --allow-unpriced, --record DIR and --replay
// DIR, then extra; and the logger they log to.
func modelOptions(io IO, record, replay string, allowUnpriced bool, extra ...llm.Option) ([]llm.Option, *slog.Logger) {
	logger := slog.New(slog.NewTextHandler(io.ErrOut, &slog.HandlerOptions{Level: slog.LevelWarn}))
	opts := append([]llm.Option{llm.WithLogger(logger), llm.WithAllowUnpriced(allowUnpriced)}, extra...)
	if record != "" {
		opts = append(opts, llm.WithRecord(record))
	}
	if replay != "" {
		opts = append(opts, llm.WithReplay(replay))
	}
	return opts, logger
}

// loadModels loads a models file (docs/models.md) with modelOptions.
func loadModels(io IO, file, record, replay string, allowUnpriced bool, extra ...llm.Option) (*llm.Registry, *slog.Logger, error) {
	opts, logger := modelOptions(io, record, replay, allowUnpriced, extra...)
	reg, err := llm.Load(file, io.Getenv, opts...)
	return reg, logger, err
}

// roleModelInfo is the first model of role's chain in reg, its name
// ("provider/model"), and whether it lacks the API key it needs (never
// when answers come from recordings).
func roleModelInfo(ctx context.Context, reg *llm.Registry, role llm.Role, replay string) (llm.ModelInfo, string, bool, error) {
	infos, err := reg.Describe(ctx)
	if err != nil {
		return llm.ModelInfo{}, "", false, err
	}
	var info llm.ModelInfo
	for _, in := range infos {
		if in.Role == role {
			info = in.Models[0]
		}
	}
	return info, info.Provider + "/" + info.Model, replay == "" && info.KeyRequired && !info.KeyPresent, nil
}
