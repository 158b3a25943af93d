package queue

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"path"
	"path/filepath"
	"sync"

	"github.com/riverqueue/river"
	"github.com/riverqueue/river/rivertype"

	"github.com/worldprobe/worldprobe/internal/artifactstore"
	"github.com/worldprobe/worldprobe/internal/result"
	runpkg "github.com/worldprobe/worldprobe/internal/run"
	"github.com/worldprobe/worldprobe/internal/store"
	"github.com/worldprobe/worldprobe/internal/trial"
)

// kindTrial is the River job kind of a trial.
const kindTrial = "trial"

// TrialArgs are a trial job's arguments: the trial as plain data. The job
// is unique by Run and Key while it waits or runs, so enqueueing a run
// again (a resume, a second 'run' of the same folder) adds no duplicate;
// once the job has finished the same key can be enqueued again (--rerun).
type TrialArgs struct {
	// Run is the run folder's absolute path: the specs' paths are
	// relative to it, and it names the run's results in a shared store.
	Run string `json:"run" river:"unique"`
	// Key is the trial's key (task digest × candidate digest × sample ×
	// variant × how it is judged; run.Plan makes it).
	Key  string     `json:"key" river:"unique"`
	Spec trial.Spec `json:"spec"`
}

// Kind implements river.JobArgs.
func (TrialArgs) Kind() string { return kindTrial }

// InsertOpts implements river.JobArgsWithInsertOpts: unique by run and key
// in every state but finished ones.
func (TrialArgs) InsertOpts() river.InsertOpts {
	return river.InsertOpts{UniqueOpts: river.UniqueOpts{ByArgs: true, ByState: unfinished}}
}

// trialWorker judges trial jobs.
type trialWorker struct {
	river.WorkerDefaults[TrialArgs]
	runner   *trial.Runner
	results  func(ctx context.Context, run string) (store.Store, error)
	progress io.Writer
	// artifacts receives each judged trial's folder; nil for none.
	artifacts artifactstore.Store

	// chromium is the version of the runner's browser.
	chromium string

	mu      sync.Mutex
	loaders map[string]*trial.Loader
	// pinned is, per run folder, nil when this worker's Chromium is the
	// one the run's lock.json pins, else the error that says it is not.
	pinned map[string]error
}

// checkPinned says whether this worker may judge the run's trials: a run
// pins the Chromium it was planned with (lock.json), and a trial judged by
// another version could get another verdict. A worker with another version
// returns an infrastructure error for each of the run's trials (River
// retries the job, on any worker, and never scores it) and says so once
// per run in its progress.
func (w *trialWorker) checkPinned(run string) error {
	w.mu.Lock()
	defer w.mu.Unlock()
	if err, ok := w.pinned[run]; ok {
		return err
	}
	if w.pinned == nil {
		w.pinned = map[string]error{}
	}
	lock, err := runpkg.ReadLock(run)
	if err != nil {
		return err // unreadable now: ask again next time
	}
	if lock != nil && lock.Chromium != "" && w.chromium != "" && lock.Chromium != w.chromium {
		err = fmt.Errorf("%w: this worker's Chromium is %q, run %s pins %q (its lock.json); start workers with the run's Chromium", ErrOtherChromium, w.chromium, run, lock.Chromium)
		fmt.Fprintf(w.progress, "worker: not judging run %s: %v\n", run, err)
	}
	w.pinned[run] = err
	return err
}

// loader is the run folder's loader (it loads each task once).
func (w *trialWorker) loader(run string) *trial.Loader {
	w.mu.Lock()
	defer w.mu.Unlock()
	if w.loaders == nil {
		w.loaders = map[string]*trial.Loader{}
	}
	l, ok := w.loaders[run]
	if !ok {
		l = &trial.Loader{RunDir: run}
		w.loaders[run] = l
	}
	return l
}

// Work judges the trial and saves its result. A result.json already in
// the trial's folder (a worker that died after writing it) is saved as it
// is; any other leftover of an earlier attempt is removed first. An
// infrastructure error is returned, so River retries the job with backoff
// and nothing is scored; the candidate's faults are its result. A trial
// cancelled by a stopping worker saves nothing and leaves no result.json.
func (w *trialWorker) Work(ctx context.Context, job *river.Job[TrialArgs]) error {
	a := job.Args
	s := a.Spec
	if s.Key != a.Key {
		return river.JobCancel(fmt.Errorf("trial job %d: its key %s is not its spec's %s", job.ID, a.Key, s.Key))
	}
	if err := w.checkPinned(a.Run); err != nil {
		return fmt.Errorf("trial %s: %w", s.Dir, err)
	}
	results, err := w.results(ctx, a.Run)
	if err != nil {
		return err
	}
	dir := filepath.Join(a.Run, filepath.FromSlash(s.Dir))
	t := finishedIn(dir, s.Key)
	w.printf("judging %s (job %d, attempt %d)\n", s.Dir, job.ID, job.Attempt)
	if t == nil {
		if err := os.RemoveAll(dir); err != nil {
			return fmt.Errorf("trial %s: removing an earlier attempt's files: %w", s.Dir, err)
		}
		t, err = w.runner.RunSpec(ctx, w.loader(a.Run), s)
		if ctx.Err() != nil {
			// Stopped midway: whatever the runner made of the cut-short
			// trial is not its verdict.
			os.Remove(filepath.Join(dir, trial.ResultFile))
			return fmt.Errorf("trial %s: stopped before it finished: %w", s.Dir, context.Cause(ctx))
		}
		if err != nil {
			return fmt.Errorf("trial %s: %w", s.Dir, err)
		}
	}
	if w.artifacts != nil {
		if _, err := artifactstore.PutDir(ctx, w.artifacts, dir, path.Join(artifactstore.RunPrefix(a.Run), s.Dir)); err != nil {
			return fmt.Errorf("trial %s: %w", s.Dir, err)
		}
	}
	if err := results.Save(ctx, t); err != nil {
		return err
	}
	w.printf("judged %s: %s\n", s.Dir, t.Outcome)
	return nil
}

// printf writes one progress line.
func (w *trialWorker) printf(format string, args ...any) {
	w.mu.Lock()
	defer w.mu.Unlock()
	fmt.Fprintf(w.progress, format, args...)
}

// finishedIn is the trial in dir's result.json when it is the trial key's,
// else nil.
func finishedIn(dir, key string) *result.Trial {
	t, err := trial.ReadResult(os.DirFS(dir), ".")
	if err != nil || t.Key != key {
		return nil
	}
	return t
}

// ErrOtherChromium: a worker's Chromium is not the one the run pins.
var ErrOtherChromium = errors.New("another Chromium than the run's")

// errDiscarded marks a trial whose job River gave up on.
var errDiscarded = errors.New("trial given up")

// unmarshalArgs decodes a job row's encoded args.
func unmarshalArgs(j *rivertype.JobRow, v any) error {
	if err := json.Unmarshal(j.EncodedArgs, v); err != nil {
		return fmt.Errorf("decoding job %d's args: %w", j.ID, err)
	}
	return nil
}
