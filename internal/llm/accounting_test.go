package llm

import (
	"context"
	"testing"

	"github.com/stretchr/testify/require"
)

func TestLedgerSumsPerRoleModelTrialAndRun(t *testing.T) {
	gpt := newFakeServer(t, ok("openai_text.json"), ok("openai_text.json"))
	claude := newFakeServer(t, ok("anthropic_text.json"))
	h := newHarness(t, yamlRoles("  visual_judge:\n    "+openaiRole(gpt), "  evidence_agent:\n    "+anthropicRole(claude)))
	ctx1 := WithTrial(context.Background(), "trial-1")
	ctx2 := WithTrial(context.Background(), "trial-2")

	judge, err := h.reg.Role(ctx1, VisualJudge)
	require.NoError(t, err)
	agent, err := h.reg.Role(ctx1, EvidenceAgent)
	require.NoError(t, err)
	_, err = judge.Chat(ctx1, prompt("a"))
	require.NoError(t, err)
	_, err = agent.Chat(ctx1, prompt("b"))
	require.NoError(t, err)
	_, err = judge.Chat(ctx2, prompt("c"))
	require.NoError(t, err)

	sum := h.reg.Ledger().Summary()
	require.Equal(t, 3, sum.Run.Calls)
	require.Equal(t, int64(1200+1500+1200), sum.Run.InputTokens)
	require.Equal(t, int64(300+250+300), sum.Run.OutputTokens)
	require.InDelta(t, 0.0045+0.007245+0.0045, sum.Run.CostUSD, 1e-12)
	require.Equal(t, 2, sum.ByRole[VisualJudge].Calls)
	require.InDelta(t, 0.009, sum.ByRole[VisualJudge].CostUSD, 1e-12)
	require.Equal(t, 1, sum.ByModel["anthropic/test-claude"].Calls)
	require.InDelta(t, 0.007245, sum.ByModel["anthropic/test-claude"].CostUSD, 1e-12)
	require.Equal(t, 2, sum.ByTrial["trial-1"].Calls)
	require.InDelta(t, 0.011745, sum.ByTrial["trial-1"].CostUSD, 1e-12)
	require.Equal(t, int64(1500), h.reg.Ledger().Trial("trial-2").Tokens())

	calls := h.reg.Ledger().Calls()
	require.Len(t, calls, 3)
	require.Equal(t, "trial-1", calls[1].Trial)
	require.Equal(t, EvidenceAgent, calls[1].Role)
	require.Equal(t, SourceLive, calls[1].Source)
}

func TestRunBudgetStopsCleanly(t *testing.T) {
	srv := newFakeServer(t, ok("openai_text.json"))
	h := newHarness(t, "budgets:\n  run_usd: 0.004\n"+yamlRoles("  visual_judge:\n    "+openaiRole(srv)))

	_, err := h.chat(t, VisualJudge, prompt("first"))
	require.NoError(t, err, "the first call starts under budget")
	_, err = h.chat(t, VisualJudge, prompt("second"))
	require.ErrorIs(t, err, ErrBudgetExceeded)
	var be *BudgetError
	require.ErrorAs(t, err, &be)
	require.Equal(t, "run", be.Scope)
	require.Equal(t, "usd", be.Unit)
	require.Equal(t, 0.004, be.Limit)
	require.InDelta(t, 0.0045, be.Spent, 1e-12)
	require.Equal(t, "llm: run budget exceeded: $0.0045 of $0.0040 spent", err.Error())
	require.False(t, IsFatal(err))
	require.Len(t, srv.requests(), 1, "no request is sent past the budget")
	require.Equal(t, []EventKind{EventDone, EventBudgetExceeded}, h.kinds())
}

