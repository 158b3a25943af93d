// Package queue judges trials as River jobs (github.com/riverqueue/river):
// each trial is one job of kind "trial", unique by its run and key, and a
// worker — in this process or in 'worldprobe worker' on another machine —
// judges it with the trial runner and saves exactly one result per key.
//
// Two databases carry the queue: SQLite (River's riversqlite driver on
// modernc.org/sqlite) in the run folder, for a local run judged by
// in-process workers, and PostgreSQL (riverpgxv5), which also holds the
// results (store.Postgres) so that workers anywhere can share one run. The
// run folder, which holds the tasks' copies, the candidates' paths and the
// artifacts, must be at the same path on every machine in this version
// (docs/scale-out.md).
package queue

import (
	"context"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"path/filepath"
	"sync"
	"time"

	"github.com/riverqueue/river"
	"github.com/riverqueue/river/riverdriver"
	"github.com/riverqueue/river/riverdriver/riverpgxv5"
	"github.com/riverqueue/river/riverdriver/riversqlite"
	"github.com/riverqueue/river/rivermigrate"
	"github.com/riverqueue/river/rivertype"

	"github.com/worldprobe/worldprobe/internal/artifactstore"
	"github.com/worldprobe/worldprobe/internal/store"
	"github.com/worldprobe/worldprobe/internal/trial"
)

// Defaults of [Config].
const (
	// DefaultRescueAfter is how long a trial may run before River deems
	// its worker dead (killed, its machine gone) and runs it elsewhere;
	// it is also each trial's time limit (River's job timeout): a trial
	// still running then is cancelled and retried. Keep it above the
	// longest trial.
	DefaultRescueAfter = 15 * time.Minute
	// DefaultStopGrace is how long a stopping worker lets its running
	// trials finish before it cancels them (they are then retried).
	DefaultStopGrace = 30 * time.Second
	// DefaultMaxAttempts is how many times a trial is tried before its
	// job is discarded and the run stops with its last error:
	// infrastructure errors, cancelled trials of stopping workers and
	// rescues count. River waits attempt⁴ seconds (1 s, 16 s, 81 s, …)
	// before each retry.
	DefaultMaxAttempts = 5

	// fetchCooldown is the least time between two fetches of a worker.
	fetchCooldown = 5 * time.Millisecond
)

// Config configures a [Queue].
type Config struct {
	// Workers is how many trials this process judges at once; 0 makes a
	// queue that only enqueues and reads results.
	Workers int
	// Runner judges the trials; needed when Workers > 0.
	Runner *trial.Runner
	// RescueAfter: see DefaultRescueAfter (0 means it).
	RescueAfter time.Duration
	// StopGrace: see DefaultStopGrace (0 means it).
	StopGrace time.Duration
	// MaxAttempts: see DefaultMaxAttempts (0 means it). It is the
	// enqueuing process's that counts: River stores it in each job.
	MaxAttempts int
	// Poll is how often an idle worker looks for jobs and an executor for
	// results; 0 means 100 ms for SQLite, 500 ms for PostgreSQL (whose
	// workers also hear of new jobs at once through LISTEN/NOTIFY).
	Poll   time.Duration
	Logger *slog.Logger
	// Models, when set with Workers > 0, makes this process's workers run
	// generation and repair jobs too (gen --db, worker --models), with
	// these models; Runner's browser checks the pages of a repair.
	Models Models
	// Artifacts, when set, receives each trial's folder (result.json and
	// every artifact) once the trial is judged, under the run folder's
	// path (artifactstore.RunPrefix), before its result is saved: a
	// result in the database has its files in the store.
	Artifacts artifactstore.Store
	// GenOnly makes this process's workers run generation and repair
	// jobs only, no trial (gen's own workers); Runner is then needed only
	// for repairs.
	GenOnly bool
	// Private says only this process works the (SQLite) queue: a local
	// run's. OpenSQLite then locks the file against other processes, and
	// a job it finds running was left by a process that ended mid-trial
	// (kill -9, a power cut): it is made available again at once rather
	// than after RescueAfter, and counted in [Queue.Rescued]. Its jobs
	// have no time limit (RescueAfter does not apply), and it is for a
	// user who waits: a stop cuts its jobs short at once (StopGrace 1 ms
	// unless set; they run again on resume) and a failed job is retried
	// after attempt² seconds (1, 4, 9, 16 s at the default attempts)
	// rather than River's attempt⁴ (about six minutes).
	Private bool
	// Progress, when set, gets a line when a worker of this process
	// starts a trial ("judging DIR (job ID, attempt N)") and when it has
	// saved its result ("judged DIR: OUTCOME").
	Progress io.Writer
}

