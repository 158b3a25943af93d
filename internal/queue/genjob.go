package queue

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"path/filepath"
	"strings"
	"sync"
	"time"

	"github.com/riverqueue/river"
	"github.com/riverqueue/river/rivertype"

	"github.com/worldprobe/worldprobe/internal/diagnose"
	"github.com/worldprobe/worldprobe/internal/gen"
	"github.com/worldprobe/worldprobe/internal/llm"
	"github.com/worldprobe/worldprobe/internal/repair"
	"github.com/worldprobe/worldprobe/internal/run"
	"github.com/worldprobe/worldprobe/internal/task"
)

// Job kinds of generation and repair, and the River queue they wait in
// (apart from the trials', so that a worker without models never takes
// one).
const (
	kindGenerate = "generate"
	kindRepair   = "repair"
	queueGen     = "gen"
)

// Models makes the models generation and repair jobs write with, on the
// worker that runs them: from its models file, with API keys from its
// environment only (a job carries the model's --model spec, never a key).
type Models interface {
	// Model is the model of spec (a role or PROVIDER/MODEL, as gen's
	// --model), with its client.
	Model(ctx context.Context, spec string) (*gen.Model, error)
}

// ModelList is a [Models] of models made already (gen's own, when it
// generates in this process).
type ModelList []*gen.Model

// Model implements Models.
func (l ModelList) Model(_ context.Context, spec string) (*gen.Model, error) {
	for _, m := range l {
		if m.Spec == spec {
			return m, nil
		}
	}
	return nil, fmt.Errorf("no model %s on this worker (give every worker gen's --model models file)", spec)
}

// RepairStep is how a generated page is repaired: gen's --repair-mode,
// --repair and --retry-failed.
type RepairStep struct {
	Mode        repair.Mode `json:"mode"`
	Rounds      int         `json:"rounds"`
	RetryFailed bool        `json:"retry_failed,omitempty"`
}

// Judge says where a generated (or repaired) page's trial is enqueued:
// into the run folder Run, under the model name Model, as 'worldprobe run
// SUITE --candidates MODEL=OUT/<model-slug> --db …' plans it (the same key
// and folder, run.PlanSample), so that that command collects it.
type Judge struct {
	Run   string `json:"run"`
	Model string `json:"model"`
}

// Step identifies one generation or repair step of a sample: the task
// (its folder and digest), the model and the sample, as a job carries
// them.
type Step struct {
	// Out is gen's output folder (absolute): OUT/<model-slug>/sample-<k>/….
	Out string `json:"out" river:"unique"`
	// Key is the step's key: task digest × model × sample × step
	// ([StepKey]). Jobs are unique by Out and Key while they wait or run.
	Key        string `json:"key" river:"unique"`
	TaskDir    string `json:"task_dir"`
	TaskDigest string `json:"task_digest"`
	// Model is the --model spec; Slug its folder name, which the worker's
	// models file must give it too.
	Model  string `json:"model"`
	Slug   string `json:"slug"`
	Sample int    `json:"sample"`
	// Judge, when set, is where the step's page is judged.
	Judge *Judge `json:"judge,omitempty"`
}

// GenerateArgs are a generation job's arguments: the sample's attempt
// Attempt, and, when Repair is set, the repair its page gets next.
type GenerateArgs struct {
	Step
	Attempt int         `json:"attempt"`
	Repair  *RepairStep `json:"repair,omitempty"`
}

// Kind implements river.JobArgs.
func (GenerateArgs) Kind() string { return kindGenerate }

// InsertOpts implements river.JobArgsWithInsertOpts.
func (GenerateArgs) InsertOpts() river.InsertOpts {
	return river.InsertOpts{Queue: queueGen, UniqueOpts: river.UniqueOpts{ByArgs: true, ByState: unfinished}}
}

// RepairArgs are a repair job's arguments: the repair of a first-shot
// page whose digest is in the key.
type RepairArgs struct {
	Step
	Repair RepairStep `json:"repair"`
}

// Kind implements river.JobArgs.
func (RepairArgs) Kind() string { return kindRepair }

// InsertOpts implements river.JobArgsWithInsertOpts.
func (RepairArgs) InsertOpts() river.InsertOpts {
	return river.InsertOpts{Queue: queueGen, UniqueOpts: river.UniqueOpts{ByArgs: true, ByState: unfinished}}
}

