//go:build !linux

package browser

import "os/exec"

// command leaves the browser's process as chromedp starts it: switching
// users is implemented for Linux only, where planSandbox may ask for it.
func (s Sandbox) command(cmd *exec.Cmd) {}
