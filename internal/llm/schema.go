package llm

import (
	"encoding/json"

	"github.com/invopop/jsonschema"
	orderedmap "github.com/pb33f/ordered-map/v2"
)

// ModelsSchema returns the JSON Schema of models.yaml, for
// `worldprobe schema models` and editor completion.
func ModelsSchema() []byte {
	r := &jsonschema.Reflector{FieldNameTag: "yaml", RequiredFromJSONSchemaTags: true, DoNotReference: false}
	s := r.Reflect(&Config{})
	s.ID = "https://github.com/worldprobe/worldprobe/schema/models.json"
	s.Title = "worldprobe models file (models.yaml)"
	s.Description = "Maps each role to a model, provider, key variable, limits and fallback chain. Prices are USD per 1M tokens."
	b, err := json.MarshalIndent(s, "", "  ")
	if err != nil {
		panic(err) // a reflected schema always marshals
	}
	return append(b, '\n')
}

// JSONSchemaExtend lists the known roles and providers as the only keys
// of roles and providers.
func (Config) JSONSchemaExtend(s *jsonschema.Schema) {
	closeMap(s, "roles", func() (keys []string) {
		for _, r := range Roles() {
			keys = append(keys, string(r))
		}
		return keys
	}())
	closeMap(s, "providers", ProviderNames())
}

// closeMap turns the map property name into an object with keys only.
func closeMap(s *jsonschema.Schema, name string, keys []string) {
	prop, ok := s.Properties.Get(name)
	if !ok || prop.AdditionalProperties == nil {
		return
	}
	props := orderedmap.New[string, *jsonschema.Schema]()
	for _, k := range keys {
		props.Set(k, prop.AdditionalProperties)
	}
	prop.Properties = props
	prop.AdditionalProperties = jsonschema.FalseSchema
}
