package browser

import (
	"bytes"
	"context"
	"fmt"
	"log/slog"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"time"
)

// DefaultPageMemory is how much memory one page's renderer process (its
// JavaScript heaps, ArrayBuffers, workers and DOM) may hold by default.
// Model-written worlds use 100–400 MiB; 2 GiB leaves a wide margin.
const DefaultPageMemory int64 = 2 << 30

// MemoryLimits bound the memory of the browser's process tree.
type MemoryLimits struct {
	// PerPage caps one renderer process (one page: page browser contexts
	// never share a renderer). 0 means DefaultPageMemory; < 0 no cap.
	PerPage int64
	// Total caps the whole Chromium tree (renderers, GPU process,
	// utilities, the browser itself). 0 means the lesser of Jobs × PerPage
	// + 2 GiB and three quarters of the memory the machine has available
	// at launch; < 0 no cap. Past it the largest renderer is ended.
	Total int64
	// Every is how often the tree is measured; 0 means 100 ms.
	Every time.Duration
}

// MemoryKill is a renderer process the watchdog ended for its memory.
type MemoryKill struct {
	PID int `json:"pid"`
	// Bytes is what the process held (anonymous plus shared memory) when
	// it was ended; Limit is the cap it was over.
	Bytes int64 `json:"bytes"`
	Limit int64 `json:"limit"`
	// Total is true when the whole tree was over Limit (and this was its
	// largest renderer), false when the renderer alone was.
	Total bool      `json:"total"`
	At    time.Time `json:"-"`
}

// String says what was over which cap, e.g. "the page's renderer held
// 1.2 GiB, over its 1 GiB share".
func (k MemoryKill) String() string {
	if k.Total {
		return fmt.Sprintf("the browser's processes held more than %s together; this page's renderer was the largest (%s)",
			formatBytes(k.Limit), formatBytes(k.Bytes))
	}
	return fmt.Sprintf("the page's renderer held %s, over its %s share", formatBytes(k.Bytes), formatBytes(k.Limit))
}

func formatBytes(n int64) string {
	switch {
	case n >= 1<<30:
		return fmt.Sprintf("%.1f GiB", float64(n)/(1<<30))
	default:
		return fmt.Sprintf("%d MiB", n>>20)
	}
}

// resolved fills in the defaults for a browser with jobs pages at once.
func (m MemoryLimits) resolved(jobs int) MemoryLimits {
	if m.PerPage == 0 {
		m.PerPage = DefaultPageMemory
	}
	if m.Every <= 0 {
		m.Every = 100 * time.Millisecond
	}
	if m.Total == 0 {
		per := m.PerPage
		if per < 0 {
			per = DefaultPageMemory
		}
		m.Total = int64(jobs)*per + 2<<30
		if avail := availableMemory(); avail > 0 && avail*3/4 < m.Total {
			m.Total = avail * 3 / 4
		}
	}
	return m
}

// availableMemory is MemAvailable from /proc/meminfo in bytes (0 if unknown).
func availableMemory() int64 {
	raw, err := os.ReadFile("/proc/meminfo")
	if err != nil {
		return 0
	}
	for _, line := range strings.Split(string(raw), "\n") {
		if v, ok := strings.CutPrefix(line, "MemAvailable:"); ok {
			kb, err := strconv.ParseInt(strings.TrimSuffix(strings.TrimSpace(v), " kB"), 10, 64)
			if err == nil {
				return kb << 10
			}
		}
	}
	return 0
}

// memoryWatch measures the browser's process tree and ends renderers over
// their caps. Page code cannot reach it: it reads /proc from worldprobe's
// side, and a renderer it ends gives its page a crash whose cause the page
// can look up (Page.CrashCause).
type memoryWatch struct {
	limits MemoryLimits
	root   int
	logger *slog.Logger

	mu    sync.Mutex
	kills []MemoryKill
	peak  int64
}

// run measures until ctx ends.
func (w *memoryWatch) run(ctx context.Context) {
	t := time.NewTicker(w.limits.Every)
	defer t.Stop()
	for {
		select {
		case <-ctx.Done():
			return
		case <-t.C:
			w.check()
		}
	}
}

// process is one process of the tree as measured.
type process struct {
	pid      int
	renderer bool
	bytes    int64
}

// check measures once and ends what is over its cap.
func (w *memoryWatch) check() {
	procs := treeOf(w.root)
	var total int64
	var largest *process
	for i := range procs {
		p := &procs[i]
		total += p.bytes
		if !p.renderer {
			continue
		}
		if w.limits.PerPage > 0 && p.bytes > w.limits.PerPage {
			w.kill(MemoryKill{PID: p.pid, Bytes: p.bytes, Limit: w.limits.PerPage})
			total -= p.bytes
			p.bytes = 0
			continue
		}
		if largest == nil || p.bytes > largest.bytes {
			largest = p
		}
	}
	w.mu.Lock()
	w.peak = max(w.peak, total)
	w.mu.Unlock()
	if w.limits.Total > 0 && total > w.limits.Total && largest != nil {
		w.kill(MemoryKill{PID: largest.pid, Bytes: largest.bytes, Limit: w.limits.Total, Total: true})
	}
}

