package browser

import (
	"fmt"
	"io"
	"maps"
	"os"
	"slices"
	"sync"
	"syscall"
	"time"
)

// EnvCPULedger, when set to anything, makes Launch keep a CPU ledger:
// Browser.Charge then attributes the CPU time of the browser's processes
// and of the harness to named phases (docs/PERFORMANCE.md, "A trial's
// CPU, all of it"). Attribution is only meaningful with one job at a time.
const EnvCPULedger = "WORLDPROBE_CPU_LEDGER"

// ledger is CPU time by phase and kind of process. Only the outermost
// Charge of nested ones counts, so a phase's time is its own and its
// callees'.
type ledger struct {
	mu       sync.Mutex
	depth    int
	phase    string
	start    pidTimes
	self     time.Duration
	byPhase  map[string]CPUTimes
	counts   map[string]int
	began    time.Time
	wall     map[string]time.Duration
	launched time.Time
	first    pidTimes
	first0   time.Duration
	peak     pidTimes
}

// pidTimes is one reading of every live browser process: pid → kind and
// CPU time.
type pidTimes map[int]kindTime

type kindTime struct {
	kind string
	t    time.Duration
}

func (b *Browser) readPIDs() pidTimes {
	out := pidTimes{}
	root := b.PID()
	if root == 0 {
		return out
	}
	for _, pid := range descendants(root) {
		if kind, t, ok := cpuOf(pid); ok {
			out[pid] = kindTime{kind, t}
		}
	}
	return out
}

// since is, by kind, the CPU time used from earlier to now: a process new
// since earlier counts from zero; one that ended is left out (its last
// moments are lost).
func (now pidTimes) since(earlier pidTimes) CPUTimes {
	out := CPUTimes{}
	for pid, kt := range now {
		prev := earlier[pid]
		if prev.kind != "" && prev.kind != kt.kind {
			prev = kindTime{}
		}
		if d := kt.t - prev.t; d > 0 {
			out[kt.kind] += d
		}
	}
	return out
}

// Charge starts attributing CPU time to phase and returns the function
// that ends it. Without a ledger (EnvCPULedger unset) it does nothing.
func (b *Browser) Charge(phase string) (end func()) {
	l := b.ledger
	if l == nil {
		return func() {}
	}
	l.mu.Lock()
	defer l.mu.Unlock()
	l.depth++
	if l.depth > 1 {
		return l.leave
	}
	l.phase, l.start, l.self, l.began = phase, b.readPIDs(), processCPU(), time.Now()
	l.note(l.start)
	return func() {
		l.mu.Lock()
		defer l.mu.Unlock()
		l.depth--
		if l.depth > 0 {
			return
		}
		self := processCPU() // before the reading, which is the ledger's own cost
		now := b.readPIDs()
		l.note(now)
		used := now.since(l.start)
		used["harness"] = self - l.self
		acc := l.byPhase[l.phase]
		if acc == nil {
			acc = CPUTimes{}
			l.byPhase[l.phase] = acc
		}
		for k, v := range used {
			acc[k] += v
		}
		l.counts[l.phase]++
		l.wall[l.phase] += time.Since(l.began)
	}
}

func (l *ledger) leave() {
	l.mu.Lock()
	l.depth--
	l.mu.Unlock()
}

// note keeps every process's highest reading, for the total.
func (l *ledger) note(now pidTimes) {
	for pid, kt := range now {
		if p, ok := l.peak[pid]; !ok || p.kind != kt.kind || p.t < kt.t {
			l.peak[pid] = kt
		}
	}
}

// WriteCPULedger prints the ledger (phase, count, CPU by kind) and the
// total since Launch to w; it prints nothing without a ledger.
func (b *Browser) WriteCPULedger(w io.Writer) {
	l := b.ledger
	if l == nil {
		return
	}
	l.mu.Lock()
	defer l.mu.Unlock()
	l.note(b.readPIDs())
	total := l.peak.since(l.first)
	total["harness"] = processCPU() - l.first0
	var charged, wall time.Duration
	fmt.Fprintf(w, "CPU ledger (ms; %d phases), each with its own wall time:\n", len(l.byPhase))
	for _, phase := range slices.Sorted(maps.Keys(l.byPhase)) {
		c := l.byPhase[phase]
		var sum time.Duration
		for _, v := range c {
			sum += v
		}
		charged += sum
		wall += l.wall[phase]
		fmt.Fprintf(w, "  %-28s %5d× wall %7.0f total %7.0f: %s\n", phase, l.counts[phase], ms(l.wall[phase]), ms(sum), c.format())
	}
	var all time.Duration
	for _, v := range total {
		all += v
	}
	fmt.Fprintf(w, "  %-28s        wall %7.0f total %7.0f (charged to phases %.0f in %.0f wall): %s\n", "all since launch", ms(time.Since(l.launched)), ms(all), ms(charged), ms(wall), total.format())
}

func (c CPUTimes) format() string {
	kinds := slices.SortedFunc(maps.Keys(c), func(a, b string) int { return int(c[b] - c[a]) })
	s := ""
	for i, k := range kinds {
		if i > 0 {
			s += ", "
		}
		s += fmt.Sprintf("%s %.0f", k, ms(c[k]))
	}
	return s
}

func ms(d time.Duration) float64 { return float64(d.Microseconds()) / 1000 }

// processCPU is this process's CPU time (user + system).
func processCPU() time.Duration {
	var ru syscall.Rusage
	if syscall.Getrusage(syscall.RUSAGE_SELF, &ru) != nil {
		return 0
	}
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
}

func newLedger(b *Browser) *ledger {
	if os.Getenv(EnvCPULedger) == "" {
		return nil
	}
	first := b.readPIDs()
	l := emptyLedger()
	l.first0, l.peak = processCPU(), first
	return l
}

// emptyLedger is a ledger with nothing charged yet, started now.
func emptyLedger() *ledger {
	return &ledger{byPhase: map[string]CPUTimes{}, counts: map[string]int{}, wall: map[string]time.Duration{},
		launched: time.Now(), first: pidTimes{}, peak: pidTimes{}}
}

// CPUReading is the CPU time used so far by every live process of a
// browser and by the harness (ReadCPU).
type CPUReading struct {
	pids pidTimes
	self time.Duration
}

// ReadCPU reads the CPU time of the browser's live processes (from /proc;
// none where it cannot be read) and of this process, with or without a
// ledger. With several pages at once the browser's time is theirs too.
func (b *Browser) ReadCPU() CPUReading {
	return CPUReading{pids: b.readPIDs(), self: processCPU()}
}

// Since is the CPU time used from earlier to r, every process together (a
// process that ended in between is left out).
func (r CPUReading) Since(earlier CPUReading) time.Duration {
	d := r.self - earlier.self
	for _, t := range r.pids.since(earlier.pids) {
		d += t
	}
	return d
}
