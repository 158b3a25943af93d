package browser

import (
	"os/exec"
	"syscall"
)

// command prepares the browser's process: the kernel kills it when the
// thread that started it ends (chromedp starts it from a locked thread, so
// this means when worldprobe dies), and it runs as the browser user when
// worldprobe is root. Go sets the parent-death signal after switching
// users, so the switch does not clear it.
func (s Sandbox) command(cmd *exec.Cmd) {
	if cmd.SysProcAttr == nil {
		cmd.SysProcAttr = new(syscall.SysProcAttr)
	}
	cmd.SysProcAttr.Pdeathsig = syscall.SIGKILL
	if s.switchUser() {
		cmd.SysProcAttr.Credential = &syscall.Credential{Uid: uint32(s.UID), Gid: uint32(s.GID), Groups: []uint32{}}
	}
}
