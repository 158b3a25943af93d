package result

import _ "embed"

//go:embed schema/result.schema.json
var schema []byte

// Schema returns the JSON Schema of result.json (a Trial).
func Schema() []byte { return append([]byte(nil), schema...) }
