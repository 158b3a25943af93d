package run

import (
	"context"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"os"
	"path/filepath"
	"reflect"
	"slices"
	"sort"
	"strings"
	"time"

	"github.com/worldprobe/worldprobe/internal/atomicfile"
	"github.com/worldprobe/worldprobe/internal/browser"
	"github.com/worldprobe/worldprobe/internal/result"
	"github.com/worldprobe/worldprobe/internal/store"
	"github.com/worldprobe/worldprobe/internal/trial"
)

// Config is what defines a run; config.json holds it, and a resume
// compares it with the new one (see [Execute]).
type Config struct {
	Suite string `json:"suite"`
	// Variants is the folder of Robust variants judged too, if any.
	Variants string   `json:"variants,omitempty"`
	Tasks    []string `json:"tasks"`
	Sources  []Source `json:"sources"`
	Repeat   int      `json:"repeat"`
	// WorldJudge is how the suite's tasks judged against a rubric are
	// judged (Planned.WorldJudge); "" without such tasks.
	WorldJudge string `json:"world_judge,omitempty"`
}

// Lock pins what the run judged: digests of tasks and candidates and the
// versions of worldprobe and Chromium. lock.json holds it; a resume
// compares it with the new one to name what changed.
type Lock struct {
	Worldprobe string `json:"worldprobe"`
	Chromium   string `json:"chromium"`
	// Sandbox is how the browser was confined.
	Sandbox    browser.Sandbox   `json:"sandbox"`
	Tasks      map[string]string `json:"tasks"`
	Candidates map[string]string `json:"candidates"`
}

// Options configure Execute.
type Options struct {
	Out    string // the run folder
	Config Config
	Plan   []Planned
	// Executor judges the trials; nil means Local{Runner, Jobs}.
	Executor Executor
	// Runner and Jobs make the default local executor; Runner's browser
	// also names the sandbox in lock.json.
	Runner *trial.Runner
	Jobs   int
	// Rerun lists trial classes to run again (result.RerunClasses).
	Rerun []string
	// UpdateChanged resumes a run folder whose tasks or candidate pages
	// changed: their trials are judged again, every other finished trial
	// is kept. Without it such a folder is refused ([ConfigError]).
	UpdateChanged bool
	Worldprobe    string
	Chromium      string
	Progress      io.Writer
	Logger        *slog.Logger
	// Fetch, when set, is asked for the planned trials the run folder
	// does not hold finished (key → folder, "trials/<name>") once the
	// folder is accepted for this configuration, before anything in it
	// changes: it puts into the folder those finished elsewhere (an
	// artifact store's copies of workers' trials) and returns the
	// folders it put there. They are then kept as any finished trial.
	Fetch func(ctx context.Context, want map[string]string) ([]string, error)
}

// Summary is what Execute did.
type Summary struct {
	Trials []*result.Trial
	// Planned is how many trials the plan holds; Ran how many were judged
	// now, Kept how many were finished before.
	Planned int
	Ran     int
	Kept    int
	// Changes are the differences from the run folder's configuration
	// that this resume took in (added models, tasks, pages or samples;
	// changed tasks and pages with UpdateChanged).
	Changes []Change
	// Dirs maps each trial's key to its folder, relative to the run
	// folder (trials/<name>): where its result.json, trace.jsonl and
	// screenshot.png are, and where the report writes its page.
	Dirs    map[string]string
	Report  string
	DB      string
	RunDir  string
	Elapsed time.Duration
}

// ErrConfigChanged refuses to resume a run folder made with another
// config; the error is a [*ConfigError] that names each difference.
var ErrConfigChanged = errors.New("the run folder was made with a different configuration")

