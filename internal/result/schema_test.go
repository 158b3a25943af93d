package result

import (
	"encoding/json"
	"reflect"
	"sort"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/require"
)

// TestSchemaMatchesTrial keeps the schema's properties and required list
// in step with the Go type's JSON fields.
func TestSchemaMatchesTrial(t *testing.T) {
	var s struct {
		Required   []string                   `json:"required"`
		Properties map[string]json.RawMessage `json:"properties"`
	}
	require.NoError(t, json.Unmarshal(Schema(), &s))
	var fields, required []string
	typ := reflect.TypeOf(Trial{})
	for i := 0; i < typ.NumField(); i++ {
		tag := typ.Field(i).Tag.Get("json")
		name, opts, _ := strings.Cut(tag, ",")
		fields = append(fields, name)
		if !strings.Contains(opts, "omitempty") {
			required = append(required, name)
		}
	}
	var props []string
	for p := range s.Properties {
		props = append(props, p)
	}
	sort.Strings(fields)
	sort.Strings(props)
	sort.Strings(required)
	sort.Strings(s.Required)
	require.Equal(t, fields, props)
	require.Equal(t, required, s.Required)
}

// TestTrialJSONHasRequiredFields checks a marshalled trial against the
// schema's required list.
func TestTrialJSONHasRequiredFields(t *testing.T) {
	b, err := json.Marshal(Trial{Key: "k", Task: "simulation/x", StartedAt: time.Unix(0, 0)})
	require.NoError(t, err)
	var m map[string]any
	require.NoError(t, json.Unmarshal(b, &m))
	var s struct {
		Required []string `json:"required"`
	}
	require.NoError(t, json.Unmarshal(Schema(), &s))
	for _, r := range s.Required {
		require.Contains(t, m, r)
	}
}

// TestSchemaRepairs: the schema's repair values are Repairs().
func TestSchemaRepairs(t *testing.T) {
	var s struct {
		Properties struct {
			Repair struct {
				Enum []string `json:"enum"`
			} `json:"repair"`
		} `json:"properties"`
	}
	require.NoError(t, json.Unmarshal(Schema(), &s))
	require.Equal(t, Repairs(), s.Properties.Repair.Enum)
}
