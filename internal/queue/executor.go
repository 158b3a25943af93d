package queue

import (
	"context"
	"fmt"
	"path/filepath"
	"strings"
	"time"

	"github.com/riverqueue/river"
	"github.com/riverqueue/river/rivertype"

	"github.com/worldprobe/worldprobe/internal/result"
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
	pending := map[int64]string{} // job id → key
	for _, r := range inserted {
		var a struct {
			Key string `json:"key"`
		}
		if err := unmarshalArgs(r.Job, &a); err != nil {
			return err
		}
		pending[r.Job.ID] = a.Key
	}
	tick := time.NewTicker(e.Queue.cfg.Poll)
	defer tick.Stop()
	for len(pending) > 0 {
		select {
		case <-ctx.Done():
			return ctx.Err()
		case <-tick.C:
		}
		keys := make([]string, 0, len(pending))
		for _, k := range pending {
			keys = append(keys, k)
		}
		found, err := results.Find(ctx, keys)
		if err != nil {
			return err
		}
		got := map[string]bool{}
		for _, t := range found {
			got[t.Key] = true
			if err := done(bySpec[t.Key], t); err != nil {
				return err
			}
		}
		for id, k := range pending {
			if got[k] {
				delete(pending, id)
			}
		}
		if err := e.givenUp(ctx, pending); err != nil {
			return err
		}
	}
	return nil
}

// givenUp returns an error naming a pending trial whose job River has
// given up on (discarded after MaxAttempts, or cancelled), with its last
// error.
func (e *Executor) givenUp(ctx context.Context, pending map[int64]string) error {
	ids := make([]int64, 0, len(pending))
	for id := range pending {
		ids = append(ids, id)
	}
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
			return fmt.Errorf("%w: trial %s, job %d %s after %d attempts: %s", errDiscarded, pending[j.ID], j.ID, j.State, j.Attempt, strings.TrimSpace(last))
		}
		ids = ids[n:]
	}
	return nil
}
