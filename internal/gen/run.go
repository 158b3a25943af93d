package gen

import (
	"context"
	"errors"
	"fmt"
	"io"
	"path/filepath"
	"strings"

	"github.com/worldprobe/worldprobe/internal/llm"
	"github.com/worldprobe/worldprobe/internal/pool"
	"github.com/worldprobe/worldprobe/internal/task"
)

// Model is one model pages are generated with (one --model).
type Model struct {
	// Spec is the --model given: a role or provider/model.
	Spec string
	// Slug names its folder under the output folder.
	Slug string
	// Role is the role asked.
	Role llm.Role
	// Name is the provider/model of the role's primary model.
	Name string
	// Chat answers; nil in a dry run.
	Chat llm.Model
	// MaxTokens is the output cap per call, for estimates.
	MaxTokens int
	// Price is the primary model's price (USD per 1M tokens), nil when it
	// has none; Pricing says where prices come from ("table", "free",
	// "provider", "missing"), as [llm.ModelInfo] does.
	Price   *llm.Price
	Pricing string
}

// Options configure [Run].
type Options struct {
	// Tasks are generated for, each with every model.
	Tasks []*task.Task
	// Models write the pages.
	Models []*Model
	// Samples is the number of samples per task and model (at least 1).
	Samples int
	// Out is the output folder.
	Out string
	// Jobs is how many samples are generated at once.
	Jobs int
	// RetryFailed generates failed samples again; RegenerateChanged those
	// whose prompt changed since they were generated (refused without it).
	RetryFailed, RegenerateChanged bool
	// DryRun plans and estimates, and calls nothing.
	DryRun bool
	// Progress gets one line per sample generated; nil for none.
	Progress io.Writer
	// Prompt builds a task's prompt; nil means [PromptOf]. Agent runs
	// (package agent) give their own.
	Prompt func(*task.Task) (Prompt, error)
}

// Sample is one page to generate: a task, a model and a sample index.
type Sample struct {
	// Task and Model are what the page is of and who writes it.
	Task  *task.Task
	Model *Model
	// Index counts samples from 1; Attempt counts this sample's
	// generations, this one included.
	Index, Attempt int
	// Dir is the sample's folder.
	Dir string
	// Prompt is what the model is sent.
	Prompt Prompt
	// PromptDigest is Prompt.Digest(); TaskDigest the task folder's.
	PromptDigest, TaskDigest string
	// Prev is the sample's earlier record, if any.
	Prev *Record
}

// Variant tells the sample's requests apart from other samples' and
// attempts' in the response cache and the recordings.
func (s *Sample) Variant() string { return Variant(s.Index, s.Attempt) }

// Variant is the request variant of sample k's attempt: "sample-<k>", or
// "sample-<k>/attempt-<n>" from the second attempt on.
func Variant(k, attempt int) string {
	if attempt <= 1 {
		return fmt.Sprintf("sample-%d", k)
	}
	return fmt.Sprintf("sample-%d/attempt-%d", k, attempt)
}

// Trial is the id its calls are accounted under (per-trial budgets).
func (s *Sample) Trial() string { return TrialID(s.Model, s.Index, s.Task.ID) }

// TrialID is the id the calls of model m's sample k of a task are
// accounted under (per-trial budgets); a repair of the sample's page
// shares it.
func TrialID(m *Model, k int, task string) string {
	return m.Slug + "/" + SampleDir(k) + "/" + task
}

// SampleDir is the folder of sample k below a model's folder.
func SampleDir(k int) string { return fmt.Sprintf("sample-%d", k) }

// CandidatesDir is the folder of sample k of a model: what
// 'worldprobe run --candidates' takes.
func CandidatesDir(out string, m *Model, k int) string {
	return filepath.Join(out, m.Slug, SampleDir(k))
}

// Call is a call a dry run would make: the first of a sample.
type Call struct {
	// Sample is the sample the call is the first of.
	Sample *Sample
	// InputTokens is the estimated input of the call
	// ([llm.EstimateInputTokens]); MaxOutputTokens the model's output cap.
	InputTokens, MaxOutputTokens int
	// InputUSD is what the input costs, OutputUSD at most what the output
	// does, from the pricing table; Priced is false when the model has no
	// price there (both are then 0).
	InputUSD, OutputUSD float64
	Priced              bool
}

