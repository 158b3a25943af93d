// Package contract parses, compiles and runs StateProbe contracts: the hidden
// probes of a task (contract.yaml) that drive a page through steps and
// actions and check what it exposes with CEL assertions.
//
// The flow is
//
//	c, err := contract.Load("suites/core/simulation/bouncing-ball/contract.yaml")
//	res, err := contract.Run(ctx, c, open, params, contract.Options{FPS: 60, FrameBudget: 900, Interface: fields})
//	scores := contract.Coverage(res.Verdicts, res.Failure != nil)
//	why := contract.Attribute(res.Verdicts, res.Failure != nil)
//
// Load parses the YAML strictly (unknown keys are errors with file:line) and
// compiles every assertion once against the CEL environment of [Env]; a
// compile error shows the assertion with a caret under the offending column.
//
// Run opens a fresh page per probe through an [Opener] and drives it through
// the [Page] interface, which the caller implements over a browser session.
// Three kinds of failure are never mixed: infrastructure errors (Run's error),
// page failures (Result.Failure: the page crashed or stopped answering, the
// trial is a crash) and assertion verdicts (pass, fail, error).
//
// Coverage and Attribute are pure functions of the verdicts; they implement
// the scoring and attribution rules of docs/contracts.md.
package contract
