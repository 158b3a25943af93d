package pool

import (
	"context"
	"errors"
	"sync/atomic"
	"testing"
	"time"

	"github.com/stretchr/testify/require"
)

func TestMapRunsEveryIndexWithinTheLimit(t *testing.T) {
	var running, peak atomic.Int32
	var got []int
	err := Map(context.Background(), 3, 20, func(ctx context.Context, i int) (int, error) {
		n := running.Add(1)
		for {
			p := peak.Load()
			if n <= p || peak.CompareAndSwap(p, n) {
				break
			}
		}
		time.Sleep(2 * time.Millisecond)
		running.Add(-1)
		return i * i, nil
	}, func(i, r int) error {
		require.Equal(t, i*i, r)
		got = append(got, i) // no lock: done is called one at a time
		return nil
	})
	require.NoError(t, err)
	require.Len(t, got, 20)
	require.ElementsMatch(t, []int{0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15, 16, 17, 18, 19}, got)
	require.LessOrEqual(t, peak.Load(), int32(3))
	require.Equal(t, int32(3), peak.Load(), "3 jobs run at once when there is work for them")
}

func TestMapZeroJobsMeansOne(t *testing.T) {
	var running, peak atomic.Int32
	require.NoError(t, Each(context.Background(), 0, 5, func(ctx context.Context, i int) error {
		peak.Store(max(peak.Load(), running.Add(1)))
		time.Sleep(time.Millisecond)
		running.Add(-1)
		return nil
	}))
	require.Equal(t, int32(1), peak.Load())
}

func TestMapFirstErrorStopsTheRest(t *testing.T) {
	boom := errors.New("boom")
	var started atomic.Int32
	err := Map(context.Background(), 1, 100, func(ctx context.Context, i int) (int, error) {
		started.Add(1)
		if i == 2 {
			return 0, boom
		}
		return i, nil
	}, nil)
	require.ErrorIs(t, err, boom)
	require.Equal(t, int32(3), started.Load(), "with one job, nothing starts after the failure")

	// An error from done stops the pool too.
	saveErr := errors.New("disk full")
	var saved atomic.Int32
	err = Map(context.Background(), 1, 10, func(ctx context.Context, i int) (int, error) { return i, nil },
		func(i, r int) error {
			saved.Add(1)
			if i == 1 {
				return saveErr
			}
			return nil
		})
	require.ErrorIs(t, err, saveErr)
	require.Equal(t, int32(2), saved.Load())
}

func TestMapInterruptedReturnsTheContextsError(t *testing.T) {
	ctx, cancel := context.WithCancel(context.Background())
	var started atomic.Int32
	err := Map(ctx, 2, 50, func(ctx context.Context, i int) (int, error) {
		started.Add(1)
		if i < 3 {
			return i, nil
		}
		if i == 3 {
			cancel()
		}
		<-ctx.Done()
		return 0, errors.New("page call cancelled") // what a trial returns when interrupted
	}, nil)
	require.ErrorIs(t, err, context.Canceled, "an interruption, not the work's own failure")
	require.LessOrEqual(t, started.Load(), int32(5), "no new work after the interruption")
}

func TestMapUntilAStopEndsTheJobCleanly(t *testing.T) {
	budget := errors.New("run budget reached")
	var started atomic.Int32
	var got []int
	stop, err := MapUntil(context.Background(), 1, 10, func(ctx context.Context, i int) (int, error, error) {
		started.Add(1)
		if i == 3 {
			return 30, budget, nil // the work finished before the budget ran out is handed over
		}
		return i * 10, nil, nil
	}, func(i, r int) error {
		got = append(got, r)
		return nil
	})
	require.NoError(t, err)
	require.ErrorIs(t, stop, budget)
	require.Equal(t, []int{0, 10, 20, 30}, got)
	require.Equal(t, int32(4), started.Load(), "nothing starts after the stop")

	// Two stops: the first is kept; a failure wins over a stop.
	first, second := errors.New("first"), errors.New("second")
	stop, err = MapUntil(context.Background(), 1, 5, func(ctx context.Context, i int) (int, error, error) {
		switch i {
		case 0:
			return 0, first, nil
		case 1:
			return 0, second, nil
		}
		return i, nil, nil
	}, nil)
	require.NoError(t, err)
	require.Equal(t, first, stop)

	boom := errors.New("boom")
	stop, err = MapUntil(context.Background(), 1, 5, func(ctx context.Context, i int) (int, error, error) {
		if i == 1 {
			return 0, nil, boom
		}
		return i, nil, nil
	}, nil)
	require.ErrorIs(t, err, boom)
	require.NoError(t, stop)
}
