package probe

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"regexp"
	"sort"
	"strings"
	"unicode/utf8"

	"github.com/worldprobe/worldprobe/internal/llm"
	"github.com/worldprobe/worldprobe/internal/worldjudge/coverage"
	"github.com/worldprobe/worldprobe/internal/worldjudge/quote"
)

// Why a quote earns nothing.
const (
	// RefusedNoQuote: the model said found but quoted nothing.
	RefusedNoQuote = "no_quote"
	// RefusedTooShort, RefusedNoLines, RefusedNotInSource are the quote
	// check's refusals (internal/worldjudge/quote).
	RefusedTooShort    = "too_short"
	RefusedNoLines     = "no_substantive_lines"
	RefusedNotInSource = "not_in_source"
	// RefusedNotRun: real source text whose lines never ran while the
	// world was captured.
	RefusedNotRun = "not_run"
	// RefusedSameAsLook: a motion quote that is the look quote (it shows
	// the thing is built, not that it moves).
	RefusedSameAsLook = "same_as_look"
	// RefusedReused: the same code already earned for another item of the
	// biome.
	RefusedReused = "reused"
)

// Who found a quote.
const (
	ByProbe = "code_probe"
	ByAgent = "evidence_agent"
)

// Repairs.
const (
	// RepairMechanical: the quote's fragments were each found in the
	// source and the lines holding them became the quote (no model).
	RepairMechanical = "mechanical"
	// RepairModel: a model picked the lines from a numbered window.
	RepairModel = "model"
	// RepairFailed: a repair was tried and did not give source text.
	RepairFailed = "failed"
)

// MaxRepairedLines caps the lines a repaired quote may span.
const MaxRepairedLines = 12

// RepairWindow is the lines shown each side of a repair anchor.
const RepairWindow = 8

// Evidence is one quote and everything its check found.
type Evidence struct {
	// Kind is "look" (the thing is built) or "motion" (it is updated over
	// time).
	Kind string `json:"kind"`
	// By is who quoted it: code_probe or evidence_agent.
	By string `json:"by"`
	// Quote is the quote that was checked (after a repair, the repaired one).
	Quote string `json:"quote"`
	// Original is the model's own quote when a repair replaced it.
	Original string `json:"original,omitempty"`
	// Repair is mechanical, model or failed when a repair was tried;
	// RepairNote says what happened.
	Repair     string `json:"repair,omitempty"`
	RepairNote string `json:"repair_note,omitempty"`
	// Verdict is the quote check's verdict: how it passed (whole, prefix,
	// lines) or why it was refused.
	Verdict quote.Verdict `json:"verdict"`
	// Lines are the lines of the HTML file the quote was found on.
	Lines []quote.Span `json:"html_lines,omitempty"`
	// Ran is whether those lines ran while the world was captured; null
	// without coverage. Coverage lists each line's state.
	Ran      *bool                `json:"ran"`
	Coverage []coverage.LineState `json:"coverage,omitempty"`
	// Refused names why the quote earns nothing (empty when it earns);
	// Detail says more when a rule beyond the quote check decided (the
	// motion rules, the evidence hash).
	Refused string `json:"refused,omitempty"`
	Detail  string `json:"detail,omitempty"`
	// OK: real source text that ran (or, without coverage, real source
	// text).
	OK bool `json:"ok"`
}

// Checker verifies quotes against one world's source and coverage.
type Checker struct {
	// Src is the world's source as the quote check sees it; Lines are the
	// HTML file's lines (Lines[0] is line 1).
	Src   *quote.Source
	Lines []string
	// Cov is the coverage of the capture; nil when none was collected
	// (then a verified quote earns without it, as in WorldBench).
	Cov *coverage.Report
	// Rules are the rubric's quote rules.
	Rules quote.Rules
	// Repairer picks lines for a failed quote; nil: no model repair.
	Repairer llm.Model
	// html is the page, for RunsEveryFrame's analysis (made once).
	html string
	loopCache
}

// NewChecker prepares the checks of one world's HTML.
func NewChecker(html string, cov *coverage.Report, rules quote.Rules, repairer llm.Model) *Checker {
	return &Checker{Src: quote.NewSource(html), Lines: strings.Split(strings.TrimSuffix(html, "\n"), "\n"), Cov: cov, Rules: rules, Repairer: repairer, html: html}
}

