// Package task reads StateProbe tasks: a folder per task holding task.yaml
// (metadata and the state interface), brief.md (what the model is told),
// contract.yaml (hidden probes, see package contract), a reference
// solution and known-flawed candidate fixtures.
//
//	t, err := task.Load("suites/core/simulation/bouncing-ball")
//	tasks, err := task.LoadSuite("suites/core")        // sorted by id
//	prompt := brief + "\n" + task.PromptInterface(t)  // what the model sees
//	findings := task.Lint(t)                          // worldprobe task check
//
// task.yaml is decoded strictly: unknown fields are errors with file:line,
// and every value is validated (see docs/tasks.md). Schema returns the JSON
// Schema of task.yaml for editors and `worldprobe schema task`.
package task
