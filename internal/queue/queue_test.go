package queue

import (
	"context"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"testing"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/riverqueue/river"
	"github.com/riverqueue/river/rivertype"
	"github.com/stretchr/testify/require"

	"github.com/worldprobe/worldprobe/internal/pgtest"
	"github.com/worldprobe/worldprobe/internal/result"
	"github.com/worldprobe/worldprobe/internal/run"
	"github.com/worldprobe/worldprobe/internal/task"
	"github.com/worldprobe/worldprobe/internal/testenv"
	"github.com/worldprobe/worldprobe/internal/trial"
)

var h testenv.Harness

func TestMain(m *testing.M) { testenv.RunMain(m, 2, &h) }

// plan is the tiny task's reference and flawed fixture, copied into a
// folder the test may change.
func plan(t *testing.T) []run.Planned { return planOf(t, "tiny") }

// planOf plans the reference and fixture of testdata's simulation/slug.
func planOf(t *testing.T, slug string) []run.Planned {
	t.Helper()
	dst := filepath.Join(t.TempDir(), "simulation", slug)
	require.NoError(t, os.CopyFS(dst, os.DirFS(filepath.Join("testdata", "suite", "simulation", slug))))
	tk, err := task.Load(dst)
	require.NoError(t, err)
	p, err := run.Plan([]*task.Task{tk}, []run.Source{{Model: "oracle", Oracle: true}, {Model: "fixtures", Fixtures: true}}, 1)
	require.NoError(t, err)
	require.Len(t, p, 2)
	return p
}

func runner() *trial.Runner {
	return &trial.Runner{Browser: h.Browser, Resolver: h.Resolver, SkipDraw: true}
}

// verdict is what a trial's judgement must repeat exactly, whatever
// executes it.
type verdict struct {
	Outcome, CrashKind string
	Pass               bool
	VCov               float64
	StateHash          string
	Assertions         []result.Assertion
}

func verdicts(ts []*result.Trial) map[string]verdict {
	out := map[string]verdict{}
	for _, t := range ts {
		out[t.Key] = verdict{t.Outcome, t.CrashKind, t.Pass, t.VCov, t.StateHash, t.Assertions}
	}
	return out
}

func execute(t *testing.T, p []run.Planned, exec run.Executor) (*run.Summary, string) {
	t.Helper()
	out := filepath.Join(t.TempDir(), "run")
	sum, err := run.Execute(context.Background(), run.Options{Out: out, Config: run.Config{Repeat: 1}, Plan: p,
		Runner: runner(), Jobs: 2, Executor: exec})
	require.NoError(t, err)
	require.Len(t, sum.Trials, len(p))
	return sum, out
}

// jobs lists every trial job of q.
func jobs(t *testing.T, q *Queue) []*rivertype.JobRow {
	t.Helper()
	res, err := q.client.JobList(context.Background(), river.NewJobListParams().Kinds(kindTrial).First(1000))
	require.NoError(t, err)
	return res.Jobs
}

// completed waits until q's n trial jobs are completed (River marks a job
// completed shortly after its worker returns) and returns them.
func completed(t *testing.T, q *Queue, n int) []*rivertype.JobRow {
	t.Helper()
	var js []*rivertype.JobRow
	require.Eventually(t, func() bool {
		js = jobs(t, q)
		for _, j := range js {
			if j.State != rivertype.JobStateCompleted {
				return false
			}
		}
		return len(js) == n
	}, 10*time.Second, 20*time.Millisecond)
	return js
}

// Judged as River jobs in the run folder's SQLite queue, the trials get
// exactly the verdicts the local pool gives them, each job ran once, and
// the run folder's results.db holds each trial once.
func TestSQLiteQueueJudgesAsThePool(t *testing.T) {
	p := plan(t)
	local, _ := execute(t, p, nil)
	ctx := context.Background()
	qdir := t.TempDir()
	q, err := OpenSQLite(ctx, filepath.Join(qdir, "queue.db"), Config{Workers: 2, Runner: runner()})
	require.NoError(t, err)
	defer q.Close()
	require.NoError(t, q.Start(ctx))
	sum, out := execute(t, p, &Executor{Queue: q})
	require.Equal(t, verdicts(local.Trials), verdicts(sum.Trials))
	require.Equal(t, 2, sum.Ran)
	for _, j := range completed(t, q, 2) {
		require.Equal(t, 1, j.Attempt)
	}
	s, err := q.Results(ctx, out)
	require.NoError(t, err)
	stored, err := s.Trials(ctx)
	require.NoError(t, err)
	require.Equal(t, verdicts(local.Trials), verdicts(stored))
	n, err := q.Pending(ctx)
	require.NoError(t, err)
	require.Zero(t, n)
}

