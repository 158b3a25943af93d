package llm

import (
	"context"
	"sync"
	"time"
)

// bucket is a token bucket refilled continuously at perMinute/60 per
// second, holding at most one minute's worth. A nil bucket never waits.
type bucket struct {
	mu       sync.Mutex
	rate     float64 // units per second
	capacity float64
	level    float64
	last     time.Time
	clock    Clock
}

func newBucket(perMinute int, clock Clock) *bucket {
	if perMinute <= 0 {
		return nil
	}
	c := float64(perMinute)
	return &bucket{rate: c / 60, capacity: c, level: c, last: clock.Now(), clock: clock}
}

func (b *bucket) refillLocked() {
	now := b.clock.Now()
	if el := now.Sub(b.last).Seconds(); el > 0 {
		b.level = min(b.capacity, b.level+el*b.rate)
	}
	b.last = now
}

// take waits until n units are available and takes them; onWait is told
// each wait before it starts.
func (b *bucket) take(ctx context.Context, n float64, onWait func(time.Duration)) error {
	if b == nil {
		return nil
	}
	n = min(n, b.capacity)
	for {
		b.mu.Lock()
		b.refillLocked()
		if b.level >= n {
			b.level -= n
			b.mu.Unlock()
			return nil
		}
		wait := time.Duration((n - b.level) / b.rate * float64(time.Second))
		b.mu.Unlock()
		if onWait != nil {
			onWait(wait)
		}
		if err := b.clock.Sleep(ctx, max(wait, time.Millisecond)); err != nil {
			return err
		}
	}
}

// charge takes n more units (or gives back -n) without waiting, to settle
// an estimate against actual usage. The level may go negative.
func (b *bucket) charge(n float64) {
	if b == nil {
		return
	}
	b.mu.Lock()
	defer b.mu.Unlock()
	b.refillLocked()
	b.level = min(b.capacity, b.level-n)
}
