package llm

import (
	"testing"
	"time"

	"github.com/stretchr/testify/require"
)

// The bucket arithmetic the in-memory and the shared limiters share:
// exact levels and waits at 60 a minute (1 a second).
func TestBucketTakeAndCharge(t *testing.T) {
	t0 := time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)
	s := FullBucket(60, t0)
	require.Equal(t, BucketState{Level: 60, At: t0}, s)
	s, wait := BucketTake(s, 60, 59.5, t0)
	require.Equal(t, time.Duration(0), wait)
	require.Equal(t, 0.5, s.Level)
	s, wait = BucketTake(s, 60, 1, t0)
	require.Equal(t, 500*time.Millisecond, wait, "half a unit short at 1 a second")
	require.Equal(t, 0.5, s.Level, "nothing taken")
	s, wait = BucketTake(s, 60, 1, t0.Add(500*time.Millisecond))
	require.Equal(t, time.Duration(0), wait)
	require.Equal(t, 0.0, s.Level)
	s, wait = BucketTake(s, 60, 1000, t0.Add(500*time.Millisecond))
	require.Equal(t, 60*time.Second, wait, "more than the capacity waits for a full bucket")
	s, _ = BucketTake(s, 60, 0, t0) // a clock going backwards refills nothing
	require.Equal(t, BucketState{Level: 0, At: t0.Add(500 * time.Millisecond)}, s)
	s = BucketCharge(s, 60, 3, t0.Add(1500*time.Millisecond))
	require.Equal(t, -2.0, s.Level, "a charge may go below zero")
	s = BucketCharge(s, 60, -100, t0.Add(1500*time.Millisecond))
	require.Equal(t, 60.0, s.Level, "a refund never goes past the capacity")
}