// Summary is what Plan found and Execute did.
type Summary struct {
	// Planned counts the samples of tasks × models × samples.
	Planned int
	// KeptDone and KeptFailed count the samples finished before and kept:
	// done, and failed (without RetryFailed); FailedKept lists the latter.
	KeptDone, KeptFailed int
	FailedKept           []*Record
	// Changed lists the samples whose prompt changed since they were
	// generated (generated again with --regenerate-changed).
	Changed []*Sample
	// ToDo are the samples to generate.
	ToDo []*Sample
	// Records are the samples generated now, in finishing order.
	Records []*Record
	// Calls are the calls a dry run would make.
	Calls []Call
	// Stopped is set when a run budget stopped the work: the samples not
	// generated are unfinished, the others are kept.
	Stopped error
}

// Done counts the samples generated now that gave a page (done) and that
// did not (failed).
func (s *Summary) Done() (done, failed int) {
	for _, r := range s.Records {
		if r.Status == StatusDone {
			done++
		} else {
			failed++
		}
	}
	return done, failed
}

// Finished counts the samples that have a gen.json now.
func (s *Summary) Finished() int { return s.KeptDone + s.KeptFailed + len(s.Records) }

// ErrPromptChanged is matched by every [ChangedError].
var ErrPromptChanged = errors.New("the prompt changed since samples were generated")

// ChangedError refuses to generate again, without --regenerate-changed,
// samples whose prompt changed since their gen.json was written.
type ChangedError struct {
	// Out is the output folder.
	Out string
	// Samples are the changed samples.
	Samples []*Sample
}

func (e *ChangedError) Error() string {
	var b strings.Builder
	tasks := map[string]bool{}
	for _, s := range e.Samples {
		tasks[s.Task.ID] = true
	}
	fmt.Fprintf(&b, "%s (%s): %s of %s:", ErrPromptChanged, e.Out, plural(len(e.Samples), "sample"), plural(len(tasks), "task"))
	for _, s := range e.Samples {
		fmt.Fprintf(&b, "\n  %s: %s sample %d (gen.json prompt_digest %.12s…, now %.12s…)", s.Task.ID, s.Model.Slug, s.Index, s.Prev.PromptDigest, s.PromptDigest)
	}
	b.WriteString("\nrun the same command with --regenerate-changed to generate them again (every other sample is kept), or use another --out folder")
	return b.String()
}

// Unwrap returns [ErrPromptChanged].
func (e *ChangedError) Unwrap() error { return ErrPromptChanged }

func plural(n int, noun string) string {
	if n == 1 {
		return "1 " + noun
	}
	return fmt.Sprintf("%d %ss", n, noun)
}

// Plan lists the samples of tasks × models × samples and what to do with
// each: a sample whose gen.json says done is kept, a failed one is kept
// unless RetryFailed, one without gen.json is generated. A sample whose
// prompt changed since it was generated is refused with a [*ChangedError]
// unless RegenerateChanged.
func Plan(o Options) (*Summary, error) {
	if o.Samples < 1 {
		return nil, errors.New("gen: samples must be at least 1")
	}
	sum := &Summary{}
	promptOf := o.Prompt
	if promptOf == nil {
		promptOf = PromptOf
	}
	for _, t := range o.Tasks {
		p, err := promptOf(t)
		if err != nil {
			return nil, err
		}
		td, err := t.Digest()
		if err != nil {
			return nil, err
		}
		pd := p.Digest()
		for _, m := range o.Models {
			for k := 1; k <= o.Samples; k++ {
				s := &Sample{Task: t, Model: m, Index: k, Attempt: 1, Prompt: p, PromptDigest: pd, TaskDigest: td,
					Dir: filepath.Join(CandidatesDir(o.Out, m, k), filepath.FromSlash(t.ID))}
				sum.Planned++
				prev, err := ReadRecord(s.Dir)
				if err != nil {
					return nil, err
				}
				s.Prev = prev
				switch {
				case prev == nil:
				case prev.PromptDigest != pd:
					sum.Changed = append(sum.Changed, s)
					s.Attempt = prev.Attempt + 1
				case prev.Status == StatusDone:
					sum.KeptDone++
					continue
				case !o.RetryFailed:
					sum.KeptFailed++
					sum.FailedKept = append(sum.FailedKept, prev)
					continue
				default:
					s.Attempt = prev.Attempt + 1
				}
				sum.ToDo = append(sum.ToDo, s)
			}
		}
	}
	if len(sum.Changed) > 0 && !o.RegenerateChanged {
		return sum, &ChangedError{Out: o.Out, Samples: sum.Changed}
	}
	return sum, nil
}

