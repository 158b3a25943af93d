package repair

import (
	"context"
	"fmt"
	"regexp"
	"strings"

	"github.com/worldprobe/worldprobe/internal/gen"
	"github.com/worldprobe/worldprobe/internal/llm"
	"github.com/worldprobe/worldprobe/internal/task"
)

// MaxRetries is how many times, within one round, a reply not every edit
// of which could be applied is answered with the reasons and a request to
// send those edits again.
const MaxRetries = 2

// Diagnoser checks a page: the errors it raises (errors mode) or the
// contract checks it fails (feedback mode). The error is for
// infrastructure problems only; what is wrong with the page is in the
// findings.
type Diagnoser interface {
	Diagnose(ctx context.Context, t *task.Task, page string) (*Findings, error)
}

// DiagnoserFunc adapts a function to [Diagnoser].
type DiagnoserFunc func(ctx context.Context, t *task.Task, page string) (*Findings, error)

// Diagnose calls f.
func (f DiagnoserFunc) Diagnose(ctx context.Context, t *task.Task, page string) (*Findings, error) {
	return f(ctx, t, page)
}

// Repairer repairs pages in rounds: each round checks the page, sends what
// the check found with the page to the model, and applies the edits it
// answers with.
type Repairer struct {
	// Model answers the repair calls; Diagnoser checks the pages.
	Model     llm.Model
	Diagnoser Diagnoser
	// Mode is what goes back to the model; Rounds the most rounds.
	Mode   Mode
	Rounds int
}

// Outcome is what a repair made of a page.
type Outcome struct {
	// Page is the page after the repair (the page given when nothing
	// changed it).
	Page string
	// Log is the repair as gen.json records it; its MaxRounds and Mode
	// are set, its FirstShot is left to the caller.
	Log gen.RepairLog
	// Transcript is the repair for a reader: each round's findings and
	// the model's answers (repair.md).
	Transcript string
	// Provider, Model, ServedModel, FallbackIndex and Source name who
	// answered the last call (empty when no call was made).
	Provider, Model, ServedModel string
	FallbackIndex                int
	Source                       llm.Source
}

// Repair runs the rounds on page, a page of task t; variant tells its
// calls apart from other samples' (the first shot's request variant).
//
// A round begins with a check of the page. When it finds nothing the
// repair ends and no call is made (nothing_to_fix before the first round,
// fixed after one). Otherwise the model gets [Instructions] and
// [RoundPrompt] (the findings and the page, nothing else) and answers with
// SEARCH/REPLACE edits, which are applied ([Apply]). When some edits
// cannot be applied, or the reply has none, the model is told why
// ([RetryPrompt]) in the same conversation, up to [MaxRetries] times. A
// reply without edits that holds a complete HTML document (the model
// rewrote the file) replaces the page. A round that changes nothing ends
// the repair (unchanged); after the last round the page is checked once
// more (out_of_rounds when it still has findings). A failed call ends it
// with the page so far (error). The error returned is what [gen.Stops]
// the work — the context, a fatal provider error, a run budget — or a
// check that failed; the page is then unfinished.
func (r *Repairer) Repair(ctx context.Context, t *task.Task, page, variant string) (*Outcome, error) {
	out := &Outcome{Page: page, Log: gen.RepairLog{Mode: string(r.Mode), MaxRounds: r.Rounds, Rounds: []gen.RepairRound{}}}
	var tr strings.Builder
	fmt.Fprintf(&tr, "# Repair (%s) of %s\n", r.Mode.Label(), t.ID)
	check := func(page string) (*Findings, error) {
		f, err := r.Diagnoser.Diagnose(ctx, t, page)
		if err != nil {
			return nil, fmt.Errorf("checking the page of %s: %w", t.ID, err)
		}
		return f, nil
	}
	f, err := check(page)
	if err != nil {
		return nil, err
	}
	log := &out.Log
	for round := 1; ; round++ {
		if f.Clean() {
			log.End = gen.RepairFixed
			if round == 1 {
				log.End = gen.RepairNothingToFix
				fmt.Fprintf(&tr, "\nThe check found nothing to fix: nothing was sent.\n")
			} else {
				fmt.Fprintf(&tr, "\nAfter round %d the check found nothing.\n", round-1)
			}
			break
		}
		if round > r.Rounds {
			log.End, log.Remaining = gen.RepairOutOfRounds, len(f.Items)
			fmt.Fprintf(&tr, "\nAfter round %d the check still found:\n\n%s", round-1, listFindings(f))
			break
		}
		rr, page, err := r.round(ctx, round, f, out, fmt.Sprintf("%s/%s/round-%d", variant, r.Mode.Label(), round), &tr)
		if err != nil {
			return nil, err
		}
		log.Rounds = append(log.Rounds, rr)
		log.Calls += rr.Calls
		log.TokensIn, log.TokensOut, log.CostUSD, log.LatencyMS = log.TokensIn+rr.TokensIn, log.TokensOut+rr.TokensOut, log.CostUSD+rr.CostUSD, log.LatencyMS+rr.LatencyMS
		out.Page = page
		switch {
		case rr.Error != "" && !rr.Changed:
			log.End, log.Remaining = gen.RepairError, len(f.Items)
		case rr.Error != "":
			log.End = gen.RepairError
			if f, err = check(page); err != nil {
				return nil, err
			}
			log.Remaining = len(f.Items)
		case !rr.Changed:
			log.End, log.Remaining = gen.RepairUnchanged, len(f.Items)
			fmt.Fprintf(&tr, "\nRound %d changed nothing: the repair stops.\n", round)
		}
		if log.End != "" {
			break
		}
		if f, err = check(page); err != nil {
			return nil, err
		}
	}
	out.Transcript = tr.String()
	return out, nil
}

