// Package store keeps trial results in a database behind a narrow
// interface. SQLite (modernc.org/sqlite, no cgo), one file per run folder,
// is the default; PostgreSQL ([Postgres], pgx v5) holds the results of runs
// whose trials are judged by workers on other machines (docs/scale-out.md).
// Each schema is embedded and applied on open. Every implementation passes
// the one conformance suite in internal/store/storetest.
package store

import (
	"context"
	"database/sql"
	_ "embed"
	"encoding/json"
	"errors"
	"fmt"

	_ "modernc.org/sqlite" // registers the "sqlite" driver

	"github.com/worldprobe/worldprobe/internal/result"
)

//go:embed schema.sql
var schemaSQL string

// Store saves and lists trials.
type Store interface {
	// Save inserts or replaces a trial and its assertions atomically.
	Save(ctx context.Context, t *result.Trial) error
	// Trials lists every stored trial, ordered by key.
	Trials(ctx context.Context) ([]*result.Trial, error)
	// Find lists the stored trials among keys, ordered by key; a key not
	// stored is left out.
	Find(ctx context.Context, keys []string) ([]*result.Trial, error)
	// Delete removes a trial and its assertions; a key not stored is no
	// error.
	Delete(ctx context.Context, key string) error
	// SetPlanned records how many trials the run plans (its plan's size,
	// finished trials included), replacing what was recorded.
	SetPlanned(ctx context.Context, n int) error
	// Planned is what SetPlanned recorded last; 0 when nothing was.
	Planned(ctx context.Context) (int, error)
	// Scores lists every stored trial's score columns, ordered by key,
	// read from the columns (not the document), as a query over the
	// results sees them.
	Scores(ctx context.Context) ([]Score, error)
	// Close releases the database.
	Close() error
}

// ResultsDB is the SQLite store of a run folder, in it (docs/cli.md).
const ResultsDB = "results.db"

// SQLite is a Store in one SQLite file.
type SQLite struct{ db *sql.DB }

// OpenSQLite opens (creating if needed) the database at path.
func OpenSQLite(ctx context.Context, path string) (*SQLite, error) {
	db, err := SQLiteDB(path)
	if err != nil {
		return nil, fmt.Errorf("opening %s: %w", path, err)
	}
	if _, err := db.ExecContext(ctx, schemaSQL); err != nil {
		db.Close()
		return nil, fmt.Errorf("creating the schema in %s: %w", path, err)
	}
	if err := migrateSQLite(ctx, db); err != nil {
		db.Close()
		return nil, fmt.Errorf("updating the schema of %s: %w", path, err)
	}
	return &SQLite{db: db}, nil
}

// SQLiteDB opens the SQLite file at path (created on first use) as the
// stores use it: write-ahead log, a 10 s busy timeout, and one connection
// (SQLite takes one writer at a time). River's SQLite queue opens its
// file with it too.
func SQLiteDB(path string) (*sql.DB, error) {
	db, err := sql.Open("sqlite", "file:"+path+"?_pragma=busy_timeout(10000)&_pragma=journal_mode(WAL)&_pragma=synchronous(NORMAL)")
	if err != nil {
		return nil, err
	}
	db.SetMaxOpenConns(1)
	return db, nil
}

// Save implements Store.
func (s *SQLite) Save(ctx context.Context, t *result.Trial) error {
	doc, err := json.Marshal(t)
	if err != nil {
		return fmt.Errorf("encoding trial %s: %w", t.Key, err)
	}
	tx, err := s.db.BeginTx(ctx, nil)
	if err != nil {
		return fmt.Errorf("saving trial %s: %w", t.Key, err)
	}
	defer tx.Rollback()
	if _, err := tx.ExecContext(ctx, `DELETE FROM assertions WHERE trial_key = ?`, t.Key); err != nil {
		return fmt.Errorf("saving trial %s: %w", t.Key, err)
	}
	design, designUnjudged, designModel := designColumns(t)
	_, err = tx.ExecContext(ctx, `INSERT OR REPLACE INTO trials
		(key, task, category, difficulty, variant, model, candidate, sample, outcome, crash_kind, pass,
		 v_cov, a_cov, s_cov, t_cov, attribution, duration_ms, doc, unjudged, design, design_unjudged, design_model)
		VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)`,
		t.Key, t.Task, t.Category, t.Difficulty, t.Variant, t.Model, t.Candidate, t.Sample, t.Outcome, t.CrashKind,
		t.Pass, t.VCov, t.ACov, t.SCov, t.TCov, t.Attribution, t.DurationMs, string(doc),
		t.Unjudged, design, designUnjudged, designModel)
	if err != nil {
		return fmt.Errorf("saving trial %s: %w", t.Key, err)
	}
	for i, a := range t.Assertions {
		if _, err := tx.ExecContext(ctx, `INSERT INTO assertions (trial_key, idx, probe, level, status, message, expr)
			VALUES (?, ?, ?, ?, ?, ?, ?)`, t.Key, i, a.Probe, a.Level, a.Status, a.Message, a.Expr); err != nil {
			return fmt.Errorf("saving trial %s: %w", t.Key, err)
		}
	}
	if err := tx.Commit(); err != nil {
		return fmt.Errorf("saving trial %s: %w", t.Key, err)
	}
	return nil
}

