package task

import (
	"encoding/json"
	"reflect"
	"sort"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/worldprobe/worldprobe/internal/contract"
)

type jsonSchema struct {
	Type                 any                    `json:"type"`
	Properties           map[string]*jsonSchema `json:"properties"`
	Required             []string               `json:"required"`
	Items                *jsonSchema            `json:"items"`
	AdditionalProperties json.RawMessage        `json:"additionalProperties"`
	Enum                 []any                  `json:"enum"`
}

// yamlFields lists a struct's fields by yaml name.
func yamlFields(t reflect.Type) map[string]reflect.StructField {
	out := map[string]reflect.StructField{}
	for i := range t.NumField() {
		f := t.Field(i)
		name, _, _ := strings.Cut(f.Tag.Get("yaml"), ",")
		if name == "-" || !f.IsExported() {
			continue
		}
		if name == "" {
			name = strings.ToLower(f.Name)
		}
		out[name] = f
	}
	return out
}

// checkSchema walks a Go type and its schema together: every yaml field
// has a property and every property a field, objects are closed.
func checkSchema(t *testing.T, where string, typ reflect.Type, s *jsonSchema) {
	t.Helper()
	require.NotNil(t, s, "%s: no schema", where)
	for typ.Kind() == reflect.Pointer {
		typ = typ.Elem()
	}
	switch typ.Kind() {
	case reflect.Struct:
		require.Equal(t, "object", s.Type, where)
		require.Equal(t, "false", string(s.AdditionalProperties), "%s: objects must be closed", where)
		fields := yamlFields(typ)
		var goNames, schemaNames []string
		for n := range fields {
			goNames = append(goNames, n)
		}
		for n := range s.Properties {
			schemaNames = append(schemaNames, n)
		}
		sort.Strings(goNames)
		sort.Strings(schemaNames)
		require.Equal(t, goNames, schemaNames, "%s: the schema's properties and the Go type's yaml fields differ", where)
		for _, r := range s.Required {
			require.Contains(t, fields, r, "%s: required %s is not a field", where, r)
		}
		for n, f := range fields {
			checkSchema(t, where+"."+n, f.Type, s.Properties[n])
		}
	case reflect.Slice:
		require.Equal(t, "array", s.Type, where)
		checkSchema(t, where+"[]", typ.Elem(), s.Items)
	case reflect.Map:
		require.Equal(t, "object", s.Type, where)
		var elem jsonSchema
		require.NoError(t, json.Unmarshal(s.AdditionalProperties, &elem), where)
		checkSchema(t, where+"{}", typ.Elem(), &elem)
	case reflect.String:
		if s.Enum == nil {
			require.Equal(t, "string", s.Type, where)
		}
	case reflect.Float64:
		require.Equal(t, "number", s.Type, where)
	case reflect.Bool:
		require.Equal(t, "boolean", s.Type, where)
	case reflect.Int, reflect.Uint32:
		require.Equal(t, "integer", s.Type, where)
	case reflect.Int64: // Duration
		require.Equal(t, "string", s.Type, where)
	case reflect.Interface: // any value (a control step, checked when it is parsed as one)
	default:
		t.Fatalf("%s: unhandled kind %s", where, typ.Kind())
	}
}

func TestSchemaMatchesTask(t *testing.T) {
	var s jsonSchema
	require.NoError(t, json.Unmarshal(Schema(), &s))
	checkSchema(t, "task", reflect.TypeOf(Task{}), &s)

	// The enums are the Go lists.
	enum := func(vals []any) []string {
		var out []string
		for _, v := range vals {
			out = append(out, v.(string))
		}
		return out
	}
	require.Equal(t, Categories(), enum(s.Properties["category"].Enum))
	require.Equal(t, Difficulties(), enum(s.Properties["difficulty"].Enum))
	require.Equal(t, contract.Types(), enum(s.Properties["state"].Items.Properties["type"].Enum))
}

func TestSchemaIsACopy(t *testing.T) {
	a := Schema()
	a[0] = 'x'
	require.Equal(t, byte('{'), Schema()[0])
}
