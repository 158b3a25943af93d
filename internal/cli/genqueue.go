package cli

import (
	"context"
	"fmt"
	"log/slog"
	"os"
	"path/filepath"
	"runtime"
	"sync"

	"github.com/riverqueue/river"
	"github.com/spf13/pflag"

	"github.com/worldprobe/worldprobe/internal/browser"
	"github.com/worldprobe/worldprobe/internal/gen"
	"github.com/worldprobe/worldprobe/internal/llm"
	"github.com/worldprobe/worldprobe/internal/queue"
	"github.com/worldprobe/worldprobe/internal/repair"
	"github.com/worldprobe/worldprobe/internal/run"
	"github.com/worldprobe/worldprobe/internal/store"
	"github.com/worldprobe/worldprobe/internal/task"
	"github.com/worldprobe/worldprobe/internal/trial"
)

// genQueueFlags are gen's flags that generate and repair as River jobs
// (docs/scale-out.md) instead of in the in-process pool.
type genQueueFlags struct {
	// DB is a PostgreSQL URL: the steps are enqueued there and run by
	// this process's --jobs workers and any 'worldprobe worker --models'.
	DB string
	// Executor is "pool" (the default) or "river": River on SQLite in
	// OUT/queue.db, with this process's workers.
	Executor string
	// Judge is a run folder: each finished page's trial is enqueued there
	// (with --db).
	Judge  string
	rescue rescueFlag
}

func (f *genQueueFlags) register(fs *pflag.FlagSet) {
	fs.StringVar(&f.DB, "db", "", "PostgreSQL URL (postgres://…): enqueue each sample's generation (and repair) as River jobs there, run by this process's --jobs workers (0: none, only enqueue and wait) and by 'worldprobe worker --db … --models' on any machine sharing OUT's path (docs/scale-out.md)")
	fs.StringVar(&f.Executor, "executor", "pool", "how samples are generated here: pool (in-process) or river (River jobs in OUT/queue.db, SQLite, run by this process); --db implies river")
	fs.StringVar(&f.Judge, "judge", "", "with --db: enqueue each finished page's trial into the run folder `RUN`, as 'run SUITE --candidates <model-slug>=OUT/<model-slug> --db URL --out RUN' plans it; that command collects them")
	f.rescue.register(fs)
}

// on reports whether the steps run as River jobs.
func (f *genQueueFlags) on() bool { return f.DB != "" || f.Executor == "river" }

func (f *genQueueFlags) check(jobs int) error {
	if err := checkExecutor(f.Executor, f.DB, jobs, "generate"); err != nil {
		return err
	}
	if f.Judge != "" && f.DB == "" {
		return usageErr("--judge RUN enqueues trials for 'worker --db': it needs --db")
	}
	return f.rescue.check()
}

