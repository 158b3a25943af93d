package judges

import (
	"context"
	"errors"
	"fmt"

	"github.com/worldprobe/worldprobe/internal/contract"
	"github.com/worldprobe/worldprobe/internal/llm"
)

// LookInstruction is the system prompt of a scoped visual assertion (a
// contract's look step): one frame and one criterion, nothing else.
const LookInstruction = `You check one picture of a 3D web page against one criterion. The picture is what the page's user sees at one moment (for a VR or AR page, the view from the user's eyes).

Judge only the criterion, only from the picture: pass it when the picture clearly shows what the criterion states, fail it when it does not or when you cannot tell.

Answer with one JSON object: {"pass": true or false, "reason": "one sentence saying what in the picture decided it"}.`

// LookRequest is the request a look sends: LookInstruction, the criterion
// and the PNG frame. The brief and the contract are never in it.
func LookRequest(criterion string, png []byte) llm.Request {
	return llm.Request{Messages: []llm.Message{
		llm.SystemText(LookInstruction),
		llm.UserParts(llm.Text("The criterion: "+criterion+"\n\nThe picture:"), llm.Image("image/png", png)),
	}}
}

// Looker judges a contract's look steps with the visual_judge role
// (contract.Looker). A reply with no verdict, a refusal, a spent budget
// or a provider that fails after its retries leaves the look unjudged
// with the reason; a fatal model error (a bad key, an unrecorded request
// in replay mode) and a cancelled context stop the run.
type Looker struct {
	// Model is the visual_judge role's model; ModelName names it
	// ("openai/gpt-4.1") in the verdicts.
	Model     llm.Model
	ModelName string
	// Trial, when set, names the trial the calls are accounted to
	// (llm.WithTrial), so trial budgets apply.
	Trial string
}

var _ contract.Looker = (*Looker)(nil)

// Look asks the model whether the frame shows the criterion.
func (l *Looker) Look(ctx context.Context, frame []byte, criterion string) (contract.LookVerdict, error) {
	out := contract.LookVerdict{Model: l.ModelName}
	cctx := ctx
	if l.Trial != "" {
		cctx = llm.WithTrial(ctx, l.Trial)
	}
	resp, err := l.Model.Chat(cctx, LookRequest(criterion, frame))
	switch {
	case err != nil && (ctx.Err() != nil || llm.IsFatal(err)):
		return out, fmt.Errorf("asking %s: %w", l.ModelName, err)
	case errors.Is(err, llm.ErrBudgetExceeded):
		out.Reason = "the model budget is spent: " + err.Error()
		return out, nil
	case err != nil:
		out.Reason = "the model call failed: " + err.Error()
		return out, nil
	}
	pass, _, reason, perr := ParseVerdict(resp.Text)
	switch {
	case perr != nil && resp.StopReason == llm.StopRefusal:
		out.Reason = "the model declined: " + quote(resp.Text)
	case perr != nil:
		out.Reason = fmt.Sprintf("no verdict in the reply (%v): %s", perr, quote(resp.Text))
	default:
		out.Judged, out.Pass, out.Reason = true, pass, reason
	}
	return out, nil
}
