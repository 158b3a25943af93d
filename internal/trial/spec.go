package trial

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path"
	"path/filepath"
	"sync"
	"time"

	"github.com/worldprobe/worldprobe/internal/atomicfile"
	"github.com/worldprobe/worldprobe/internal/contract"
	"github.com/worldprobe/worldprobe/internal/result"
	"github.com/worldprobe/worldprobe/internal/task"
)

// Spec is one trial as plain data: ids, digests and paths relative to the
// run folder, nothing held in memory. It is what the run planner hands an
// executor — the local pool today, a queue of workers on other machines
// sharing the run folder later — and it round-trips through JSON. The
// worker that judges it loads the task and the page from the paths and
// refuses them when their digests differ from the planned ones. The
// contract's params are the task's own (a Robust variant's folder holds
// its drawn values), so the digest pins them too.
type Spec struct {
	// Key identifies the trial by its semantic inputs.
	Key string `json:"key"`
	// Task is the task's id; TaskDir its folder, relative to the run
	// folder; TaskDigest the folder's digest (task.Task.Digest).
	Task       string `json:"task"`
	TaskDir    string `json:"task_dir"`
	TaskDigest string `json:"task_digest"`
	// Page is the candidate's HTML file, relative to the run folder, and
	// PageDigest its sha256; both empty when the model produced no page.
	Page       string `json:"page,omitempty"`
	PageDigest string `json:"page_digest,omitempty"`
	Model      string `json:"model"`
	// Repair is how the page was made when it is not the model's first
	// answer (result.Repairs); the trial records it (Trial.Repair).
	Repair    string `json:"repair,omitempty"`
	Candidate string `json:"candidate"`
	Variant   string `json:"variant,omitempty"`
	Sample    int    `json:"sample"`
	// Dir is the trial's folder, relative to the run folder: artifacts and
	// result.json go there.
	Dir string `json:"dir"`
	// Fingerprint, StopAtFirstFailure and SkipInspect are Input's.
	Fingerprint        bool `json:"fingerprint,omitempty"`
	StopAtFirstFailure bool `json:"stop_at_first_failure,omitempty"`
	SkipInspect        bool `json:"skip_inspect,omitempty"`
	// WorldJudge is, for a task judged against a rubric, how its world
	// judge judges: "offline", or "models" and each role's models
	// (worldjudge.Options.Judging). It is part of Key, and a worker judges
	// the trial so or not at all.
	WorldJudge string `json:"world_judge,omitempty"`
}

// ResultFile is the file in a trial's folder that holds its result; a
// folder without it is an unfinished trial.
const ResultFile = "result.json"

// ReadResult reads the result of the trial folder dir of fsys (its
// ResultFile): the one reader of result.json, for resuming a run, for a
// worker finding its predecessor's result, and for the viewer. An error
// says the trial has not finished (no file, or one cut short).
func ReadResult(fsys fs.FS, dir string) (*result.Trial, error) {
	name := path.Join(dir, ResultFile)
	b, err := fs.ReadFile(fsys, name)
	if err != nil {
		return nil, err
	}
	t := &result.Trial{}
	if err := json.Unmarshal(b, t); err != nil {
		return nil, fmt.Errorf("reading %s: %w", name, err)
	}
	return t, nil
}

// Loader turns specs into inputs: it loads each task and its contract once
// (a run judges many candidates of one task), keeping no failure, and
// checks the digests.
// It is safe for concurrent use.
type Loader struct {
	// RunDir is the run folder the specs' paths are relative to.
	RunDir string

	mu    sync.Mutex
	tasks map[string]*loadedTask
}

type loadedTask struct {
	once     sync.Once
	task     *task.Task
	contract *contract.Contract
	err      error
}

