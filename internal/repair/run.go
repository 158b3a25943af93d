package repair

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"

	"github.com/worldprobe/worldprobe/internal/atomicfile"
	"github.com/worldprobe/worldprobe/internal/gen"
	"github.com/worldprobe/worldprobe/internal/llm"
	"github.com/worldprobe/worldprobe/internal/pool"
	"github.com/worldprobe/worldprobe/internal/task"
)

// TranscriptFile is the repair of a page for a reader, beside its gen.json.
const TranscriptFile = "repair.md"

// Options configure [Plan] and [Execute].
type Options struct {
	// Tasks, Models, Samples and Out are gen's: the first-shot samples
	// repaired are OUT/<model-slug>/sample-<k>/<task-id>.
	Tasks   []*task.Task
	Models  []*gen.Model
	Samples int
	Out     string
	// Mode is what goes back to the model; Rounds the most rounds (≥ 1).
	Mode   Mode
	Rounds int
	// Jobs is how many pages are repaired at once.
	Jobs int
	// RetryFailed repairs again the pages whose repair ended in an error.
	RetryFailed bool
	// Diagnoser checks the pages (the browser); nil in a dry run.
	Diagnoser Diagnoser
	// Progress gets one line per page repaired; nil for none.
	Progress io.Writer
}

// Dir is the candidates folder of model m's sample k repaired in mode:
// OUT/<model-slug>+<label>/sample-<k>, beside the first-shot folder
// OUT/<model-slug>/sample-<k> ([gen.CandidatesDir]).
func Dir(out string, m *gen.Model, mode Mode, k int) string {
	return filepath.Join(out, m.Slug+"+"+mode.Label(), gen.SampleDir(k))
}

// Job is one first-shot page to repair.
type Job struct {
	// Task, Model and Index name the sample.
	Task  *task.Task
	Model *gen.Model
	Index int
	// FirstDir is the first-shot sample's folder and First its record;
	// Dir the repaired page's folder and Prev its earlier record, if any.
	FirstDir, Dir string
	First, Prev   *gen.Record
	// Why says, when Prev is set, why the page is repaired again.
	Why string
}

// Summary is what Plan found and Execute did.
type Summary struct {
	// Planned counts tasks × models × samples.
	Planned int
	// Kept counts the pages repaired before from the same first-shot page
	// with the same settings; Waiting the samples without a finished first
	// shot (nothing to repair yet).
	Kept, Waiting int
	// KeptRecords are the kept pages' records.
	KeptRecords []*gen.Record
	// ToDo are the pages to repair; Again those of them repaired before,
	// from another first-shot page or with other settings (Job.Why).
	ToDo, Again []*Job
	// Records are the repaired pages' records written now, in finishing
	// order.
	Records []*gen.Record
	// Stopped is set when a run budget stopped the work.
	Stopped error
}

// Plan lists the first-shot samples of tasks × models × samples and what
// to do with each: a sample without a finished first shot waits; one
// repaired before from the same first-shot page (same attempt, same page
// digest) in the same mode and with the same rounds is kept, unless its
// repair ended in an error and RetryFailed is set; any other is repaired.
func Plan(o Options) (*Summary, error) {
	if o.Rounds < 1 {
		return nil, errors.New("repair: rounds must be at least 1")
	}
	sum := &Summary{}
	for _, t := range o.Tasks {
		for _, m := range o.Models {
			for k := 1; k <= o.Samples; k++ {
				sum.Planned++
				j := &Job{Task: t, Model: m, Index: k,
					FirstDir: filepath.Join(gen.CandidatesDir(o.Out, m, k), filepath.FromSlash(t.ID)),
					Dir:      filepath.Join(Dir(o.Out, m, o.Mode, k), filepath.FromSlash(t.ID))}
				var err error
				if j.First, err = gen.ReadRecord(j.FirstDir); err != nil {
					return nil, err
				}
				if j.First == nil {
					sum.Waiting++
					continue
				}
				if j.Prev, err = gen.ReadRecord(j.Dir); err != nil {
					return nil, err
				}
				if j.Prev != nil {
					if j.Why = stale(j.Prev, j.First, o); j.Why == "" {
						sum.Kept++
						sum.KeptRecords = append(sum.KeptRecords, j.Prev)
						continue
					}
					sum.Again = append(sum.Again, j)
				}
				sum.ToDo = append(sum.ToDo, j)
			}
		}
	}
	return sum, nil
}