// StepKey is the key of one step of sample k of the task with digest td
// by the model with folder slug: "generate/attempt-N", or
// "repair/LABEL/rounds-R/FIRST-SHOT-PAGE-DIGEST".
func StepKey(td, slug string, k int, step string) string {
	h := sha256.New()
	for _, p := range []any{td, slug, k, step} {
		fmt.Fprintf(h, "%v\x00", p)
	}
	return hex.EncodeToString(h.Sum(nil))[:20]
}

func generateStep(attempt int) string { return fmt.Sprintf("generate/attempt-%d", attempt) }

func repairStep(r RepairStep, first *gen.Record) string {
	return fmt.Sprintf("repair/%s/rounds-%d/attempt-%d/%s", r.Mode.Label(), r.Rounds, first.Attempt, first.PageDigest)
}

// GenerateJob is the generation job of sample s (its Attempt), with the
// repair rep next when it is set and the trial in judge when that is.
func GenerateJob(s *gen.Sample, out string, rep *RepairStep, judge *Judge) (GenerateArgs, error) {
	out, err := filepath.Abs(out)
	if err != nil {
		return GenerateArgs{}, err
	}
	taskDir, err := filepath.Abs(s.Task.Dir)
	if err != nil {
		return GenerateArgs{}, err
	}
	return GenerateArgs{Step: Step{Out: out, Key: StepKey(s.TaskDigest, s.Model.Slug, s.Index, generateStep(s.Attempt)), TaskDir: taskDir,
		TaskDigest: s.TaskDigest, Model: s.Model.Spec, Slug: s.Model.Slug, Sample: s.Index, Judge: judge}, Attempt: s.Attempt, Repair: rep}, nil
}

// RepairJob is the repair job of j's first-shot page.
func RepairJob(j *repair.Job, out string, rep RepairStep, judge *Judge) (RepairArgs, error) {
	out, err := filepath.Abs(out)
	if err != nil {
		return RepairArgs{}, err
	}
	taskDir, err := filepath.Abs(j.Task.Dir)
	if err != nil {
		return RepairArgs{}, err
	}
	td, err := j.Task.Digest()
	if err != nil {
		return RepairArgs{}, err
	}
	return RepairArgs{Step: Step{Out: out, Key: StepKey(td, j.Model.Slug, j.Index, repairStep(rep, j.First)), TaskDir: taskDir,
		TaskDigest: td, Model: j.Model.Spec, Slug: j.Model.Slug, Sample: j.Index, Judge: judge}, Repair: rep}, nil
}

// genWorkers runs generation and repair jobs.
type genWorkers struct {
	q      *Queue
	models Models
	calls  calls

	mu        sync.Mutex
	diagnoser map[repair.Mode]repair.Diagnoser
}

// load is the step's task and model, checked against the job: a task
// changed since it was enqueued, or a model another worker's models file
// would put in another folder, cancels the job (retrying cannot help).
func (w *genWorkers) load(ctx context.Context, s Step) (*task.Task, *gen.Model, error) {
	t, err := task.Load(s.TaskDir)
	if err != nil {
		return nil, nil, fmt.Errorf("loading task %s: %w", s.TaskDir, err)
	}
	td, err := t.Digest()
	if err != nil {
		return nil, nil, err
	}
	if td != s.TaskDigest {
		return nil, nil, river.JobCancel(fmt.Errorf("task %s changed since the job was enqueued (digest %.12s…, now %.12s…)", t.ID, s.TaskDigest, td))
	}
	m, err := w.models.Model(ctx, s.Model)
	if err != nil {
		// Retried: another worker may have the key this one lacks.
		return nil, nil, fmt.Errorf("--model %s on this worker: %w", s.Model, err)
	}
	if m.Slug != s.Slug {
		return nil, nil, river.JobCancel(fmt.Errorf("--model %s is %s on this worker (folder %s), not the enqueuer's %s: give every worker the same models file",
			s.Model, m.Name, m.Slug, s.Slug))
	}
	if m.Chat == nil {
		return nil, nil, river.JobCancel(fmt.Errorf("--model %s has no client on this worker", s.Model))
	}
	return t, m, nil
}

// stored is m answering through the calls stored under the job key.
func (w *genWorkers) stored(m *gen.Model, key string) *gen.Model {
	c := *m
	c.Chat = newStoredModel(m.Chat, w.calls, key)
	return &c
}