// Verify checks a quote: source text (repaired once when it is not), then
// run. The error is for a fatal model error or a cancelled context only.
func (c *Checker) Verify(ctx context.Context, kind, by, q string) (Evidence, error) {
	ev := Evidence{Kind: kind, By: by, Quote: q}
	if strings.TrimSpace(q) == "" {
		ev.Refused = RefusedNoQuote
		return ev, nil
	}
	v := c.Src.Check(q, c.Rules)
	if !v.Verified && v.Reason != RefusedTooShort {
		fixed, how, note, err := c.repair(ctx, q)
		if err != nil {
			return ev, err
		}
		ev.Repair, ev.RepairNote = how, note
		if how != RepairFailed {
			// A repair that is not source text either leaves the quote as
			// the model gave it.
			if fv := c.Src.Check(fixed, c.Rules); fv.Verified {
				ev.Original, ev.Quote, v = q, fixed, fv
			} else {
				ev.Repair = RepairFailed
				ev.RepairNote = fmt.Sprintf("%s, but they are not source text either (%s): %q", note, fv.Reason, fixed)
			}
		}
	}
	ev.Verdict = v
	if !v.Verified {
		ev.Refused = v.Reason
		return ev, nil
	}
	ev.Lines = verdictLines(v)
	if h := Hint(ev.Quote); h != "" {
		ev.Refused = h
		return ev, nil
	}
	if c.Cov == nil {
		ev.OK = true
		return ev, nil
	}
	run := c.Cov.Quote(v)
	ev.Ran, ev.Coverage = &run.Ran, run.Lines
	ev.OK = run.Ran
	if !run.Ran {
		ev.Refused = RefusedNotRun
	}
	return ev, nil
}

// verdictLines are the HTML line ranges a verified quote was found on.
func verdictLines(v quote.Verdict) []quote.Span {
	if v.How == "whole" {
		return v.Spans
	}
	var out []quote.Span
	for _, l := range v.Lines {
		if l.Matched && len(l.Spans) > 0 {
			out = append(out, l.Spans[0])
		}
	}
	return out
}

var fragmentSplit = regexp.MustCompile(`\.\.\.|…|\n|;`)

// fragments are a failed quote's pieces worth looking for: split at
// ellipses, line breaks and semicolons, brackets and commas trimmed,
// whitespace removed, at least MinChars characters.
func (c *Checker) fragments(q string) []string {
	var out []string
	for _, f := range fragmentSplit.Split(q, -1) {
		n := quote.Normalize(strings.Trim(f, ",[]{}() \t\r"))
		if utf8.RuneCountInString(n) >= c.Rules.MinChars {
			out = append(out, n)
		}
	}
	return out
}

// repair gives a failed quote one chance: mechanically when each of its
// fragments is source text, else by a model picking lines from a
// numbered window around the fragments' best anchors. It returns the new
// quote and how, or RepairFailed and why.
func (c *Checker) repair(ctx context.Context, q string) (string, string, string, error) {
	frags := c.fragments(q)
	if len(frags) == 0 {
		return "", RepairFailed, "no fragment of 8 characters or more", nil
	}
	lines := map[int]bool{}
	whole := true
	for _, f := range frags {
		spans := c.Src.Find(f)
		if len(spans) == 0 {
			whole = false
			break
		}
		for l := spans[0].From; l <= spans[0].To; l++ {
			lines[l] = true
		}
	}
	if whole && len(lines) <= MaxRepairedLines {
		return c.joinLines(keys(lines)), RepairMechanical, fmt.Sprintf("each of its %d fragments is source text; the lines holding them became the quote", len(frags)), nil
	}
	if c.Repairer == nil {
		return "", RepairFailed, "no repair model", nil
	}
	shown := c.window(frags)
	if len(shown) == 0 {
		return "", RepairFailed, "no fragment of the quote begins like any source text (nothing to pick from)", nil
	}
	picked, why, err := c.pick(ctx, q, shown)
	if err != nil || why != "" {
		return "", RepairFailed, why, err
	}
	return c.joinLines(picked), RepairModel, fmt.Sprintf("the model picked lines %v from a window of %d lines", picked, len(shown)), nil
}

