package agent

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"strings"
	"time"

	"github.com/worldprobe/worldprobe/internal/gen"
	"github.com/worldprobe/worldprobe/internal/llm"
)

// Budget caps one agent run. A budget reached ends the run, recorded
// (finish_reason budget), with the page written so far kept.
type Budget struct {
	// MaxTurns is the most calls to the model (at least 1).
	MaxTurns int
	// MaxTokens caps input plus output tokens of the run's calls; 0: none.
	MaxTokens int64
	// MaxUSD caps their cost; 0: none.
	MaxUSD float64
}

// DefaultMaxTurns is the turn budget of an agent run unless --max-turns
// says otherwise.
const DefaultMaxTurns = 30

// exceeded names the budget r has reached, with a sentence saying so; ""
// when there is room for another call.
func (b Budget) exceeded(r *Result) (name, why string) {
	switch {
	case r.Turns >= b.MaxTurns:
		return "turns", fmt.Sprintf("the turn budget is spent: %d of %d turns", r.Turns, b.MaxTurns)
	case b.MaxTokens > 0 && r.Usage.Total() >= b.MaxTokens:
		return "tokens", fmt.Sprintf("the token budget is spent: %d of %d tokens", r.Usage.Total(), b.MaxTokens)
	case b.MaxUSD > 0 && r.CostUSD >= b.MaxUSD:
		return "usd", fmt.Sprintf("the cost budget is spent: $%.4f of $%.4f", r.CostUSD, b.MaxUSD)
	}
	return "", ""
}

// Config is one agent run.
type Config struct {
	// Model answers.
	Model llm.Model
	// Prompt is the system text, the task's prompt and the tools
	// ([PromptOf]).
	Prompt gen.Prompt
	// Variant tells the sample's requests apart in the response cache and
	// the recordings ([gen.Sample.Variant]).
	Variant string
	// Env is the workspace and runtime the tools act on.
	Env *Env
	// Budget caps the run.
	Budget Budget
	// Trajectory receives every turn; nil for none.
	Trajectory *Trajectory
}

// Result is what an agent run did.
type Result struct {
	// Turns counts the calls answered; StopReasons has each one's.
	Turns       int
	StopReasons []llm.StopReason
	// Usage, CostUSD and Latency sum the calls; ToolTime the tools' time.
	Usage    llm.Usage
	CostUSD  float64
	Latency  time.Duration
	ToolTime time.Duration
	// Provider, Model, ServedModel, FallbackIndex and Source are of the
	// last call answered.
	Provider, Model, ServedModel string
	FallbackIndex                int
	Source                       llm.Source
	// EndedBy is how the run ended (gen.EndedByFinish, …); Budget names
	// the budget that ended it; Err why it was cut short.
	EndedBy string
	Budget  string
	Err     string
	// ToolCalls counts each tool's calls, ToolErrors those answered with
	// an error.
	ToolCalls, ToolErrors map[string]int
	// Summary is what the model said with finish.
	Summary string
	// Answer is the text of a last turn without a tool call; Refused is
	// set when it, or the provider, declined.
	Answer  string
	Refused bool
	// Stop is set when a run budget of the models file ended the run: the
	// sample is recorded, and no other starts.
	Stop error
}

// UnknownTool counts, in [Result.ToolCalls], the calls of tools that do
// not exist.
const UnknownTool = "unknown_tool"

// Notes the loop sends the model of its own.
const (
	// CutOffNote follows a reply cut off by the output limit without a
	// tool call.
	CutOffNote = "Your reply was cut off by the output limit. Use write_file to write the page into index.html (or write a shorter page first and add to it with edit_file), then call finish."
	// cutOffCall answers a tool call whose arguments the output limit cut.
	cutOffCall = "error: the call was cut off by the output limit before its arguments were complete, so it was not run; write less in one call (a shorter write_file, then edit_file to add to it)"
)

