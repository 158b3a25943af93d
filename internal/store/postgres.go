package store

import (
	"context"
	_ "embed"
	"encoding/json"
	"errors"
	"fmt"
	neturl "net/url"
	"strings"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgxpool"

	"github.com/worldprobe/worldprobe/internal/result"
)

//go:embed postgres.sql
var postgresSQL string

// schemaLock is the advisory lock (an arbitrary constant) that serialises
// creating the schema: workers starting at once would otherwise race on
// CREATE TABLE IF NOT EXISTS.
const schemaLock = 0x776f726c6470 // "worldp"

// Postgres is a Store in a PostgreSQL database that many runs share: each
// Postgres value reads and writes the trials of one run.
type Postgres struct {
	pool *pgxpool.Pool
	run  string
}

// OpenPostgres creates the schema in pool's database if needed and returns
// the store of the run named run (the run folder's absolute path in
// worldprobe run). Closing it leaves pool open.
func OpenPostgres(ctx context.Context, pool *pgxpool.Pool, run string) (*Postgres, error) {
	err := pgx.BeginFunc(ctx, pool, func(tx pgx.Tx) error {
		if _, err := tx.Exec(ctx, `SELECT pg_advisory_xact_lock($1)`, int64(schemaLock)); err != nil {
			return err
		}
		if _, err := tx.Exec(ctx, postgresSQL); err != nil {
			return err
		}
		return migratePostgres(ctx, tx)
	})
	if err != nil {
		return nil, fmt.Errorf("creating the results schema in PostgreSQL: %w", err)
	}
	return &Postgres{pool: pool, run: run}, nil
}

// Save implements Store. It upserts the trial's row first: the row lock
// it takes orders two workers saving the same trial at once (a rescued
// job that also finished elsewhere), so the assertions are one save's.
func (s *Postgres) Save(ctx context.Context, t *result.Trial) error {
	doc, err := json.Marshal(t)
	if err != nil {
		return fmt.Errorf("encoding trial %s: %w", t.Key, err)
	}
	design, designUnjudged, designModel := designColumns(t)
	err = pgx.BeginFunc(ctx, s.pool, func(tx pgx.Tx) error {
		_, err := tx.Exec(ctx, `INSERT INTO worldprobe_trials
		(run, key, task, category, difficulty, variant, model, candidate, sample, outcome, crash_kind, pass,
		 v_cov, a_cov, s_cov, t_cov, attribution, duration_ms, doc, unjudged, design, design_unjudged, design_model)
		VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11, $12, $13, $14, $15, $16, $17, $18, $19, $20, $21, $22, $23)
		ON CONFLICT (run, key) DO UPDATE SET task = excluded.task, category = excluded.category,
		 difficulty = excluded.difficulty, variant = excluded.variant, model = excluded.model,
		 candidate = excluded.candidate, sample = excluded.sample, outcome = excluded.outcome,
		 crash_kind = excluded.crash_kind, pass = excluded.pass, v_cov = excluded.v_cov, a_cov = excluded.a_cov,
		 s_cov = excluded.s_cov, t_cov = excluded.t_cov, attribution = excluded.attribution,
		 duration_ms = excluded.duration_ms, doc = excluded.doc, unjudged = excluded.unjudged, design = excluded.design,
		 design_unjudged = excluded.design_unjudged, design_model = excluded.design_model`,
			s.run, t.Key, t.Task, t.Category, t.Difficulty, t.Variant, t.Model, t.Candidate, t.Sample, t.Outcome, t.CrashKind,
			t.Pass, t.VCov, t.ACov, t.SCov, t.TCov, t.Attribution, t.DurationMs, string(doc),
			t.Unjudged, design, designUnjudged, designModel)
		if err != nil {
			return err
		}
		if _, err := tx.Exec(ctx, `DELETE FROM worldprobe_assertions WHERE run = $1 AND trial_key = $2`, s.run, t.Key); err != nil {
			return err
		}
		if len(t.Assertions) == 0 {
			return nil
		}
		rows := make([][]any, len(t.Assertions))
		for i, a := range t.Assertions {
			rows[i] = []any{s.run, t.Key, i, a.Probe, a.Level, a.Status, a.Message, a.Expr}
		}
		_, err = tx.CopyFrom(ctx, pgx.Identifier{"worldprobe_assertions"},
			[]string{"run", "trial_key", "idx", "probe", "level", "status", "message", "expr"}, pgx.CopyFromRows(rows))
		return err
	})
	if err != nil {
		return fmt.Errorf("saving trial %s: %w", t.Key, err)
	}
	return nil
}

