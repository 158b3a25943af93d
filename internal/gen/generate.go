package gen

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"time"
	"unicode"

	"github.com/worldprobe/worldprobe/internal/llm"
)

// Finish is how a sample's generation ended: gen.json's finish_reason.
type Finish string

// Finish reasons.
const (
	// FinishStop: the model ended its answer and it held a page.
	FinishStop Finish = "stop"
	// FinishTruncated: the answer was still cut off by the output limit
	// after [MaxTurns] turns, or a continuation could not be had; the page
	// is kept if the joined answer holds one.
	FinishTruncated Finish = "truncated"
	// FinishRefusal: the model (or the provider's filter) declined.
	FinishRefusal Finish = "refusal"
	// FinishNoHTML: the answer held no HTML page.
	FinishNoHTML Finish = "no_html"
	// FinishError: the provider failed, after its retries and fallbacks.
	FinishError Finish = "error"
	// FinishOther: the provider stopped for another reason (a tool call,
	// an unknown reason); the page is kept.
	FinishOther Finish = "other"
)

// MaxTurns is the most calls one sample makes: the first and up to two
// continuations of a reply cut off by the output limit.
const MaxTurns = 3

// Generation is what one sample's calls produced.
type Generation struct {
	// Reply is the model's answer, its continuations joined.
	Reply string
	// Extraction is Reply reduced to one HTML file.
	Extraction Extraction
	// Finish says how it ended; Err why, when it failed or was cut short.
	Finish Finish
	Err    string
	// Turns counts the calls answered; StopReasons has each one's.
	Turns       int
	StopReasons []llm.StopReason
	// Usage, CostUSD and Latency sum the calls.
	Usage   llm.Usage
	CostUSD float64
	Latency time.Duration
	// Provider, Model and ServedModel name who answered the last call;
	// FallbackIndex is 0 for the role's primary model; Source is live,
	// cache or replay.
	Provider, Model, ServedModel string
	FallbackIndex                int
	Source                       llm.Source
}

// Stops reports whether err must stop the whole generation rather than
// be recorded as the sample's failure: the context ended, a provider
// refused for good ([llm.FatalError]) or a run budget was reached.
func Stops(ctx context.Context, err error) bool {
	var b *llm.BudgetError
	return ctx.Err() != nil || llm.IsFatal(err) || (errors.As(err, &b) && b.Scope != "trial") ||
		(errors.Is(err, llm.ErrBudgetExceeded) && !errors.As(err, &b))
}

// Generate asks m for the page of prompt p. A reply cut off by the output
// limit is continued: the reply so far goes back as the assistant's turn,
// followed by [Continue], and the answers are joined, up to [MaxTurns]
// calls. A provider failure, a refusal or a reply without a page is a
// Generation with its Finish and Err; the error is for what [Stops] the
// work, and the sample is then unfinished.
func Generate(ctx context.Context, m llm.Model, p Prompt, variant string) (*Generation, error) {
	g := &Generation{}
	req := p.Request(variant)
	cut := false
	for {
		resp, err := m.Chat(ctx, req)
		if err != nil {
			if Stops(ctx, err) {
				return nil, err
			}
			if g.Turns == 0 {
				g.Finish, g.Err = FinishError, err.Error()
				return g, nil
			}
			cut, g.Err = true, fmt.Sprintf("continuation %d failed: %v", g.Turns, err)
			break
		}
		g.add(resp)
		if resp.StopReason != llm.StopLength {
			break
		}
		if g.Turns >= MaxTurns {
			cut = true
			g.Err = fmt.Sprintf("still cut off by the output limit after %d turns", g.Turns)
			break
		}
		req = p.Continuation(variant, g.Reply)
	}
	g.Extraction = Extract(g.Reply)
	last := g.StopReasons[len(g.StopReasons)-1]
	ex := g.Extraction
	switch {
	case ex.HTML == "" && (last == llm.StopRefusal || ex.Failure == Refusal):
		g.Finish = FinishRefusal
		if ex.Failure == Refusal {
			g.Err = join(ex.Reason, g.Err)
		} else {
			why := "the provider reported a refusal: " + quote(g.Reply)
			if strings.TrimSpace(g.Reply) == "" {
				why = "the provider reported a refusal, with no text"
			}
			g.Err = join(why, g.Err)
		}
	case ex.HTML == "":
		g.Finish, g.Err = FinishNoHTML, join(ex.Reason, g.Err)
	case cut:
		g.Finish = FinishTruncated
	case last == llm.StopRefusal:
		g.Finish = FinishRefusal
	case last == llm.StopEnd:
		g.Finish = FinishStop
	default:
		g.Finish = FinishOther
	}
	return g, nil
}

func join(a, b string) string {
	switch {
	case a == "":
		return b
	case b == "":
		return a
	}
	return a + "; " + b
}

// add counts one answered call and joins its text to the reply.
func (g *Generation) add(r *llm.Response) {
	g.Reply = JoinContinuation(g.Reply, r.Text)
	g.Turns++
	g.StopReasons = append(g.StopReasons, r.StopReason)
	g.Usage.InputTokens += r.Usage.InputTokens
	g.Usage.OutputTokens += r.Usage.OutputTokens
	g.Usage.CachedInputTokens += r.Usage.CachedInputTokens
	g.Usage.CacheWriteTokens += r.Usage.CacheWriteTokens
	g.CostUSD += r.CostUSD
	g.Latency += r.Latency
	g.Provider, g.Model, g.ServedModel, g.FallbackIndex, g.Source = r.Provider, r.Model, r.ServedModel, r.FallbackIndex, r.Source
}

// minOverlap is the shortest text a continuation may repeat from the end
// of the reply before it is taken for a repetition and dropped.
const minOverlap = 16

// JoinContinuation joins a continuation to the reply it continues. Models
// asked to go on "exactly where it stopped" mostly do, but some reopen the
// code block (with a line of prose before the fence) or repeat the last
// line or so: a reopened fence inside an open code block is dropped, and
// so is text the continuation repeats from the end of the reply (at least
// 16 characters holding a letter).
func JoinContinuation(reply, next string) string {
	if reply == "" {
		return next
	}
	if open := parseBlocks(reply); len(open) > 0 && !open[len(open)-1].closed {
		next = dropReopenedFence(next)
	}
	for k := min(len(next), len(reply), 4000); k >= minOverlap; k-- {
		if strings.HasSuffix(reply, next[:k]) && strings.IndexFunc(next[:k], unicode.IsLetter) >= 0 {
			return reply + next[k:]
		}
	}
	return reply + next
}

// dropReopenedFence removes an opening fence from the first lines of a
// continuation, with the prose before it ("Continuing:\n```html\n"). A
// bare fence on the first line is left alone: it closes the block.
func dropReopenedFence(next string) string {
	lines := strings.SplitAfter(next, "\n")
	for i := 0; i < len(lines) && i < 3; i++ {
		t := strings.TrimSpace(lines[i])
		switch {
		case t == "":
		case fenceOpen.MatchString(t) && strings.Trim(t, "`~ ") != "", i > 0 && (t == "```" || t == "~~~"):
			return strings.Join(lines[i+1:], "")
		case !proseLine(t):
			return next // code: the continuation starts straight away
		}
	}
	return next
}

// proseLine reports whether t reads as a sentence introducing code
// ("Continuing from where I left off:").
func proseLine(t string) bool {
	r := []rune(t)
	return unicode.IsUpper(r[0]) && strings.Contains(t, " ") && (strings.HasSuffix(t, ":") || strings.HasSuffix(t, "."))
}
