package browser

import (
	"bytes"
	"path/filepath"
	"strconv"
	"strings"
	"time"
)

// clockTicks is the kernel's USER_HZ, the unit of /proc/PID/stat's CPU
// times: 100 on every Linux architecture Chromium ships for.
const clockTicks = 100

// CPUTimes is CPU time (user + system) by kind of process.
type CPUTimes map[string]time.Duration

// CPUTimes returns the CPU time every live process of the browser has used
// so far, summed by kind: "browser" for the browser process and its
// launcher, else Chromium's --type ("renderer", "gpu-process", "utility",
// "zygote", …). Processes that have ended are not counted, so take the
// difference of two calls around work whose processes stay up (one tab's
// reloads), for benchmarks.
func (b *Browser) CPUTimes() CPUTimes {
	out := CPUTimes{}
	root := b.PID()
	if root == 0 {
		return out
	}
	for _, pid := range descendants(root) {
		kind, t, ok := cpuOf(pid)
		if ok {
			out[kind] += t
		}
	}
	return out
}

// Sub returns c minus earlier, kind by kind, leaving out kinds that did
// not grow.
func (c CPUTimes) Sub(earlier CPUTimes) CPUTimes {
	out := CPUTimes{}
	for k, v := range c {
		if d := v - earlier[k]; d > 0 {
			out[k] = d
		}
	}
	return out
}

// cpuOf reads one process's kind and its user + system CPU time.
func cpuOf(pid int) (kind string, t time.Duration, ok bool) {
	dir := filepath.Join("/proc", strconv.Itoa(pid))
	raw, err := readProc(filepath.Join(dir, "stat"))
	if err != nil {
		return "", 0, false
	}
	i := bytes.LastIndexByte(raw, ')')
	if i < 0 {
		return "", 0, false
	}
	// After the command name: state, ppid, … utime is field 14 and stime
	// field 15 of the whole line, so 12th and 13th after ')'.
	f := strings.Fields(string(raw[i+1:]))
	if len(f) < 13 {
		return "", 0, false
	}
	utime, err1 := strconv.ParseInt(f[11], 10, 64)
	stime, err2 := strconv.ParseInt(f[12], 10, 64)
	if err1 != nil || err2 != nil {
		return "", 0, false
	}
	cmd, _ := readProc(filepath.Join(dir, "cmdline"))
	return processKind(cmd), time.Duration(utime+stime) * time.Second / clockTicks, true
}

// processKind is Chromium's --type=KIND from a command line, or "browser"
// for a process without one. Chromium's children rewrite their command line
// as one space-separated title, so the switch is looked for anywhere.
func processKind(cmdline []byte) string {
	_, after, ok := bytes.Cut(cmdline, []byte("--type="))
	if !ok {
		return "browser"
	}
	if end := bytes.IndexAny(after, " \x00"); end >= 0 {
		after = after[:end]
	}
	return string(after)
}
