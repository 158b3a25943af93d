// Package sharedlimit keeps the model rate limits of many processes in
// one database (llm.SharedBuckets): the workers of a run, on any number
// of machines, draw every call to a provider's model from one token
// bucket per provider, model and unit (requests, tokens), so that ten
// workers do not send ten times a model's requests per minute. Each take
// is one transaction that locks the bucket's row, refills it to the
// caller's clock and takes from it (llm.BucketTake). PostgreSQL holds the
// buckets of a run scaled out with 'worldprobe worker'; SQLite (a file
// several local processes open) passes the same tests.
//
// The bucket refills by the callers' clocks: machines sharing one must
// keep their clocks in step (NTP); a clock behind refills nothing until
// it catches up, one ahead refills early by its lead.
package sharedlimit

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgxpool"

	"github.com/worldprobe/worldprobe/internal/llm"
	"github.com/worldprobe/worldprobe/internal/store"
)

// pgSchema is the buckets' table in PostgreSQL; at is the refill time in
// Unix nanoseconds.
const pgSchema = `CREATE TABLE IF NOT EXISTS worldprobe_rate_buckets (
  name  TEXT PRIMARY KEY,
  level DOUBLE PRECISION NOT NULL,
  at    BIGINT NOT NULL
)`

// sqliteSchema is the same table in SQLite.
const sqliteSchema = `CREATE TABLE IF NOT EXISTS rate_buckets (
  name  TEXT PRIMARY KEY,
  level REAL NOT NULL,
  at    INTEGER NOT NULL
)`

// schemaLock is the advisory lock (an arbitrary constant) held while the
// table is created, as the results store does.
const schemaLock = 0x72617465 // "rate"

// Postgres is an llm.SharedBuckets in a PostgreSQL database.
type Postgres struct{ pool *pgxpool.Pool }

var _ llm.SharedBuckets = (*Postgres)(nil)

// OpenPostgres creates the buckets' table in pool's database if needed.
// Closing pool is its owner's.
func OpenPostgres(ctx context.Context, pool *pgxpool.Pool) (*Postgres, error) {
	err := pgx.BeginFunc(ctx, pool, func(tx pgx.Tx) error {
		if _, err := tx.Exec(ctx, `SELECT pg_advisory_xact_lock($1)`, int64(schemaLock)); err != nil {
			return err
		}
		_, err := tx.Exec(ctx, pgSchema)
		return err
	})
	if err != nil {
		return nil, fmt.Errorf("creating the rate-limit table in PostgreSQL: %w", err)
	}
	return &Postgres{pool: pool}, nil
}

// Take implements llm.SharedBuckets.
func (p *Postgres) Take(ctx context.Context, name string, perMinute int, n float64, now time.Time) (time.Duration, error) {
	return take(ctx, p.update, name, perMinute, n, now)
}

// Charge implements llm.SharedBuckets.
func (p *Postgres) Charge(ctx context.Context, name string, perMinute int, n float64, now time.Time) error {
	return charge(ctx, p.update, name, perMinute, n, now)
}

// updateFunc applies f to the bucket name (created full at now) in one
// transaction holding the bucket: each database's update.
type updateFunc func(ctx context.Context, name string, perMinute int, now time.Time, f func(llm.BucketState) llm.BucketState) error

// take is Take over any database's update.
func take(ctx context.Context, update updateFunc, name string, perMinute int, n float64, now time.Time) (time.Duration, error) {
	var wait time.Duration
	err := update(ctx, name, perMinute, now, func(s llm.BucketState) llm.BucketState {
		s, wait = llm.BucketTake(s, perMinute, n, now)
		return s
	})
	return wait, err
}

// charge is Charge over any database's update.
func charge(ctx context.Context, update updateFunc, name string, perMinute int, n float64, now time.Time) error {
	return update(ctx, name, perMinute, now, func(s llm.BucketState) llm.BucketState {
		return llm.BucketCharge(s, perMinute, n, now)
	})
}

