package task

import _ "embed"

//go:embed schema/task.schema.json
var schema []byte

// Schema returns the JSON Schema of task.yaml (draft 2020-12), for editors
// and `worldprobe schema task`. A test keeps it in step with Task's fields.
func Schema() []byte { return append([]byte(nil), schema...) }