// stale says why a repaired page's record prev no longer stands for a
// repair of first with o's settings; "" when it does.
func stale(prev, first *gen.Record, o Options) string {
	l := prev.Repaired
	switch {
	case l == nil || prev.Repair != o.Mode.Label():
		return "its gen.json is not a " + o.Mode.Label() + " repair"
	case l.FirstShot.Attempt != first.Attempt || l.FirstShot.PageDigest != first.PageDigest || l.FirstShot.Status != first.Status:
		return "the first-shot sample was generated again"
	case l.MaxRounds != o.Rounds:
		return fmt.Sprintf("it was repaired with --repair %d", l.MaxRounds)
	case l.End == gen.RepairError && o.RetryFailed:
		return "its repair ended in an error (--retry-failed)"
	}
	return ""
}

// Execute repairs the pages sum plans, o.Jobs at a time, writing each the
// moment it is done: the page, repair.md and gen.json last. A first shot
// without a page gives a failed record (no_page) at once. A run budget
// reached stops the work cleanly (calls under way finish, the pages being
// repaired are left unfinished, sum.Stopped holds the error, also
// returned); a fatal provider error or the end of ctx stops it at once.
func Execute(ctx context.Context, o Options, sum *Summary) error {
	stop, err := pool.MapUntil(ctx, o.Jobs, len(sum.ToDo), func(ctx context.Context, i int) (*gen.Record, error, error) {
		j := sum.ToDo[i]
		r, err := repairOne(ctx, o, j)
		if err != nil && ctx.Err() == nil && errors.Is(err, llm.ErrBudgetExceeded) {
			return nil, err, nil
		}
		if err != nil {
			return nil, nil, fmt.Errorf("repairing %s, %s sample %d: %w", j.Task.ID, j.Model.Slug, j.Index, err)
		}
		return r, nil, nil
	}, func(i int, r *gen.Record) error {
		if r != nil {
			sum.Records = append(sum.Records, r)
			if o.Progress != nil {
				fmt.Fprintf(o.Progress, "[%d/%d] %s\n", len(sum.Records), len(sum.ToDo), progressLine(sum.ToDo[i], o.Mode, r))
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

// One repairs one page and writes it (the page, repair.md, gen.json
// last): what Execute does for each job, and a repair job does for its
// page (package queue). o's Mode, Rounds and Diagnoser are used.
func One(ctx context.Context, o Options, j *Job) (*gen.Record, error) { return repairOne(ctx, o, j) }

// Stale says why j's earlier repaired page (j.Prev) no longer stands for
// a repair of j.First with o's settings; "" when it does (it is kept).
func Stale(j *Job, o Options) string { return stale(j.Prev, j.First, o) }

// repairOne repairs one page and writes it.
func repairOne(ctx context.Context, o Options, j *Job) (*gen.Record, error) {
	first := j.First
	log := gen.RepairLog{Mode: string(o.Mode), MaxRounds: o.Rounds, Rounds: []gen.RepairRound{}}
	log.FirstShot = gen.FirstShot{Attempt: first.Attempt, Status: first.Status, PageDigest: first.PageDigest,
		TokensIn: first.TokensIn, TokensOut: first.TokensOut, CostUSD: first.CostUSD, LatencyMS: first.LatencyMS, Turns: first.Turns}
	r := *first
	r.Extraction, r.Repair = nil, o.Mode.Label()
	if first.Status != gen.StatusDone {
		log.End = gen.RepairNoPage
		r.Repaired = &log
		r.Error = "the first shot gave no page, so there is nothing to repair"
		if first.Error != "" {
			r.Error += " (" + first.Error + ")"
		}
		return &r, write(j.Dir, "", "", &r)
	}
	if o.Diagnoser == nil || j.Model.Chat == nil {
		return nil, fmt.Errorf("repair: no diagnoser or no model client for %s", j.Model.Spec)
	}
	b, err := os.ReadFile(filepath.Join(j.FirstDir, gen.PageFile))
	if err != nil {
		return nil, fmt.Errorf("reading the first-shot page: %w", err)
	}
	rep := &Repairer{Model: j.Model.Chat, Diagnoser: o.Diagnoser, Mode: o.Mode, Rounds: o.Rounds}
	ctx = llm.WithTrial(ctx, gen.TrialID(j.Model, j.Index, j.Task.ID))
	out, err := rep.Repair(ctx, j.Task, string(b), gen.Variant(j.Index, first.Attempt))
	if err != nil {
		return nil, err
	}
	out.Log.FirstShot = log.FirstShot
	l := out.Log
	r.Repaired = &l
	r.TokensIn, r.TokensOut = first.TokensIn+l.TokensIn, first.TokensOut+l.TokensOut
	r.CostUSD, r.LatencyMS, r.Turns = first.CostUSD+l.CostUSD, first.LatencyMS+l.LatencyMS, first.Turns+l.Calls
	if l.Calls > 0 {
		r.Source = out.Source
	}
	r.Error = ""
	if n := len(l.Rounds); n > 0 && l.Rounds[n-1].Error != "" {
		r.Error = "repair round " + fmt.Sprint(n) + ": " + l.Rounds[n-1].Error
	}
	sum := sha256.Sum256([]byte(out.Page))
	r.PageDigest = hex.EncodeToString(sum[:])
	return &r, write(j.Dir, out.Page, out.Transcript, &r)
}

// write stores a repaired page in its folder: the page (or, without one,
// the removal of an earlier one), repair.md, and gen.json last, each
// atomically.
func write(dir, page, transcript string, r *gen.Record) error {
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return fmt.Errorf("creating %s: %w", dir, err)
	}
	for _, f := range []struct{ name, text string }{{gen.PageFile, page}, {TranscriptFile, transcript}} {
		path := filepath.Join(dir, f.name)
		if f.text == "" {
			if err := os.Remove(path); err != nil && !errors.Is(err, fs.ErrNotExist) {
				return fmt.Errorf("removing the earlier %s: %w", path, err)
			}
			continue
		}
		if err := atomicfile.Write(path, []byte(f.text)); err != nil {
			return err
		}
	}
	return atomicfile.WriteJSON(filepath.Join(dir, gen.RecordFile), r)
}

// progressLine describes a repaired page.
func progressLine(j *Job, mode Mode, r *gen.Record) string {
	head := fmt.Sprintf("%s %s+%s sample %d: ", j.Task.ID, j.Model.Slug, mode.Label(), j.Index)
	l := r.Repaired
	rounds := plural(len(l.Rounds), "round")
	var applied, rejected int
	for _, rr := range l.Rounds {
		applied, rejected = applied+rr.EditsApplied, rejected+rr.EditsRejected
	}
	calls := fmt.Sprintf("%s, %s applied, %d refused, $%.4f", plural(l.Calls, "call"), plural(applied, "edit"), rejected, l.CostUSD)
	found := "error"
	if mode == Feedback {
		found = "failed check"
	}
	switch l.End {
	case gen.RepairNoPage:
		return head + "no first-shot page: nothing to repair"
	case gen.RepairNothingToFix:
		if mode == Feedback {
			return head + "passed every check: nothing sent"
		}
		return head + "no error: nothing sent"
	case gen.RepairFixed:
		return head + fmt.Sprintf("fixed in %s (%s)", rounds, calls)
	case gen.RepairOutOfRounds:
		return head + fmt.Sprintf("%s left after %s (%s)", plural(l.Remaining, found), rounds, calls)
	case gen.RepairUnchanged:
		return head + fmt.Sprintf("unchanged in round %d, %s left (%s)", len(l.Rounds), plural(l.Remaining, found), calls)
	}
	return head + fmt.Sprintf("FAILED in round %d (%s): %s", len(l.Rounds), calls, r.Error)
}

func plural(n int, noun string) string {
	if n == 1 {
		return "1 " + noun
	}
	return fmt.Sprintf("%d %ss", n, noun)
}

// Counts tallies the repaired pages' records by how their repair ended.
func Counts(records []*gen.Record) map[gen.RepairEnd]int {
	out := map[gen.RepairEnd]int{}
	for _, r := range records {
		if r.Repaired != nil {
			out[r.Repaired.End]++
		}
	}
	return out
}
