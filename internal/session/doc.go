// Package session runs one page in the sandboxed browser: it serves the
// page's own folder and the vendored libraries from a virtual origin, refuses
// and records every other request, injects the deterministic runtime, steps the
// virtual clock, and takes observations (state, scene, pixels, console,
// errors, dialogs). A Session never decides whether a page is good; callers
// such as the inspect and contract packages do.
package session
