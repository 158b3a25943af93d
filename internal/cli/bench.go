package cli

import (
	"github.com/spf13/cobra"
)

// NewCmdBench builds 'worldprobe bench'.
func NewCmdBench(io IO) *cobra.Command {
	return &cobra.Command{
		Use:   "bench",
		Short: "Measure inspection speed (see docs/PERFORMANCE.md)",
		Args:  cobra.NoArgs,
		RunE: func(cmd *cobra.Command, args []string) error {
			return usageErr("bench: see docs/PERFORMANCE.md")
		},
	}
}