// client is what a queue uses of a river.Client, whatever its driver's
// transaction type.
type client interface {
	Start(ctx context.Context) error
	Stop(ctx context.Context) error
	InsertMany(ctx context.Context, params []river.InsertManyParams) ([]*rivertype.JobInsertResult, error)
	JobList(ctx context.Context, params *river.JobListParams) (*river.JobListResult, error)
	Subscribe(kinds ...river.EventKind) (<-chan *river.Event, func())
}

// Queue is a River client over one database and the results store its
// workers write to.
type Queue struct {
	client  client
	cfg     Config
	results func(ctx context.Context, run string) (store.Store, error)
	// calls keeps the answers to generation and repair jobs' model calls.
	calls   calls
	closers []func()
	// local: the results go to each run folder's results.db (SQLite).
	local bool
	// rescued: see Rescued.
	rescued int

	mu      sync.Mutex
	started bool
}

// OpenSQLite opens (creating and migrating it if needed) a queue in the
// SQLite file path; its workers save each run's results in that run
// folder's results.db.
func OpenSQLite(ctx context.Context, path string, cfg Config) (*Queue, error) {
	db, err := store.SQLiteDB(path)
	if err != nil {
		return nil, fmt.Errorf("opening the queue %s: %w", path, err)
	}
	q := &Queue{cfg: withDefaults(cfg, 100*time.Millisecond), closers: []func(){func() { db.Close() }}, local: true}
	if cfg.Private {
		unlock, err := lockFile(path + ".lock")
		if err != nil {
			q.Close()
			return nil, err
		}
		q.closers = append(q.closers, unlock)
	}
	q.results = cachedStores(func(ctx context.Context, run string) (store.Store, error) {
		return store.OpenSQLite(ctx, filepath.Join(run, store.ResultsDB))
	}, q)
	driver := riversqlite.New(db)
	if err := migrate(ctx, driver); err != nil {
		q.Close()
		return nil, fmt.Errorf("creating River's tables in %s: %w", path, err)
	}
	if cfg.Private {
		if q.rescued, err = rescueOrphans(ctx, driver.GetExecutor()); err != nil {
			q.Close()
			return nil, fmt.Errorf("%s: making the trials of a process that ended available again: %w", path, err)
		}
	}
	if q.calls, err = newSQLiteCalls(ctx, db); err != nil {
		q.Close()
		return nil, fmt.Errorf("%s: %w", path, err)
	}
	if q.client, err = newClient(driver, q); err != nil {
		q.Close()
		return nil, err
	}
	return q, nil
}

// OpenPostgres opens a queue in the PostgreSQL database at url (creating
// River's tables and the results' if needed); its workers save results
// in the same database (store.Postgres, one run per run folder).
func OpenPostgres(ctx context.Context, url string, cfg Config) (*Queue, error) {
	pool, err := store.DialPool(ctx, url)
	if err != nil {
		return nil, fmt.Errorf("connecting to %s: %w", store.RedactURL(url), err)
	}
	q := &Queue{cfg: withDefaults(cfg, 500*time.Millisecond), closers: []func(){pool.Close}}
	q.results = cachedStores(func(ctx context.Context, run string) (store.Store, error) {
		return store.OpenPostgres(ctx, pool, run)
	}, q)
	driver := riverpgxv5.New(pool)
	// Workers starting at once would migrate at once: one at a time.
	conn, err := pool.Acquire(ctx)
	if err != nil {
		q.Close()
		return nil, fmt.Errorf("connecting to %s: %w", store.RedactURL(url), err)
	}
	_, err = conn.Exec(ctx, `SELECT pg_advisory_lock($1)`, int64(migrateLock))
	if err == nil {
		err = migrate(ctx, driver)
		if _, uerr := conn.Exec(ctx, `SELECT pg_advisory_unlock($1)`, int64(migrateLock)); err == nil && uerr != nil {
			err = uerr
		}
	}
	conn.Release()
	if err != nil {
		q.Close()
		return nil, fmt.Errorf("creating River's tables in %s: %w", store.RedactURL(url), err)
	}
	if q.calls, err = newPostgresCalls(ctx, pool); err != nil {
		q.Close()
		return nil, fmt.Errorf("%s: %w", store.RedactURL(url), err)
	}
	if q.client, err = newClient(driver, q); err != nil {
		q.Close()
		return nil, err
	}
	return q, nil
}

