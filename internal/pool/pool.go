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
