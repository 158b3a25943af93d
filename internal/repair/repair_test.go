package repair

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/worldprobe/worldprobe/internal/gen"
	"github.com/worldprobe/worldprobe/internal/llm"
	"github.com/worldprobe/worldprobe/internal/task"
)

func testPage(t *testing.T, name string) string {
	t.Helper()
	b, err := os.ReadFile(filepath.Join("testdata", "pages", name))
	require.NoError(t, err)
	return string(b)
}

var spinTask = &task.Task{ID: "rendering/spin"}

func repairWith(t *testing.T, p *provider, d Diagnoser, rounds int, page string) *Outcome {
	t.Helper()
	r := &Repairer{Model: p.model(t), Diagnoser: d, Mode: Errors, Rounds: rounds}
	out, err := r.Repair(context.Background(), spinTask, page, "sample-1")
	require.NoError(t, err)
	return out
}

// A reply with prose around one edit block fixes the page in one call;
// the round's prompt is the instruction, the errors and the page.
func TestRepairAnEditWithProse(t *testing.T) {
	p := newProvider(t, "claude_paren.md")
	d := &static{}
	out := repairWith(t, p, d, 2, testPage(t, "broken.html"))

	require.Equal(t, testPage(t, "fixed.html"), out.Page)
	require.Equal(t, gen.RepairFixed, out.Log.End)
	require.Equal(t, 0, out.Log.Remaining)
	require.Equal(t, 2, d.checks, "the page is checked before the round and after it")
	require.Equal(t, []gen.RepairRound{{Round: 1, Findings: 1, Calls: 1, EditsApplied: 1, Changed: true,
		StopReasons: []llm.StopReason{llm.StopEnd}, TokensIn: 1000, TokensOut: 500, CostUSD: out.Log.Rounds[0].CostUSD, LatencyMS: out.Log.Rounds[0].LatencyMS}},
		out.Log.Rounds)
	require.InDelta(t, 0.006, out.Log.CostUSD, 1e-12, "1000 tokens in at $2/M and 500 out at $8/M")
	require.Equal(t, 1, out.Log.Calls)

	got := p.requests()
	require.Len(t, got, 1)
	require.Equal(t, []turn{{"system", Instructions(Errors)}, {"user", RoundPrompt(Errors, &Findings{Checked: "The page's scripts were parsed.",
		Items: []Finding{{Kind: KindSyntaxError, Text: "expected , or ) instead of ; in arguments (in a module script)", Line: 35, Column: 36}}},
		testPage(t, "broken.html"))}}, got[0])
	golden(t, "prompts/round_errors.txt", got[0][1].Text)
	require.NotContains(t, p.raw[0], testKey)
}

// An edit whose SEARCH occurs twice is refused with the lines it occurs
// at; the model is told in the same conversation and its corrected edit
// is applied.
func TestRepairAnEditThatMatchesTwiceThenACorrectedOne(t *testing.T) {
	p := newProvider(t, "gpt_twice.md", "gpt_twice_corrected.md")
	out := repairWith(t, p, &static{}, 1, testPage(t, "broken.html"))

	require.Equal(t, testPage(t, "fixed.html"), out.Page)
	require.Equal(t, gen.RepairFixed, out.Log.End)
	refused := "edit 1 does not apply: its SEARCH text occurs 2 times in the page (at lines 29 and 35), and it must occur exactly once: add the lines around the place to change until it is unique"
	rr := out.Log.Rounds[0]
	require.Equal(t, 2, rr.Calls)
	require.Equal(t, 1, rr.EditsApplied)
	require.Equal(t, 1, rr.EditsRejected)
	require.Equal(t, []string{refused}, rr.Rejections)

	got := p.requests()
	require.Len(t, got, 2)
	require.Len(t, got[1], 4)
	require.Equal(t, got[0], got[1][:2], "the retry continues the round's conversation")
	require.Equal(t, turn{"assistant", reply(t, "gpt_twice.md")}, got[1][2])
	require.Equal(t, turn{"user", "Some of your edits could not be applied:\n- " + refused + "\n" +
		"No edit was applied: the page is as it was sent to you. Send again, as SEARCH/REPLACE blocks, only the changes that were not applied, written against the page as it is now.\n"}, got[1][3])
}

