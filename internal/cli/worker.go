package cli

import (
	"context"
	"fmt"
	"time"

	"github.com/spf13/cobra"

	"github.com/worldprobe/worldprobe/internal/queue"
	"github.com/worldprobe/worldprobe/internal/store"
	"github.com/worldprobe/worldprobe/internal/trial"
)

// WorkerOptions are the flags of 'worldprobe worker'.
type WorkerOptions struct {
	engineFlags
	DB          string
	Drain       bool
	RescueAfter time.Duration
	StopGrace   time.Duration
	// video are run's flags (the worker records the trials it judges).
	video videoFlags
}

// NewCmdWorker builds 'worldprobe worker'.
func NewCmdWorker(io IO) *cobra.Command {
	o := &WorkerOptions{}
	cmd := &cobra.Command{
		Use:   "worker --db URL",
		Short: "Judge the trials a 'run --db' enqueued, on this machine",
		Long: `Judge trials from a PostgreSQL queue: 'worldprobe run SUITE --db URL' enqueues
each trial as a River job, and any number of workers, on any machines, pull them
and judge them --jobs at a time in their own Chromium. Each trial's result is
saved once in the database (under its run folder's path) and written to its
folder, trials/<trial>/ in the run folder, with its artifacts: in this version the
run folder (which holds the tasks' and pages' paths) must be at the same path on
every machine, a shared folder (docs/scale-out.md).

A worker killed mid-trial loses nothing: after --rescue-after its trial is run
again by another worker (River rescues the job). An infrastructure error (the
browser went away, a file could not be read) is retried with backoff, up to 5
attempts, and never scored. SIGTERM or Ctrl-C drains the worker cleanly: it takes
no new trial, lets the running ones finish for --stop-grace, then cancels them
(they go back to the queue, for another worker) and exits. --drain exits once the
queue holds no unfinished trial (start it after the run has enqueued).

` + exitStatusHelp("the worker stopped cleanly (drained or signalled)", ""),
		Example: `  worldprobe run suites/starter --oracle --db postgres://wp@db:5432/wp --jobs 0 --out /shared/runs/starter &
  worldprobe worker --db postgres://wp@db:5432/wp --jobs 2          # on each machine
  worldprobe worker --db postgres://wp@db:5432/wp --jobs 2 --drain  # exits when the queue is empty`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, args []string) error {
			return runWorker(cmd.Context(), io, o)
		},
	}
	f := cmd.Flags()
	o.engineFlags.register(f)
	f.StringVar(&o.DB, "db", "", "PostgreSQL URL of the queue (postgres://USER@HOST:PORT/DATABASE), as given to 'run --db'")
	f.BoolVar(&o.Drain, "drain", false, "exit once the queue holds no unfinished trial")
	f.DurationVar(&o.RescueAfter, "rescue-after", queue.DefaultRescueAfter, "how long a trial may run before its worker is deemed dead and the trial is run elsewhere ; also each trial's time limit (keep it above the longest trial)")
	f.DurationVar(&o.StopGrace, "stop-grace", queue.DefaultStopGrace, "on SIGTERM, how long running trials may finish before they are cancelled and go back to the queue")
	o.video.register(f)
	return cmd
}

func runWorker(ctx context.Context, io IO, o *WorkerOptions) error {
	if !store.IsPostgresURL(o.DB) {
		return usageErr("worker needs --db, a PostgreSQL URL (postgres://USER@HOST:PORT/DATABASE)")
	}
	if o.RescueAfter <= 0 || o.StopGrace <= 0 {
		return usageErr("--rescue-after and --stop-grace must be positive")
	}
	video, err := o.video.value()
	if err != nil {
		return err
	}
	b, res, err := o.start(ctx, io, 0, 0)
	if err != nil {
		return err
	}
	defer b.Close()
	runner := &trial.Runner{Browser: b, Resolver: res, SkipDraw: true, Video: video}
	q, err := queue.OpenPostgres(ctx, o.DB, queue.Config{Workers: b.Jobs(), Runner: runner, RescueAfter: o.RescueAfter,
		StopGrace: o.StopGrace, Progress: io.ErrOut})
	if err != nil {
		return runtimeErr(err)
	}
	defer q.Close()
	if err := q.Start(ctx); err != nil {
		return runtimeErr(err)
	}
	fmt.Fprintf(io.ErrOut, "worker: %d jobs on %s, Chromium %s\n", b.Jobs(), store.RedactURL(o.DB), b.Version())
	why := "signalled"
	if o.Drain {
		tick := time.NewTicker(time.Second)
		defer tick.Stop()
	wait:
		for {
			select {
			case <-ctx.Done():
				break wait
			case <-tick.C:
			}
			n, err := q.Pending(ctx)
			if err != nil && ctx.Err() == nil {
				return runtimeErr(err)
			}
			if n == 0 && err == nil {
				why = "drained: no unfinished trial left"
				break
			}
		}
	} else {
		<-ctx.Done()
	}
	fmt.Fprintf(io.ErrOut, "worker: %s; stopping (running trials have %s to finish)\n", why, o.StopGrace)
	stopCtx, cancel := context.WithTimeout(context.WithoutCancel(ctx), o.StopGrace+30*time.Second)
	defer cancel()
	if err := q.Stop(stopCtx); err != nil {
		return runtimeErr(err)
	}
	fmt.Fprintln(io.ErrOut, "worker: stopped")
	return nil
}
