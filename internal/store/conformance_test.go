package store_test

import (
	"context"
	"path/filepath"
	"testing"

	"github.com/jackc/pgx/v5/pgxpool"
	"github.com/stretchr/testify/require"

	"github.com/worldprobe/worldprobe/internal/pgtest"
	"github.com/worldprobe/worldprobe/internal/result"
	"github.com/worldprobe/worldprobe/internal/store"
	"github.com/worldprobe/worldprobe/internal/store/storetest"
)

// Every store passes the one conformance suite: SQLite in a file,
// PostgreSQL on a throwaway server (internal/pgtest).
func TestConformance(t *testing.T) {
	t.Run("SQLite", func(t *testing.T) {
		storetest.Run(t, func(t *testing.T) storetest.Opener {
			path := filepath.Join(t.TempDir(), "results.db")
			return func() (store.Store, error) { return store.OpenSQLite(context.Background(), path) }
		})
	})
	t.Run("Postgres", func(t *testing.T) {
		srv := pgtest.Start(t)
		storetest.Run(t, func(t *testing.T) storetest.Opener {
			pool := openPool(t, srv.NewDB(t))
			return func() (store.Store, error) { return store.OpenPostgres(context.Background(), pool, "/runs/a") }
		})
	})
}

func openPool(t *testing.T, url string) *pgxpool.Pool {
	t.Helper()
	pool, err := pgxpool.New(context.Background(), url)
	require.NoError(t, err)
	t.Cleanup(pool.Close)
	return pool
}

// One PostgreSQL database holds many runs: each store sees, replaces and
// deletes only its own run's trials, even under the same keys, and keeps
// its own plan.
func TestPostgresRunsAreApart(t *testing.T) {
	ctx := context.Background()
	pool := openPool(t, pgtest.Start(t).NewDB(t))
	a, err := store.OpenPostgres(ctx, pool, "/runs/a")
	require.NoError(t, err)
	b, err := store.OpenPostgres(ctx, pool, "/runs/b")
	require.NoError(t, err)
	require.NoError(t, a.Save(ctx, &result.Trial{Key: "k", Model: "in-a", Assertions: []result.Assertion{{Probe: "p"}}}))
	require.NoError(t, b.Save(ctx, &result.Trial{Key: "k", Model: "in-b", Assertions: []result.Assertion{{Probe: "p"}, {Probe: "q"}}}))
	require.NoError(t, b.Save(ctx, &result.Trial{Key: "only-b", Model: "in-b"}))
	got, err := a.Trials(ctx)
	require.NoError(t, err)
	require.Len(t, got, 1)
	require.Equal(t, "in-a", got[0].Model)
	require.Len(t, got[0].Assertions, 1)
	require.NoError(t, a.Delete(ctx, "k"))
	got, err = b.Find(ctx, []string{"k", "only-b"})
	require.NoError(t, err)
	require.Len(t, got, 2)
	require.Len(t, got[0].Assertions, 2)
	// So are their plans.
	require.NoError(t, a.SetPlanned(ctx, 3))
	require.NoError(t, b.SetPlanned(ctx, 9))
	na, err := a.Planned(ctx)
	require.NoError(t, err)
	nb, err := b.Planned(ctx)
	require.NoError(t, err)
	require.Equal(t, [2]int{3, 9}, [2]int{na, nb})
}
