// Package agent runs a model as an agent over a task ('worldprobe gen
// --agent'): a bounded loop of tool calls over a [Workspace], a fresh
// temporary folder holding only what the model may see (the task's prompt,
// its state interface as data, and an empty index.html), never the
// contract, the solutions or the fixtures.
//
// The tools ([Tools]) are one file each behind the [Tool] interface:
// list_files, read_file, grep, write_file, edit_file, run_page (the page
// in the real runtime: load errors, exceptions, console messages, WebGL
// problems and a snapshot of window.__3D_STATE__, never a contract
// verdict) and finish. [Run] drives the loop for one sample until the
// model finishes, answers without a tool call, or a budget of turns,
// tokens or cost ends it; [Execute] runs the samples 'gen' planned and
// writes each where 'run --candidates' reads it, in a folder marked
// [gen.AgentSuffix], with gen.json and trajectory.jsonl beside the page.
package agent
