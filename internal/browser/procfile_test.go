package browser

import (
	"context"
	"os"
	"path/filepath"
	"strconv"
	"testing"
)

// BenchmarkProcReads: the memory watch's reads of one walk over a live
// Chromium's tree (every thread's children file, every process's status
// and command line), with os.ReadFile and with readProc, and the
// watch's whole tree (walk and measure, the walk mostly partial). go test ./internal/browser -run XXX -bench ProcReads
func BenchmarkProcReads(b *testing.B) {
	br, err := Launch(context.Background(), Options{Jobs: 1})
	if err != nil {
		b.Skip("no Chromium:", err)
	}
	defer br.Close()
	root := br.PID()
	var paths []string
	for _, pid := range descendants(root) {
		dir := filepath.Join("/proc", strconv.Itoa(pid))
		tasks, _ := os.ReadDir(filepath.Join(dir, "task"))
		for _, t := range tasks {
			paths = append(paths, filepath.Join(dir, "task", t.Name(), "children"))
		}
		paths = append(paths, filepath.Join(dir, "status"), filepath.Join(dir, "cmdline"))
	}
	b.Logf("%d processes, %d files a walk", len(descendants(root)), len(paths))
	b.Run("os.ReadFile", func(b *testing.B) {
		for b.Loop() {
			for _, p := range paths {
				_, _ = os.ReadFile(p)
			}
		}
	})
	b.Run("readProc", func(b *testing.B) {
		for b.Loop() {
			for _, p := range paths {
				_, _ = readProc(p)
			}
		}
	})
	b.Run("memoryWatch.tree", func(b *testing.B) {
		w := &memoryWatch{root: root}
		for b.Loop() {
			w.tree()
		}
	})
}
