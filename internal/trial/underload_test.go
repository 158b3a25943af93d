package trial

import (
	"context"
	"errors"
	"testing"
	"time"

	"github.com/stretchr/testify/require"
)

// TestRetryUnderLoad: a missed deadline on a quiet machine stands at once;
// under overload it is tried again with the deadline doubled, twice, then
// stands if a blank page runs in time and is the machine's fault if not.
func TestRetryUnderLoad(t *testing.T) {
	ctx := context.Background()
	errBusy := errors.New("busy")
	var deadlines, befores []time.Duration
	missAlways := func(d time.Duration) (int, bool, error) {
		deadlines = append(deadlines, d)
		return len(deadlines), true, nil
	}
	before := func(missed time.Duration, load float64) error {
		require.Equal(t, 4.0, load)
		befores = append(befores, missed)
		return nil
	}
	quiet := Machine{Load: func() float64 { return 0.5 }}
	v, own, err := RetryUnderLoad(ctx, quiet, nil, nil, time.Second, errBusy, missAlways, before)
	require.NoError(t, err)
	require.Equal(t, 1, v)
	require.Equal(t, &OwnTimeout{Load: 0.5}, own)
	require.Empty(t, befores)

	var within time.Duration
	busy := Machine{Load: func() float64 { return 4 }, Healthy: func(_ context.Context, w time.Duration) bool { within = w; return true }}
	deadlines = nil
	v, own, err = RetryUnderLoad(ctx, busy, nil, nil, 400*time.Second, errBusy, missAlways, before)
	require.NoError(t, err)
	require.Equal(t, 3, v, "the last attempt's value")
	require.Equal(t, []time.Duration{400 * time.Second, 800 * time.Second, 1600 * time.Second}, deadlines)
	require.Equal(t, []time.Duration{400 * time.Second, 800 * time.Second}, befores)
	require.Equal(t, 80*time.Second, within, "a twentieth of the last deadline")
	require.Equal(t, &OwnTimeout{Load: 4, Within: 80 * time.Second}, own)

	busy.Healthy = func(context.Context, time.Duration) bool { return false }
	deadlines, befores = nil, nil
	v, own, err = RetryUnderLoad(ctx, busy, nil, nil, time.Second, errBusy, missAlways, before)
	require.ErrorIs(t, err, errBusy)
	require.EqualError(t, err, "busy: it missed its 4s deadline 3 times with 4.0 load per core, and a blank page did not run within 10s either")
	require.Zero(t, v)
	require.Nil(t, own)

	v, own, err = RetryUnderLoad(ctx, busy, nil, nil, time.Second, errBusy, func(time.Duration) (int, bool, error) { return 7, false, nil }, before)
	require.NoError(t, err)
	require.Equal(t, 7, v)
	require.Nil(t, own, "an attempt that met its deadline")

	_, _, err = RetryUnderLoad(ctx, busy, nil, nil, time.Second, errBusy, missAlways, func(time.Duration, float64) error { return errors.New("cannot clear") })
	require.EqualError(t, err, "cannot clear")

	// Machine.Retries: one retry, or none (< 0).
	busy.Healthy = func(context.Context, time.Duration) bool { return true }
	for _, c := range []struct {
		retries int
		want    []time.Duration
	}{{1, []time.Duration{time.Second, 2 * time.Second}}, {-1, []time.Duration{time.Second}}} {
		busy.Retries = c.retries
		deadlines, befores = nil, nil
		v, own, err = RetryUnderLoad(ctx, busy, nil, nil, time.Second, errBusy, missAlways, before)
		require.NoError(t, err)
		require.Equal(t, len(c.want), v)
		require.Equal(t, c.want, deadlines, "retries %d", c.retries)
		require.Equal(t, c.want[:len(c.want)-1], append([]time.Duration{}, befores...))
		require.Equal(t, &OwnTimeout{Load: 4, Within: HealthWithin}, own)
	}
}
