package store_test

import (
	"context"
	"database/sql"
	"os"
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/worldprobe/worldprobe/internal/pgtest"
	"github.com/worldprobe/worldprobe/internal/store"
)

// v1Docs are trials as schema version 1 stored them (the columns from
// before the design columns, the whole trial in doc): one rated, one
// unjudged, one without a design.
var v1Docs = map[string]string{
	"rated":    `{"key":"rated","task":"xr/pinch-grab","model":"m","pass":true,"unjudged":3,"design":{"score":3.6,"model":"openai/gpt-4.1","ratings":[{"heuristic":"comfort","score":4}]}}`,
	"unjudged": `{"key":"unjudged","task":"xr/pinch-grab","model":"m","pass":false,"design":{"unjudged":"no visual_judge model is configured"}}`,
	"none":     `{"key":"none","task":"xr/pinch-grab","model":"m","pass":false}`,
}

// wantV1 is what Scores reads from those rows once the store has added
// and filled the design columns.
func wantV1() []store.Score {
	d := 3.6
	return []store.Score{
		{Key: "none", Model: "m", Task: "xr/pinch-grab"},
		{Key: "rated", Model: "m", Task: "xr/pinch-grab", Pass: true, Unjudged: 3, Design: &d, DesignModel: "openai/gpt-4.1"},
		{Key: "unjudged", Model: "m", Task: "xr/pinch-grab", DesignUnjudged: "no visual_judge model is configured"},
	}
}

// A results.db written with schema version 1 gets the design columns when
// opened, filled from each trial's document; opening it again changes
// nothing.
func TestSQLiteAddsTheDesignColumns(t *testing.T) {
	ctx := context.Background()
	path := filepath.Join(t.TempDir(), "results.db")
	schema, err := os.ReadFile("testdata/schema-v1.sql")
	require.NoError(t, err)
	db, err := sql.Open("sqlite", "file:"+path)
	require.NoError(t, err)
	_, err = db.Exec(string(schema))
	require.NoError(t, err)
	for k, doc := range v1Docs {
		_, err := db.Exec(`INSERT INTO trials (key, task, category, difficulty, model, candidate, sample, outcome, pass,
			v_cov, a_cov, s_cov, t_cov, duration_ms, doc) VALUES (?, 'xr/pinch-grab', 'xr', 'D2', 'm', 'c', 1, 'ok', ?, 0, 0, 0, 0, 1, ?)`,
			k, k == "rated", doc)
		require.NoError(t, err)
	}
	require.NoError(t, db.Close())
	for range 2 {
		s, err := store.OpenSQLite(ctx, path)
		require.NoError(t, err)
		got, err := s.Scores(ctx)
		require.NoError(t, err)
		require.Equal(t, wantV1(), got)
		require.NoError(t, s.Close())
	}
}

// The same for a PostgreSQL database holding a version 1 table.
func TestPostgresAddsTheDesignColumns(t *testing.T) {
	ctx := context.Background()
	pool := openPool(t, pgtest.Start(t).NewDB(t))
	schema, err := os.ReadFile("testdata/postgres-v1.sql")
	require.NoError(t, err)
	_, err = pool.Exec(ctx, string(schema))
	require.NoError(t, err)
	for k, doc := range v1Docs {
		_, err := pool.Exec(ctx, `INSERT INTO worldprobe_trials (run, key, task, category, difficulty, model, candidate, sample, outcome, pass,
			v_cov, a_cov, s_cov, t_cov, duration_ms, doc) VALUES ('/runs/a', $1, 'xr/pinch-grab', 'xr', 'D2', 'm', 'c', 1, 'ok', $2, 0, 0, 0, 0, 1, $3)`,
			k, k == "rated", doc)
		require.NoError(t, err)
	}
	for range 2 {
		s, err := store.OpenPostgres(ctx, pool, "/runs/a")
		require.NoError(t, err)
		got, err := s.Scores(ctx)
		require.NoError(t, err)
		require.Equal(t, wantV1(), got)
	}
}
