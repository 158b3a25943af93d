package llm

// check returns a [BudgetError] when the run, or the trial, has reached
// one of its limits. It runs before each call, so a call already under
// way may end slightly past a limit; the next one is refused.
func (b Budgets) check(l *Ledger, trial string) error {
	run := l.Run()
	if b.RunUSD > 0 && run.CostUSD >= b.RunUSD {
		return &BudgetError{Scope: "run", Unit: "usd", Limit: b.RunUSD, Spent: run.CostUSD}
	}
	if b.RunTokens > 0 && run.Tokens() >= b.RunTokens {
		return &BudgetError{Scope: "run", Unit: "tokens", Limit: float64(b.RunTokens), Spent: float64(run.Tokens())}
	}
	if trial == "" {
		return nil
	}
	t := l.Trial(trial)
	if b.TrialUSD > 0 && t.CostUSD >= b.TrialUSD {
		return &BudgetError{Scope: "trial", Trial: trial, Unit: "usd", Limit: b.TrialUSD, Spent: t.CostUSD}
	}
	if b.TrialTokens > 0 && t.Tokens() >= b.TrialTokens {
		return &BudgetError{Scope: "trial", Trial: trial, Unit: "tokens", Limit: float64(b.TrialTokens), Spent: float64(t.Tokens())}
	}
	return nil
}
