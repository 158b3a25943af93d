package cli

import (
	"fmt"
	"sort"
	"strings"

	"github.com/spf13/cobra"

	"github.com/worldprobe/worldprobe/internal/llm"
	"github.com/worldprobe/worldprobe/internal/result"
	"github.com/worldprobe/worldprobe/internal/task"
)

// schemas maps a name to the JSON Schema it prints.
var schemas = map[string]func() []byte{
	"models": llm.ModelsSchema,
	"result": result.Schema,
	"task":   task.Schema,
}

// NewCmdSchema prints JSON Schemas of worldprobe's file formats.
func NewCmdSchema(io IO) *cobra.Command {
	names := make([]string, 0, len(schemas))
	for n := range schemas {
		names = append(names, n)
	}
	sort.Strings(names)
	return &cobra.Command{
		Use:       "schema NAME",
		Short:     "Print the JSON Schema of a file format (" + strings.Join(names, ", ") + ")",
		Example:   "  worldprobe schema models > models.schema.json",
		ValidArgs: names,
		Args: func(cmd *cobra.Command, args []string) error {
			if len(args) != 1 {
				return usageErr("schema needs one NAME: %s", strings.Join(names, ", "))
			}
			if _, ok := schemas[args[0]]; !ok {
				return usageErr("no schema %q; known: %s", args[0], strings.Join(names, ", "))
			}
			return nil
		},
		RunE: func(cmd *cobra.Command, args []string) error {
			b := schemas[args[0]]()
			if _, err := io.Out.Write(b); err != nil {
				return runtimeErr(fmt.Errorf("writing the schema: %w", err))
			}
			if len(b) > 0 && b[len(b)-1] != '\n' {
				fmt.Fprintln(io.Out)
			}
			return nil
		},
	}
}
