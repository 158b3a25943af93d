// Package xr emulates an XR headset for pages under test, so a WebXR page
// runs its real immersive path with no headset, no click and no network.
//
// The first backend is IWER (meta-quest/immersive-web-emulation-runtime,
// vendored from npm in web/node_modules): Prelude returns a script that
// session.Config.Preludes injects after worldprobe's runtime and before the
// page's own scripts. IWER's frame loop runs on the page's
// requestAnimationFrame and performance.now, which the runtime
// virtualises, so XR frames come only when the harness steps, at the
// virtual frame times, and a run is repeatable.
package xr