// runGenQueued generates sum's samples as River jobs (and repairs their
// pages with --repair), waits for every one, and prints what gen prints.
func runGenQueued(ctx context.Context, io IO, o *GenOptions, mode repair.Mode, tasks []*task.Task, models []*gen.Model, sum *gen.Summary) error {
	f := &o.queue
	cfg := queue.Config{Workers: o.Jobs, GenOnly: true, Models: queue.ModelList(models), RescueAfter: f.rescue.RescueAfter, Progress: io.ErrOut}
	if o.Repair > 0 && o.Jobs > 0 {
		ef := &engineFlags{Chromium: o.Agent.Chromium, Web: o.Agent.Web, Jobs: max(1, min(o.Jobs, runtime.NumCPU())),
			PageMemoryMiB: int(browser.DefaultPageMemory >> 20)}
		b, res, err := ef.start(ctx, io, 0, 0)
		if err != nil {
			return err
		}
		defer b.Close()
		logger := slog.New(slog.NewTextHandler(io.ErrOut, &slog.HandlerOptions{Level: slog.LevelWarn}))
		cfg.Runner = &trial.Runner{Browser: b, Resolver: res, SkipDraw: true, Logger: logger}
	}
	var q *queue.Queue
	var err error
	where := store.RedactURL(f.DB)
	if f.DB != "" {
		q, err = queue.OpenPostgres(ctx, f.DB, cfg)
	} else {
		where = filepath.Join(o.Out, "queue.db")
		// This process's own queue, as a local run's (queueFlags.open).
		cfg.Private = true
		if err = os.MkdirAll(o.Out, 0o755); err == nil {
			q, err = queue.OpenSQLite(ctx, where, cfg)
		}
	}
	if err != nil {
		return runtimeErr(err)
	}
	defer q.Close()
	if err := q.Start(ctx); err != nil {
		return runtimeErr(err)
	}
	var rep *queue.RepairStep
	if o.Repair > 0 {
		rep = &queue.RepairStep{Mode: mode, Rounds: o.Repair, RetryFailed: o.RetryFailed}
	}
	judge := func(m *gen.Model) (*queue.Judge, error) {
		if f.Judge == "" {
			return nil, nil
		}
		dir, err := filepath.Abs(f.Judge)
		if err != nil {
			return nil, err
		}
		return &queue.Judge{Run: dir, Model: m.Slug}, nil
	}
	if f.Judge != "" {
		if err := run.CreateFolder(f.Judge); err != nil {
			return runtimeErr(err)
		}
	}
	args := make([]river.JobArgs, 0, len(sum.ToDo))
	for _, s := range sum.ToDo {
		j, err := judge(s.Model)
		if err != nil {
			return runtimeErr(err)
		}
		a, err := queue.GenerateJob(s, o.Out, rep, j)
		if err != nil {
			return runtimeErr(err)
		}
		args = append(args, a)
	}
	fmt.Fprintf(io.ErrOut, "gen: %s × %s × %s = %s (%d kept, %d to generate) as River jobs on %s, %d workers here → %s\n",
		plural(len(tasks), "task"), plural(len(models), "model"), plural(o.Samples, "sample"), plural(sum.Planned, "sample"),
		sum.KeptDone+sum.KeptFailed, len(sum.ToDo), where, o.Jobs, o.Out)
	ids, err := q.Enqueue(ctx, args)
	if err == nil {
		err = q.Wait(ctx, ids)
	}
	for _, s := range sum.ToDo {
		if r, rerr := gen.ReadRecord(s.Dir); rerr == nil && r != nil && r.Attempt == s.Attempt && r.PromptDigest == s.PromptDigest {
			sum.Records = append(sum.Records, r)
		}
	}
	writeGenSummary(io.Out, sum)
	if err != nil {
		return queuedStopped(ctx, io, o, fmt.Sprintf("%d of %d samples finished and kept", sum.Finished(), sum.Planned), err)
	}
	if o.Repair > 0 {
		// The generation jobs enqueued their pages' repairs; this enqueues
		// the same keys (waiting ones are not added twice) and the repairs
		// of pages generated before.
		ro := repair.Options{Tasks: tasks, Models: models, Samples: o.Samples, Out: o.Out, Mode: mode, Rounds: o.Repair, RetryFailed: o.RetryFailed}
		rsum, err := repair.Plan(ro)
		if err != nil {
			return runtimeErr(err)
		}
		args = args[:0]
		for _, j := range rsum.ToDo {
			jd, err := judge(j.Model)
			if err != nil {
				return runtimeErr(err)
			}
			a, err := queue.RepairJob(j, o.Out, *rep, jd)
			if err != nil {
				return runtimeErr(err)
			}
			args = append(args, a)
		}
		ids, err := q.Enqueue(ctx, args)
		if err == nil {
			err = q.Wait(ctx, ids)
		}
		for _, j := range rsum.ToDo {
			if r, rerr := gen.ReadRecord(j.Dir); rerr == nil && r != nil && r.Repaired != nil {
				if j.Prev = r; repair.Stale(j, ro) == "" {
					rsum.Records = append(rsum.Records, r)
				}
			}
		}
		writeRepairSummary(io.Out, o, mode, rsum)
		if err != nil {
			return queuedStopped(ctx, io, o, fmt.Sprintf("%d of %d repaired pages finished and kept", rsum.Kept+len(rsum.Records), rsum.Planned-rsum.Waiting), err)
		}
	}
	writeRunCommand(io.Out, o, mode, models)
	if f.Judge != "" {
		fmt.Fprintf(io.Out, "each finished page's trial was enqueued into %s; collect them (and judge the rest) with that command and --db %s --out %s\n",
			f.Judge, store.RedactURL(f.DB), shellQuote(f.Judge))
	}
	return nil
}

// queuedStopped reports a queued gen that stopped before every job
// finished: interrupted (the jobs stay queued, for workers), or a job
// River gave up on.
func queuedStopped(ctx context.Context, io IO, o *GenOptions, done string, err error) error {
	if ctx.Err() != nil {
		fmt.Fprintf(io.ErrOut, "gen interrupted (%v): %s; the other jobs stay queued\nresume with: %s\n", ctx.Err(), done, o.resume)
		return silentExit(ExitInfrastructure)
	}
	return runtimeErr(fmt.Errorf("gen stopped: %w\n%s; resume with: %s", err, done, o.resume))
}

// workerModels makes the models of generation and repair jobs on a
// worker (worker --models): each --model spec a job names, from the
// worker's models file, with API keys from its environment only.
type workerModels struct {
	io   IO
	base *llm.Config
	opts []llm.Option

	mu   sync.Mutex
	made map[string]*gen.Model
}

// Model implements queue.Models.
func (w *workerModels) Model(ctx context.Context, spec string) (*gen.Model, error) {
	w.mu.Lock()
	defer w.mu.Unlock()
	if m, ok := w.made[spec]; ok {
		return m, nil
	}
	m, err := genModel(ctx, w.io, w.base, spec, w.opts, false)
	if err != nil {
		return nil, err
	}
	if w.made == nil {
		w.made = map[string]*gen.Model{}
	}
	w.made[spec] = m
	return m, nil
}