// round runs one round on out.Page: the findings go to the model, its
// edits are applied, the refused ones explained and asked again.
func (r *Repairer) round(ctx context.Context, n int, f *Findings, out *Outcome, variant string, tr *strings.Builder) (gen.RepairRound, string, error) {
	rr := gen.RepairRound{Round: n, Findings: len(f.Items)}
	fmt.Fprintf(tr, "\n## Round %d\n\n%s\n%s", n, f.Checked, listFindings(f))
	msgs := []llm.Message{llm.SystemText(Instructions(r.Mode)), llm.UserText(RoundPrompt(r.Mode, f, out.Page))}
	page := out.Page
	for try := 0; try <= MaxRetries; try++ {
		resp, err := r.Model.Chat(ctx, llm.Request{Messages: msgs, Variant: variant})
		if err != nil {
			if gen.Stops(ctx, err) {
				return rr, "", err
			}
			rr.Error = err.Error()
			fmt.Fprintf(tr, "\n### Call %d failed\n\n%s\n", try+1, err)
			break
		}
		rr.Calls++
		rr.StopReasons = append(rr.StopReasons, resp.StopReason)
		rr.TokensIn, rr.TokensOut = rr.TokensIn+resp.Usage.InputTokens, rr.TokensOut+resp.Usage.OutputTokens
		rr.CostUSD, rr.LatencyMS = rr.CostUSD+resp.CostUSD, rr.LatencyMS+resp.Latency.Milliseconds()
		out.Provider, out.Model, out.ServedModel, out.FallbackIndex, out.Source = resp.Provider, resp.Model, resp.ServedModel, resp.FallbackIndex, resp.Source
		if resp.FallbackIndex > 0 {
			rr.Model = resp.Provider + "/" + resp.Model
		}
		fmt.Fprintf(tr, "\n### Answer %d\n\n%s\n", try+1, strings.TrimRight(resp.Text, "\n"))

		var retry string
		edits, bad := ParseEdits(resp.Text)
		if len(edits)+len(bad) == 0 {
			doc, why := wholeDocument(resp.Text)
			if doc != "" {
				page, rr.Rewrite = doc, true
				fmt.Fprintf(tr, "\nThe answer is a whole new page: it replaces the page.\n")
				break
			}
			retry = RetryPrompt(nil, nil, nil, why)
			note := "the answer has no SEARCH/REPLACE block"
			if why != "" {
				note += " (" + why + ")"
			}
			rr.Rejections = append(rr.Rejections, note)
		} else {
			a := Apply(page, edits)
			page = a.Page
			rr.EditsApplied += len(a.Accepted)
			rr.EditsRejected += len(a.Rejected) + len(bad)
			for _, x := range a.Rejected {
				rr.Rejections = append(rr.Rejections, x.String())
			}
			for _, m := range bad {
				rr.Rejections = append(rr.Rejections, m.String())
			}
			fmt.Fprintf(tr, "\nEdits applied: %d; refused: %d.\n", len(a.Accepted), len(a.Rejected)+len(bad))
			if len(a.Rejected)+len(bad) == 0 {
				break
			}
			retry = RetryPrompt(a.Accepted, a.Rejected, bad, "")
		}
		if try == MaxRetries {
			fmt.Fprintf(tr, "\nNo retry is left in this round.\n")
			break
		}
		fmt.Fprintf(tr, "\n### Sent back\n\n%s", retry)
		msgs = append(msgs, llm.AssistantText(resp.Text), llm.UserText(retry))
	}
	rr.Changed = page != out.Page
	return rr, page, nil
}

// listFindings lists findings as the transcript shows them.
func listFindings(f *Findings) string {
	var b strings.Builder
	for i, it := range f.Items {
		fmt.Fprintf(&b, "%d. %s\n", i+1, it.describe())
	}
	return b.String()
}

var (
	docOpen  = regexp.MustCompile(`(?i)<!doctype\s+html|<html[\s>]`)
	docClose = regexp.MustCompile(`(?i)</html\s*>`)
)

// wholeDocument is the page a reply without edits holds when the model
// rewrote the whole file: a complete HTML document, from its doctype or
// <html> to </html>, as gen reduces a reply to a page ([gen.Extract]).
// Otherwise "" and, when the reply holds HTML that is not a complete
// document, why it is not taken.
func wholeDocument(reply string) (doc, why string) {
	ex := gen.Extract(reply)
	switch {
	case ex.HTML == "":
		return "", ""
	case ex.Unclosed || !docClose.MatchString(ex.HTML):
		return "", "the HTML file in it is cut off"
	case !docOpen.MatchString(ex.HTML):
		return "", "the HTML in it is not a whole page"
	}
	return ex.HTML, ""
}
