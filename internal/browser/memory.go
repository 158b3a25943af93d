package browser

import (
	"bytes"
	"context"
	"fmt"
	"log/slog"
	"os"
	"path/filepath"
	"runtime"
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

// MaxBlobBudget is the most bytes of live Blobs one page may hold.
//
// Chromium keeps the bytes of every Blob in the browser process, not in the
// renderer the watchdog measures, under one in-memory limit for the whole
// browser (about 2 GiB: 31 Blobs of 64 MiB stayed readable, the rest read as
// NotReadableError). A page hoarding Blobs held 1.7 GiB there past its
// renderer's 768 MiB share, and a neighbour's Blobs would then have failed.
// So each page's runtime refuses a Blob past its budget
// (QuotaExceededError): 256 MiB, or the page's share when that is smaller,
// which keeps four pages at once well inside Chromium's limit (with more
// pages at once each gets less: BrowserBlobBudget).
const MaxBlobBudget int64 = 256 << 20

// BrowserBlobBudget is the most bytes of live Blobs all the pages of one
// browser may hold together: about half of Chromium's in-memory limit for
// Blobs (see MaxBlobBudget), so that a page at its budget never makes a
// neighbour's Blobs unreadable, however many pages run at once.
const BrowserBlobBudget int64 = 1 << 30

// BlobBudget is the most bytes of live Blobs one page may hold with pages
// pages at once: MaxBlobBudget, its memory share, or its share of
// BrowserBlobBudget, whichever is smallest; 0 when pages have no memory
// cap.
func (m MemoryLimits) BlobBudget(pages int) int64 {
	if m.PerPage < 0 {
		return 0
	}
	b := min(MaxBlobBudget, m.PerPage)
	if pages > 0 {
		b = min(b, BrowserBlobBudget/int64(pages))
	}
	return b
}

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
		m.Total = int64(jobs)*per + browserReserve
		if avail := availableMemory(); avail > 0 && avail*3/4 < m.Total {
			m.Total = avail * 3 / 4
		}
	}
	return m
}

// browserReserve is the memory allowed for the browser's processes beside
// its pages (the GPU process, utilities, the browser itself).
const browserReserve int64 = 2 << 30