// modelError is what a job returns for a model error: the end of ctx and
// infrastructure are retried; a fatal provider error or a budget cancels
// the job (another attempt would meet it again).
func modelError(ctx context.Context, what string, err error) error {
	err = fmt.Errorf("%s: %w", what, err)
	if ctx.Err() == nil && gen.Stops(ctx, err) {
		// River keeps the error as text: its mark tells Wait's caller
		// what stopped the job.
		mark := markModelFatal
		if errors.Is(err, llm.ErrBudgetExceeded) {
			mark = markBudget
		}
		return river.JobCancel(fmt.Errorf("%s%w", mark, err))
	}
	return err
}

// The marks at the start of a cancelled job's recorded error that say it
// met a model provider's refusal for good or a spent budget.
const (
	markModelFatal = "[model-fatal] "
	markBudget     = "[budget] "
)

// StepError is a generation or repair job River gave up on (cancelled or
// discarded), as [Queue.Wait] returns it. It matches llm.ErrBudgetExceeded
// when a budget stopped the job, and unwraps to an *llm.FatalError when a
// provider refused for good, so that the waiting command exits as the
// pool would (docs/cli.md's exit codes); any other is infrastructure.
type StepError struct {
	Kind     string
	ID       int64
	State    rivertype.JobState
	Attempts int
	// Last is the job's last recorded error, without its mark.
	Last string
	// ModelFatal and Budget say what stopped it, if a model did.
	ModelFatal, Budget bool
}

// Error implements error.
func (e *StepError) Error() string {
	return fmt.Sprintf("%s: %s job %d %s after %d attempts: %s", errStepGivenUp, e.Kind, e.ID, e.State, e.Attempts, e.Last)
}

// Is matches errStepGivenUp.
func (e *StepError) Is(target error) bool { return target == errStepGivenUp }

// Unwrap is what stopped the job: llm.ErrBudgetExceeded, an
// *llm.FatalError, or nil.
func (e *StepError) Unwrap() error {
	switch {
	case e.Budget:
		return llm.ErrBudgetExceeded
	case e.ModelFatal:
		return &llm.FatalError{Reason: "a worker's call was refused for good (" + e.Last + ")"}
	}
	return nil
}

// stepError is the StepError of the given-up job j.
func stepError(j *rivertype.JobRow) *StepError {
	e := &StepError{Kind: j.Kind, ID: j.ID, State: j.State, Attempts: j.Attempt, Last: "no error recorded"}
	if len(j.Errors) > 0 {
		e.Last = strings.TrimSpace(j.Errors[len(j.Errors)-1].Error)
	}
	// River records a cancelled job's error as its JobCancelError's text.
	e.Last = strings.TrimPrefix(e.Last, "JobCancelError: ")
	if rest, ok := strings.CutPrefix(e.Last, markModelFatal); ok {
		e.Last, e.ModelFatal = rest, true
	} else if rest, ok := strings.CutPrefix(e.Last, markBudget); ok {
		e.Last, e.Budget = rest, true
	}
	return e
}

func (w *genWorkers) printf(format string, args ...any) {
	w.mu.Lock()
	defer w.mu.Unlock()
	fmt.Fprintf(w.q.cfg.Progress, format, args...)
}

// generateWorker runs generation jobs.
type generateWorker struct {
	river.WorkerDefaults[GenerateArgs]
	*genWorkers
}

