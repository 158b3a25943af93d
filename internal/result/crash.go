package result

// Crash kinds: why a page was judged crashed. They are defined here once;
// inspect, trial, run and the task format (expect.yaml) all use these.
const (
	// CrashLoadFailed: the page file is missing, or its document failed or
	// answered ≥ 400.
	CrashLoadFailed = "load_failed"
	// CrashJSException: an uncaught exception before the first frame.
	CrashJSException = "js_exception"
	// CrashNoWebGL: no WebGL context could be made.
	CrashNoWebGL = "no_webgl"
	// CrashWebGLContextLost: the page's WebGL context was lost.
	CrashWebGLContextLost = "webgl_context_lost"
	// CrashRenderLoopDead: no animation-frame callback ran, or nothing was
	// drawn, over the stepped frames.
	CrashRenderLoopDead = "render_loop_dead"
	// CrashTimeout: the page did not return control by its deadline.
	CrashTimeout = "timeout"
	// CrashPageCrashed: the page's renderer process died (see CrashCause).
	CrashPageCrashed = "page_crashed"
	// CrashRuntimeError: the page broke the harness's access during a probe.
	CrashRuntimeError = "runtime_error"
	// CrashNoCandidate: the model produced no page.
	CrashNoCandidate = "no_candidate"
)

// CrashCauseMemory refines CrashPageCrashed: the page was ended for holding
// more memory than its share.
const CrashCauseMemory = "memory"

// CrashKinds lists every crash kind a page can be given (CrashNoCandidate,
// which has no page, is left out), in the order the docs list them.
func CrashKinds() []string {
	return []string{CrashLoadFailed, CrashJSException, CrashNoWebGL, CrashWebGLContextLost,
		CrashRenderLoopDead, CrashTimeout, CrashPageCrashed, CrashRuntimeError}
}
