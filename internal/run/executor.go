package run

import (
	"context"
	"errors"
	"fmt"

	"github.com/worldprobe/worldprobe/internal/pool"
	"github.com/worldprobe/worldprobe/internal/result"
	"github.com/worldprobe/worldprobe/internal/store"
	"github.com/worldprobe/worldprobe/internal/trial"
)

// Executor judges planned trials. Execute judges every spec (paths in it
// are relative to runDir), writes each trial's result.json into its folder
// and calls done with each finished trial, one call at a time; an error
// from done stops it. Local judges in this process; a queue of workers on
// other machines sharing the run folder is another Executor.
type Executor interface {
	Execute(ctx context.Context, runDir string, specs []trial.Spec, done func(trial.Spec, *result.Trial) error) error
}

// Saving is an Executor whose workers save each trial's result in a
// store themselves (River's workers do). Execute then records the plan's
// size and the trials kept from before in that store as well, so that its
// readers (the live viewer) see the whole run, and never saves a result
// the workers saved.
type Saving interface {
	Executor
	// Results is the store the workers save the results of the run
	// folder runDir in. local reports that it is the run folder's own
	// results.db (River on SQLite): Execute then uses it as its results
	// database and closes nothing. Otherwise it is a shared database
	// (PostgreSQL) and Execute copies every result into results.db too.
	Results(ctx context.Context, runDir string) (s store.Store, local bool, err error)
}

// Local judges trials in this process with one runner, Jobs at once.
type Local struct {
	Runner *trial.Runner
	Jobs   int
}

// Execute implements Executor.
func (l *Local) Execute(ctx context.Context, runDir string, specs []trial.Spec, done func(trial.Spec, *result.Trial) error) error {
	if l.Runner == nil {
		return errors.New("run: the local executor has no runner")
	}
	loader := &trial.Loader{RunDir: runDir}
	return pool.Map(ctx, l.Jobs, len(specs), func(ctx context.Context, i int) (*result.Trial, error) {
		t, err := l.Runner.RunSpec(ctx, loader, specs[i])
		if err != nil {
			return nil, fmt.Errorf("trial %s: %w", specs[i].Dir, err)
		}
		return t, nil
	}, func(i int, t *result.Trial) error { return done(specs[i], t) })
}
