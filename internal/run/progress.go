package run

import (
	"fmt"
	"io"
	"strings"
	"time"

	"github.com/worldprobe/worldprobe/internal/result"
)

// progress prints a bar and one line per finished trial.
type progress struct {
	w     io.Writer
	total int
	n     int
	start time.Time
}

func newProgress(w io.Writer, total int) *progress {
	return &progress{w: w, total: total, start: time.Now()}
}

func (p *progress) done(t *result.Trial) {
	p.n++
	const width = 20
	filled := width * p.n / max(1, p.total)
	verdict := "pass"
	switch {
	case t.Outcome == result.OutcomeInfra:
		verdict = "infrastructure error (not scored)"
	case t.Outcome == result.OutcomeCrash:
		verdict = "crash (" + t.CrashKind + ")"
	case !t.Pass:
		verdict = fmt.Sprintf("fail %.0f%% %s", 100*t.VCov, t.Attribution)
	}
	eta := ""
	if p.n < p.total {
		left := time.Duration(float64(time.Since(p.start)) / float64(p.n) * float64(p.total-p.n))
		eta = fmt.Sprintf(" eta %s", left.Round(time.Second))
	}
	if t.Unjudged > 0 && t.Outcome == result.OutcomeOK {
		// Pass and V-Cov are over the judged assertions: say how many were not.
		verdict += fmt.Sprintf(" (judged assertions; %d unjudged)", t.Unjudged)
	}
	if t.Retries > 0 {
		verdict += fmt.Sprintf(", after %d %s", t.Retries, map[bool]string{true: "retry", false: "retries"}[t.Retries == 1])
	}
	fmt.Fprintf(p.w, "[%s%s] %d/%d %s %s/%s: %s (%.1fs)%s\n", strings.Repeat("#", filled), strings.Repeat(".", width-filled),
		p.n, p.total, t.Task, sourceID(t.Model, t.Repair), t.Candidate, verdict, t.DurationMs/1000, eta)
}

func (p *progress) finish() {
	if p.total > 0 {
		fmt.Fprintf(p.w, "%d trials in %s\n", p.n, time.Since(p.start).Round(time.Second))
	}
}
