package cli

import (
	"fmt"
	"runtime/debug"

	"github.com/spf13/cobra"
)

// Version is worldprobe's version; release builds set it with -ldflags.
var Version = "dev"

// NewCmdVersion prints the version.
func NewCmdVersion(io IO) *cobra.Command {
	return &cobra.Command{
		Use:     "version",
		Short:   "Print worldprobe's version",
		Example: `  worldprobe version`,
		Args:    cobra.NoArgs,
		RunE: func(cmd *cobra.Command, args []string) error {
			v := Version
			if bi, ok := debug.ReadBuildInfo(); ok {
				for _, s := range bi.Settings {
					if s.Key == "vcs.revision" && len(s.Value) >= 12 {
						v += "+" + s.Value[:12]
					}
				}
			}
			fmt.Fprintln(io.Out, "worldprobe", v)
			return nil
		},
	}
}