func (w *memoryWatch) kill(k MemoryKill) {
	k.At = time.Now()
	if err := syscall.Kill(k.PID, syscall.SIGKILL); err != nil {
		return // it ended by itself
	}
	w.logger.Warn("ended a renderer over its memory cap", "pid", k.PID, "bytes", k.Bytes, "limit", k.Limit, "total", k.Total)
	w.mu.Lock()
	w.kills = append(w.kills, k)
	if len(w.kills) > 64 {
		w.kills = w.kills[len(w.kills)-64:]
	}
	w.mu.Unlock()
}

// killedSince returns the latest kill at or after t.
func (w *memoryWatch) killedSince(t time.Time) (MemoryKill, bool) {
	w.mu.Lock()
	defer w.mu.Unlock()
	for i := len(w.kills) - 1; i >= 0; i-- {
		if !w.kills[i].At.Before(t) {
			return w.kills[i], true
		}
	}
	return MemoryKill{}, false
}

// treeOf lists root and its descendants with their memory: resident
// anonymous plus shared memory (RssAnon + RssShmem), which is what
// ArrayBuffers, heaps and shared-memory textures take; libraries mapped by
// every process are not counted again in each. /proc/PID/status stays
// readable for processes that made themselves undumpable (sandboxed ones).
func treeOf(root int) []process {
	pids := descendants(root)
	out := make([]process, 0, len(pids))
	for _, pid := range pids {
		p := process{pid: pid}
		p.bytes, p.renderer = measure(pid)
		out = append(out, p)
	}
	return out
}

// descendants lists root and its descendants: by the kernel's children
// files where it has them, else by scanning every process's parent.
func descendants(root int) []int {
	if pids, ok := descendantsByChildren(root); ok {
		return pids
	}
	return descendantsByScan(root)
}

// descendantsByChildren walks /proc/PID/task/TID/children from root (a
// child launched by any thread is listed under that thread). ok is false
// when the kernel has no such files.
func descendantsByChildren(root int) (pids []int, ok bool) {
	queue := []int{root}
	seen := map[int]bool{root: true}
	for len(queue) > 0 && len(pids) < 4096 {
		pid := queue[0]
		queue = queue[1:]
		pids = append(pids, pid)
		tasks, err := os.ReadDir(filepath.Join("/proc", strconv.Itoa(pid), "task"))
		if err != nil {
			continue // ended meanwhile
		}
		for _, task := range tasks {
			raw, err := readProc(filepath.Join("/proc", strconv.Itoa(pid), "task", task.Name(), "children"))
			if err != nil {
				if os.IsNotExist(err) && pid == root && len(pids) == 1 {
					if _, err := os.Stat(filepath.Join("/proc", strconv.Itoa(pid))); err == nil {
						return nil, false
					}
				}
				continue
			}
			for _, f := range strings.Fields(string(raw)) {
				if c, err := strconv.Atoi(f); err == nil && !seen[c] {
					seen[c] = true
					queue = append(queue, c)
				}
			}
		}
	}
	return pids, true
}

// descendantsByScan finds root's descendants from every process's parent.
func descendantsByScan(root int) []int {
	entries, err := os.ReadDir("/proc")
	if err != nil {
		return nil
	}
	parent := map[int]int{}
	for _, e := range entries {
		pid, err := strconv.Atoi(e.Name())
		if err != nil {
			continue
		}
		raw, err := os.ReadFile(filepath.Join("/proc", e.Name(), "stat"))
		if err != nil {
			continue
		}
		i := bytes.LastIndexByte(raw, ')')
		if i < 0 {
			continue
		}
		f := strings.Fields(string(raw[i+1:]))
		if len(f) > 1 {
			pp, _ := strconv.Atoi(f[1])
			parent[pid] = pp
		}
	}
	var out []int
	for pid := range parent {
		for q, hops := parent[pid], 0; q > 0 && hops < 64; q, hops = parent[q], hops+1 {
			if q == root {
				out = append(out, pid)
				break
			}
		}
	}
	if _, ok := parent[root]; ok {
		out = append(out, root)
	}
	return out
}

// measure reads one process's RssAnon + RssShmem and whether it is a
// renderer.
func measure(pid int) (int64, bool) {
	dir := filepath.Join("/proc", strconv.Itoa(pid))
	raw, err := readProc(filepath.Join(dir, "status"))
	if err != nil {
		return 0, false
	}
	var total int64
	for line := range bytes.Lines(raw) {
		for _, key := range []string{"RssAnon:", "RssShmem:"} {
			if v, ok := bytes.CutPrefix(line, []byte(key)); ok {
				kb, _ := strconv.ParseInt(strings.TrimSuffix(strings.TrimSpace(string(v)), " kB"), 10, 64)
				total += kb << 10
			}
		}
	}
	cmd, _ := readProc(filepath.Join(dir, "cmdline"))
	return total, processKind(cmd) == "renderer"
}
