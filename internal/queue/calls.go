package queue

import (
	"context"
	"database/sql"
	"encoding/json"
	"errors"
	"fmt"
	"sync"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgxpool"

	"github.com/worldprobe/worldprobe/internal/llm"
)

// calls keeps the model's answers to a job's calls, by job key and call,
// in the queue's database: each answer is stored the moment it arrives,
// before the job completes, so that a job run again — retried after an
// error, released by a stopping worker, rescued from a dead one — gets
// the answers its earlier attempts paid for instead of calling the model
// again. Only answers are stored, never keys.
type calls interface {
	// get returns the answer stored for (job, call); ok is false when
	// there is none.
	get(ctx context.Context, job, call string) (resp *llm.Response, ok bool, err error)
	// put stores the answer to (job, call); a second put of the same call
	// keeps the first.
	put(ctx context.Context, job, call string, resp *llm.Response) error
	// count is how many answers are stored for job.
	count(ctx context.Context, job string) (int, error)
}

const callsTable = `CREATE TABLE IF NOT EXISTS worldprobe_model_calls (
	job TEXT NOT NULL,
	call TEXT NOT NULL,
	response TEXT NOT NULL,
	PRIMARY KEY (job, call)
)`

// sqliteCalls keeps the answers in the SQLite queue file.
type sqliteCalls struct{ db *sql.DB }

func newSQLiteCalls(ctx context.Context, db *sql.DB) (*sqliteCalls, error) {
	if _, err := db.ExecContext(ctx, callsTable); err != nil {
		return nil, fmt.Errorf("creating the model calls table: %w", err)
	}
	return &sqliteCalls{db: db}, nil
}

func (c *sqliteCalls) get(ctx context.Context, job, call string) (*llm.Response, bool, error) {
	var doc string
	err := c.db.QueryRowContext(ctx, `SELECT response FROM worldprobe_model_calls WHERE job = ? AND call = ?`, job, call).Scan(&doc)
	return decodeCall(doc, err, job)
}

func (c *sqliteCalls) put(ctx context.Context, job, call string, resp *llm.Response) error {
	doc, err := json.Marshal(resp)
	if err != nil {
		return fmt.Errorf("storing the answer to job %s's call: %w", job, err)
	}
	if _, err := c.db.ExecContext(ctx, `INSERT INTO worldprobe_model_calls (job, call, response) VALUES (?, ?, ?) ON CONFLICT DO NOTHING`, job, call, string(doc)); err != nil {
		return fmt.Errorf("storing the answer to job %s's call: %w", job, err)
	}
	return nil
}

func (c *sqliteCalls) count(ctx context.Context, job string) (int, error) {
	var n int
	err := c.db.QueryRowContext(ctx, `SELECT count(*) FROM worldprobe_model_calls WHERE job = ?`, job).Scan(&n)
	return n, err
}

// postgresCalls keeps the answers in PostgreSQL.
type postgresCalls struct{ pool *pgxpool.Pool }

func newPostgresCalls(ctx context.Context, pool *pgxpool.Pool) (*postgresCalls, error) {
	if _, err := pool.Exec(ctx, callsTable); err != nil {
		return nil, fmt.Errorf("creating the model calls table: %w", err)
	}
	return &postgresCalls{pool: pool}, nil
}

func (c *postgresCalls) get(ctx context.Context, job, call string) (*llm.Response, bool, error) {
	var doc string
	err := c.pool.QueryRow(ctx, `SELECT response FROM worldprobe_model_calls WHERE job = $1 AND call = $2`, job, call).Scan(&doc)
	if errors.Is(err, pgx.ErrNoRows) {
		err = sql.ErrNoRows
	}
	return decodeCall(doc, err, job)
}

func (c *postgresCalls) put(ctx context.Context, job, call string, resp *llm.Response) error {
	doc, err := json.Marshal(resp)
	if err != nil {
		return fmt.Errorf("storing the answer to job %s's call: %w", job, err)
	}
	if _, err := c.pool.Exec(ctx, `INSERT INTO worldprobe_model_calls (job, call, response) VALUES ($1, $2, $3) ON CONFLICT DO NOTHING`, job, call, string(doc)); err != nil {
		return fmt.Errorf("storing the answer to job %s's call: %w", job, err)
	}
	return nil
}

func (c *postgresCalls) count(ctx context.Context, job string) (int, error) {
	var n int
	err := c.pool.QueryRow(ctx, `SELECT count(*) FROM worldprobe_model_calls WHERE job = $1`, job).Scan(&n)
	return n, err
}

func decodeCall(doc string, err error, job string) (*llm.Response, bool, error) {
	if errors.Is(err, sql.ErrNoRows) {
		return nil, false, nil
	}
	if err != nil {
		return nil, false, fmt.Errorf("reading job %s's stored answers: %w", job, err)
	}
	resp := &llm.Response{}
	if err := json.Unmarshal([]byte(doc), resp); err != nil {
		return nil, false, fmt.Errorf("reading job %s's stored answer: %w", job, err)
	}
	return resp, true, nil
}

// storedModel is a model whose answers for one job are kept in calls: a
// call the job made before (the same request, the same how-many-th time
// in this attempt) is answered from there, any other goes to the model and
// its answer is stored before it is returned. A job's steps are
// deterministic given the answers, so an attempt run again asks exactly
// the calls its predecessor asked, and pays only for those it never got.
type storedModel struct {
	model llm.Model
	calls calls
	job   string

	mu   sync.Mutex
	seen map[string]int
}

func newStoredModel(m llm.Model, c calls, job string) *storedModel {
	return &storedModel{model: m, calls: c, job: job, seen: map[string]int{}}
}

// Chat implements llm.Model.
func (s *storedModel) Chat(ctx context.Context, req llm.Request) (*llm.Response, error) {
	d, err := llm.Digest("", "", req)
	if err != nil {
		return nil, err
	}
	s.mu.Lock()
	n := s.seen[d]
	s.seen[d]++
	s.mu.Unlock()
	call := fmt.Sprintf("%s#%d", d, n)
	if resp, ok, err := s.calls.get(ctx, s.job, call); err != nil || ok {
		return resp, err
	}
	resp, err := s.model.Chat(ctx, req)
	if err != nil {
		return nil, err
	}
	// Stored even when ctx has just ended: the answer is paid for.
	if err := s.calls.put(context.WithoutCancel(ctx), s.job, call, resp); err != nil {
		return nil, err
	}
	return resp, nil
}