// update applies f to the bucket name (created full at now) in one
// transaction holding its row's lock.
func (p *Postgres) update(ctx context.Context, name string, perMinute int, now time.Time, f func(llm.BucketState) llm.BucketState) error {
	full := llm.FullBucket(perMinute, now)
	return pgx.BeginFunc(ctx, p.pool, func(tx pgx.Tx) error {
		if _, err := tx.Exec(ctx, `INSERT INTO worldprobe_rate_buckets (name, level, at) VALUES ($1, $2, $3) ON CONFLICT (name) DO NOTHING`,
			name, full.Level, full.At.UnixNano()); err != nil {
			return err
		}
		var level float64
		var at int64
		if err := tx.QueryRow(ctx, `SELECT level, at FROM worldprobe_rate_buckets WHERE name = $1 FOR UPDATE`, name).Scan(&level, &at); err != nil {
			return err
		}
		s := f(llm.BucketState{Level: level, At: time.Unix(0, at)})
		_, err := tx.Exec(ctx, `UPDATE worldprobe_rate_buckets SET level = $2, at = $3 WHERE name = $1`, name, s.Level, s.At.UnixNano())
		return err
	})
}

// SQLite is an llm.SharedBuckets in a SQLite file.
type SQLite struct{ db *sql.DB }

var _ llm.SharedBuckets = (*SQLite)(nil)

// OpenSQLite opens (creating it if needed) the buckets' table in the
// SQLite file path.
func OpenSQLite(ctx context.Context, path string) (*SQLite, error) {
	db, err := store.SQLiteDB(path)
	if err != nil {
		return nil, fmt.Errorf("opening %s: %w", path, err)
	}
	if _, err := db.ExecContext(ctx, sqliteSchema); err != nil {
		db.Close()
		return nil, fmt.Errorf("creating the rate-limit table in %s: %w", path, err)
	}
	return &SQLite{db: db}, nil
}

// Close releases the file.
func (s *SQLite) Close() error { return s.db.Close() }

// Take implements llm.SharedBuckets.
func (s *SQLite) Take(ctx context.Context, name string, perMinute int, n float64, now time.Time) (time.Duration, error) {
	return take(ctx, s.update, name, perMinute, n, now)
}

// Charge implements llm.SharedBuckets.
func (s *SQLite) Charge(ctx context.Context, name string, perMinute int, n float64, now time.Time) error {
	return charge(ctx, s.update, name, perMinute, n, now)
}

// update applies f to the bucket name in one transaction that writes
// first (the insert), so that it holds SQLite's write lock before it
// reads: another process's take waits for it (busy timeout).
func (s *SQLite) update(ctx context.Context, name string, perMinute int, now time.Time, f func(llm.BucketState) llm.BucketState) error {
	full := llm.FullBucket(perMinute, now)
	tx, err := s.db.BeginTx(ctx, nil)
	if err != nil {
		return err
	}
	defer tx.Rollback()
	if _, err := tx.ExecContext(ctx, `INSERT OR IGNORE INTO rate_buckets (name, level, at) VALUES (?, ?, ?)`, name, full.Level, full.At.UnixNano()); err != nil {
		return err
	}
	var level float64
	var at int64
	if err := tx.QueryRowContext(ctx, `SELECT level, at FROM rate_buckets WHERE name = ?`, name).Scan(&level, &at); err != nil {
		if errors.Is(err, sql.ErrNoRows) {
			return fmt.Errorf("bucket %s vanished", name)
		}
		return err
	}
	b := f(llm.BucketState{Level: level, At: time.Unix(0, at)})
	if _, err := tx.ExecContext(ctx, `UPDATE rate_buckets SET level = ?, at = ? WHERE name = ?`, b.Level, b.At.UnixNano(), name); err != nil {
		return err
	}
	return tx.Commit()
}