func TestTrialTokenBudget(t *testing.T) {
	srv := newFakeServer(t, ok("openai_text.json"), ok("openai_text.json"))
	h := newHarness(t, yamlRoles("  visual_judge:\n    "+openaiRole(srv)), WithBudgets(Budgets{TrialTokens: 1000}))
	m, err := h.reg.Role(context.Background(), VisualJudge)
	require.NoError(t, err)

	t1 := WithTrial(context.Background(), "t1")
	_, err = m.Chat(t1, prompt("one"))
	require.NoError(t, err)
	_, err = m.Chat(t1, prompt("two"))
	var be *BudgetError
	require.ErrorAs(t, err, &be)
	require.Equal(t, BudgetError{Scope: "trial", Trial: "t1", Unit: "tokens", Limit: 1000, Spent: 1500}, *be)
	require.Equal(t, "llm: trial t1 budget exceeded: 1500 of 1000 tokens used", err.Error())

	// Another trial has its own budget.
	_, err = m.Chat(WithTrial(context.Background(), "t2"), prompt("three"))
	require.NoError(t, err)
}

func TestMissingPriceFailsFast(t *testing.T) {
	srv := newFakeServer(t)
	h := newHarness(t, "roles:\n  visual_judge:\n    provider: openai\n    model: mystery-model\n    base_url: "+srv.url("/v1")+"\n    key_env: TEST_OPENAI_KEY\n")
	_, err := h.reg.Role(context.Background(), VisualJudge)
	require.ErrorIs(t, err, ErrUnpriced)
	require.Equal(t, "llm: role visual_judge: openai/mystery-model: llm: model has no price; add it under pricing: in models.yaml (USD per 1M tokens) or allow it with --allow-unpriced", err.Error())
}

func TestAllowUnpriced(t *testing.T) {
	srv := newFakeServer(t, ok("openai_text.json"))
	h := newHarness(t, "roles:\n  visual_judge:\n    provider: openai\n    model: mystery-model\n    base_url: "+srv.url("/v1")+"\n    key_env: TEST_OPENAI_KEY\n", WithAllowUnpriced(true))
	resp, err := h.chat(t, VisualJudge, prompt("hi"))
	require.NoError(t, err)
	require.Equal(t, 0.0, resp.CostUSD)
	require.Equal(t, "unpriced", resp.CostSource)
}

func TestLocalProvidersAreFree(t *testing.T) {
	srv := newFakeServer(t, ok("openai_text.json"))
	h := newHarness(t, "roles:\n  navigator:\n    provider: ollama\n    model: llama3.2\n    base_url: "+srv.url("/v1")+"\n")
	resp, err := h.chat(t, Navigator, prompt("hi"))
	require.NoError(t, err)
	require.Equal(t, 0.0, resp.CostUSD)
	require.Equal(t, "table", resp.CostSource)
	require.Empty(t, srv.requests()[0].Header.Get("Authorization"), "no key is sent to a keyless local server")
}

func TestPriceCostAndLookup(t *testing.T) {
	table := DefaultPricing()
	p, ok := table.Lookup("gpt-4.1")
	require.True(t, ok)
	require.Equal(t, Price{Input: 2, CachedInput: 0.5, Output: 8}, p)
	_, ok = table.Lookup("openai/gpt-4.1-mini")
	require.True(t, ok, "OpenRouter-style names find the base model")
	dated, ok := table.Lookup("claude-sonnet-4-5-20250929")
	require.True(t, ok, "dated snapshots find the alias")
	require.Equal(t, 15.0, dated.Output)
	_, ok = table.Lookup("no-such-model")
	require.False(t, ok)

	u := Usage{InputTokens: 1_000_000, CachedInputTokens: 200_000, CacheWriteTokens: 100_000, OutputTokens: 50_000}
	require.InDelta(t, 0.7*3+0.2*0.3+0.1*3.75+0.05*15, dated.Cost(u), 1e-9)
	require.InDelta(t, 1.0*1+0.05*2, Price{Input: 1, Output: 2}.Cost(Usage{InputTokens: 1_000_000, CachedInputTokens: 400_000, OutputTokens: 50_000}), 1e-9,
		"cached and cache-write tokens default to the input price")

	over := table.withOverrides(map[string]Price{"gpt-4.1": {Input: 1, Output: 1}, "mine": {Input: 0.1, Output: 0.2}})
	p, _ = over.Lookup("gpt-4.1")
	require.Equal(t, Price{Input: 1, Output: 1}, p)
	_, ok = over.Lookup("mine")
	require.True(t, ok)
	orig, _ := DefaultPricing().Lookup("gpt-4.1")
	require.Equal(t, 2.0, orig.Input, "overrides do not change the built-in table")
}
