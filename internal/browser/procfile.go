package browser

import (
	"os"
	"syscall"
)

// readProc reads a whole /proc file with plain open, read and close
// calls. os.ReadFile also stats the file and registers it with the
// runtime's poller (and unregisters it), which for the memory watch's ten
// walks a second over every thread of every Chromium process was most of
// the harness's own CPU time (docs/PERFORMANCE.md, "A trial's CPU, all of
// it"). The bytes are the same; errors are *os.PathError, as os.ReadFile's
// (os.IsNotExist holds for a process that ended).
func readProc(path string) ([]byte, error) {
	fd, err := syscall.Open(path, syscall.O_RDONLY|syscall.O_CLOEXEC, 0)
	for err == syscall.EINTR {
		fd, err = syscall.Open(path, syscall.O_RDONLY|syscall.O_CLOEXEC, 0)
	}
	if err != nil {
		return nil, &os.PathError{Op: "open", Path: path, Err: err}
	}
	defer syscall.Close(fd)
	buf := make([]byte, 0, 1024)
	for {
		if len(buf) == cap(buf) {
			buf = append(buf, 0)[:len(buf)]
		}
		n, err := syscall.Read(fd, buf[len(buf):cap(buf)])
		if err == syscall.EINTR {
			continue
		}
		if err != nil {
			return nil, &os.PathError{Op: "read", Path: path, Err: err}
		}
		if n == 0 {
			return buf, nil
		}
		buf = buf[:len(buf)+n]
	}
}
