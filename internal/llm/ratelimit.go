package llm

import (
	"context"
	"fmt"
	"sync"
	"time"
)

// SharedBuckets keeps rate-limit token buckets that many processes draw
// from — the workers of one run on many machines calling one provider —
// in a database (internal/sharedlimit: PostgreSQL, SQLite). A bucket is
// named by its provider, model and unit; it holds at most perMinute
// units and refills at perMinute per minute, continuously, as
// [BucketTake] computes. Without it ([WithSharedBuckets] not given) each
// registry keeps its buckets in memory.
type SharedBuckets interface {
	// Take takes n units from the bucket name when it holds them and
	// returns 0; otherwise it takes nothing and returns how long until it
	// will hold them. now is the caller's clock.
	Take(ctx context.Context, name string, perMinute int, n float64, now time.Time) (time.Duration, error)
	// Charge takes n more units (gives back -n) without waiting, to
	// settle an estimate against actual usage; the level may go negative.
	Charge(ctx context.Context, name string, perMinute int, n float64, now time.Time) error
}

// WithSharedBuckets makes every model's requests-per-minute and
// tokens-per-minute limits buckets in s, shared by every registry that
// uses s: one budget per provider and model, whatever the role.
func WithSharedBuckets(s SharedBuckets) Option { return func(st *settings) { st.shared = s } }

// BucketState is a token bucket's level and when it was last refilled.
type BucketState struct {
	Level float64
	At    time.Time
}

// FullBucket is a new bucket of perMinute units at now: full.
func FullBucket(perMinute int, now time.Time) BucketState {
	return BucketState{Level: float64(perMinute), At: now}
}

// BucketTake refills s (perMinute units a minute, at most perMinute held)
// up to now and takes n units when it holds them (n above the capacity
// counts as the capacity): it returns the new state and 0, or, when the
// bucket holds too few, the refilled state and how long until it will
// hold n. A clock going backwards refills nothing. It is the one
// bucket arithmetic of the in-memory and the shared limiters.
func BucketTake(s BucketState, perMinute int, n float64, now time.Time) (BucketState, time.Duration) {
	capacity := float64(perMinute)
	rate := capacity / 60
	if el := now.Sub(s.At).Seconds(); el > 0 {
		s.Level = min(capacity, s.Level+el*rate)
	}
	if now.After(s.At) {
		s.At = now
	}
	n = min(n, capacity)
	if s.Level >= n {
		s.Level -= n
		return s, 0
	}
	return s, max(time.Duration((n-s.Level)/rate*float64(time.Second)), time.Millisecond)
}

// BucketCharge refills s up to now and takes n more units (gives back -n)
// without waiting; the level may go negative, never above perMinute.
func BucketCharge(s BucketState, perMinute int, n float64, now time.Time) BucketState {
	s, _ = BucketTake(s, perMinute, 0, now)
	s.Level = min(float64(perMinute), s.Level-n)
	return s
}

// bucket is a token bucket refilled continuously at perMinute/60 per
// second, holding at most one minute's worth: in memory, or, with shared
// set, a bucket of SharedBuckets named name. A nil bucket never waits.
type bucket struct {
	mu        sync.Mutex
	perMinute int
	state     BucketState
	clock     Clock
	shared    SharedBuckets
	name      string
}

func newBucket(perMinute int, clock Clock) *bucket {
	if perMinute <= 0 {
		return nil
	}
	return &bucket{perMinute: perMinute, state: FullBucket(perMinute, clock.Now()), clock: clock}
}

// newSharedBucket is a bucket of shared named name; nil when perMinute is
// not positive.
func newSharedBucket(perMinute int, clock Clock, shared SharedBuckets, name string) *bucket {
	b := newBucket(perMinute, clock)
	if b != nil {
		b.shared, b.name = shared, name
	}
	return b
}

// take waits until n units are available and takes them; onWait is told
// each wait before it starts.
func (b *bucket) take(ctx context.Context, n float64, onWait func(time.Duration)) error {
	if b == nil {
		return nil
	}
	for {
		var wait time.Duration
		if b.shared != nil {
			var err error
			if wait, err = b.shared.Take(ctx, b.name, b.perMinute, n, b.clock.Now()); err != nil {
				return fmt.Errorf("llm: rate limit %s: %w", b.name, err)
			}
		} else {
			b.mu.Lock()
			b.state, wait = BucketTake(b.state, b.perMinute, n, b.clock.Now())
			b.mu.Unlock()
		}
		if wait == 0 {
			return nil
		}
		if onWait != nil {
			onWait(wait)
		}
		if err := b.clock.Sleep(ctx, wait); err != nil {
			return err
		}
	}
}

// charge takes n more units (or gives back -n) without waiting, to settle
// an estimate against actual usage. The level may go negative. A shared
// bucket that cannot be charged is left as it is: the estimate stands.
func (b *bucket) charge(ctx context.Context, n float64) {
	if b == nil {
		return
	}
	if b.shared != nil {
		_ = b.shared.Charge(ctx, b.name, b.perMinute, n, b.clock.Now())
		return
	}
	b.mu.Lock()
	defer b.mu.Unlock()
	b.state = BucketCharge(b.state, b.perMinute, n, b.clock.Now())
}
