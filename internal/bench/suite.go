package bench

import (
	"context"
	"fmt"
	"os"
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
}

// Suite judges the suite's references and fixtures twice, on the virtual
// and on the real clock, and compares speed and verdicts.
func Suite(ctx context.Context, b *browser.Browser, res *resolve.Resolver, dir string, progress func(string)) (*SuiteResult, error) {
	tasks, err := task.LoadSuite(dir)
	if err != nil {
		return nil, err
	}
	plan, err := run.Plan(tasks, []run.Source{{Model: "oracle", Oracle: true}, {Model: "fixtures", Fixtures: true}}, 1)
	if err != nil {
		return nil, err
	}
	out := &SuiteResult{Suite: dir, Trials: len(plan), Jobs: b.Jobs()}
	verdicts := map[bool]map[string]string{}
	for _, realtime := range []bool{false, true} {
		progress(fmt.Sprintf("suite %s, real clock: %t", dir, realtime))
		tmp, err := os.MkdirTemp("", "worldprobe-bench-")
		if err != nil {
			return nil, err
		}
		start := time.Now()
		sum, err := run.Execute(ctx, run.Options{Out: tmp, Plan: plan, Jobs: b.Jobs(),
			Config: run.Config{Suite: dir, Repeat: 1},
			Judge:  &trial.Judge{Browser: b, Resolver: res, SkipDraw: !realtime, RealTime: realtime}})
		wall := time.Since(start)
		os.RemoveAll(tmp)
		if err != nil {
			return nil, err
		}
		verdicts[realtime] = map[string]string{}
		var vcov float64
		var n int
		for _, t := range sum.Trials {
			sig := t.Outcome + t.CrashKind
			for _, a := range t.Assertions {
				sig += "|" + a.Probe + ":" + a.Status
			}
			verdicts[realtime][t.Key] = sig
			if t.Model == "oracle" {
				vcov += t.VCov
				n++
			}
		}
		if n > 0 {
			vcov /= float64(n)
		}
		if realtime {
			out.RealTimeMs, out.RealTimePerMinute, out.OracleVCovRealTime = ms(wall), float64(len(plan))/wall.Minutes(), vcov
		} else {
			out.VirtualMs, out.VirtualPerMinute, out.OracleVCovVirtual = ms(wall), float64(len(plan))/wall.Minutes(), vcov
		}
	}
	for k, v := range verdicts[false] {
		if verdicts[true][k] == v {
			out.SameVerdictTrials++
		}
	}
	return out, nil
}