// migrateLock is the advisory lock (an arbitrary constant) held while
// River's migrations run.
const migrateLock = 0x7269766572 // "river"

func withDefaults(cfg Config, poll time.Duration) Config {
	if cfg.RescueAfter <= 0 {
		cfg.RescueAfter = DefaultRescueAfter
	}
	if cfg.StopGrace <= 0 {
		cfg.StopGrace = DefaultStopGrace
		if cfg.Private {
			cfg.StopGrace = time.Millisecond
		}
	}
	if cfg.MaxAttempts <= 0 {
		cfg.MaxAttempts = DefaultMaxAttempts
	}
	if cfg.Poll <= 0 {
		cfg.Poll = poll
	}
	if cfg.Logger == nil {
		cfg.Logger = slog.Default()
	}
	if cfg.Progress == nil {
		cfg.Progress = io.Discard
	}
	return cfg
}

func migrate[TTx any](ctx context.Context, driver riverdriver.Driver[TTx]) error {
	m, err := rivermigrate.New(driver, &rivermigrate.Config{Logger: slog.New(slog.DiscardHandler)})
	if err != nil {
		return err
	}
	_, err = m.Migrate(ctx, rivermigrate.DirectionUp, nil)
	return err
}

func newClient[TTx any](driver riverdriver.Driver[TTx], q *Queue) (client, error) {
	cfg := &river.Config{
		Logger:      q.cfg.Logger,
		MaxAttempts: q.cfg.MaxAttempts,
		// River rescues a dead worker's job only once its timeout has
		// passed (never with no timeout), so the rescue delay is also
		// each trial's time limit: a trial still running then is
		// cancelled by its own worker (and retried) as it becomes
		// eligible for rescue, rather than judged twice at once.
		JobTimeout:           q.cfg.RescueAfter,
		RescueStuckJobsAfter: q.cfg.RescueAfter,
		SoftStopTimeout:      q.cfg.StopGrace,
		// A trial lasts seconds, so fetching again as soon as a worker
		// frees (River's default waits up to 100 ms, to batch floods of
		// tiny jobs) costs one query per trial and saves that wait.
		FetchCooldown:     min(q.cfg.Poll, fetchCooldown),
		FetchPollInterval: q.cfg.Poll,
		// Finished jobs are kept a week: the results are the record,
		// the jobs say who ran what and how often.
		CompletedJobRetentionPeriod: 7 * 24 * time.Hour,
	}
	if q.cfg.Private {
		cfg.RetryPolicy = squareBackoff{}
		// No other process can take a job over, and a job left by a
		// process that ended is taken up as the queue opens: no rescue,
		// so no time limit either (as in the pool, a trial's own
		// deadlines bound it). A trial slowed past RescueAfter by a
		// loaded machine is not cut short and judged again.
		cfg.JobTimeout = -1
	}
	if q.cfg.Workers > 0 {
		workers := river.NewWorkers()
		cfg.Queues = map[string]river.QueueConfig{}
		if !q.cfg.GenOnly {
			if q.cfg.Runner == nil {
				return nil, errors.New("queue: workers need a trial runner")
			}
			chromium := ""
			if q.cfg.Runner.Browser != nil {
				chromium = q.cfg.Runner.Browser.Version()
			}
			if err := river.AddWorkerSafely(workers, &trialWorker{runner: q.cfg.Runner, chromium: chromium, results: q.results, progress: q.cfg.Progress, artifacts: q.cfg.Artifacts}); err != nil {
				return nil, fmt.Errorf("registering the trial worker: %w", err)
			}
			cfg.Queues[river.QueueDefault] = river.QueueConfig{MaxWorkers: q.cfg.Workers}
		} else if q.cfg.Models == nil {
			return nil, errors.New("queue: generation workers need models")
		}
		if q.cfg.Models != nil {
			g := &genWorkers{q: q, models: q.cfg.Models, calls: q.calls}
			if err := river.AddWorkerSafely(workers, &generateWorker{genWorkers: g}); err != nil {
				return nil, fmt.Errorf("registering the generation worker: %w", err)
			}
			if err := river.AddWorkerSafely(workers, &repairWorker{genWorkers: g}); err != nil {
				return nil, fmt.Errorf("registering the repair worker: %w", err)
			}
			cfg.Queues[queueGen] = river.QueueConfig{MaxWorkers: q.cfg.Workers}
		}
		cfg.Workers = workers
	}
	c, err := river.NewClient(driver, cfg)
	if err != nil {
		return nil, fmt.Errorf("starting River: %w", err)
	}
	return c, nil
}

