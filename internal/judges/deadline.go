package judges

import (
	"context"
	"errors"
	"fmt"
	"time"

	"github.com/worldprobe/worldprobe/internal/browser"
	"github.com/worldprobe/worldprobe/internal/resolve"
	"github.com/worldprobe/worldprobe/internal/trial"
)

// ErrOverloaded reports that a page missed its deadline while the machine
// was overloaded, on every attempt, and a blank page could not run
// promptly either: the machine's fault, not the page's, so no verdict is
// recorded (compare again on a quieter machine).
var ErrOverloaded = errors.New("the machine was too overloaded to judge the page")

// Machine is how a judge that loads pages tells the machine's trouble from
// the page's, as trial.Runner does: a page that misses its deadline while
// the machine is overloaded (trial.OverloadPerCore) is looked at again
// with the deadline doubled, up to trial.DefaultRetries times; when it
// still misses it under overload, a blank page must load and step within a
// twentieth of the deadline (at least trial.HealthWithin) for the timeout
// to be the page's, else the judge returns ErrOverloaded.
type Machine struct {
	// Load is the 1-minute load average per core; nil reads /proc/loadavg.
	Load func() float64
	// Healthy reports whether a blank page runs within the time; nil
	// probes the browser.
	Healthy func(ctx context.Context, within time.Duration) bool
}

// withDeadline calls look with the page's deadline, and again as Machine
// says while the page misses it (look's bool) under overload.
func withDeadline[T any](ctx context.Context, m Machine, b *browser.Browser, res *resolve.Resolver, deadline time.Duration,
	look func(deadline time.Duration) (T, bool, error)) (T, error) {
	load := m.Load
	if load == nil {
		load = trial.LoadPerCore
	}
	for attempt := 0; ; attempt++ {
		v, missed, err := look(deadline)
		if err != nil || !missed {
			return v, err
		}
		l := load()
		if l <= trial.OverloadPerCore {
			return v, nil
		}
		if attempt < trial.DefaultRetries {
			deadline *= 2
			continue
		}
		within := max(trial.HealthWithin, deadline/20)
		healthy := m.Healthy
		if healthy == nil {
			healthy = func(ctx context.Context, within time.Duration) bool { return trial.ProbeHealth(ctx, b, res, within) }
		}
		if healthy(ctx, within) {
			return v, nil
		}
		var zero T
		return zero, fmt.Errorf("%w: it missed its %s deadline %d times with %.1f load per core, and a blank page did not run within %s either",
			ErrOverloaded, deadline, attempt+1, l, within)
	}
}