// Work generates the sample and writes it (its gen.json last), then
// enqueues its repair and its trial when the job asks for them. A gen.json
// of this attempt already in the sample's folder (an earlier attempt died
// after writing it) is kept as it is; calls answered to an earlier attempt
// are answered from the database, never sent again.
func (w *generateWorker) Work(ctx context.Context, job *river.Job[GenerateArgs]) error {
	a := job.Args
	t, m, err := w.load(ctx, a.Step)
	if err != nil {
		return err
	}
	s, err := gen.NewSample(t, m, a.Sample, a.Out)
	if err != nil {
		return err
	}
	s.Attempt = a.Attempt
	if key := StepKey(s.TaskDigest, m.Slug, s.Index, generateStep(s.Attempt)); key != a.Key {
		return river.JobCancel(fmt.Errorf("generation job %d: its key %s is not its sample's %s", job.ID, a.Key, key))
	}
	w.printf("generating %s %s sample %d (job %d, attempt %d)\n", t.ID, m.Slug, s.Index, job.ID, job.Attempt)
	r, err := gen.ReadRecord(s.Dir)
	if err != nil {
		return err
	}
	if r == nil || r.Attempt != s.Attempt || r.PromptDigest != s.PromptDigest {
		chat := w.stored(m, a.Key).Chat
		g, err := gen.Generate(llm.WithTrial(ctx, s.Trial()), chat, s.Prompt, s.Variant())
		if err != nil {
			return modelError(ctx, fmt.Sprintf("generating %s %s sample %d", t.ID, m.Slug, s.Index), err)
		}
		if r, err = gen.WriteSample(s, g); err != nil {
			return err
		}
	}
	w.printf("generated %s %s sample %d: %s\n", t.ID, m.Slug, s.Index, r.Status)
	var next []river.InsertManyParams
	if a.Repair != nil {
		j := &repair.Job{Task: t, Model: m, Index: s.Index, First: r}
		args, err := RepairJob(j, a.Out, *a.Repair, a.Judge)
		if err != nil {
			return err
		}
		next = append(next, river.InsertManyParams{Args: args})
	}
	if a.Judge != nil {
		tr, err := trialOf(t, a.Judge, run.Source{Model: a.Judge.Model, Dir: filepath.Dir(gen.CandidatesDir(a.Out, m, s.Index))}, s.Index)
		if err != nil {
			return err
		}
		next = append(next, tr)
	}
	return w.enqueue(ctx, next)
}

// trialOf is the trial job of sample k of t from src in judge's run.
func trialOf(t *task.Task, judge *Judge, src run.Source, k int) (river.InsertManyParams, error) {
	p, err := run.PlanSample(t, src, k)
	if err != nil {
		return river.InsertManyParams{}, err
	}
	spec, err := p.Spec(judge.Run)
	if err != nil {
		return river.InsertManyParams{}, err
	}
	return river.InsertManyParams{Args: TrialArgs{Run: judge.Run, Key: spec.Key, Spec: spec}}, nil
}

// enqueue inserts a finished step's next jobs. Their unique keys make it
// safe to insert them again when the step runs again.
func (w *genWorkers) enqueue(ctx context.Context, next []river.InsertManyParams) error {
	if len(next) == 0 {
		return nil
	}
	if _, err := w.q.client.InsertMany(ctx, next); err != nil {
		return fmt.Errorf("enqueueing the next steps: %w", err)
	}
	return nil
}

// repairWorker runs repair jobs.
type repairWorker struct {
	river.WorkerDefaults[RepairArgs]
	*genWorkers
}

// Work repairs the first-shot page and writes the repaired one, then
// enqueues its trial when the job asks for it. A repaired page already
// written for this first shot with these settings is kept; the calls are
// answered from the database when an earlier attempt made them.
func (w *repairWorker) Work(ctx context.Context, job *river.Job[RepairArgs]) error {
	a := job.Args
	t, m, err := w.load(ctx, a.Step)
	if err != nil {
		return err
	}
	mode := a.Repair.Mode
	j := &repair.Job{Task: t, Model: w.stored(m, a.Key), Index: a.Sample,
		FirstDir: filepath.Join(gen.CandidatesDir(a.Out, m, a.Sample), filepath.FromSlash(t.ID)),
		Dir:      filepath.Join(repair.Dir(a.Out, m, mode, a.Sample), filepath.FromSlash(t.ID))}
	if j.First, err = gen.ReadRecord(j.FirstDir); err != nil {
		return err
	}
	if j.First == nil {
		return river.JobCancel(fmt.Errorf("repair job %d: %s has no first shot", job.ID, j.FirstDir))
	}
	if key := StepKey(a.TaskDigest, m.Slug, a.Sample, repairStep(a.Repair, j.First)); key != a.Key {
		return river.JobCancel(fmt.Errorf("repair job %d: the first shot of %s changed since it was enqueued", job.ID, j.FirstDir))
	}
	if j.Prev, err = gen.ReadRecord(j.Dir); err != nil {
		return err
	}
	o := repair.Options{Out: a.Out, Mode: mode, Rounds: a.Repair.Rounds, RetryFailed: a.Repair.RetryFailed}
	w.printf("repairing %s %s+%s sample %d (job %d, attempt %d)\n", t.ID, m.Slug, mode.Label(), a.Sample, job.ID, job.Attempt)
	r := j.Prev
	if r == nil || repair.Stale(j, o) != "" {
		if j.First.Status == gen.StatusDone { // else: nothing to check, a no_page record
			if o.Diagnoser, err = w.diagnoserFor(mode); err != nil {
				return river.JobCancel(err)
			}
		}
		r, err = repair.One(ctx, o, j)
		if err != nil {
			return modelError(ctx, fmt.Sprintf("repairing %s %s sample %d", t.ID, m.Slug, a.Sample), err)
		}
	}
	w.printf("repaired %s %s+%s sample %d: %s\n", t.ID, m.Slug, mode.Label(), a.Sample, r.Repaired.End)
	if a.Judge == nil {
		return nil
	}
	tr, err := trialOf(t, a.Judge, run.Source{Model: a.Judge.Model, Dir: filepath.Dir(repair.Dir(a.Out, m, mode, a.Sample)), Repair: mode.Label()}, a.Sample)
	if err != nil {
		return err
	}
	return w.enqueue(ctx, []river.InsertManyParams{tr})
}

