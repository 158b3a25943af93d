// Package modelscmd holds the `worldprobe models` commands: list the
// roles and their resolved models, and ping a role's model.
package modelscmd

import (
	"io"
	"log/slog"
	"os"

	"github.com/spf13/cobra"

	"github.com/worldprobe/worldprobe/internal/llm"
)

// IO is what the models commands read and write.
type IO struct {
	// In is standard input (unused today, kept for symmetry).
	In io.Reader
	// Out receives results; ErrOut receives progress and warnings.
	Out, ErrOut io.Writer
	// Getenv reads environment variables (API keys); nil means os.Getenv.
	Getenv func(string) string
}

func (s IO) getenv() llm.Getenv {
	if s.Getenv == nil {
		return os.Getenv
	}
	return s.Getenv
}

func (s IO) logger() *slog.Logger {
	return slog.New(slog.NewTextHandler(s.ErrOut, &slog.HandlerOptions{Level: slog.LevelWarn}))
}

// NewCmdModels returns `worldprobe models` with its subcommands list and
// ping. Its --models flag names the models file (default: models.yaml if
// present, else built-in defaults).
func NewCmdModels(s IO) *cobra.Command {
	var modelsFile string
	cmd := &cobra.Command{
		Use:   "models",
		Short: "Show and test the models behind each role",
		Long: "Show which model, provider and key each role uses (from --models, models.yaml, " +
			"or the built-in defaults), and check that a role's model answers.",
		SilenceUsage: true,
	}
	cmd.PersistentFlags().StringVar(&modelsFile, "models", "",
		"models file (default \""+llm.DefaultModelsFile+"\" if present, else built-in defaults)")
	cmd.AddCommand(newCmdList(s, &modelsFile), newCmdPing(s, &modelsFile))
	return cmd
}
