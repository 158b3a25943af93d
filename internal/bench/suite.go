package bench

import (
	"context"
	"fmt"
	"os"
	"sort"
	"time"

	"github.com/worldprobe/worldprobe/internal/browser"
	"github.com/worldprobe/worldprobe/internal/resolve"
	"github.com/worldprobe/worldprobe/internal/run"
	"github.com/worldprobe/worldprobe/internal/task"
	"github.com/worldprobe/worldprobe/internal/trial"
)

// SuiteResult compares judging a suite (oracle and fixtures) on the
// virtual clock with judging it on the real clock.
type SuiteResult struct {
	Suite  string `json:"suite"`
	Trials int    `json:"trials"`
	Jobs   int    `json:"jobs"`
	// VirtualMs and RealTimeMs are wall times of the two runs.
	VirtualMs          float64 `json:"virtual_ms"`
	RealTimeMs         float64 `json:"real_time_ms"`
	VirtualPerMinute   float64 `json:"virtual_trials_per_minute"`
	RealTimePerMinute  float64 `json:"real_time_trials_per_minute"`
	SameVerdictTrials  int     `json:"same_verdict_trials"`
	OracleVCovVirtual  float64 `json:"oracle_v_cov_virtual"`
	OracleVCovRealTime float64 `json:"oracle_v_cov_real_time"`
	// DifferentVerdicts lists the trials whose verdicts differ between the clocks.
	DifferentVerdicts []string `json:"different_verdicts"`
	// LoadAverage is the machine's mean 1-minute load average, sampled
	// before each task (0 where /proc/loadavg is unavailable): these
	// numbers mean little without it.
	LoadAverage float64 `json:"load_average"`
}

// oraclePassed reports whether every oracle trial of sum passed.
func oraclePassed(sum *run.Summary) bool {
	for _, tr := range sum.Trials {
		if tr.Model == "oracle" && !tr.Pass {
			return false
		}
	}
	return true
}

// loadAverage reads the 1-minute load average (Linux), or 0.
func loadAverage() float64 {
	b, err := os.ReadFile("/proc/loadavg")
	if err != nil {
		return 0
	}
	var l float64
	fmt.Sscanf(string(b), "%f", &l)
	return l
}

// Suite judges the references and fixtures of the tasks of dir (a suite,
// category or task folder) whose ids match patterns twice, on the virtual
// and on the real clock, and compares speed and verdicts. To share the
// machine's noise fairly, the two modes alternate task by task (each task's
// trials run with the browser's jobs, first on one clock, then on the other);
// the wall times are summed per mode.
func Suite(ctx context.Context, b *browser.Browser, res *resolve.Resolver, dir string, patterns []string, progress func(string)) (*SuiteResult, error) {
	tasks, err := task.Select([]string{dir}, patterns)
	if err != nil {
		return nil, err
	}
	sources := []run.Source{{Model: "oracle", Oracle: true}, {Model: "fixtures", Fixtures: true}}
	out := &SuiteResult{Suite: dir, Jobs: b.Jobs()}
	verdicts := map[bool]map[string]string{false: {}, true: {}}
	walls := map[bool]time.Duration{}
	vcov := map[bool][]float64{}
	for i, t := range tasks {
		plan, err := run.Plan([]*task.Task{t}, sources, 1)
		if err != nil {
			return nil, err
		}
		out.Trials += len(plan)
		out.LoadAverage += loadAverage() / float64(len(tasks))
		for _, realtime := range []bool{false, true} {
			progress(fmt.Sprintf("task %d/%d %s (%d trials), real clock: %t", i+1, len(tasks), t.ID, len(plan), realtime))
			tmp, err := os.MkdirTemp("", "worldprobe-bench-")
			if err != nil {
				return nil, err
			}
			start := time.Now()
			sum, err := run.Execute(ctx, run.Options{Out: tmp, Plan: plan, Jobs: b.Jobs(),
				Config: run.Config{Suite: dir, Repeat: 1},
				Runner: &trial.Runner{Browser: b, Resolver: res, SkipDraw: !realtime, RealTime: realtime}})
			wall := time.Since(start)
			walls[realtime] += wall
			os.RemoveAll(tmp)
			if err != nil {
				return nil, err
			}
			progress(fmt.Sprintf("task %s, real clock: %t: %d trials in %.1f s, oracle pass: %t (load average %.1f)", t.ID, realtime, len(plan), wall.Seconds(),
				oraclePassed(sum), loadAverage()))
			for _, tr := range sum.Trials {
				sig := tr.Outcome + tr.CrashKind
				for _, a := range tr.Assertions {
					sig += "|" + a.Probe + ":" + a.Status
				}
				verdicts[realtime][tr.Key] = sig
				if tr.Model == "oracle" {
					vcov[realtime] = append(vcov[realtime], tr.VCov)
				}
			}
		}
	}
	mean := func(xs []float64) float64 {
		if len(xs) == 0 {
			return 0
		}
		var s float64
		for _, x := range xs {
			s += x
		}
		return s / float64(len(xs))
	}
	out.VirtualMs, out.VirtualPerMinute, out.OracleVCovVirtual = ms(walls[false]), float64(out.Trials)/walls[false].Minutes(), mean(vcov[false])
	out.RealTimeMs, out.RealTimePerMinute, out.OracleVCovRealTime = ms(walls[true]), float64(out.Trials)/walls[true].Minutes(), mean(vcov[true])
	for k, v := range verdicts[false] {
		if verdicts[true][k] == v {
			out.SameVerdictTrials++
		} else {
			out.DifferentVerdicts = append(out.DifferentVerdicts, k)
		}
	}
	sort.Strings(out.DifferentVerdicts)
	return out, nil
}