// diagnoserFor checks pages for a repair in mode with this worker's
// browser.
func (w *genWorkers) diagnoserFor(mode repair.Mode) (repair.Diagnoser, error) {
	w.mu.Lock()
	defer w.mu.Unlock()
	if d, ok := w.diagnoser[mode]; ok {
		return d, nil
	}
	r := w.q.cfg.Runner
	if r == nil || r.Browser == nil {
		return nil, fmt.Errorf("a %s repair needs a browser, and this worker has none", mode.Label())
	}
	var d repair.Diagnoser
	if mode == repair.Feedback {
		d = &diagnose.Feedback{Runner: r}
	} else {
		d = &diagnose.Errors{Browser: r.Browser, Resolver: r.Resolver, Logger: w.q.cfg.Logger}
	}
	if w.diagnoser == nil {
		w.diagnoser = map[repair.Mode]repair.Diagnoser{}
	}
	w.diagnoser[mode] = d
	return d, nil
}

// Enqueue inserts generation and repair jobs ([GenerateJob], [RepairJob])
// and returns their ids; a job whose key is already waiting or running is
// not inserted again, and its id is returned.
func (q *Queue) Enqueue(ctx context.Context, args []river.JobArgs) ([]int64, error) {
	if len(args) == 0 {
		return nil, nil
	}
	params := make([]river.InsertManyParams, len(args))
	for i, a := range args {
		params[i] = river.InsertManyParams{Args: a}
	}
	res, err := q.client.InsertMany(ctx, params)
	if err != nil {
		return nil, fmt.Errorf("enqueueing %d jobs: %w", len(args), err)
	}
	ids := make([]int64, len(res))
	for i, r := range res {
		ids[i] = r.Job.ID
	}
	return ids, nil
}

// Wait waits until every job of ids has finished, by whichever worker. A
// job River gave up on (cancelled: a fatal provider error, a budget, a
// task changed; or discarded after MaxAttempts) ends the wait with its
// [*StepError]; the other jobs stay queued. Interrupted, it returns ctx's
// error and the jobs stay queued.
func (q *Queue) Wait(ctx context.Context, ids []int64) error {
	tick := time.NewTicker(q.cfg.Poll)
	defer tick.Stop()
	for len(ids) > 0 {
		select {
		case <-ctx.Done():
			return ctx.Err()
		case <-tick.C:
		}
		var left []int64
		for rest := ids; len(rest) > 0; {
			n := min(len(rest), 1000)
			res, err := q.client.JobList(ctx, river.NewJobListParams().IDs(rest[:n]...).First(n))
			if err != nil {
				return fmt.Errorf("checking the jobs: %w", err)
			}
			for _, j := range res.Jobs {
				switch j.State {
				case rivertype.JobStateCompleted:
				case rivertype.JobStateCancelled, rivertype.JobStateDiscarded:
					return stepError(j)
				default:
					left = append(left, j.ID)
				}
			}
			rest = rest[n:]
		}
		ids = left
	}
	return nil
}

// StoredCalls is how many model answers are stored for the job key.
func (q *Queue) StoredCalls(ctx context.Context, key string) (int, error) {
	return q.calls.count(ctx, key)
}

// errStepGivenUp marks a generation or repair job River gave up on.
var errStepGivenUp = errors.New("step given up")