// On PostgreSQL, the results are in the database under the run folder's
// path, the verdicts are the pool's, and enqueueing the same trials again
// while they wait adds no job (unique by run and key).
func TestPostgresQueueJudgesAsThePool(t *testing.T) {
	p := plan(t)
	local, _ := execute(t, p, nil)
	ctx := context.Background()
	url := pgtest.Start(t).NewDB(t)

	// Enqueue without workers, twice: one job per trial.
	out := filepath.Join(t.TempDir(), "run")
	specs := make([]trial.Spec, len(p))
	for i := range p {
		var err error
		specs[i], err = p[i].Spec(out)
		require.NoError(t, err)
	}
	enq, err := OpenPostgres(ctx, url, Config{})
	require.NoError(t, err)
	defer enq.Close()
	for range 2 {
		cctx, cancel := context.WithTimeout(ctx, 200*time.Millisecond)
		err := (&Executor{Queue: enq}).Execute(cctx, out, specs, func(trial.Spec, *result.Trial) error { return nil })
		cancel()
		require.ErrorIs(t, err, context.DeadlineExceeded, "no worker: it waits")
	}
	require.Len(t, jobs(t, enq), 2)
	n, err := enq.Pending(ctx)
	require.NoError(t, err)
	require.Equal(t, 2, n)

	// Workers join: the run completes with the pool's verdicts.
	q, err := OpenPostgres(ctx, url, Config{Workers: 2, Runner: runner()})
	require.NoError(t, err)
	defer q.Close()
	require.NoError(t, q.Start(ctx))
	sum, err := run.Execute(ctx, run.Options{Out: out, Config: run.Config{Repeat: 1}, Plan: p, Runner: runner(), Executor: &Executor{Queue: enq}})
	require.NoError(t, err)
	require.Equal(t, verdicts(local.Trials), verdicts(sum.Trials))
	require.Len(t, jobs(t, enq), 2)
	abs, _ := filepath.Abs(out)
	conn, err := pgx.Connect(ctx, url)
	require.NoError(t, err)
	defer conn.Close(ctx)
	var keys []string
	rows, err := conn.Query(ctx, `SELECT key FROM worldprobe_trials WHERE run = $1`, abs)
	require.NoError(t, err)
	keys, err = pgx.CollectRows(rows, pgx.RowTo[string])
	require.NoError(t, err)
	sort.Strings(keys)
	want := []string{p[0].Key, p[1].Key}
	sort.Strings(want)
	require.Equal(t, want, keys)
}

// An infrastructure error (here: the candidate page changed since it was
// planned) is no verdict: the job is retried with backoff, and the trial
// is judged once the page is back; given up after MaxAttempts, the run
// stops with the trial's last error and nothing is scored.
func TestInfrastructureErrorsAreRetriedNeverScored(t *testing.T) {
	p := plan(t)[:1] // the reference
	ctx := context.Background()
	page := p[0].Page
	orig, err := os.ReadFile(page)
	require.NoError(t, err)
	require.NoError(t, os.WriteFile(page, append(orig, ' '), 0o644))

	q, err := OpenSQLite(ctx, filepath.Join(t.TempDir(), "queue.db"), Config{Workers: 1, Runner: runner(), MaxAttempts: 2})
	require.NoError(t, err)
	defer q.Close()
	require.NoError(t, q.Start(ctx))
	// Restore the page once the first attempt has failed: the retry
	// (River waits 1 s after a first failure) judges it.
	go func() {
		for {
			res, err := q.client.JobList(ctx, river.NewJobListParams().Kinds(kindTrial))
			if err == nil && len(res.Jobs) == 1 && len(res.Jobs[0].Errors) == 1 {
				os.WriteFile(page, orig, 0o644)
				return
			}
			time.Sleep(20 * time.Millisecond)
		}
	}()
	sum, _ := execute(t, p, &Executor{Queue: q})
	require.Equal(t, result.OutcomeOK, sum.Trials[0].Outcome)
	require.True(t, sum.Trials[0].Pass)
	js := completed(t, q, 1)
	require.Equal(t, 2, js[0].Attempt)
	require.Contains(t, js[0].Errors[0].Error, "changed since the run was planned")

	// Never restored: given up after two attempts, nothing stored.
	require.NoError(t, os.WriteFile(page, append(orig, ' '), 0o644))
	q2, err := OpenSQLite(ctx, filepath.Join(t.TempDir(), "queue.db"), Config{Workers: 1, Runner: runner(), MaxAttempts: 2})
	require.NoError(t, err)
	defer q2.Close()
	require.NoError(t, q2.Start(ctx))
	out := filepath.Join(t.TempDir(), "run")
	sum, err = run.Execute(ctx, run.Options{Out: out, Config: run.Config{Repeat: 1}, Plan: p, Runner: runner(), Executor: &Executor{Queue: q2}})
	require.ErrorIs(t, err, errDiscarded)
	require.ErrorContains(t, err, "discarded after 2 attempts")
	require.ErrorContains(t, err, "changed since the run was planned")
	require.Empty(t, sum.Trials)
	s, err := q2.Results(ctx, out)
	require.NoError(t, err)
	stored, err := s.Trials(ctx)
	require.NoError(t, err)
	require.Empty(t, stored)
}