// cachedStores opens each run's results store once; the queue closes them.
func cachedStores(open func(ctx context.Context, run string) (store.Store, error), q *Queue) func(ctx context.Context, run string) (store.Store, error) {
	var mu sync.Mutex
	stores := map[string]store.Store{}
	q.closers = append(q.closers, func() {
		mu.Lock()
		defer mu.Unlock()
		for _, s := range stores {
			s.Close()
		}
	})
	return func(ctx context.Context, run string) (store.Store, error) {
		mu.Lock()
		defer mu.Unlock()
		if s, ok := stores[run]; ok {
			return s, nil
		}
		s, err := open(ctx, run)
		if err != nil {
			return nil, err
		}
		stores[run] = s
		return s, nil
	}
}

// Results is the results store of the run folder run (an absolute path).
func (q *Queue) Results(ctx context.Context, run string) (store.Store, error) {
	return q.results(ctx, run)
}

// Start starts the queue's workers (a queue without workers has nothing
// to start). They run until [Queue.Stop], whatever becomes of ctx.
func (q *Queue) Start(ctx context.Context) error {
	if q.cfg.Workers == 0 {
		return nil
	}
	q.mu.Lock()
	defer q.mu.Unlock()
	if err := q.client.Start(context.WithoutCancel(ctx)); err != nil {
		return fmt.Errorf("starting River's workers: %w", err)
	}
	q.started = true
	return nil
}

// Stop stops the workers cleanly: they take no new trial, the running
// ones have StopGrace to finish, and then are cancelled; a cancelled
// trial saves nothing and River puts its job back in the queue at once,
// for another worker, without counting the attempt. Stop returns when every running trial has ended.
func (q *Queue) Stop(ctx context.Context) error {
	q.mu.Lock()
	defer q.mu.Unlock()
	if !q.started {
		return nil
	}
	q.started = false
	if err := q.client.Stop(ctx); err != nil {
		return fmt.Errorf("stopping River's workers: %w", err)
	}
	return nil
}

// Close stops the workers if they run and releases the database.
func (q *Queue) Close() error {
	var err error
	if q.client != nil {
		ctx, cancel := context.WithTimeout(context.Background(), q.cfg.StopGrace+10*time.Second)
		err = q.Stop(ctx)
		cancel()
	}
	for i := len(q.closers) - 1; i >= 0; i-- {
		q.closers[i]()
	}
	q.closers = nil
	return err
}

// Pending is how many jobs (trials, generation and repair steps) are not finished yet: waiting, scheduled
// for a retry, or running (a dead worker's job too, until it is rescued).
func (q *Queue) Pending(ctx context.Context) (int, error) {
	n := 0
	var cursor *river.JobListCursor
	for {
		p := river.NewJobListParams().Kinds(kindTrial, kindGenerate, kindRepair).First(1000).States(unfinished...)
		if cursor != nil {
			p = p.After(cursor)
		}
		res, err := q.client.JobList(ctx, p)
		if err != nil {
			return 0, fmt.Errorf("counting pending trials: %w", err)
		}
		n += len(res.Jobs)
		if len(res.Jobs) < 1000 {
			return n, nil
		}
		cursor = res.LastCursor
	}
}

// unfinished are the states of a job that will still run.
var unfinished = []rivertype.JobState{rivertype.JobStateAvailable, rivertype.JobStatePending, rivertype.JobStateRetryable,
	rivertype.JobStateRunning, rivertype.JobStateScheduled}

// squareBackoff is a River retry policy waiting attempt² seconds before
// each retry.
type squareBackoff struct{}

// NextRetry implements river.ClientRetryPolicy.
func (squareBackoff) NextRetry(job *rivertype.JobRow) time.Time {
	n := time.Duration(max(job.Attempt, 1))
	return time.Now().Add(n * n * time.Second)
}
