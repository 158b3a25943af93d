// Package pool is the one bounded worker pool every command uses: run's
// trials, task check's tasks and mutants, inspect's pages and bench's
// rounds all go through Map, so that the rules are the same everywhere —
// at most jobs at once, results handed over one at a time, the first
// error stops the rest, an interruption stops feeding new work.
package pool

import (
	"context"
	"sync"

	"golang.org/x/sync/errgroup"
)

// Map calls work for every index 0 … n-1, at most jobs at a time (1 when
// jobs < 1), and done with each result as it finishes, one call at a time
// (so done may append, save and print without locks), in finishing order.
//
// The first error, from work or from done, cancels the context the other
// calls of work see, no new index starts, and Map returns that error once
// the running calls have returned. When ctx itself ends, no new index
// starts either and Map returns ctx's error: what the running calls
// returned because of it is not a failure of their own. done may be nil.
func Map[R any](ctx context.Context, jobs, n int, work func(ctx context.Context, i int) (R, error), done func(i int, r R) error) error {
	g, gctx := errgroup.WithContext(ctx)
	g.SetLimit(max(1, jobs))
	var mu sync.Mutex
	for i := 0; i < n; i++ {
		if gctx.Err() != nil {
			break
		}
		g.Go(func() error {
			if gctx.Err() != nil {
				return nil
			}
			r, err := work(gctx, i)
			if err != nil {
				return err
			}
			if done == nil {
				return nil
			}
			mu.Lock()
			defer mu.Unlock()
			if gctx.Err() != nil {
				return nil
			}
			return done(i, r)
		})
	}
	err := g.Wait()
	if ctx.Err() != nil {
		return ctx.Err()
	}
	return err
}

// Each is Map for work without a result.
func Each(ctx context.Context, jobs, n int, work func(ctx context.Context, i int) error) error {
	return Map(ctx, jobs, n, func(ctx context.Context, i int) (struct{}, error) { return struct{}{}, work(ctx, i) }, nil)
}

// MapUntil is Map for work that may end the whole job cleanly, as a run
// budget reached does: work returns a stop error for that. The first stop
// is kept, no new index starts, the calls under way finish and are handed
// to done like every call that returned no error (with a stop, work may
// return a zero result: done sees it), and MapUntil returns the stop with a
// nil err. A stop returned after ctx ended is ctx's error, not a stop. An
// err stops the rest at once, as in Map.
func MapUntil[R any](ctx context.Context, jobs, n int, work func(ctx context.Context, i int) (r R, stop, err error), done func(i int, r R) error) (stop, err error) {
	var mu sync.Mutex // guards stop
	stopped := func() bool {
		mu.Lock()
		defer mu.Unlock()
		return stop != nil
	}
	type result struct {
		r   R
		ran bool
	}
	err = Map(ctx, jobs, n, func(ctx context.Context, i int) (result, error) {
		if stopped() {
			return result{}, nil
		}
		r, s, err := work(ctx, i)
		if err != nil {
			return result{}, err
		}
		if s != nil && ctx.Err() == nil {
			mu.Lock()
			if stop == nil {
				stop = s
			}
			mu.Unlock()
		}
		return result{r, true}, nil
	}, func(i int, r result) error {
		if !r.ran || done == nil {
			return nil
		}
		return done(i, r.r)
	})
	if err != nil {
		return nil, err
	}
	return stop, nil
}
