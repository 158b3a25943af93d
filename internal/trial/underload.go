package trial

import (
	"context"
	"fmt"
	"time"

	"github.com/worldprobe/worldprobe/internal/browser"
	"github.com/worldprobe/worldprobe/internal/resolve"
)

// Machine is how a harness that loads pages tells the machine's trouble
// from the page's, as Runner does: a page that misses its deadline while
// the machine is overloaded (OverloadPerCore) is tried again with the
// deadline doubled, up to DefaultRetries times; when it still misses it
// under overload, a blank page must load and step within a twentieth of
// the deadline (at least HealthWithin) for the timeout to be the page's.
type Machine struct {
	// Retries is how many times a deadline missed under overload is tried
	// again; 0 means DefaultRetries, < 0 none.
	Retries int
	// Load is the 1-minute load average per core; nil reads /proc/loadavg.
	Load func() float64
	// Healthy reports whether a blank page runs within the time; nil
	// probes the browser.
	Healthy func(ctx context.Context, within time.Duration) bool
}

// OwnTimeout says why a missed deadline stands as the page's own: the
// load per core when it was missed and, after the retries, the time the
// blank page ran within (0 when the machine was not overloaded).
type OwnTimeout struct {
	Load   float64
	Within time.Duration
}

// RetryUnderLoad calls attempt with deadline, and again as m says while
// the attempt misses it (attempt's bool) under overload, calling before
// (if not nil) with the missed deadline and the load before each retry.
// It returns the last attempt's value and, when that attempt missed its
// deadline, why the miss is the page's own; when the blank page is slow
// too, it returns an error wrapping overloaded instead: the machine's
// fault, not the page's.
func RetryUnderLoad[T any](ctx context.Context, m Machine, b *browser.Browser, res *resolve.Resolver, deadline time.Duration, overloaded error,
	attempt func(deadline time.Duration) (T, bool, error), before func(missed time.Duration, load float64) error) (T, *OwnTimeout, error) {
	load := m.Load
	if load == nil {
		load = LoadPerCore
	}
	retries := m.Retries
	if retries == 0 {
		retries = DefaultRetries
	}
	for n := 0; ; n++ {
		v, missed, err := attempt(deadline)
		if err != nil || !missed {
			return v, nil, err
		}
		l := load()
		if l <= OverloadPerCore {
			return v, &OwnTimeout{Load: l}, nil
		}
		if n < retries {
			if before != nil {
				if err := before(deadline, l); err != nil {
					var zero T
					return zero, nil, err
				}
			}
			deadline *= 2
			continue
		}
		within := max(HealthWithin, deadline/20)
		healthy := m.Healthy
		if healthy == nil {
			healthy = func(ctx context.Context, within time.Duration) bool { return ProbeHealth(ctx, b, res, within) }
		}
		if healthy(ctx, within) {
			return v, &OwnTimeout{Load: l, Within: within}, nil
		}
		var zero T
		return zero, nil, fmt.Errorf("%w: it missed its %s deadline %d times with %.1f load per core, and a blank page did not run within %s either",
			overloaded, deadline, n+1, l, within)
	}
}
