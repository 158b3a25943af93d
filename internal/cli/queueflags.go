package cli

import (
	"context"
	"fmt"
	"log/slog"
	"path/filepath"
	"time"

	"github.com/spf13/pflag"

	"github.com/worldprobe/worldprobe/internal/artifactstore"
	"github.com/worldprobe/worldprobe/internal/queue"
	"github.com/worldprobe/worldprobe/internal/run"
	"github.com/worldprobe/worldprobe/internal/store"
	"github.com/worldprobe/worldprobe/internal/trial"
)

// queueFlags are run's flags that judge trials as River jobs
// (docs/scale-out.md) instead of in the in-process pool.
type queueFlags struct {
	// DB is a PostgreSQL URL: the trials are enqueued there, and judged
	// by this process's --jobs workers and any 'worldprobe worker'.
	DB string
	// Executor is "river" (the default: River on SQLite in the run
	// folder, with this process's workers) or "pool" (the in-process
	// pool, no queue).
	Executor  string
	rescue    rescueFlag
	artifacts artifactsFlag
}

// rescueFlag is --rescue-after, which run and worker share.
type rescueFlag struct{ RescueAfter time.Duration }

func (f *rescueFlag) register(fs *pflag.FlagSet) {
	fs.DurationVar(&f.RescueAfter, "rescue-after", queue.DefaultRescueAfter, "with River on PostgreSQL (--db): how long a trial may run before its worker is deemed dead (killed, its machine gone) and the trial is judged elsewhere; also each trial's time limit (past it the trial is cancelled and retried): keep it above the longest trial. A local run's own queue needs none: it takes back a killed run's trials when resumed")
}

func (f *rescueFlag) check() error {
	if f.RescueAfter <= 0 {
		return usageErr("--rescue-after must be positive")
	}
	return nil
}

func (f *queueFlags) register(fs *pflag.FlagSet) {
	fs.StringVar(&f.DB, "db", "", "PostgreSQL URL (postgres://…): enqueue the trials there as River jobs, judged by this process's --jobs workers (0: none, only enqueue and wait) and by 'worldprobe worker --db' on any machine sharing the run folder's path; results are kept there too (docs/scale-out.md)")
	fs.StringVar(&f.Executor, "executor", "river", "how trials run here: river (River jobs in the run folder's queue.db, SQLite, judged by this process's --jobs workers) or pool (an in-process pool, no queue: the same verdicts); --db implies river")
	f.rescue.register(fs)
	f.artifacts.register(fs, "copy each judged trial's folder into `WHERE` too (River's workers, or this process's pool), a folder or s3://BUCKET/PREFIX (endpoint and keys from $"+artifactstore.EnvS3Endpoint+", $"+artifactstore.EnvAccessKey+", $"+artifactstore.EnvSecretKey+"), under the run folder's path, for 'serve --artifacts' (docs/scale-out.md)")
}

// checkExecutor validates --executor, --db and --jobs, which run and gen
// share; workers is what --jobs 0 leaves to 'worldprobe worker' ("judge",
// "generate").
func checkExecutor(executor, db string, jobs int, workers string) error {
	switch executor {
	case "pool", "river":
	default:
		return usageErr("--executor %q: pool or river", executor)
	}
	if db != "" && !store.IsPostgresURL(db) {
		return usageErr("--db %q: want a PostgreSQL URL, postgres://USER@HOST:PORT/DATABASE", store.RedactURL(db))
	}
	if jobs < 0 || db == "" && jobs < 1 {
		return usageErr("--jobs must be at least 1 (0 only with --db: enqueue and let workers %s)", workers)
	}
	return nil
}

// check validates the flags with --jobs.
func (f *queueFlags) check(jobs int) error {
	if err := checkExecutor(f.Executor, f.DB, jobs, "judge"); err != nil {
		return err
	}
	return f.rescue.check()
}

// describe is how the run's first line names the executor.
func (f *queueFlags) describe() string {
	switch {
	case f.DB != "":
		return " (River on " + store.RedactURL(f.DB) + ")"
	case f.Executor == "river":
		return " (River on the run folder's queue.db)"
	}
	return ""
}

// open opens the queue the flags ask for, with jobs workers started
// (nil: the in-process pool). The run folder is created when needed
// (run.CreateFolder, as run.Execute would).
func (f *queueFlags) open(ctx context.Context, io IO, out string, jobs int, runner *trial.Runner) (*queue.Queue, error) {
	cfg := queue.Config{Workers: jobs, Runner: runner, RescueAfter: f.rescue.RescueAfter}
	if f.DB != "" || f.Executor == "river" {
		st, err := f.artifacts.open(ctx, io)
		if err != nil {
			return nil, err
		}
		cfg.Artifacts = st
	}
	var q *queue.Queue
	var err error
	switch {
	case f.DB != "":
		q, err = queue.OpenPostgres(ctx, f.DB, cfg)
	case f.Executor == "river":
		// Only this process works these jobs, for a user who waits:
		// an interrupted run stops its trials at once (they are
		// judged again on resume) and a failed trial is retried
		// within half a minute.
		cfg.Private = true
		// River's own notices (a stop cutting trials short) are this
		// process's business here; its errors still show.
		cfg.Logger = slog.New(slog.NewTextHandler(io.ErrOut, &slog.HandlerOptions{Level: slog.LevelError}))
		if err := run.CreateFolder(out); err != nil {
			return nil, runtimeErr(err)
		}
		q, err = queue.OpenSQLite(ctx, filepath.Join(out, "queue.db"), cfg)
	default:
		return nil, nil
	}
	if err != nil {
		return nil, runtimeErr(err)
	}
	if n := q.Rescued(); n > 0 {
		fmt.Fprintf(io.ErrOut, "%s left marked running by a process that ended (killed?): taken up again\n", plural(n, "trial"))
	}
	if err := q.Start(ctx); err != nil {
		q.Close()
		return nil, runtimeErr(err)
	}
	return q, nil
}
