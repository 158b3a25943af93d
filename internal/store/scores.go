package store

import (
	"context"
	"database/sql"
	"fmt"

	"github.com/jackc/pgx/v5"

	"github.com/worldprobe/worldprobe/internal/result"
)

// Score is what a trial's row keeps in columns of its own beside its
// document, for queries over the results (docs/schemas.md): the
// functional verdict, how many model-dependent assertions no model judged,
// and the design score, apart from pass.
type Score struct {
	Key   string
	Model string
	Task  string
	Pass  bool
	// Unjudged is result.Trial.Unjudged.
	Unjudged int
	// Design is the design score (result.Design.Score, the mean of ten
	// 1–5 ratings); nil when the trial has no design score or it is
	// unjudged.
	Design *float64
	// DesignUnjudged says why a design score is unjudged; "" when rated
	// or not asked for.
	DesignUnjudged string
	// DesignModel is the visual_judge model that rated it.
	DesignModel string
}

// designColumns are a trial's design columns: the score (nil unless
// rated), why it is unjudged and the model.
func designColumns(t *result.Trial) (score *float64, unjudged, model string) {
	d := t.Design
	if d == nil {
		return nil, "", ""
	}
	if d.Unjudged == "" {
		v := d.Score
		score = &v
	}
	return score, d.Unjudged, d.Model
}

// v2Columns are the columns of trials that schema version 2 added, as
// SQLite and PostgreSQL declare them.
var v2Columns = []struct{ name, sqlite, postgres string }{
	{"unjudged", "INTEGER NOT NULL DEFAULT 0", "INTEGER NOT NULL DEFAULT 0"},
	{"design", "REAL", "DOUBLE PRECISION"},
	{"design_unjudged", "TEXT NOT NULL DEFAULT ''", "TEXT NOT NULL DEFAULT ''"},
	{"design_model", "TEXT NOT NULL DEFAULT ''", "TEXT NOT NULL DEFAULT ''"},
}

// migrateSQLite adds version 2's columns to a version 1 trials table and
// fills them from each trial's document.
func migrateSQLite(ctx context.Context, db *sql.DB) error {
	rows, err := db.QueryContext(ctx, `SELECT name FROM pragma_table_info('trials')`)
	if err != nil {
		return err
	}
	have := map[string]bool{}
	for rows.Next() {
		var n string
		if err := rows.Scan(&n); err != nil {
			rows.Close()
			return err
		}
		have[n] = true
	}
	rows.Close()
	if err := rows.Err(); err != nil {
		return err
	}
	tx, err := db.BeginTx(ctx, nil)
	if err != nil {
		return err
	}
	defer tx.Rollback()
	added := false
	for _, c := range v2Columns {
		if !have[c.name] {
			if _, err := tx.ExecContext(ctx, `ALTER TABLE trials ADD COLUMN `+c.name+` `+c.sqlite); err != nil {
				return fmt.Errorf("adding column %s: %w", c.name, err)
			}
			added = true
		}
	}
	if !added {
		return nil
	}
	if _, err := tx.ExecContext(ctx, `UPDATE trials SET
		unjudged = coalesce(json_extract(doc, '$.unjudged'), 0),
		design = CASE WHEN json_type(doc, '$.design') IS NOT NULL AND coalesce(json_extract(doc, '$.design.unjudged'), '') = ''
			THEN coalesce(json_extract(doc, '$.design.score'), 0) END,
		design_unjudged = coalesce(json_extract(doc, '$.design.unjudged'), ''),
		design_model = coalesce(json_extract(doc, '$.design.model'), '')`); err != nil {
		return fmt.Errorf("filling the new columns: %w", err)
	}
	return tx.Commit()
}

// migratePostgres adds version 2's columns to a version 1
// worldprobe_trials table (in the transaction that holds the schema lock)
// and fills them from each trial's document.
func migratePostgres(ctx context.Context, tx pgx.Tx) error {
	var has bool
	// pg_attribute, not information_schema: every store open (each run a
	// worker serves) asks, and the view costs tens of milliseconds.
	if err := tx.QueryRow(ctx, `SELECT EXISTS (SELECT 1 FROM pg_attribute
		WHERE attrelid = 'worldprobe_trials'::regclass AND attname = 'design_model' AND NOT attisdropped)`).Scan(&has); err != nil {
		return err
	}
	if has {
		return nil
	}
	for _, c := range v2Columns {
		if _, err := tx.Exec(ctx, `ALTER TABLE worldprobe_trials ADD COLUMN IF NOT EXISTS `+c.name+` `+c.postgres); err != nil {
			return fmt.Errorf("adding column %s: %w", c.name, err)
		}
	}
	if _, err := tx.Exec(ctx, `UPDATE worldprobe_trials SET
		unjudged = coalesce((doc::jsonb->>'unjudged')::int, 0),
		design = CASE WHEN doc::jsonb ? 'design' AND coalesce(doc::jsonb->'design'->>'unjudged', '') = ''
			THEN coalesce((doc::jsonb->'design'->>'score')::float8, 0) END,
		design_unjudged = coalesce(doc::jsonb->'design'->>'unjudged', ''),
		design_model = coalesce(doc::jsonb->'design'->>'model', '')`); err != nil {
		return fmt.Errorf("filling the new columns: %w", err)
	}
	return nil
}

// scoreRows scans rows of key, model, task, pass, unjudged, design,
// design_unjudged, design_model.
func scoreRows(r rows) ([]Score, error) {
	var out []Score
	for r.Next() {
		var s Score
		var design sql.NullFloat64
		if err := r.Scan(&s.Key, &s.Model, &s.Task, &s.Pass, &s.Unjudged, &design, &s.DesignUnjudged, &s.DesignModel); err != nil {
			return nil, fmt.Errorf("listing scores: %w", err)
		}
		if design.Valid {
			v := design.Float64
			s.Design = &v
		}
		out = append(out, s)
	}
	if err := r.Err(); err != nil {
		return nil, fmt.Errorf("listing scores: %w", err)
	}
	return out, nil
}

// scoreColumns is the column list scoreRows reads.
const scoreColumns = `key, model, task, pass, unjudged, design, design_unjudged, design_model`

// Scores implements Store.
func (s *SQLite) Scores(ctx context.Context) ([]Score, error) {
	rows, err := s.db.QueryContext(ctx, `SELECT `+scoreColumns+` FROM trials ORDER BY key`)
	if err != nil {
		return nil, fmt.Errorf("listing scores: %w", err)
	}
	defer rows.Close()
	return scoreRows(rows)
}

// Scores implements Store.
func (s *Postgres) Scores(ctx context.Context) ([]Score, error) {
	rows, err := s.pool.Query(ctx, `SELECT `+scoreColumns+` FROM worldprobe_trials WHERE run = $1 ORDER BY key COLLATE "C"`, s.run)
	if err != nil {
		return nil, fmt.Errorf("listing scores: %w", err)
	}
	defer rows.Close()
	return scoreRows(rows)
}