// A reply that rewrites the whole file instead of editing it is taken as
// the new page, and the round says so.
func TestRepairAWholeFileRewrite(t *testing.T) {
	p := newProvider(t, "gpt_rewrite.md")
	out := repairWith(t, p, &static{}, 1, testPage(t, "broken.html"))
	require.Equal(t, testPage(t, "fixed.html"), out.Page)
	require.Equal(t, gen.RepairFixed, out.Log.End)
	rr := out.Log.Rounds[0]
	require.True(t, rr.Rewrite)
	require.True(t, rr.Changed)
	require.Equal(t, 0, rr.EditsApplied)
	require.Contains(t, out.Transcript, "The answer is a whole new page: it replaces the page.")
}

// Prose without an edit, three times: the model is asked for blocks twice,
// the round changes nothing and the repair stops there.
func TestRepairProseOnlyChangesNothing(t *testing.T) {
	p := newProvider(t, "prose_only.md", "prose_only.md", "prose_only.md")
	out := repairWith(t, p, &static{}, 3, testPage(t, "broken.html"))
	require.Equal(t, testPage(t, "broken.html"), out.Page)
	require.Equal(t, gen.RepairUnchanged, out.Log.End)
	require.Equal(t, 1, out.Log.Remaining)
	require.Len(t, out.Log.Rounds, 1, "a round that changed nothing ends the repair")
	require.Equal(t, 3, out.Log.Calls, "the first answer and two retries")
	require.Equal(t, []string{"the answer has no SEARCH/REPLACE block", "the answer has no SEARCH/REPLACE block", "the answer has no SEARCH/REPLACE block"},
		out.Log.Rounds[0].Rejections)
	got := p.requests()
	require.Len(t, got, 3)
	require.Equal(t, turn{"user", "Your answer has no SEARCH/REPLACE block. Answer with SEARCH/REPLACE blocks, in the format described, that fix what is listed above.\n"}, got[2][5])
}

// A page without errors is not sent: no call, and the log says so.
func TestRepairNothingToFix(t *testing.T) {
	p := newProvider(t)
	d := &static{}
	out := repairWith(t, p, d, 2, testPage(t, "fixed.html"))
	require.Empty(t, p.requests())
	require.Equal(t, 1, d.checks)
	require.Equal(t, gen.RepairLog{Mode: "errors", MaxRounds: 2, Rounds: []gen.RepairRound{}, End: gen.RepairNothingToFix}, out.Log)
	require.Equal(t, testPage(t, "fixed.html"), out.Page)
}

// The last round's page is checked once more: what it still raises is
// counted, and the repair is out of rounds.
func TestRepairOutOfRounds(t *testing.T) {
	broken := strings.Replace(testPage(t, "broken.html"), "    box.name = \"box\";", "    box.name = \"box\"\n    let = ;", 1)
	p := newProvider(t, "claude_paren.md")
	d := &static{}
	out := repairWith(t, p, d, 1, broken)
	require.Equal(t, 2, d.checks)
	require.Equal(t, gen.RepairOutOfRounds, out.Log.End)
	require.Equal(t, 1, out.Log.Remaining)
	require.Len(t, out.Log.Rounds, 1)
	require.Equal(t, 1, out.Log.Rounds[0].Findings, "the parser stops at the first error of a script")
}

// A provider failure ends the repair with the page so far; a run budget
// stops the work.
func TestRepairProviderFailure(t *testing.T) {
	failing := llm.ModelFunc(func(context.Context, llm.Request) (*llm.Response, error) {
		return nil, &llm.ChainError{Role: llm.Generator, Errs: []error{errBoom{}}}
	})
	r := &Repairer{Model: failing, Diagnoser: &static{}, Mode: Errors, Rounds: 2}
	out, err := r.Repair(context.Background(), spinTask, testPage(t, "broken.html"), "sample-1")
	require.NoError(t, err)
	require.Equal(t, gen.RepairError, out.Log.End)
	require.Equal(t, "llm: role generator: HTTP 500", out.Log.Rounds[0].Error)
	require.Equal(t, testPage(t, "broken.html"), out.Page)

	budget := llm.ModelFunc(func(context.Context, llm.Request) (*llm.Response, error) {
		return nil, &llm.BudgetError{Scope: "run", Unit: "usd", Limit: 1, Spent: 1}
	})
	r.Model = budget
	_, err = r.Repair(context.Background(), spinTask, testPage(t, "broken.html"), "sample-1")
	require.ErrorIs(t, err, llm.ErrBudgetExceeded)
}

type errBoom struct{}

func (errBoom) Error() string { return "HTTP 500" }