// Run plans ([Plan]) and generates ([Execute]).
func Run(ctx context.Context, o Options) (*Summary, error) {
	sum, err := Plan(o)
	if err != nil {
		return sum, err
	}
	return sum, Execute(ctx, o, sum)
}

// Execute generates the samples sum plans, o.Jobs at a time, writing each
// sample's files the moment it finishes. A dry run only estimates the
// calls (sum.Calls). A run budget reached stops the work cleanly: calls
// under way finish and are kept, no other starts, and sum.Stopped holds the
// budget error (also returned). A fatal provider error or the end of ctx
// stops it at once; samples not finished then have no gen.json.
func Execute(ctx context.Context, o Options, sum *Summary) error {
	if o.DryRun {
		for _, s := range sum.ToDo {
			sum.Calls = append(sum.Calls, estimate(s))
		}
		return nil
	}
	stop, err := pool.MapUntil(ctx, o.Jobs, len(sum.ToDo), func(ctx context.Context, i int) (*Record, error, error) {
		s := sum.ToDo[i]
		if s.Model.Chat == nil {
			return nil, nil, fmt.Errorf("gen: model %s has no client", s.Model.Spec)
		}
		g, err := Generate(llm.WithTrial(ctx, s.Trial()), s.Model.Chat, s.Prompt, s.Variant())
		if err != nil && ctx.Err() == nil && errors.Is(err, llm.ErrBudgetExceeded) {
			return nil, err, nil
		}
		if err != nil {
			return nil, nil, fmt.Errorf("%s, %s sample %d: %w", s.Task.ID, s.Model.Slug, s.Index, err)
		}
		// Written here, not after the pool hands the result over, so that
		// a generation finished as an interruption comes is kept.
		r, err := write(s, g)
		return r, nil, err
	}, func(i int, r *Record) error {
		if r != nil {
			sum.Records = append(sum.Records, r)
			if o.Progress != nil {
				fmt.Fprintf(o.Progress, "[%d/%d] %s\n", len(sum.Records), len(sum.ToDo), progressLine(sum.ToDo[i], r))
			}
		}
		return nil
	})
	if err != nil {
		return err
	}
	sum.Stopped = stop
	return stop
}

// progressLine describes a generated sample.
func progressLine(s *Sample, r *Record) string {
	head := fmt.Sprintf("%s %s sample %d: ", s.Task.ID, s.Model.Slug, s.Index)
	turns := plural(r.Turns, "turn")
	if r.Status == StatusFailed {
		return head + fmt.Sprintf("FAILED %s (%s): %s", r.FinishReason, turns, r.Error)
	}
	line := head + fmt.Sprintf("%s, %s, %d→%d tokens, $%.4f", r.FinishReason, turns, r.TokensIn, r.TokensOut, r.CostUSD)
	if r.Model != s.Model.Name {
		line += " (answered by " + r.Model + ")"
	}
	return line
}

// estimate prices the first call of s from the pricing table.
func estimate(s *Sample) Call {
	c := Call{Sample: s, InputTokens: llm.EstimateInputTokens(s.Prompt.Request(s.Variant())), MaxOutputTokens: s.Model.MaxTokens}
	switch {
	case s.Model.Price != nil:
		c.Priced = true
		c.InputUSD = s.Model.Price.Cost(llm.Usage{InputTokens: int64(c.InputTokens)})
		c.OutputUSD = s.Model.Price.Cost(llm.Usage{OutputTokens: int64(c.MaxOutputTokens)})
	case s.Model.Pricing == "free":
		c.Priced = true
	}
	return c
}

// NewSample is sample k's first attempt of task t with model m, its page
// in out's layout ([CandidatesDir]): the sample [Plan] would list before it
// reads the sample's earlier record. A generation job makes its sample
// with it (package queue).
func NewSample(t *task.Task, m *Model, k int, out string) (*Sample, error) {
	p, err := PromptOf(t)
	if err != nil {
		return nil, err
	}
	td, err := t.Digest()
	if err != nil {
		return nil, err
	}
	return &Sample{Task: t, Model: m, Index: k, Attempt: 1, Prompt: p, PromptDigest: p.Digest(), TaskDigest: td,
		Dir: filepath.Join(CandidatesDir(out, m, k), filepath.FromSlash(t.ID))}, nil
}

// WriteSample stores a generated sample in its folder (the page, reply.md,
// and gen.json last, each atomically) and returns its record.
func WriteSample(s *Sample, g *Generation) (*Record, error) { return write(s, g) }
