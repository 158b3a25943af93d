package cli

import (
	"context"
	"fmt"
	"time"

	"github.com/spf13/cobra"

	"github.com/worldprobe/worldprobe/internal/artifactstore"
	"github.com/worldprobe/worldprobe/internal/llm"
	"github.com/worldprobe/worldprobe/internal/queue"
	"github.com/worldprobe/worldprobe/internal/store"
	"github.com/worldprobe/worldprobe/internal/trial"
	"github.com/worldprobe/worldprobe/internal/worldjudge"
)

// WorkerOptions are the flags of 'worldprobe worker'.
type WorkerOptions struct {
	engineFlags
	DB        string
	Drain     bool
	rescue    rescueFlag
	StopGrace time.Duration
	// video are run's flags (the worker records the trials it judges).
	video videoFlags
	// looks are run's --models, --record, --replay and --allow-unpriced:
	// the models of the look and act steps and of --design, with API
	// keys from this worker's environment.
	looks     lookFlags
	Design    bool
	artifacts artifactsFlag
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

Look and act steps, and --design, are judged with the models of --models (as
for run), their API keys read from this worker's environment only: a job never
carries one. Give every worker the same --models, --design and video flags.

Tasks judged against a rubric (judge: in task.yaml) are judged by the world
judge as the run planned them (docs/judge.md): offline by any worker; with
models ('run --models') by a worker whose --models gives the same roles the
same models, with their keys set here. A worker without them leaves such a
trial to another (an infrastructure error, retried, never scored).

With --models, the worker also runs the generation and repair steps 'gen --db'
enqueues: each sample's calls with the --model the job names, made from this
worker's models file and keys (a worker without the key leaves the step to
another, after a retry). Every answer is stored in the database before the step
finishes, so a step run again — retried, or rescued from a killed worker — never
pays for a call twice; OUT must be at the same path on every machine.

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
	o.rescue.register(f)
	o.artifacts.register(f, "copy each judged trial's folder into `WHERE` too, a folder or s3://BUCKET/PREFIX (endpoint and keys from this worker's environment: $"+artifactstore.EnvS3Endpoint+", $"+artifactstore.EnvAccessKey+", $"+artifactstore.EnvSecretKey+"), as 'run --artifacts'")
	f.DurationVar(&o.StopGrace, "stop-grace", queue.DefaultStopGrace, "on SIGTERM, how long running trials may finish before they are cancelled and go back to the queue")
	o.video.register(f)
	o.looks.register(f)
	f.BoolVar(&o.Design, "design", false, "rate every recorded XR trial on the ten XR design heuristics of docs/xr-design.md with the visual_judge role, as 'run --design' does")
	return cmd
}

// runner gives r the judges of the model steps, as a local run has them:
// the visual_judge role for look steps (and the design score with
// --design), the xr_actor role for act steps, from --models and this
// worker's environment. A role whose API key is not set here leaves its
// steps unjudged, with a warning. The worker does not know which tasks it
// will judge, so it makes both judges whatever the tasks.
func (o *WorkerOptions) runner(ctx context.Context, io IO, r *trial.Runner) (*trial.Runner, error) {
	var err error
	if r.Looker, err = o.looks.lookerFor(ctx, io, "the look steps this worker judges"); err != nil {
		return nil, err
	}
	if r.Actor, err = o.looks.actorFor(ctx, io, "the assertions after the act steps this worker judges"); err != nil {
		return nil, err
	}
	if o.Design {
		if r.Design, err = o.looks.designRater(ctx, io); err != nil {
			return nil, err
		}
	}
	setups, err := o.worldSetups(ctx, io)
	if err != nil {
		return nil, err
	}
	r.World = worldjudge.TrialJudges(r.Browser, r.Resolver, setups...)
	return r, nil
}

// worldSetups are the world judge configurations this worker judges
// with: offline always (a run's --offline, every model half unjudged),
// and with --models the roles of 'run --models' (named by worldJudging)
// when each of judgeRoles has its API key in this worker's environment;
// without a key the worker says so, and leaves the trials judged with
// models to other workers. A trial runs with the configuration its run
// planned (trial.Spec.WorldJudge), or fails here as an infrastructure
// error (retried, never scored) when this worker does not have it.
func (o *WorkerOptions) worldSetups(ctx context.Context, io IO) ([]worldjudge.Options, error) {
	setups := []worldjudge.Options{{Offline: true, Judging: worldjudge.JudgingOffline}}
	if o.looks.ModelsFile == "" {
		return setups, nil
	}
	models, _, err := loadModels(io, o.looks.ModelsFile, "", "", false)
	if err != nil {
		return nil, usageErr("--models: %v", err)
	}
	if missing, err := judgeRoleWithoutKey(ctx, models); err != nil {
		return nil, err
	} else if missing != nil {
		fmt.Fprintf(io.ErrOut, "WARNING: this worker judges worlds offline only: the world judge's %s role (%s) has no API key in $%s here; trials a run judges with models are left to other workers\n", missing.role, missing.model, missing.env)
		return setups, nil
	}
	jo, err := worldModels(ctx, models, o.looks.ModelsFile)
	if err != nil {
		return nil, err
	}
	return append(setups, *jo), nil
}

func runWorker(ctx context.Context, io IO, o *WorkerOptions) error {
	if !store.IsPostgresURL(o.DB) {
		return usageErr("worker needs --db, a PostgreSQL URL (postgres://USER@HOST:PORT/DATABASE)")
	}
	if err := o.rescue.check(); err != nil {
		return err
	}
	if o.StopGrace <= 0 {
		return usageErr("--stop-grace must be positive")
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
	if err := o.looks.shareLimits(ctx, o.DB); err != nil {
		return runtimeErr(err)
	}
	defer o.looks.close()
	runner, err := o.runner(ctx, io, &trial.Runner{Browser: b, Resolver: res, SkipDraw: true, Video: video})
	if err != nil {
		return err
	}
	cfg := queue.Config{Workers: b.Jobs(), Runner: runner, RescueAfter: o.rescue.RescueAfter, StopGrace: o.StopGrace, Progress: io.ErrOut}
	if cfg.Artifacts, err = o.artifacts.open(ctx, io); err != nil {
		return err
	}
	if o.looks.ModelsFile != "" {
		// Generation and repair jobs ('gen --db') too, with the models
		// file's models and this worker's keys.
		opts, _ := modelOptions(io, o.looks.Record, o.looks.Replay, o.looks.AllowUnpriced, o.looks.options...)
		base, err := llm.Load(o.looks.ModelsFile, io.Getenv, opts...)
		if err != nil {
			return err
		}
		cfg.Models = &workerModels{io: io, base: base.Config(), opts: opts}
	}
	q, err := queue.OpenPostgres(ctx, o.DB, cfg)
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