// Execute runs the planned trials, keeping finished ones from an earlier
// attempt in the same folder.
//
// A run folder made with another configuration is resumed when the new
// one only adds to it (models, tasks, pages where there were none, more
// samples: their trials are run, the finished ones kept), and, with
// UpdateChanged, when tasks or pages changed (their trials are judged
// again). Anything else — a model, task, page or samples removed, another
// suite, variants or candidates folder, worldprobe, Chromium or sandbox —
// is refused with a [*ConfigError] that names every difference, and
// nothing in the folder is changed.
//
// When ctx ends or the executor fails, the Summary still holds every
// finished trial (Trials, Planned, Ran, Kept) next to the error.
func Execute(ctx context.Context, o Options) (*Summary, error) {
	start := time.Now()
	if o.Logger == nil {
		o.Logger = slog.Default()
	}
	if o.Progress == nil {
		o.Progress = io.Discard
	}
	if err := CreateFolder(o.Out); err != nil {
		return nil, err
	}
	lock := Lock{Worldprobe: o.Worldprobe, Chromium: o.Chromium, Tasks: map[string]string{}, Candidates: map[string]string{}}
	if o.Runner != nil && o.Runner.Browser != nil {
		lock.Sandbox = o.Runner.Browser.Sandbox()
	}
	for _, p := range o.Plan {
		lock.Tasks[p.Task.ID] = p.TaskDigest
		if p.Page != "" {
			lock.Candidates[p.ID()+"/"+p.Task.ID+"/"+p.Candidate] = p.Digest
		}
	}
	cfgPath, lockPath := filepath.Join(o.Out, "config.json"), filepath.Join(o.Out, "lock.json")
	oldCfg, err := readStored[Config](cfgPath)
	if err != nil {
		return nil, err
	}
	oldLock, err := readStored[Lock](lockPath)
	if err != nil {
		return nil, err
	}
	done, unfinished, err := scan(o.Out)
	if err != nil {
		return nil, err
	}
	rec := reconcile(oldCfg, oldLock, o.Config, lock, o.Plan, done)
	if rec.refused(o.UpdateChanged) {
		return nil, &ConfigError{Dir: o.Out, Changes: rec.changes, UpdateChanged: o.UpdateChanged, Rerun: rec.rerun, Keep: rec.keep}
	}

	// Accepted: the folder now belongs to the new configuration.
	if o.Fetch != nil {
		want := map[string]string{}
		for _, p := range o.Plan {
			if _, ok := done[p.Key]; !ok {
				want[p.Key] = "trials/" + p.Dir()
			}
		}
		if len(want) > 0 {
			fetched, err := o.Fetch(ctx, want)
			if err != nil {
				return nil, err
			}
			if len(fetched) > 0 {
				if done, unfinished, err = scan(o.Out); err != nil {
					return nil, err
				}
			}
		}
	}
	for _, name := range unfinished {
		// Never finished (killed mid-trial): start it again from scratch.
		if err := os.RemoveAll(filepath.Join(o.Out, "trials", name)); err != nil {
			return nil, fmt.Errorf("removing unfinished trial %s: %w", name, err)
		}
	}
	for _, k := range rec.stale {
		if err := os.RemoveAll(filepath.Join(o.Out, "trials", done[k].dir)); err != nil {
			return nil, fmt.Errorf("removing trial %s to judge it again: %w", done[k].dir, err)
		}
		delete(done, k)
	}
	if err := writeIfChanged(lockPath, oldLock, lock); err != nil {
		return nil, err
	}
	if err := writeIfChanged(cfgPath, oldCfg, o.Config); err != nil {
		return nil, err
	}
	if err := rerunClasses(o, done); err != nil {
		return nil, err
	}
	exec := o.Executor
	if exec == nil {
		exec = &Local{Runner: o.Runner, Jobs: o.Jobs}
	}
	// The run folder's results.db, and the shared database the executor's
	// workers save to, if any (see Saving).
	dbPath := filepath.Join(o.Out, store.ResultsDB)
	var db, shared store.Store
	workersSave := false
	if sv, ok := exec.(Saving); ok {
		st, local, err := sv.Results(ctx, o.Out)
		if err != nil {
			return nil, err
		}
		if local {
			db, workersSave = st, true
		} else {
			shared = st
		}
	}
	if db == nil {
		sq, err := store.OpenSQLite(ctx, dbPath)
		if err != nil {
			return nil, err
		}
		defer sq.Close()
		db = sq
	}
	for _, st := range []store.Store{db, shared} {
		if st == nil {
			continue
		}
		if err := forgetUnplanned(ctx, st, o.Plan); err != nil {
			return nil, err
		}
		if err := st.SetPlanned(ctx, len(o.Plan)); err != nil {
			return nil, err
		}
	}

	var todo []Planned
	sum := &Summary{RunDir: o.Out, DB: dbPath, Planned: len(o.Plan), Changes: rec.changes, Dirs: map[string]string{}}
	for _, c := range rec.changes {
		fmt.Fprintf(o.Progress, "resuming: %s %s\n", c.Kind.String()+":", c.Text)
	}
	for _, p := range o.Plan {
		if f, ok := done[p.Key]; ok {
			sum.Trials = append(sum.Trials, f.trial)
			sum.Dirs[p.Key] = "trials/" + f.dir
			sum.Kept++
			if err := db.Save(ctx, f.trial); err != nil {
				return nil, err
			}
			continue
		}
		todo = append(todo, p)
	}
	if shared != nil {
		if err := saveMissing(ctx, shared, sum.Trials); err != nil {
			return nil, err
		}
	}
	if sum.Kept > 0 {
		fmt.Fprintf(o.Progress, "resuming: %s kept, %d to run\n", plural(sum.Kept, "finished trial"), len(todo))
	}

	specs := make([]trial.Spec, len(todo))
	for i, p := range todo {
		if specs[i], err = p.Spec(o.Out); err != nil {
			return nil, err
		}
	}
	prog := newProgress(o.Progress, len(todo))
	err = exec.Execute(ctx, o.Out, specs, func(s trial.Spec, t *result.Trial) error {
		if !workersSave {
			if err := db.Save(ctx, t); err != nil {
				return err
			}
		}
		sum.Trials = append(sum.Trials, t)
		sum.Dirs[t.Key] = s.Dir
		sum.Ran++
		prog.done(t)
		return nil
	})
	prog.finish()
	sort.Slice(sum.Trials, func(i, j int) bool { return sum.Trials[i].Key < sum.Trials[j].Key })
	sum.Elapsed = time.Since(start)
	if ctx.Err() != nil {
		return sum, fmt.Errorf("run interrupted with %d of %d planned trials finished (they are kept; run the same command to resume): %w",
			len(sum.Trials), sum.Planned, ctx.Err())
	}
	if err != nil {
		return sum, err
	}
	return sum, nil
}

