package modelscmd

import (
	"encoding/json"
	"fmt"
	"io"
	"strings"
	"text/tabwriter"

	"github.com/spf13/cobra"

	"github.com/worldprobe/worldprobe/internal/llm"
)

// listOutput is the --json form of `models list`.
type listOutput struct {
	Source  string         `json:"source"`
	Budgets llm.Budgets    `json:"budgets"`
	Roles   []llm.RoleInfo `json:"roles"`
}

func newCmdList(s IO, modelsFile *string) *cobra.Command {
	var asJSON bool
	cmd := &cobra.Command{
		Use:   "list",
		Short: "List roles, their resolved models and which keys are present",
		Long: "List every role with its provider, model, base URL, fallback chain, pricing and " +
			"whether its API key variable is set. Key values are never shown.",
		Example: `  worldprobe models list
  worldprobe models list --models models.yaml --json`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			reg, err := llm.Load(*modelsFile, s.getenv(), llm.WithLogger(s.logger()))
			if err != nil {
				return err
			}
			roles, err := reg.Describe(cmd.Context())
			if err != nil {
				return err
			}
			if asJSON {
				enc := json.NewEncoder(s.Out)
				enc.SetIndent("", "  ")
				if err := enc.Encode(listOutput{Source: reg.Source(), Budgets: reg.Budgets(), Roles: roles}); err != nil {
					return fmt.Errorf("models list: %w", err)
				}
				return nil
			}
			return writeTable(s.Out, reg.Source(), roles)
		},
	}
	cmd.Flags().BoolVar(&asJSON, "json", false, "print JSON")
	return cmd
}

func writeTable(out io.Writer, source string, roles []llm.RoleInfo) error {
	fmt.Fprintf(out, "models from: %s\n\n", source)
	tw := tabwriter.NewWriter(out, 0, 0, 2, ' ', 0)
	fmt.Fprintln(tw, "ROLE\tPROVIDER\tMODEL\tBASE URL\tKEY\tPRICE\tFALLBACK")
	for _, r := range roles {
		p := r.Models[0]
		var fallbacks []string
		for _, fb := range r.Models[1:] {
			entry := fb.Provider + "/" + fb.Model
			if fb.KeyRequired && !fb.KeyPresent {
				entry += " (key missing)"
			}
			fallbacks = append(fallbacks, entry)
		}
		fb := strings.Join(fallbacks, ", ")
		if fb == "" {
			fb = "-"
		}
		fmt.Fprintf(tw, "%s\t%s\t%s\t%s\t%s\t%s\t%s\n", r.Role, p.Provider, p.Model, p.BaseURL, keyStatus(p), p.Pricing, fb)
	}
	if err := tw.Flush(); err != nil {
		return fmt.Errorf("models list: %w", err)
	}
	return nil
}

// keyStatus tells whether the key variable is set, never its value.
func keyStatus(m llm.ModelInfo) string {
	switch {
	case !m.KeyRequired:
		return "not needed"
	case m.KeyPresent:
		return m.KeyEnv + " set"
	default:
		return m.KeyEnv + " missing"
	}
}
