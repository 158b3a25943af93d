package queue

import (
	"context"
	"errors"
	"fmt"
	"path/filepath"

	"github.com/jackc/pgx/v5/pgconn"
	"github.com/jackc/pgx/v5/pgxpool"

	"github.com/worldprobe/worldprobe/internal/report"
	"github.com/worldprobe/worldprobe/internal/store"
)

// StepCounter counts the generation and repair jobs of a PostgreSQL
// database's gen queue that feed one run folder (enqueued by 'gen --db …
// --judge RUN'): the viewer's progress beside the trials.
type StepCounter struct {
	pool *pgxpool.Pool
	run  string
}

// NewStepCounter connects to the database url for the jobs feeding the
// run folder run (its absolute path is what the jobs name).
func NewStepCounter(ctx context.Context, url, run string) (*StepCounter, error) {
	abs, err := filepath.Abs(run)
	if err != nil {
		return nil, fmt.Errorf("locating the run folder: %w", err)
	}
	pool, err := store.DialPool(ctx, url)
	if err != nil {
		return nil, fmt.Errorf("connecting to %s: %w", store.RedactURL(url), err)
	}
	return &StepCounter{pool: pool, run: abs}, nil
}

// Close releases the connections.
func (c *StepCounter) Close() { c.pool.Close() }

// Count counts the jobs by kind (generate, then repair; a kind without
// jobs is left out) and state. A database without River's tables yet has
// none.
func (c *StepCounter) Count(ctx context.Context) ([]report.StepCount, error) {
	rows, err := c.pool.Query(ctx, `SELECT kind, state::text, count(*) FROM river_job
		WHERE queue = $1 AND args->'judge'->>'run' = $2 GROUP BY kind, state`, queueGen, c.run)
	var pe *pgconn.PgError
	if errors.As(err, &pe) && pe.Code == "42P01" { // undefined_table
		return nil, nil
	}
	if err != nil {
		return nil, fmt.Errorf("counting the generation jobs: %w", err)
	}
	defer rows.Close()
	by := map[string]*report.StepCount{}
	for rows.Next() {
		var kind, state string
		var n int
		if err := rows.Scan(&kind, &state, &n); err != nil {
			return nil, fmt.Errorf("counting the generation jobs: %w", err)
		}
		sc := by[kind]
		if sc == nil {
			sc = &report.StepCount{Kind: kind}
			by[kind] = sc
		}
		switch state {
		case "running":
			sc.Running += n
		case "completed":
			sc.Done += n
		case "cancelled", "discarded":
			sc.GivenUp += n
		default: // available, scheduled, retryable, pending
			sc.Queued += n
		}
	}
	if err := rows.Err(); err != nil {
		return nil, fmt.Errorf("counting the generation jobs: %w", err)
	}
	var out []report.StepCount
	for _, k := range []string{kindGenerate, kindRepair} {
		if sc := by[k]; sc != nil {
			out = append(out, *sc)
		}
	}
	return out, nil
}