// A stopping worker cancels the trial it runs once its grace is over: the
// trial saves nothing and leaves no result.json, its job goes back to the
// queue at once (River does not count it as an attempt), and the next
// worker judges it: one result.
func TestStoppedWorkerReleasesItsTrial(t *testing.T) {
	p := planOf(t, "heavy")[:1]
	ctx := context.Background()
	path := filepath.Join(t.TempDir(), "queue.db")
	started := make(chan struct{}, 1)
	a, err := OpenSQLite(ctx, path, Config{Workers: 1, Runner: runner(), StopGrace: 50 * time.Millisecond,
		Progress: writerFunc(func(b []byte) {
			if strings.HasPrefix(string(b), "judging ") {
				select {
				case started <- struct{}{}:
				default:
				}
			}
		})})
	require.NoError(t, err)
	defer a.Close()
	require.NoError(t, a.Start(ctx))
	out := filepath.Join(t.TempDir(), "run")
	type res struct {
		sum *run.Summary
		err error
	}
	done := make(chan res, 1)
	go func() {
		sum, err := run.Execute(ctx, run.Options{Out: out, Config: run.Config{Repeat: 1}, Plan: p, Runner: runner(), Executor: &Executor{Queue: a}})
		done <- res{sum, err}
	}()
	select {
	case <-started:
	case <-time.After(120 * time.Second):
		t.Fatal("the worker never started the trial")
	}
	require.NoError(t, a.Stop(ctx))
	js := jobs(t, a)
	require.Len(t, js, 1)
	require.Equal(t, rivertype.JobStateAvailable, js[0].State, "released at once, for the next worker")
	require.Empty(t, js[0].Errors, "River releases a job its client stopped without counting it as failed")
	dir := filepath.Join(out, filepath.FromSlash("trials/"+p[0].Dir()))
	require.NoFileExists(t, filepath.Join(dir, trial.ResultFile))

	b, err := OpenSQLite(ctx, path, Config{Workers: 1, Runner: runner()})
	require.NoError(t, err)
	defer b.Close()
	require.NoError(t, b.Start(ctx))
	r := <-done
	require.NoError(t, r.err)
	require.Len(t, r.sum.Trials, 1)
	require.True(t, r.sum.Trials[0].Pass, "%+v", r.sum.Trials[0].Assertions)
	js = completed(t, b, 1)
	require.Equal(t, 1, js[0].Attempt, "the released attempt is not counted")
}

// writerFunc is an io.Writer calling f with each write.
type writerFunc func([]byte)

func (f writerFunc) Write(b []byte) (int, error) { f(b); return len(b), nil }

// TestPrivateQueueIsLocked: a private queue (a local run's) is this
// process's alone while open; closed, it can be opened again.
func TestPrivateQueueIsLocked(t *testing.T) {
	ctx := context.Background()
	path := filepath.Join(t.TempDir(), "queue.db")
	a, err := OpenSQLite(ctx, path, Config{Private: true})
	require.NoError(t, err)
	_, err = OpenSQLite(ctx, path, Config{Private: true})
	require.ErrorIs(t, err, ErrQueueInUse)
	require.ErrorContains(t, err, path+".lock is locked: another worldprobe process is using this queue")
	require.NoError(t, a.Close())
	b, err := OpenSQLite(ctx, path, Config{Private: true})
	require.NoError(t, err)
	require.Equal(t, 0, b.Rescued())
	require.NoError(t, b.Close())
}
