// Package repair gives generated pages rounds of repair ('worldprobe gen
// --repair'): each round checks the page (a [Diagnoser]: the errors it
// raises, or the contract checks it fails — package diagnose), sends what
// the check found and the page to the model that wrote it ([Instructions],
// [RoundPrompt]), reads its SEARCH/REPLACE edits ([ParseEdits], the format
// in [EditFormat]) and applies those whose text occurs exactly once
// ([Apply]), telling the model why the others were refused and asking
// again ([RetryPrompt]). A page without findings is not sent.
//
// The repaired page is a page of its own, beside the first-shot one:
//
//	OUT/<model-slug>+error-only/sample-<k>/<task-id>/index.html
//	OUT/<model-slug>+error-only/sample-<k>/<task-id>/gen.json    (gen.Record with Repair and Repaired)
//	OUT/<model-slug>+error-only/sample-<k>/<task-id>/repair.md   (the rounds, for a reader)
//
// (+feedback for the feedback mode). Its gen.json prices the first shot and
// the repair together; running again repairs only what is not repaired
// yet ([Plan], [Execute]).
package repair