// task loads the task folder dir (relative to the run folder) once it
// loaded: a failure is tried again by the next call.
func (l *Loader) task(dir, digest string) (*task.Task, *contract.Contract, error) {
	key := dir + "\x00" + digest
	l.mu.Lock()
	if l.tasks == nil {
		l.tasks = map[string]*loadedTask{}
	}
	lt, ok := l.tasks[key]
	if !ok {
		lt = &loadedTask{}
		l.tasks[key] = lt
	}
	l.mu.Unlock()
	lt.once.Do(func() {
		path := filepath.Join(l.RunDir, filepath.FromSlash(dir))
		t, err := task.Load(path)
		if err != nil {
			lt.err = fmt.Errorf("loading task %s: %w", path, err)
			return
		}
		got, err := t.Digest()
		if err != nil {
			lt.err = fmt.Errorf("digesting task %s: %w", path, err)
			return
		}
		if got != digest {
			lt.err = fmt.Errorf("task %s changed since the run was planned (digest %s, planned %s)", t.ID, short(got), short(digest))
			return
		}
		var c *contract.Contract
		if !t.WorldJudged() { // a world-judged task has no contract
			if c, err = contract.Load(t.ContractPath()); err != nil {
				lt.err = fmt.Errorf("task %s: %w", t.ID, err)
				return
			}
		}
		lt.task, lt.contract = t, c
	})
	if lt.err != nil {
		// A failure is not kept: the next trial of the task (a retry, on a
		// shared folder that was still being written, say) reads it again.
		l.mu.Lock()
		if l.tasks[key] == lt {
			delete(l.tasks, key)
		}
		l.mu.Unlock()
	}
	return lt.task, lt.contract, lt.err
}

func short(digest string) string { return digest[:min(12, len(digest))] }

// Input resolves a spec into what Judge.Run takes. A task or page whose
// digest differs from the planned one is an error: the run would judge
// something other than what it recorded.
func (l *Loader) Input(s Spec) (Input, error) {
	t, c, err := l.task(s.TaskDir, s.TaskDigest)
	if err != nil {
		return Input{}, err
	}
	in := Input{Key: s.Key, Task: t, Contract: c, Params: t.DefaultParams(), Model: s.Model, Repair: s.Repair, Candidate: s.Candidate,
		Variant: s.Variant, Sample: s.Sample, Dir: filepath.Join(l.RunDir, filepath.FromSlash(s.Dir)),
		Fingerprint: s.Fingerprint, StopAtFirstFailure: s.StopAtFirstFailure, SkipInspect: s.SkipInspect, WorldJudge: s.WorldJudge}
	if s.Page != "" {
		in.Page = filepath.Join(l.RunDir, filepath.FromSlash(s.Page))
		got, err := FileDigest(in.Page)
		if err != nil {
			return Input{}, err
		}
		if got != s.PageDigest {
			return Input{}, fmt.Errorf("candidate %s changed since the run was planned (digest %s, planned %s)", in.Page, short(got), short(s.PageDigest))
		}
	}
	return in, nil
}

// FileDigest is the sha256 of a file, in hex.
func FileDigest(path string) (string, error) {
	f, err := os.Open(path)
	if err != nil {
		return "", fmt.Errorf("reading candidate %s: %w", path, err)
	}
	defer f.Close()
	h := sha256.New()
	if _, err := io.Copy(h, f); err != nil {
		return "", fmt.Errorf("reading candidate %s: %w", path, err)
	}
	return hex.EncodeToString(h.Sum(nil)), nil
}

// RunSpec judges one spec with j (loading it through l) and writes the
// result to the trial's folder, atomically: the folder holds result.json
// only once the trial is finished. A spec without a page (the model
// produced none) is not judged: it is a crash of kind no_candidate that
// scores zero. The error is for infrastructure problems only.
func (j *Runner) RunSpec(ctx context.Context, l *Loader, s Spec) (*result.Trial, error) {
	dir := filepath.Join(l.RunDir, filepath.FromSlash(s.Dir))
	var t *result.Trial
	if s.Page == "" {
		tk, _, err := l.task(s.TaskDir, s.TaskDigest)
		if err != nil {
			return nil, err
		}
		t = &result.Trial{Key: s.Key, Task: tk.ID, Category: tk.Category, Subdomain: tk.Subdomain,
			Difficulty: tk.Difficulty, Model: s.Model, Repair: s.Repair, Candidate: s.Candidate, Sample: s.Sample, Variant: s.Variant, VariantOf: tk.VariantOf,
			Outcome: result.OutcomeCrash, CrashKind: result.CrashNoCandidate, CrashMessage: "the model produced no page for this task",
			Attribution: "crash", StartedAt: time.Now().UTC(), Assertions: []result.Assertion{}}
		if err := os.MkdirAll(dir, 0o755); err != nil {
			return nil, fmt.Errorf("creating the trial folder: %w", err)
		}
	} else {
		in, err := l.Input(s)
		if err != nil {
			return nil, err
		}
		if t, err = j.Run(ctx, in); err != nil {
			return nil, err
		}
	}
	if err := atomicfile.WriteJSON(filepath.Join(dir, ResultFile), t); err != nil {
		return nil, err
	}
	return t, nil
}