// Run drives one agent run: the system text and the task's prompt, then
// the model's turns, each turn's tool calls run in order and answered as
// tool messages. It ends when the model calls finish, answers without a
// tool call (an HTML page in that answer is written to index.html), or a
// budget is reached; a provider failure after its retries ends it too.
// The error is for what stops the whole generation: the end of ctx, a
// fatal provider error, a tool's [*InfraError].
func Run(ctx context.Context, c Config) (*Result, error) {
	if c.Budget.MaxTurns < 1 {
		return nil, errors.New("agent: the turn budget must be at least 1")
	}
	r := &Result{ToolCalls: map[string]int{}, ToolErrors: map[string]int{}}
	req := c.Prompt.Request(c.Variant)
	names := make([]string, len(req.Tools))
	for i, t := range req.Tools {
		names[i] = t.Name
	}
	c.Trajectory.add(Entry{Kind: KindPrompt, System: c.Prompt.System, Text: c.Prompt.User, Tools: names})
	for {
		if name, why := c.Budget.exceeded(r); name != "" {
			r.EndedBy, r.Budget, r.Err = gen.EndedByBudget, name, why
			break
		}
		resp, err := c.Model.Chat(ctx, req)
		if err != nil {
			var be *llm.BudgetError
			switch {
			case ctx.Err() != nil:
				return nil, ctx.Err()
			case llm.IsFatal(err):
				return nil, err
			case errors.As(err, &be):
				r.EndedBy, r.Budget, r.Err = gen.EndedByBudget, be.Scope+"_"+be.Unit, err.Error()
				if be.Scope != "trial" {
					r.Stop = err
				}
			case errors.Is(err, llm.ErrBudgetExceeded):
				r.EndedBy, r.Budget, r.Err, r.Stop = gen.EndedByBudget, "run", err.Error(), err
			default:
				r.EndedBy, r.Err = gen.EndedByError, fmt.Sprintf("turn %d failed: %v", r.Turns+1, err)
			}
			break
		}
		r.add(resp)
		c.Trajectory.add(Entry{Turn: r.Turns, Kind: KindModel, Text: resp.Text, ToolCalls: callsOf(resp.ToolCalls), StopReason: resp.StopReason,
			Model: resp.Provider + "/" + resp.Model, TokensIn: resp.Usage.InputTokens, TokensOut: resp.Usage.OutputTokens,
			CostUSD: resp.CostUSD, LatencyMS: resp.Latency.Milliseconds()})
		req.Messages = append(req.Messages, llm.AssistantText(resp.Text, sent(resp.ToolCalls)...))
		if len(resp.ToolCalls) == 0 {
			if resp.StopReason == llm.StopLength {
				req.Messages = append(req.Messages, llm.UserText(CutOffNote))
				c.Trajectory.add(Entry{Turn: r.Turns, Kind: KindNote, Text: CutOffNote})
				continue
			}
			if err := r.answer(c.Env, resp); err != nil {
				return nil, err
			}
			break
		}
		for _, call := range resp.ToolCalls {
			name := call.Name
			if _, ok := lookup(name); !ok {
				name = UnknownTool // the model's own names do not reach gen.json
			}
			r.ToolCalls[name]++
			start := time.Now()
			var text string
			failed := true
			if resp.StopReason == llm.StopLength && !json.Valid(call.Arguments) {
				text = cutOffCall
			} else if text, failed, err = Call(ctx, c.Env, call); err != nil {
				return nil, err
			}
			took := time.Since(start)
			r.ToolTime += took
			if failed {
				r.ToolErrors[name]++
			}
			req.Messages = append(req.Messages, llm.ToolResult(call.ID, text))
			c.Trajectory.add(Entry{Turn: r.Turns, Kind: KindTool, ID: call.ID, Name: call.Name, Result: text, Error: failed, MS: took.Milliseconds()})
			if c.Env.Finished {
				break // calls after finish are not run
			}
		}
		if c.Env.Finished {
			r.EndedBy, r.Summary = gen.EndedByFinish, c.Env.Summary
			break
		}
	}
	if err := c.Trajectory.Err(); err != nil {
		return nil, err
	}
	return r, nil
}

// sent are the calls as the conversation replays them: arguments that
// are no JSON (cut off by the output limit) go back as {}, since no
// provider takes them back otherwise; the call's result says why it was
// not run.
func sent(calls []llm.ToolCall) []llm.ToolCall {
	out := make([]llm.ToolCall, len(calls))
	for i, c := range calls {
		if len(c.Arguments) > 0 && !json.Valid(c.Arguments) {
			c.Arguments = json.RawMessage("{}")
		}
		out[i] = c
	}
	return out
}

// add counts one answered call.
func (r *Result) add(resp *llm.Response) {
	r.Turns++
	r.StopReasons = append(r.StopReasons, resp.StopReason)
	r.Usage.InputTokens += resp.Usage.InputTokens
	r.Usage.OutputTokens += resp.Usage.OutputTokens
	r.Usage.CachedInputTokens += resp.Usage.CachedInputTokens
	r.Usage.CacheWriteTokens += resp.Usage.CacheWriteTokens
	r.CostUSD += resp.CostUSD
	r.Latency += resp.Latency
	r.Provider, r.Model, r.ServedModel, r.FallbackIndex, r.Source = resp.Provider, resp.Model, resp.ServedModel, resp.FallbackIndex, resp.Source
}

// answer ends the run on a turn without a tool call: its text is the
// answer, and a page in it (as single-shot generation extracts one) is
// written to index.html.
func (r *Result) answer(env *Env, resp *llm.Response) error {
	r.EndedBy, r.Answer = gen.EndedByAnswer, resp.Text
	ex := gen.Extract(resp.Text)
	if ex.HTML != "" {
		if err := env.Workspace.WriteFile(PageFile, []byte(ex.HTML)); err != nil {
			r.Err = fmt.Sprintf("the page of the last answer could not be written: %v", err)
		}
		return nil
	}
	page, err := env.Workspace.Page()
	if err != nil {
		return &InfraError{Err: err}
	}
	if strings.TrimSpace(string(page)) == "" {
		r.Refused = resp.StopReason == llm.StopRefusal || ex.Failure == gen.Refusal
		if r.Refused && ex.Reason != "" {
			r.Err = ex.Reason
		} else if r.Refused {
			r.Err = "the provider reported a refusal"
		}
	}
	return nil
}