// CreateFolder creates the run folder out and its trials folder if they
// do not exist. A new run folder is closed to other users, the browser's
// own system user included: a page that got out of Chromium's sandbox
// still could not read other candidates' pages or results. Execute calls
// it; so does whatever must put something in the folder before (River's
// queue.db).
func CreateFolder(out string) error {
	_, statErr := os.Stat(out)
	if err := os.MkdirAll(filepath.Join(out, "trials"), 0o755); err != nil {
		return fmt.Errorf("creating the run folder: %w", err)
	}
	if os.IsNotExist(statErr) {
		if err := os.Chmod(out, 0o750); err != nil {
			return fmt.Errorf("closing the run folder to other users: %w", err)
		}
	}
	return nil
}

// rerunClasses removes the finished trials whose class is to be rerun
// (o.Rerun) from done and from the run folder.
func rerunClasses(o Options, done map[string]finished) error {
	var rerun []string
	for _, c := range o.Rerun {
		rerun = append(rerun, strings.TrimSpace(c))
	}
	if len(rerun) == 0 {
		return nil
	}
	for k, f := range done {
		if slices.ContainsFunc(rerun, f.trial.InRerun) {
			if err := os.RemoveAll(filepath.Join(o.Out, "trials", f.dir)); err != nil {
				return fmt.Errorf("removing trial %s to rerun it: %w", f.dir, err)
			}
			delete(done, k)
		}
	}
	return nil
}

// saveMissing saves to st the trials it does not hold yet.
func saveMissing(ctx context.Context, st store.Store, trials []*result.Trial) error {
	keys := make([]string, len(trials))
	for i, t := range trials {
		keys[i] = t.Key
	}
	have, err := st.Find(ctx, keys)
	if err != nil {
		return err
	}
	held := map[string]bool{}
	for _, t := range have {
		held[t.Key] = true
	}
	for _, t := range trials {
		if !held[t.Key] {
			if err := st.Save(ctx, t); err != nil {
				return err
			}
		}
	}
	return nil
}

// forgetUnplanned deletes from the database the trials the plan does not
// hold (the earlier versions of trials judged again).
func forgetUnplanned(ctx context.Context, db store.Store, plan []Planned) error {
	stored, err := db.Trials(ctx)
	if err != nil {
		return err
	}
	planned := map[string]bool{}
	for _, p := range plan {
		planned[p.Key] = true
	}
	for _, t := range stored {
		if !planned[t.Key] {
			if err := db.Delete(ctx, t.Key); err != nil {
				return err
			}
		}
	}
	return nil
}

// writeIfChanged writes v to path unless the file holds it already (old:
// what it holds, nil when there is no file).
func writeIfChanged[T any](path string, old *T, v T) error {
	if old != nil && reflect.DeepEqual(*old, v) {
		return nil
	}
	return atomicfile.WriteJSON(path, v)
}
