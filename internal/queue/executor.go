package queue

import (
	"context"
	"fmt"
	"maps"
	"path/filepath"
	"slices"
	"strings"
	"time"

	"github.com/riverqueue/river"
	"github.com/riverqueue/river/rivertype"

	"github.com/worldprobe/worldprobe/internal/result"
	"github.com/worldprobe/worldprobe/internal/store"
	"github.com/worldprobe/worldprobe/internal/trial"
)

// Executor is a run.Executor that enqueues each trial as a River job and
// waits for the workers — this process's, if the queue has any, or
// 'worldprobe worker's anywhere — to save their results. It hands each
// result to done as it appears, in the order they finish. A trial River
// gives up on (MaxAttempts infrastructure errors) stops it with the
// trial's last error. Interrupted (ctx), it returns at once: the jobs
// stay queued, and the workers go on with them.
type Executor struct {
	Queue *Queue
}

// Results implements run.Saving: the store the workers save runDir's
// results in, which is the run folder's results.db on SQLite (local).
// The queue owns it.
func (e *Executor) Results(ctx context.Context, runDir string) (store.Store, bool, error) {
	run, err := filepath.Abs(runDir)
	if err != nil {
		return nil, false, fmt.Errorf("locating the run folder: %w", err)
	}
	s, err := e.Queue.Results(ctx, run)
	return s, e.Queue.local, err
}

// Execute implements run.Executor.
func (e *Executor) Execute(ctx context.Context, runDir string, specs []trial.Spec, done func(trial.Spec, *result.Trial) error) error {
	if len(specs) == 0 {
		return nil
	}
	run, err := filepath.Abs(runDir)
	if err != nil {
		return fmt.Errorf("locating the run folder: %w", err)
	}
	results, err := e.Queue.Results(ctx, run)
	if err != nil {
		return err
	}
	// The planner hands over trials without a result.json; a result of
	// theirs still in the store is an earlier judgement being redone
	// (--rerun, --update-changed) and must not be taken for the new one.
	params := make([]river.InsertManyParams, len(specs))
	bySpec := map[string]trial.Spec{}
	for i, s := range specs {
		if err := results.Delete(ctx, s.Key); err != nil {
			return err
		}
		params[i] = river.InsertManyParams{Args: TrialArgs{Run: run, Key: s.Key, Spec: s}}
		bySpec[s.Key] = s
	}
	inserted, err := e.Queue.client.InsertMany(ctx, params)
	if err != nil {
		return fmt.Errorf("enqueueing %d trials: %w", len(specs), err)
	}
	pending := map[string]int64{} // key → job id
	for _, r := range inserted {
		var a struct {
			Key string `json:"key"`
		}
		if err := unmarshalArgs(r.Job, &a); err != nil {
			return err
		}
		pending[a.Key] = r.Job.ID
	}
	tick := time.NewTicker(e.Queue.cfg.Poll)
	defer tick.Stop()
	// This process's own workers say when they finish a job, so a local
	// run collects each result at once; the ticker finds the others'.
	var finished <-chan *river.Event
	if e.Queue.cfg.Workers > 0 {
		events, cancel := e.Queue.client.Subscribe(river.EventKindJobCompleted, river.EventKindJobFailed, river.EventKindJobCancelled)
		defer cancel()
		finished = events
	}
	for len(pending) > 0 {
		select {
		case <-ctx.Done():
			return ctx.Err()
		case <-tick.C:
		case _, open := <-finished:
			finished = drainEvents(finished, open)
		}
		found, err := results.Find(ctx, slices.Collect(maps.Keys(pending)))
		if err != nil {
			return err
		}
		for _, t := range found {
			delete(pending, t.Key)
			if err := done(bySpec[t.Key], t); err != nil {
				return err
			}
		}
		if err := e.givenUp(ctx, pending); err != nil {
			return err
		}
	}
	return nil
}

// drainEvents empties the events channel, after one read that found it
// open or not; it returns nil once the channel is closed (its client
// stopped: the ticker alone then finds the results).
func drainEvents(events <-chan *river.Event, open bool) <-chan *river.Event {
	for open {
		select {
		case _, open = <-events:
		default:
			return events
		}
	}
	return nil
}

// givenUp returns an error naming a pending trial whose job River has
// given up on (discarded after MaxAttempts, or cancelled), with its last
// error.
func (e *Executor) givenUp(ctx context.Context, pending map[string]int64) error {
	keyOf := make(map[int64]string, len(pending))
	for k, id := range pending {
		keyOf[id] = k
	}
	ids := slices.Collect(maps.Keys(keyOf))
	for len(ids) > 0 {
		n := min(len(ids), 1000)
		res, err := e.Queue.client.JobList(ctx, river.NewJobListParams().IDs(ids[:n]...).First(n).
			States(rivertype.JobStateDiscarded, rivertype.JobStateCancelled))
		if err != nil {
			return fmt.Errorf("checking the trials' jobs: %w", err)
		}
		for _, j := range res.Jobs {
			last := "no error recorded"
			if len(j.Errors) > 0 {
				last = j.Errors[len(j.Errors)-1].Error
			}
			return fmt.Errorf("%w: trial %s, job %d %s after %d attempts: %s", errDiscarded, keyOf[j.ID], j.ID, j.State, j.Attempt, strings.TrimSpace(last))
		}
		ids = ids[n:]
	}
	return nil
}
