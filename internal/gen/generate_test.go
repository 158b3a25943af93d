package gen

import (
	"context"
	"errors"
	"strings"
	"sync"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/worldprobe/worldprobe/internal/llm"
)

// script is a model that answers each call with the next of its replies
// and remembers the requests.
type script struct {
	mu      sync.Mutex
	replies []scripted
	got     []llm.Request
}

type scripted struct {
	text string
	stop llm.StopReason
	err  error
}

func (s *script) Chat(_ context.Context, req llm.Request) (*llm.Response, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.got = append(s.got, req)
	r := s.replies[0]
	s.replies = s.replies[1:]
	if r.err != nil {
		return nil, r.err
	}
	return &llm.Response{Text: r.text, StopReason: r.stop, Provider: "openai", Model: "test-gpt", ServedModel: "test-gpt-2025-01-01",
		Usage: llm.Usage{InputTokens: 1000, OutputTokens: 4000}, CostUSD: 0.034, Source: llm.SourceLive}, nil
}

var testPrompt = Prompt{System: Instructions, User: "# Pendulum\n\nBuild a pendulum."}

func TestGenerateContinuesACutOffReply(t *testing.T) {
	partial := strings.TrimSuffix(reply(t, "truncated_1.md"), "\n")
	m := &script{replies: []scripted{{text: partial, stop: llm.StopLength}, {text: reply(t, "continuation_1.md"), stop: llm.StopEnd}}}
	g, err := Generate(context.Background(), m, testPrompt, "sample-1")
	require.NoError(t, err)

	require.Len(t, m.got, 2)
	require.Equal(t, testPrompt.Request("sample-1"), m.got[0])
	require.Equal(t, llm.Request{Variant: "sample-1", Messages: []llm.Message{
		llm.SystemText(Instructions), llm.UserText(testPrompt.User), llm.AssistantText(partial), llm.UserText(Continue),
	}}, m.got[1], "the partial answer goes back as the assistant's turn, then the request to continue")

	require.Equal(t, FinishStop, g.Finish)
	require.Empty(t, g.Err)
	require.Equal(t, 2, g.Turns)
	require.Equal(t, []llm.StopReason{llm.StopLength, llm.StopEnd}, g.StopReasons)
	require.Equal(t, llm.Usage{InputTokens: 2000, OutputTokens: 8000}, g.Usage)
	require.InDelta(t, 0.068, g.CostUSD, 1e-12)
	require.Equal(t, "openai", g.Provider)
	require.Equal(t, "test-gpt-2025-01-01", g.ServedModel)
	ex := g.Extraction
	require.Equal(t, "fenced block", ex.From)
	require.False(t, ex.Unclosed)
	require.Equal(t, 1, strings.Count(ex.HTML, "omega -= (g / L) * Math.sin(theta) * dt;\n"), "the repeated line is joined once")
	require.NotContains(t, ex.HTML, "swings the same", "the prose after the block is dropped")
	golden(t, "pendulum_joined.html", ex.HTML)
}

func TestGenerateJoinsAReopenedCodeBlock(t *testing.T) {
	partial := strings.TrimSuffix(reply(t, "truncated_1.md"), "\n")
	m := &script{replies: []scripted{{text: partial, stop: llm.StopLength}, {text: reply(t, "continuation_reopened.md"), stop: llm.StopEnd}}}
	g, err := Generate(context.Background(), m, testPrompt, "sample-1")
	require.NoError(t, err)
	require.Equal(t, FinishStop, g.Finish)
	golden(t, "pendulum_joined.html", g.Extraction.HTML)
}

func TestGenerateStillCutOffAfterThreeTurns(t *testing.T) {
	partial := strings.TrimSuffix(reply(t, "truncated_1.md"), "\n")
	m := &script{replies: []scripted{
		{text: partial, stop: llm.StopLength},
		{text: "eta) * dt;\n  theta += omega * dt;\n", stop: llm.StopLength},
		{text: "  bob.position.set(L * Math.sin(theta), -L * Math.cos(theta), 0);\n  renderer.render(", stop: llm.StopLength},
	}}
	g, err := Generate(context.Background(), m, testPrompt, "sample-2")
	require.NoError(t, err)
	require.Len(t, m.got, MaxTurns)
	require.Equal(t, llm.AssistantText(partial+"eta) * dt;\n  theta += omega * dt;\n"), m.got[2].Messages[2], "the reply so far is one assistant turn")
	require.Equal(t, FinishTruncated, g.Finish)
	require.Equal(t, "still cut off by the output limit after 3 turns", g.Err)
	require.Equal(t, []llm.StopReason{llm.StopLength, llm.StopLength, llm.StopLength}, g.StopReasons)
	require.True(t, g.Extraction.Unclosed)
	require.True(t, strings.HasSuffix(g.Extraction.HTML, "  renderer.render(\n"), "the joined page is kept")
}

