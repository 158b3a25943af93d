package judges

import (
	"context"
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
	type verdict struct {
		pass   bool
		reason string
	}
	v, why, err := askScoped(cctx, l.Model, LookRequest(criterion, frame), "verdict", func(text string) (verdict, error) {
		pass, _, reason, err := ParseVerdict(text)
		return verdict{pass, reason}, err
	})
	switch {
	case err != nil:
		return out, fmt.Errorf("asking %s: %w", l.ModelName, err)
	case why != "":
		out.Reason = why
	default:
		out.Judged, out.Pass, out.Reason = true, v.pass, v.reason
	}
	return out, nil
}