// DefaultJobs is how many pages run at once when a command is not told:
// one more than the machine's cores, as long as that many pages at their
// memory cap (DefaultPageMemory) and 2 GiB for the rest fit in the memory
// available now; at least 1. The extra page fills the time a trial leaves
// its core idle, waiting on real frames (rAF-aligned input, screenshots)
// and on the network settling: with one page per core the cores were
// about 75 % busy (docs/PERFORMANCE.md, "The idle quarter").
func DefaultJobs() int {
	n := runtime.NumCPU() + 1
	if avail := availableMemory(); avail > 0 {
		n = min(n, int((avail-browserReserve)/DefaultPageMemory))
	}
	return max(1, n)
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

	// walk and kinds make a check cheap (check runs every 100 ms, and
	// reading every thread's children file of every process was most of
	// the harness's own CPU): only check's goroutine uses them.
	walk  treeWalk
	kinds map[int]string // pid → its processKind, for the processes of the last walk
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
	procs := w.tree()
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

// tree lists w.root and its descendants with their memory: resident
// anonymous plus shared memory (RssAnon + RssShmem), which is what
// ArrayBuffers, heaps and shared-memory textures take; libraries mapped by
// every process are not counted again in each. /proc/PID/status stays
// readable for processes that made themselves undumpable (sandboxed ones).
// The tree is found by w.walk and each process's kind is read once.
func (w *memoryWatch) tree() []process {
	if w.walk.root == 0 {
		w.walk.root = w.root
	}
	pids := w.walk.descendants()
	kinds := make(map[int]string, len(pids))
	out := make([]process, 0, len(pids))
	for _, pid := range pids {
		var kind string
		p := process{pid: pid}
		p.bytes, kind = measureMemory(pid, w.kinds[pid])
		p.renderer = kind == "renderer"
		kinds[pid] = kind
		out = append(out, p)
	}
	w.kinds = kinds
	return out
}

// fullWalkEvery is how often treeWalk reads every thread's children file
// of every process again (each tenth walk: once a second for the memory
// watch).
const fullWalkEvery = 10

// treeWalk finds root and its descendants like descendantsByChildren, but
// reads a process's children files only for the threads that had started
// a child when it last read them all: Chromium starts processes from one
// or two threads of a parent (the browser's process launcher, a zygote's
// main thread), and a renderer, with dozens of threads, starts none. It
// reads all of a process's threads when it first sees that process, and
// of every process on every fullWalkEvery-th walk, so a child started by
// a thread not known yet is found within that many walks.
type treeWalk struct {
	root     int
	walks    int
	spawners map[int][]string // pid → its threads that had children
}

// descendants lists root and its descendants (descendantsByScan where the
// kernel has no children files).
func (t *treeWalk) descendants() []int {
	if pids, ok := t.walk(); ok {
		return pids
	}
	return descendantsByScan(t.root)
}

// walk lists root and its descendants by the children files; ok is false
// when the kernel has none.
func (t *treeWalk) walk() (pids []int, ok bool) {
	full := t.walks%fullWalkEvery == 0
	t.walks++
	if t.spawners == nil {
		t.spawners = map[int][]string{}
	}
	queue := []int{t.root}
	seen := map[int]bool{t.root: true}
	spawners := make(map[int][]string, len(t.spawners))
	for len(queue) > 0 && len(pids) < 4096 {
		pid := queue[0]
		queue = queue[1:]
		pids = append(pids, pid)
		dir := filepath.Join("/proc", strconv.Itoa(pid), "task")
		tasks, known := t.spawners[pid]
		if full || !known {
			entries, err := os.ReadDir(dir)
			if err != nil {
				continue // ended meanwhile
			}
			tasks = tasks[:0:0]
			for _, e := range entries {
				tasks = append(tasks, e.Name())
			}
		}
		var had []string
		for _, task := range tasks {
			raw, err := readProc(filepath.Join(dir, task, "children"))
			if err != nil {
				if os.IsNotExist(err) && pid == t.root && len(pids) == 1 {
					if _, err := os.Stat(filepath.Join("/proc", strconv.Itoa(pid))); err == nil {
						return nil, false
					}
				}
				continue
			}
			kids := strings.Fields(string(raw))
			if len(kids) > 0 {
				had = append(had, task)
			}
			for _, f := range kids {
				if c, err := strconv.Atoi(f); err == nil && !seen[c] {
					seen[c] = true
					queue = append(queue, c)
				}
			}
		}
		if full || !known {
			spawners[pid] = had
		} else {
			spawners[pid] = tasks
		}
	}
	t.spawners = spawners
	return pids, true
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
// child launched by any thread is listed under that thread): a fresh
// treeWalk, whose first walk reads every thread. ok is false when the
// kernel has no such files.
func descendantsByChildren(root int) (pids []int, ok bool) {
	return (&treeWalk{root: root}).walk()
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
		raw, err := readProc(filepath.Join("/proc", e.Name(), "stat"))
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

// measureMemory reads one process's RssAnon + RssShmem and its processKind.
// A kind already read (known) is not read again, unless it was "zygote",
// "browser" or unknown: a process forked by the zygote or the browser
// shows its parent's command line until it renames itself or runs
// Chromium again (a renderer's "--type=renderer").
func measureMemory(pid int, known string) (int64, string) {
	dir := filepath.Join("/proc", strconv.Itoa(pid))
	raw, err := readProc(filepath.Join(dir, "status"))
	if err != nil {
		return 0, ""
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
	if known != "" && known != "zygote" && known != "browser" {
		return total, known
	}
	cmd, err := readProc(filepath.Join(dir, "cmdline"))
	if err != nil || len(cmd) == 0 {
		return total, "" // read again next time
	}
	return total, processKind(cmd)
}