func TestGenerateFailures(t *testing.T) {
	partial := strings.TrimSuffix(reply(t, "truncated_1.md"), "\n")
	down := &llm.ChainError{Role: llm.Generator, Errs: []error{errors.New("openai test-gpt: gave up after 5 attempts: HTTP 500")}}
	fatal := &llm.FatalError{Role: llm.Generator, Provider: "openai", Model: "test-gpt", Reason: "authentication failed"}
	runBudget := &llm.BudgetError{Scope: "run", Unit: "usd", Limit: 1, Spent: 1.2}
	trialBudget := &llm.BudgetError{Scope: "trial", Trial: "x", Unit: "usd", Limit: 0.05, Spent: 0.068}
	cases := []struct {
		name    string
		replies []scripted
		finish  Finish
		err     string
		stops   error
	}{
		{"the provider fails", []scripted{{err: down}}, FinishError, "llm: role generator: openai test-gpt: gave up after 5 attempts: HTTP 500", nil},
		{"a refusal the provider reports", []scripted{{text: "I can’t assist with that.", stop: llm.StopRefusal}}, FinishRefusal,
			`the model declined: "I can’t assist with that."`, nil},
		{"a refusal of the provider's filter", []scripted{{text: "", stop: llm.StopRefusal}}, FinishRefusal,
			"the provider reported a refusal, with no text", nil},
		{"a refusal in words", []scripted{{text: reply(t, "refusal.md"), stop: llm.StopEnd}}, FinishRefusal,
			`the model declined: "I'm sorry, but I can't help with that request."`, nil},
		{"no page", []scripted{{text: reply(t, "js_only.md"), stop: llm.StopEnd}}, FinishNoHTML,
			"the reply has no HTML page, only a javascript block (3 lines), a css block (1 line)", nil},
		{"a continuation fails", []scripted{{text: partial, stop: llm.StopLength}, {err: down}}, FinishTruncated,
			"continuation 1 failed: llm: role generator: openai test-gpt: gave up after 5 attempts: HTTP 500", nil},
		{"a trial budget stops the continuation", []scripted{{text: partial, stop: llm.StopLength}, {err: trialBudget}}, FinishTruncated,
			"continuation 1 failed: llm: trial x budget exceeded: $0.0680 of $0.0500 spent", nil},
		{"a fatal error stops everything", []scripted{{err: fatal}}, "", "", fatal},
		{"a run budget stops everything", []scripted{{text: partial, stop: llm.StopLength}, {err: runBudget}}, "", "", runBudget},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			g, err := Generate(context.Background(), &script{replies: c.replies}, testPrompt, "sample-1")
			if c.stops != nil {
				require.ErrorIs(t, err, c.stops)
				require.Nil(t, g)
				return
			}
			require.NoError(t, err)
			require.Equal(t, c.finish, g.Finish)
			require.Equal(t, c.err, g.Err)
		})
	}
}

func TestJoinContinuation(t *testing.T) {
	cases := []struct{ name, reply, next, want string }{
		{"straight on", "```html\n<p>one", " two</p>\n```", "```html\n<p>one two</p>\n```"},
		{"the cut line repeated", "```html\n  const speed = compute", "  const speed = computeSpeed();\n", "```html\n  const speed = computeSpeed();\n"},
		{"a short repetition is kept", "```html\n}\n", "}\n</script>", "```html\n}\n}\n</script>"},
		{"a reopened fence is dropped", "```html\n<p>one\n", "```html\n two</p>\n```", "```html\n<p>one\n two</p>\n```"},
		{"a bare fence first closes the block", "```html\n<p>one</p>\n", "```\nDone.", "```html\n<p>one</p>\n```\nDone."},
		{"prose then a bare fence", "```html\n<p>one\n", "Here is the rest:\n```\n two</p>\n```", "```html\n<p>one\n two</p>\n```"},
		{"outside a block nothing is dropped", "Intro.\n", "```html\n<p>x</p>\n```", "Intro.\n```html\n<p>x</p>\n```"},
	}
	for _, c := range cases {
		require.Equal(t, c.want, JoinContinuation(c.reply, c.next), c.name)
	}
}