// window is the sorted lines within RepairWindow of each fragment's
// anchor: the first occurrence of its longest prefix found, when that is
// at least max(MinChars, half the fragment).
func (c *Checker) window(frags []string) []int {
	set := map[int]bool{}
	for _, f := range frags {
		n := utf8.RuneCountInString(f)
		p := c.Src.LongestPrefix(f)
		if p < c.Rules.MinChars || 2*p < n {
			continue
		}
		spans := c.Src.Find(quote.PrefixRunes(f, p))
		if len(spans) == 0 {
			continue
		}
		for l := spans[0].From - RepairWindow; l <= spans[0].To+RepairWindow; l++ {
			if l >= 1 && l <= len(c.Lines) {
				set[l] = true
			}
		}
	}
	return keys(set)
}

func keys(m map[int]bool) []int {
	out := make([]int, 0, len(m))
	for k := range m {
		out = append(out, k)
	}
	sort.Ints(out)
	return out
}

// joinLines is the HTML lines, each trimmed, joined by line breaks.
func (c *Checker) joinLines(lines []int) string {
	var b strings.Builder
	for i, l := range lines {
		if i > 0 {
			b.WriteByte('\n')
		}
		b.WriteString(strings.TrimSpace(c.Lines[l-1]))
	}
	return b.String()
}

// Numbered renders lines as "N: text", with "…" between gaps.
func (c *Checker) Numbered(lines []int) string {
	var b strings.Builder
	for i, l := range lines {
		if i > 0 && l != lines[i-1]+1 {
			b.WriteString("…\n")
		}
		fmt.Fprintf(&b, "%d: %s\n", l, c.Lines[l-1])
	}
	return b.String()
}

const pickTool = "pick_lines"

var pickSchema = json.RawMessage(`{"type":"object","properties":{"lines":{"type":"array","items":{"type":"integer"},"description":"line numbers from the window, in order"}},"required":["lines"],"additionalProperties":false}`)

// RepairPrompt is the system prompt of quote repair.
const RepairPrompt = `You repair a code quote that is not exact source text. You are shown the quote and a window of the real source with line numbers. Pick the line numbers of the source lines that hold the code the quote meant (at most 12 lines). You cannot write or change code: answer only with line numbers from the window, by calling pick_lines, or as JSON {"lines": [..]}. If no line in the window holds that code, answer {"lines": []}.`

// pick asks the repair model for line numbers; why is non-empty when its
// answer cannot be used.
func (c *Checker) pick(ctx context.Context, q string, shown []int) ([]int, string, error) {
	t0 := 0.0
	req := llm.Request{
		Messages: []llm.Message{
			llm.SystemText(RepairPrompt),
			llm.UserText("The quote:\n" + q + "\n\nThe source window:\n" + c.Numbered(shown)),
		},
		Tools:       []llm.Tool{{Name: pickTool, Description: "Give the line numbers of the source lines the quote meant.", Parameters: pickSchema}},
		Temperature: &t0,
	}
	resp, err := c.Repairer.Chat(ctx, req)
	if err != nil {
		if ctx.Err() != nil || llm.IsFatal(err) {
			return nil, "", err
		}
		return nil, "the repair call failed: " + err.Error(), nil
	}
	var ans struct {
		Lines []int `json:"lines"`
	}
	if err := decodeReply(resp, pickTool, &ans); err != nil {
		return nil, fmt.Sprintf("the repair reply could not be read (%v): %s", err, clip(resp.Text, 200)), nil
	}
	if len(ans.Lines) == 0 {
		return nil, "the repair model found no line holding the quote", nil
	}
	in := map[int]bool{}
	for _, l := range shown {
		in[l] = true
	}
	set := map[int]bool{}
	for _, l := range ans.Lines {
		if !in[l] {
			return nil, fmt.Sprintf("the repair model picked line %d, which is not in the window", l), nil
		}
		set[l] = true
	}
	if len(set) > MaxRepairedLines {
		return nil, fmt.Sprintf("the repair model picked %d lines (at most %d)", len(set), MaxRepairedLines), nil
	}
	return keys(set), "", nil
}

// fatal says whether a model call's error ends the judgement (a fatal
// model error, a cancelled context) rather than leaving a verdict open.
func fatal(ctx context.Context, err error) bool {
	return err != nil && (ctx.Err() != nil || llm.IsFatal(err) || errors.Is(err, context.Canceled))
}
