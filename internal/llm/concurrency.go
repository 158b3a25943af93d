package llm

import (
	"context"
	"sync"
	"time"
)

// Adaptive concurrency tuning: a burst is burstThreshold 429 answers
// within burstWindow; each burst halves the limit. The limit climbs back
// by one after recoverFactor×limit successes in a row.
const (
	burstThreshold = 2
	burstWindow    = 10 * time.Second
	recoverFactor  = 2
)

// adaptiveLimiter bounds the calls in flight to one provider and adapts
// the bound: multiplicative decrease on bursts of 429, slow additive
// increase on success.
type adaptiveLimiter struct {
	mu        sync.Mutex
	max       int
	limit     int
	inflight  int
	successes int
	hits      []time.Time
	changed   chan struct{}
	clock     Clock
}

func newAdaptiveLimiter(maxInFlight int, clock Clock) *adaptiveLimiter {
	maxInFlight = max(maxInFlight, 1)
	return &adaptiveLimiter{max: maxInFlight, limit: maxInFlight, changed: make(chan struct{}), clock: clock}
}

// acquire waits for a free slot.
func (l *adaptiveLimiter) acquire(ctx context.Context) error {
	for {
		l.mu.Lock()
		if l.inflight < l.limit {
			l.inflight++
			l.mu.Unlock()
			return nil
		}
		ch := l.changed
		l.mu.Unlock()
		select {
		case <-ctx.Done():
			return ctx.Err()
		case <-ch:
		}
	}
}

// release frees a slot.
func (l *adaptiveLimiter) release() {
	l.mu.Lock()
	l.inflight--
	l.broadcastLocked()
	l.mu.Unlock()
}

func (l *adaptiveLimiter) broadcastLocked() {
	close(l.changed)
	l.changed = make(chan struct{})
}

// rateLimited notes a 429 and reports the new limit when it was cut.
func (l *adaptiveLimiter) rateLimited() (limit int, cut bool) {
	l.mu.Lock()
	defer l.mu.Unlock()
	now := l.clock.Now()
	recent := l.hits[:0]
	for _, t := range l.hits {
		if now.Sub(t) < burstWindow {
			recent = append(recent, t)
		}
	}
	l.hits = append(recent, now)
	l.successes = 0
	if len(l.hits) < burstThreshold || l.limit == 1 {
		return l.limit, false
	}
	l.hits = nil
	l.limit = max(l.limit/2, 1)
	return l.limit, true
}

// succeeded notes a success and raises the limit slowly.
func (l *adaptiveLimiter) succeeded() {
	l.mu.Lock()
	defer l.mu.Unlock()
	if l.limit >= l.max {
		return
	}
	l.successes++
	if l.successes >= recoverFactor*l.limit {
		l.successes = 0
		l.limit++
		l.broadcastLocked()
	}
}

// current returns the limit in force.
func (l *adaptiveLimiter) current() int {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.limit
}
