package store

import (
	"context"
	"path/filepath"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/worldprobe/worldprobe/internal/result"
)

func TestSQLiteRoundTripAndReplace(t *testing.T) {
	ctx := context.Background()
	path := filepath.Join(t.TempDir(), "results.db")
	s, err := OpenSQLite(ctx, path)
	require.NoError(t, err)
	tr := &result.Trial{Key: "k1", Task: "simulation/bouncing-ball", Category: "simulation", Difficulty: "D2",
		Model: "oracle", Candidate: "c.html", Outcome: result.OutcomeOK, Pass: false, VCov: 0.5, ACov: 1, SCov: 0.5, TCov: 0,
		Attribution: "physics_violation", StartedAt: time.Date(2026, 1, 2, 3, 4, 5, 0, time.UTC),
		Assertions: []result.Assertion{{Probe: "p", Level: "state", Status: result.StatusPass, Message: ""},
			{Probe: "q", Level: "invariant", Status: result.StatusFail, Message: "x = 2, want < 1", Expr: "x < 1"}}}
	require.NoError(t, s.Save(ctx, tr))
	tr2 := *tr
	tr2.Key = "k0"
	require.NoError(t, s.Save(ctx, &tr2))
	tr.VCov = 1
	tr.Assertions = tr.Assertions[:1]
	require.NoError(t, s.Save(ctx, tr)) // replaces k1
	require.NoError(t, s.Close())

	s, err = OpenSQLite(ctx, path) // reopening keeps the data
	require.NoError(t, err)
	defer s.Close()
	got, err := s.Trials(ctx)
	require.NoError(t, err)
	require.Len(t, got, 2)
	require.Equal(t, "k0", got[0].Key)
	require.Equal(t, *tr, *got[1])
	var n int
	require.NoError(t, s.db.QueryRow(`SELECT count(*) FROM assertions WHERE trial_key = 'k1'`).Scan(&n))
	require.Equal(t, 1, n)
}

// Delete removes a trial and its assertions, leaves the others, and is no
// error for a key that is not stored.
func TestSQLiteDelete(t *testing.T) {
	ctx := context.Background()
	s, err := OpenSQLite(ctx, filepath.Join(t.TempDir(), "results.db"))
	require.NoError(t, err)
	defer s.Close()
	for _, k := range []string{"a", "b"} {
		require.NoError(t, s.Save(ctx, &result.Trial{Key: k, Task: "t", Category: "c", Difficulty: "D1", Model: "m", Outcome: result.OutcomeOK,
			Assertions: []result.Assertion{{Probe: "p", Level: "state", Status: result.StatusFail, Message: "m"}}}))
	}
	require.NoError(t, s.Delete(ctx, "a"))
	require.NoError(t, s.Delete(ctx, "not-stored"))
	got, err := s.Trials(ctx)
	require.NoError(t, err)
	require.Len(t, got, 1)
	require.Equal(t, "b", got[0].Key)
	var n int
	require.NoError(t, s.db.QueryRow(`SELECT count(*) FROM assertions WHERE trial_key = 'a'`).Scan(&n))
	require.Equal(t, 0, n)
	require.NoError(t, s.db.QueryRow(`SELECT count(*) FROM assertions WHERE trial_key = 'b'`).Scan(&n))
	require.Equal(t, 1, n)
}
