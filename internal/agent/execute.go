package agent

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
	"strings"

	"github.com/worldprobe/worldprobe/internal/atomicfile"
	"github.com/worldprobe/worldprobe/internal/gen"
	"github.com/worldprobe/worldprobe/internal/llm"
	"github.com/worldprobe/worldprobe/internal/pool"
	"github.com/worldprobe/worldprobe/internal/task"
)

// Options configure [Execute].
type Options struct {
	// Jobs is how many samples run at once.
	Jobs int
	// Progress gets one line per sample finished; nil for none.
	Progress io.Writer
	// Budget caps each sample's run.
	Budget Budget
	// Runtime gives run_page the runtime of a task; nil, or a nil
	// Runtime, makes run_page answer that it is not available.
	Runtime func(*task.Task) Runtime
	// Secrets are replaced by [REDACTED] in trajectories and gen.json
	// (the API keys in use).
	Secrets []string
}

// PartialSuffix marks the trajectory of a run under way (removed if the
// run is interrupted, since the sample is then run again):
// trajectory.jsonl.part, renamed to trajectory.jsonl when the run ends.
const PartialSuffix = ".part"

// Execute runs an agent for each sample sum plans (a [gen.Plan] whose
// prompts are [PromptOf]'s), o.Jobs at a time, and writes each the moment
// it finishes: the page (the workspace's index.html), trajectory.jsonl
// and gen.json last. A run budget of the models file reached records the
// sample it ended and stops the work cleanly: runs under way finish, no
// other starts, and sum.Stopped holds the budget error (also returned). A
// fatal provider error, a browser failure or the end of ctx stops it at
// once; samples not finished then have no gen.json.
func Execute(ctx context.Context, o Options, sum *gen.Summary) error {
	stop, err := pool.MapUntil(ctx, o.Jobs, len(sum.ToDo), func(ctx context.Context, i int) (*gen.Record, error, error) {
		s := sum.ToDo[i]
		if s.Model.Chat == nil {
			return nil, nil, fmt.Errorf("agent: model %s has no client", s.Model.Spec)
		}
		r, stop, err := runSample(ctx, o, s)
		if err != nil {
			return nil, nil, fmt.Errorf("%s, %s sample %d: %w", s.Task.ID, s.Model.Slug, s.Index, err)
		}
		return r, stop, nil // the run a budget ended is recorded too
	}, func(i int, r *gen.Record) error {
		sum.Records = append(sum.Records, r)
		if o.Progress != nil {
			fmt.Fprintf(o.Progress, "[%d/%d] %s\n", len(sum.Records), len(sum.ToDo), progressLine(sum.ToDo[i], r))
		}
		return nil
	})
	if err != nil {
		return err
	}
	sum.Stopped = stop
	return stop
}

// runSample runs the agent for one sample in a fresh workspace and writes
// its files. stop is a run budget that ended it.
func runSample(ctx context.Context, o Options, s *gen.Sample) (rec *gen.Record, stop error, err error) {
	if err := os.MkdirAll(s.Dir, 0o755); err != nil {
		return nil, nil, fmt.Errorf("creating %s: %w", s.Dir, err)
	}
	ws, err := NewWorkspace(s.Task)
	if err != nil {
		return nil, nil, err
	}
	defer ws.Close()
	partial := filepath.Join(s.Dir, TrajectoryFile+PartialSuffix)
	f, err := os.Create(partial)
	if err != nil {
		return nil, nil, fmt.Errorf("creating the trajectory: %w", err)
	}
	defer func() {
		if f != nil {
			f.Close()
			os.Remove(partial)
		}
	}()
	traj := NewTrajectory(f, o.Secrets)
	env := &Env{Workspace: ws, Frames: s.Task.Frames}
	if o.Runtime != nil {
		env.Runtime = o.Runtime(s.Task)
	}
	res, err := Run(llm.WithTrial(ctx, s.Trial()), Config{Model: s.Model.Chat, Prompt: s.Prompt, Variant: s.Variant(),
		Env: env, Budget: o.Budget, Trajectory: traj})
	if err != nil {
		return nil, nil, err
	}
	page, err := ws.Page()
	if err != nil {
		return nil, nil, err
	}
	r := record(s, o.Budget, res, strings.TrimSpace(string(page)) != "")
	r.Error = traj.Redact(r.Error)
	r.Agent.Summary = traj.Redact(r.Agent.Summary)
	traj.add(Entry{Turn: res.Turns, Kind: KindEnd, EndedBy: res.EndedBy, Budget: res.Budget, FinishReason: string(r.FinishReason), Reason: r.Error})
	if err := traj.Err(); err != nil {
		return nil, nil, err
	}
	if err := f.Sync(); err != nil {
		return nil, nil, fmt.Errorf("writing the trajectory: %w", err)
	}
	if err := f.Close(); err != nil {
		return nil, nil, fmt.Errorf("writing the trajectory: %w", err)
	}
	f = nil
	if err := os.Rename(partial, filepath.Join(s.Dir, TrajectoryFile)); err != nil {
		return nil, nil, fmt.Errorf("writing the trajectory: %w", err)
	}
	pagePath := filepath.Join(s.Dir, gen.PageFile)
	if r.Status == gen.StatusDone {
		if err := atomicfile.Write(pagePath, page); err != nil {
			return nil, nil, err
		}
		sum := sha256.Sum256(page)
		r.PageDigest = hex.EncodeToString(sum[:])
	} else if err := os.Remove(pagePath); err != nil && !errors.Is(err, fs.ErrNotExist) {
		return nil, nil, fmt.Errorf("removing the earlier %s: %w", pagePath, err)
	}
	if err := atomicfile.WriteJSON(filepath.Join(s.Dir, gen.RecordFile), r); err != nil {
		return nil, nil, err
	}
	return r, res.Stop, nil
}

