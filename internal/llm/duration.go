package llm

import (
	"encoding/json"
	"fmt"
	"time"

	"github.com/invopop/jsonschema"
	"go.yaml.in/yaml/v3"
)

// Duration is a time.Duration written as a Go duration string ("90s",
// "2m") in models.yaml; a bare number means seconds.
type Duration time.Duration

// D returns d as a time.Duration.
func (d Duration) D() time.Duration { return time.Duration(d) }

// String formats d like time.Duration.
func (d Duration) String() string { return time.Duration(d).String() }

// UnmarshalYAML reads "90s", "2m" or a number of seconds.
func (d *Duration) UnmarshalYAML(n *yaml.Node) error {
	if n.Kind != yaml.ScalarNode {
		return fmt.Errorf("line %d: duration must be a string like \"90s\"", n.Line)
	}
	if n.Tag == "!!int" || n.Tag == "!!float" {
		var secs float64
		if err := n.Decode(&secs); err != nil {
			return fmt.Errorf("line %d: duration: %w", n.Line, err)
		}
		*d = Duration(secs * float64(time.Second))
		return nil
	}
	v, err := time.ParseDuration(n.Value)
	if err != nil {
		return fmt.Errorf("line %d: duration: %w", n.Line, err)
	}
	*d = Duration(v)
	return nil
}

// MarshalYAML writes d as a duration string.
func (d Duration) MarshalYAML() (any, error) { return d.String(), nil }

// MarshalJSON writes d as a duration string.
func (d Duration) MarshalJSON() ([]byte, error) { return json.Marshal(d.String()) }

// UnmarshalJSON reads a duration string.
func (d *Duration) UnmarshalJSON(b []byte) error {
	var s string
	if err := json.Unmarshal(b, &s); err != nil {
		return fmt.Errorf("duration: %w", err)
	}
	v, err := time.ParseDuration(s)
	if err != nil {
		return fmt.Errorf("duration: %w", err)
	}
	*d = Duration(v)
	return nil
}

// JSONSchema describes the duration format for [ModelsSchema].
func (Duration) JSONSchema() *jsonschema.Schema {
	return &jsonschema.Schema{
		AnyOf: []*jsonschema.Schema{
			{Type: "string", Pattern: `^([0-9]+(\.[0-9]+)?(ns|us|µs|ms|s|m|h))+$`},
			{Type: "number", Minimum: json.Number("0")},
		},
		Description: `A Go duration such as "90s", "2m" or "1m30s", or a number of seconds.`,
		Examples:    []any{"90s", "2m"},
	}
}