// Trials implements Store.
func (s *SQLite) Trials(ctx context.Context) ([]*result.Trial, error) {
	rows, err := s.db.QueryContext(ctx, `SELECT doc FROM trials ORDER BY key`)
	if err != nil {
		return nil, fmt.Errorf("listing trials: %w", err)
	}
	defer rows.Close()
	return decodeDocs(rows)
}

// Find implements Store.
func (s *SQLite) Find(ctx context.Context, keys []string) ([]*result.Trial, error) {
	if len(keys) == 0 {
		return nil, nil
	}
	args, err := json.Marshal(keys)
	if err != nil {
		return nil, fmt.Errorf("finding trials: %w", err)
	}
	rows, err := s.db.QueryContext(ctx, `SELECT doc FROM trials WHERE key IN (SELECT value FROM json_each(?)) ORDER BY key`, string(args))
	if err != nil {
		return nil, fmt.Errorf("finding trials: %w", err)
	}
	defer rows.Close()
	return decodeDocs(rows)
}

// rows is what decodeDocs reads: *sql.Rows, pgx.Rows.
type rows interface {
	Next() bool
	Scan(dest ...any) error
	Err() error
}

// decodeDocs decodes rows of one doc column into trials.
func decodeDocs(r rows) ([]*result.Trial, error) {
	var out []*result.Trial
	for r.Next() {
		var doc string
		if err := r.Scan(&doc); err != nil {
			return nil, fmt.Errorf("listing trials: %w", err)
		}
		t := &result.Trial{}
		if err := json.Unmarshal([]byte(doc), t); err != nil {
			return nil, fmt.Errorf("decoding a stored trial: %w", err)
		}
		out = append(out, t)
	}
	if err := r.Err(); err != nil {
		return nil, fmt.Errorf("listing trials: %w", err)
	}
	return out, nil
}

// Delete implements Store.
func (s *SQLite) Delete(ctx context.Context, key string) error {
	tx, err := s.db.BeginTx(ctx, nil)
	if err != nil {
		return fmt.Errorf("deleting trial %s: %w", key, err)
	}
	defer tx.Rollback()
	for _, q := range []string{`DELETE FROM assertions WHERE trial_key = ?`, `DELETE FROM trials WHERE key = ?`} {
		if _, err := tx.ExecContext(ctx, q, key); err != nil {
			return fmt.Errorf("deleting trial %s: %w", key, err)
		}
	}
	if err := tx.Commit(); err != nil {
		return fmt.Errorf("deleting trial %s: %w", key, err)
	}
	return nil
}

// SetPlanned implements Store.
func (s *SQLite) SetPlanned(ctx context.Context, n int) error {
	if _, err := s.db.ExecContext(ctx, `INSERT OR REPLACE INTO plan (id, planned) VALUES (1, ?)`, n); err != nil {
		return fmt.Errorf("recording the planned trials: %w", err)
	}
	return nil
}

// Planned implements Store.
func (s *SQLite) Planned(ctx context.Context) (int, error) {
	var n int
	err := s.db.QueryRowContext(ctx, `SELECT planned FROM plan WHERE id = 1`).Scan(&n)
	if errors.Is(err, sql.ErrNoRows) {
		return 0, nil
	}
	if err != nil {
		return 0, fmt.Errorf("reading the planned trials: %w", err)
	}
	return n, nil
}

// Close implements Store.
func (s *SQLite) Close() error { return s.db.Close() }
