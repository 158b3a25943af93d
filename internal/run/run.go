package run

import (
	"context"
	"encoding/json"
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

	"github.com/worldprobe/worldprobe/internal/browser"
	"github.com/worldprobe/worldprobe/internal/result"
	"github.com/worldprobe/worldprobe/internal/store"
	"github.com/worldprobe/worldprobe/internal/trial"
)

// Config is what defines a run; config.json holds it, and a resumed run
// must have the same.
type Config struct {
	Suite string `json:"suite"`
	// Variants is the folder of Robust variants judged too, if any.
	Variants string   `json:"variants,omitempty"`
	Tasks    []string `json:"tasks"`
	Sources  []Source `json:"sources"`
	Repeat   int      `json:"repeat"`
}

// Lock pins what the run judged: digests of tasks and candidates and the
// versions of worldprobe and Chromium. lock.json holds it.
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
	Rerun      []string
	Worldprobe string
	Chromium   string
	Progress   io.Writer
	Logger     *slog.Logger
}

// Summary is what Execute did.
type Summary struct {
	Trials  []*result.Trial
	Ran     int
	Kept    int
	Report  string
	DB      string
	RunDir  string
	Elapsed time.Duration
}

// ErrConfigChanged refuses to resume a run folder made with another config.
var ErrConfigChanged = errors.New("the run folder was made with a different configuration")

// Execute runs the planned trials, keeping finished ones from an earlier
// attempt in the same folder.
func Execute(ctx context.Context, o Options) (*Summary, error) {
	start := time.Now()
	if o.Logger == nil {
		o.Logger = slog.Default()
	}
	if o.Progress == nil {
		o.Progress = io.Discard
	}
	// A new run folder is closed to other users, the browser's own system
	// user included: a page that got out of Chromium's sandbox still could
	// not read other candidates' pages or results.
	_, statErr := os.Stat(o.Out)
	if err := os.MkdirAll(filepath.Join(o.Out, "trials"), 0o755); err != nil {
		return nil, fmt.Errorf("creating the run folder: %w", err)
	}
	if os.IsNotExist(statErr) {
		if err := os.Chmod(o.Out, 0o750); err != nil {
			return nil, fmt.Errorf("closing the run folder to other users: %w", err)
		}
	}
	if err := checkOrWrite(filepath.Join(o.Out, "config.json"), o.Config); err != nil {
		return nil, err
	}
	lock := Lock{Worldprobe: o.Worldprobe, Chromium: o.Chromium, Tasks: map[string]string{}, Candidates: map[string]string{}}
	if o.Runner != nil && o.Runner.Browser != nil {
		lock.Sandbox = o.Runner.Browser.Sandbox()
	}
	for _, p := range o.Plan {
		lock.Tasks[p.Task.ID] = p.TaskDigest
		if p.Page != "" {
			lock.Candidates[p.Model+"/"+p.Task.ID+"/"+p.Candidate] = p.Digest
		}
	}
	if err := checkOrWrite(filepath.Join(o.Out, "lock.json"), lock); err != nil {
		return nil, err
	}
	dbPath := filepath.Join(o.Out, "results.db")
	db, err := store.OpenSQLite(ctx, dbPath)
	if err != nil {
		return nil, err
	}
	defer db.Close()

	done, err := resume(o)
	if err != nil {
		return nil, err
	}
	var todo []Planned
	sum := &Summary{RunDir: o.Out, DB: dbPath}
	for _, p := range o.Plan {
		if t, ok := done[p.Key]; ok {
			sum.Trials = append(sum.Trials, t)
			sum.Kept++
			if err := db.Save(ctx, t); err != nil {
				return nil, err
			}
			continue
		}
		todo = append(todo, p)
	}
	if sum.Kept > 0 {
		fmt.Fprintf(o.Progress, "resuming: %d finished trials kept, %d to run\n", sum.Kept, len(todo))
	}

	specs := make([]trial.Spec, len(todo))
	for i, p := range todo {
		if specs[i], err = p.Spec(o.Out); err != nil {
			return nil, err
		}
	}
	exec := o.Executor
	if exec == nil {
		exec = &Local{Runner: o.Runner, Jobs: o.Jobs}
	}
	prog := newProgress(o.Progress, len(todo))
	err = exec.Execute(ctx, o.Out, specs, func(s trial.Spec, t *result.Trial) error {
		if err := db.Save(ctx, t); err != nil {
			return err
		}
		sum.Trials = append(sum.Trials, t)
		sum.Ran++
		prog.done(t)
		return nil
	})
	prog.finish()
	if ctx.Err() != nil {
		return sum, fmt.Errorf("run interrupted (finished trials are kept; run the same command to resume): %w", ctx.Err())
	}
	if err != nil {
		return sum, err
	}
	sort.Slice(sum.Trials, func(i, j int) bool { return sum.Trials[i].Key < sum.Trials[j].Key })
	sum.Elapsed = time.Since(start)
	return sum, nil
}

// resume loads finished trials, removes unfinished trial folders and the
// folders of trials whose class is to be rerun.
func resume(o Options) (map[string]*result.Trial, error) {
	var rerun []string
	for _, c := range o.Rerun {
		rerun = append(rerun, strings.TrimSpace(c))
	}
	planned := map[string]bool{}
	for _, p := range o.Plan {
		planned[p.Dir()] = true
	}
	entries, err := os.ReadDir(filepath.Join(o.Out, "trials"))
	if err != nil {
		return nil, fmt.Errorf("reading the run folder: %w", err)
	}
	done := map[string]*result.Trial{}
	for _, e := range entries {
		dir := filepath.Join(o.Out, "trials", e.Name())
		b, err := os.ReadFile(filepath.Join(dir, trial.ResultFile))
		if err != nil {
			// Never finished (killed mid-trial): start it again from scratch.
			if err := os.RemoveAll(dir); err != nil {
				return nil, fmt.Errorf("removing unfinished trial %s: %w", e.Name(), err)
			}
			continue
		}
		t := &result.Trial{}
		if err := json.Unmarshal(b, t); err != nil {
			if err := os.RemoveAll(dir); err != nil {
				return nil, err
			}
			continue
		}
		if slices.ContainsFunc(rerun, t.InRerun) {
			if err := os.RemoveAll(dir); err != nil {
				return nil, fmt.Errorf("removing trial %s to rerun it: %w", e.Name(), err)
			}
			continue
		}
		done[t.Key] = t
	}
	return done, nil
}

// checkOrWrite writes v to path, or, when path exists, refuses if it differs.
func checkOrWrite(path string, v any) error {
	b, err := os.ReadFile(path)
	if err == nil {
		old := reflect.New(reflect.TypeOf(v)).Interface()
		if err := json.Unmarshal(b, old); err != nil {
			return fmt.Errorf("reading %s: %w", path, err)
		}
		if !reflect.DeepEqual(reflect.ValueOf(old).Elem().Interface(), v) {
			return fmt.Errorf("%w (%s); use another --out folder, or remove it to start over", ErrConfigChanged, filepath.Base(path))
		}
		return nil
	}
	if !os.IsNotExist(err) {
		return fmt.Errorf("reading %s: %w", path, err)
	}
	return trial.WriteJSONAtomic(path, v)
}
