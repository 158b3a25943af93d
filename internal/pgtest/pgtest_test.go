package pgtest

import (
	"context"
	"os"
	"testing"

	"github.com/jackc/pgx/v5"
	"github.com/stretchr/testify/require"
)

// A started server accepts connections on its loopback port, gives each
// NewDB its own empty database, and leaves no files behind once stopped.
func TestStartNewDBStop(t *testing.T) {
	ctx := context.Background()
	bin, err := BinDir()
	if err != nil {
		t.Skip(err)
	}
	s, err := start(bin, t.TempDir())
	require.NoError(t, err)
	a, b := s.NewDB(t), s.NewDB(t)
	require.NotEqual(t, a, b)
	conn, err := pgx.Connect(ctx, a)
	require.NoError(t, err)
	_, err = conn.Exec(ctx, "CREATE TABLE x (n int); INSERT INTO x VALUES (7)")
	require.NoError(t, err)
	var n int
	require.NoError(t, conn.QueryRow(ctx, "SELECT n FROM x").Scan(&n))
	require.Equal(t, 7, n)
	require.NoError(t, conn.Close(ctx))
	conn, err = pgx.Connect(ctx, b)
	require.NoError(t, err)
	require.NoError(t, conn.QueryRow(ctx, "SELECT count(*) FROM pg_tables WHERE tablename = 'x'").Scan(&n))
	require.Equal(t, 0, n)
	require.NoError(t, conn.Close(ctx))

	require.NoError(t, s.Stop())
	_, err = os.Stat(s.dir)
	if s.dir != s.tempDir {
		require.True(t, os.IsNotExist(err), "the cluster folder %s is removed", s.dir)
	}
	_, err = pgx.Connect(ctx, a)
	require.Error(t, err)
}
