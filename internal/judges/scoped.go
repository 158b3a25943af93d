package judges

import (
	"context"
	"errors"
	"fmt"

	"github.com/worldprobe/worldprobe/internal/llm"
)

// askScoped sends req to m and reads the reply with parse, for the judges
// whose verdict may stay unjudged (a look, the design score, an actor's
// turn). It returns the parsed value, or why the check stays unjudged: a
// spent budget, a provider failure after its retries, a refusal, or a
// reply parse cannot read (what names what it looked for: "verdict",
// "ratings", "action"). A fatal model error (a bad key, an unrecorded
// request in replay mode) and a cancelled context are errors: they stop
// the run.
func askScoped[T any](ctx context.Context, m llm.Model, req llm.Request, what string, parse func(string) (T, error)) (T, string, error) {
	var zero T
	resp, err := m.Chat(ctx, req)
	switch {
	case err != nil && (ctx.Err() != nil || llm.IsFatal(err)):
		return zero, "", err
	case errors.Is(err, llm.ErrBudgetExceeded):
		return zero, "the model budget is spent: " + err.Error(), nil
	case err != nil:
		return zero, "the model call failed: " + err.Error(), nil
	}
	v, perr := parse(resp.Text)
	switch {
	case perr != nil && resp.StopReason == llm.StopRefusal:
		return zero, "the model declined: " + quote(resp.Text), nil
	case perr != nil:
		return zero, fmt.Sprintf("no %s in the reply (%v): %s", what, perr, quote(resp.Text)), nil
	}
	return v, "", nil
}