// Trials implements Store.
func (s *Postgres) Trials(ctx context.Context) ([]*result.Trial, error) {
	rows, err := s.pool.Query(ctx, `SELECT doc FROM worldprobe_trials WHERE run = $1 ORDER BY key COLLATE "C"`, s.run)
	if err != nil {
		return nil, fmt.Errorf("listing trials: %w", err)
	}
	defer rows.Close()
	return decodeDocs(rows)
}

// Find implements Store.
func (s *Postgres) Find(ctx context.Context, keys []string) ([]*result.Trial, error) {
	if len(keys) == 0 {
		return nil, nil
	}
	rows, err := s.pool.Query(ctx, `SELECT doc FROM worldprobe_trials WHERE run = $1 AND key = ANY($2) ORDER BY key COLLATE "C"`, s.run, keys)
	if err != nil {
		return nil, fmt.Errorf("finding trials: %w", err)
	}
	defer rows.Close()
	return decodeDocs(rows)
}

// Delete implements Store.
func (s *Postgres) Delete(ctx context.Context, key string) error {
	if _, err := s.pool.Exec(ctx, `DELETE FROM worldprobe_trials WHERE run = $1 AND key = $2`, s.run, key); err != nil {
		return fmt.Errorf("deleting trial %s: %w", key, err)
	}
	return nil
}

// SetPlanned implements Store.
func (s *Postgres) SetPlanned(ctx context.Context, n int) error {
	if _, err := s.pool.Exec(ctx, `INSERT INTO worldprobe_runs (run, planned) VALUES ($1, $2)
		ON CONFLICT (run) DO UPDATE SET planned = excluded.planned`, s.run, n); err != nil {
		return fmt.Errorf("recording the planned trials: %w", err)
	}
	return nil
}

// Planned implements Store.
func (s *Postgres) Planned(ctx context.Context) (int, error) {
	var n int
	err := s.pool.QueryRow(ctx, `SELECT planned FROM worldprobe_runs WHERE run = $1`, s.run).Scan(&n)
	if errors.Is(err, pgx.ErrNoRows) {
		return 0, nil
	}
	if err != nil {
		return 0, fmt.Errorf("reading the planned trials: %w", err)
	}
	return n, nil
}

// Close implements Store; the pool stays open (its owner closes it).
func (s *Postgres) Close() error { return nil }

// DialPostgres connects to the PostgreSQL database at url and returns the
// store of the run named run, owning its connections: Close closes them.
// For a reader of one run, such as the live viewer; workers share one pool
// across runs with OpenPostgres.
func DialPostgres(ctx context.Context, url, run string) (Store, error) {
	pool, err := DialPool(ctx, url)
	if err != nil {
		return nil, fmt.Errorf("connecting to PostgreSQL: %w", err)
	}
	s, err := OpenPostgres(ctx, pool, run)
	if err != nil {
		pool.Close()
		return nil, err
	}
	return &ownedPostgres{Postgres: s}, nil
}

// ownedPostgres is a Postgres store that closes its pool.
type ownedPostgres struct{ *Postgres }

// Close closes the store's connections.
func (s *ownedPostgres) Close() error {
	s.pool.Close()
	return nil
}

// DialPool connects to the PostgreSQL database at url and checks that it
// answers; the caller closes the pool. Its error does not name url (give
// RedactURL(url) in messages).
func DialPool(ctx context.Context, url string) (*pgxpool.Pool, error) {
	pool, err := pgxpool.New(ctx, url)
	if err != nil {
		return nil, err
	}
	if err := pool.Ping(ctx); err != nil {
		pool.Close()
		return nil, err
	}
	return pool, nil
}

// IsPostgresURL reports whether dsn is a PostgreSQL URL (postgres:// or
// postgresql://).
func IsPostgresURL(dsn string) bool {
	return strings.HasPrefix(dsn, "postgres://") || strings.HasPrefix(dsn, "postgresql://")
}

// RedactURL is a database URL with its password hidden, for messages; a
// URL that does not parse is not shown at all.
func RedactURL(dsn string) string {
	u, err := neturl.Parse(dsn)
	if err != nil {
		return "the database URL"
	}
	return u.Redacted()
}
