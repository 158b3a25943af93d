// Package gen writes candidate pages with a model: for each task, model
// and sample it sends the task's prompt (the brief and the state interface,
// [task.Task.Prompt], under a fixed instruction, [Instructions]), continues a
// reply cut off by the output limit, reduces the reply to one HTML file
// ([Extract]) and writes it where 'worldprobe run --candidates' reads it:
//
//	OUT/<model-slug>/sample-<k>/<task-id>/index.html
//	OUT/<model-slug>/sample-<k>/<task-id>/gen.json   (see [Record])
//	OUT/<model-slug>/sample-<k>/<task-id>/reply.md   (the model's raw reply)
//
// gen.json is written last and atomically, so a sample with a gen.json is
// finished; running again skips finished samples ([Run]). Package repair
// writes the repaired version of each page beside it, in
// OUT/<model-slug>+<repair>/sample-<k>/<task-id>/, with a gen.json of the
// same format ([Record.Repair], [RepairLog]).
package gen