// record is the gen.json of a run: done when the workspace holds a page,
// its finish reason from how the run ended.
func record(s *gen.Sample, b Budget, res *Result, hasPage bool) *gen.Record {
	r := s.NewRecord()
	if res.Provider != "" {
		r.Model = res.Provider + "/" + res.Model
	}
	r.ServedModel, r.FallbackIndex, r.Source = res.ServedModel, res.FallbackIndex, res.Source
	r.TokensIn, r.TokensOut, r.CachedTokensIn = res.Usage.InputTokens, res.Usage.OutputTokens, res.Usage.CachedInputTokens
	r.CostUSD, r.LatencyMS, r.Turns, r.StopReasons = res.CostUSD, res.Latency.Milliseconds(), res.Turns, res.StopReasons
	r.Error = res.Err
	switch {
	case res.EndedBy == gen.EndedByError:
		r.FinishReason = gen.FinishError
	case res.EndedBy == gen.EndedByBudget:
		r.FinishReason = gen.FinishBudget
	case hasPage:
		r.FinishReason = gen.FinishStop
	case res.Refused:
		r.FinishReason = gen.FinishRefusal
	default:
		r.FinishReason = gen.FinishNoHTML
		r.Error = "the model ended its run without writing index.html"
	}
	if hasPage {
		r.Status = gen.StatusDone
	}
	st := &gen.AgentStats{EndedBy: res.EndedBy, Budget: res.Budget, MaxTurns: b.MaxTurns, MaxTokens: b.MaxTokens, MaxUSD: b.MaxUSD,
		ToolCalls: res.ToolCalls, Runs: res.ToolCalls["run_page"], Edits: res.ToolCalls["write_file"] + res.ToolCalls["edit_file"],
		ToolMS: res.ToolTime.Milliseconds(), Summary: res.Summary, Trajectory: TrajectoryFile}
	if len(res.ToolErrors) > 0 {
		st.ToolErrors = res.ToolErrors
	}
	if st.Edits > 0 {
		ratio := float64(st.Runs) / float64(st.Edits)
		st.TestToEdit = &ratio
	}
	r.Agent = st
	return r
}

// progressLine describes a finished sample.
func progressLine(s *gen.Sample, r *gen.Record) string {
	head := fmt.Sprintf("%s %s sample %d: ", s.Task.ID, s.Model.Slug, s.Index)
	how := r.Agent.EndedBy
	if r.Agent.Budget != "" {
		how += " " + r.Agent.Budget
	}
	effort := fmt.Sprintf("%d turns, %d runs / %d edits", r.Turns, r.Agent.Runs, r.Agent.Edits)
	if r.Status == gen.StatusFailed {
		return head + fmt.Sprintf("FAILED %s (%s, %s): %s", r.FinishReason, how, effort, r.Error)
	}
	return head + fmt.Sprintf("%s (%s), %s, %d→%d tokens, $%.4f", r.FinishReason, how, effort, r.TokensIn, r.TokensOut, r.CostUSD)
}
