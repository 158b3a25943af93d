package judges

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"log/slog"
	"math"
	"os"
	"strings"
	"time"

	"github.com/worldprobe/worldprobe/internal/browser"
	"github.com/worldprobe/worldprobe/internal/llm"
	"github.com/worldprobe/worldprobe/internal/resolve"
	"github.com/worldprobe/worldprobe/internal/session"
	"github.com/worldprobe/worldprobe/internal/task"
)

// VisualInstruction is the system prompt of the visual judge.
const VisualInstruction = `You are judging a web page that was written to the brief below. You see one screenshot of the page, taken half a second after it loaded, before anyone used it.

Decide from the screenshot whether the page does what the brief asks. Pass it only when everything the brief describes that a screenshot can show is there and looks right.

Answer with one JSON object: {"pass": true or false, "score": a number from 0 to 1 for how much of the brief the screenshot shows done, "reason": "one or two sentences"}.`

// ScreenshotFrames is how many frames the visual judge steps before it
// takes a screenshot of its own: as many as a trial's load check, whose
// screenshot it uses when the run kept one.
const ScreenshotFrames = 30

// VisualJudge sends a screenshot of the candidate and the task's brief
// (as the model that wrote the page got it, never the contract) to the
// visual_judge role and reads its JSON verdict {pass, score, reason}, with
// prose or a code fence around it or not. A reply without such a verdict,
// a refusal or a provider that fails after its retries is a judge failure
// (the verdict's Failure), not an error. It sees one still frame: motion,
// the answer to input and the page's state are beyond it.
type VisualJudge struct {
	// Model is the visual_judge role's model; ModelName names it in
	// Config ("openai/gpt-4.1").
	Model     llm.Model
	ModelName string
	// Browser and Resolver take the screenshot of a candidate the run
	// kept none of (its load check did not reach one, or it has no
	// canvas); nil leaves such a candidate failed without a call.
	Browser  *browser.Browser
	Resolver *resolve.Resolver
	// Machine tells a missed deadline under overload from the page's when
	// the judge takes a screenshot.
	Machine Machine
	Logger  *slog.Logger
}

// Name is "visual".
func (v *VisualJudge) Name() string { return "visual" }

// Config names the judge's version and model.
func (v *VisualJudge) Config() string { return "visual v1, " + v.ModelName }

// VisualRequest is the request the visual judge sends for a task and a
// PNG screenshot: VisualInstruction, the brief with its parameters filled
// in and its requirement ids removed, and the image.
func VisualRequest(t *task.Task, png []byte) (llm.Request, error) {
	brief, err := t.Brief()
	if err != nil {
		return llm.Request{}, err
	}
	brief = strings.TrimSpace(task.StripRequirementIDs(brief))
	return llm.Request{Messages: []llm.Message{
		llm.SystemText(VisualInstruction),
		llm.UserParts(llm.Text("The brief:\n\n"+brief+"\n\nThe screenshot:"), llm.Image("image/png", png)),
	}}, nil
}

// Judge asks the model about the candidate's screenshot.
func (v *VisualJudge) Judge(ctx context.Context, c Candidate) (*Verdict, error) {
	png, why, err := v.screenshot(ctx, c)
	if err != nil {
		return nil, err
	}
	if png == nil {
		return &Verdict{Reason: "no screenshot: " + why}, nil
	}
	req, err := VisualRequest(c.Task, png)
	if err != nil {
		return nil, err
	}
	resp, err := v.Model.Chat(llm.WithTrial(ctx, c.Key), req)
	if err != nil {
		if Stops(ctx, err) {
			return nil, err
		}
		return &Verdict{Failure: "the model call failed: " + err.Error()}, nil
	}
	out := &Verdict{Reply: resp.Text, Cost: Cost{Calls: 1, InputTokens: resp.Usage.InputTokens, OutputTokens: resp.Usage.OutputTokens,
		USD: resp.CostUSD, Unpriced: resp.CostSource == "unpriced", Source: resp.Source}}
	pass, score, reason, perr := ParseVerdict(resp.Text)
	switch {
	case perr != nil && resp.StopReason == llm.StopRefusal:
		out.Failure = "the model declined: " + quote(resp.Text)
	case perr != nil:
		out.Failure = fmt.Sprintf("no verdict in the reply (%v): %s", perr, quote(resp.Text))
	default:
		out.Pass, out.Score, out.Reason = pass, score, reason
	}
	return out, nil
}

// screenshot is the run's screenshot of the candidate or, when there is
// none, one taken now (the viewport after ScreenshotFrames frames); nil
// with the reason when none can be had.
func (v *VisualJudge) screenshot(ctx context.Context, c Candidate) ([]byte, string, error) {
	if c.Screenshot != "" {
		if b, err := os.ReadFile(c.Screenshot); err == nil {
			return b, "", nil
		}
	}
	switch {
	case c.Page == "":
		return nil, "the model produced no page", nil
	case v.Browser == nil:
		return nil, "the run kept none and no browser was given to take one", nil
	}
	if _, err := os.Stat(c.Page); err != nil {
		return nil, fmt.Sprintf("the page cannot be read: %v", err), nil
	}
	type shot struct {
		png []byte
		why string
	}
	got, err := withDeadline(ctx, v.Machine, v.Browser, v.Resolver, time.Duration(c.Task.Timeout), func(deadline time.Duration) (shot, bool, error) {
		png, why, err := v.take(ctx, c, deadline)
		return shot{png, why}, errors.Is(err, session.ErrUnresponsive), ignoreGone(err)
	})
	return got.png, got.why, err
}

// ignoreGone is nil for a page that stopped answering (its reason says
// so), else err.
func ignoreGone(err error) error {
	if gone(err) {
		return nil
	}
	return err
}

// take loads the page with the given deadline and screenshots its
// viewport after ScreenshotFrames frames. A page that stops answering
// gives the reason and its session error.
func (v *VisualJudge) take(ctx context.Context, c Candidate, deadline time.Duration) ([]byte, string, error) {
	logger := v.Logger
	if logger == nil {
		logger = slog.Default()
	}
	t := c.Task
	s, err := session.Open(ctx, v.Browser, v.Resolver, c.Page, session.Config{Seed: t.Seed, FPS: t.FPS,
		Width: t.Viewport.Width, Height: t.Viewport.Height, SkipDraw: true, CallTimeout: deadline, Logger: logger})
	if err != nil {
		if ctx.Err() != nil {
			return nil, "", ctx.Err()
		}
		return nil, "", fmt.Errorf("opening %s: %w", c.Page, err)
	}
	defer s.Close()
	if err := s.LoadErr(); err != nil {
		return nil, "the page " + broken(err) + " while it loaded", err
	}
	if s.Loaded() {
		if _, err := s.Step(ctx, ScreenshotFrames, true); err != nil {
			if ctx.Err() != nil {
				return nil, "", ctx.Err()
			}
			if gone(err) {
				return nil, fmt.Sprintf("the page %s within its first %d frames", broken(err), ScreenshotFrames), err
			}
		} else if err := s.Present(ctx); err != nil && gone(err) {
			return nil, "the page " + broken(err) + " while its frame was drawn", err
		}
	}
	// A document that failed to load still shows what a user would see.
	png, err := s.Screenshot(ctx, nil, session.DefaultGPUTimeout)
	switch {
	case err != nil && ctx.Err() != nil:
		return nil, "", ctx.Err()
	case err != nil && gone(err):
		return nil, "the page " + broken(err) + " while it was captured", err
	case err != nil:
		return nil, "taking it failed: " + err.Error(), nil
	}
	return png, "", nil
}

// ParseVerdict reads a visual model's verdict from its reply: the first
// JSON object with a "pass" key, in a code fence or in the text, prose
// around it or not. "pass" must be true or false and "score", when given,
// a number from 0 to 1 (absent, it is 1 for a pass and 0 for a fail);
// "reason" is optional.
func ParseVerdict(reply string) (pass bool, score float64, reason string, err error) {
	var raw map[string]json.RawMessage
	for _, cand := range jsonCandidates(reply) {
		var m map[string]json.RawMessage
		if json.Unmarshal([]byte(cand), &m) == nil {
			if _, ok := m["pass"]; ok {
				raw = m
				break
			}
		}
	}
	if raw == nil {
		return false, 0, "", errors.New(`it holds no JSON object with a "pass" key`)
	}
	if err := json.Unmarshal(raw["pass"], &pass); err != nil {
		return false, 0, "", fmt.Errorf(`"pass" is %s, not true or false`, raw["pass"])
	}
	score = 0
	if pass {
		score = 1
	}
	if s, ok := raw["score"]; ok && string(s) != "null" {
		if err := json.Unmarshal(s, &score); err != nil {
			return false, 0, "", fmt.Errorf(`"score" is %s, not a number`, s)
		}
		if !(score >= 0 && score <= 1) || math.IsNaN(score) {
			return false, 0, "", fmt.Errorf(`"score" %s is outside [0, 1]`, s)
		}
	}
	if r, ok := raw["reason"]; ok {
		if err := json.Unmarshal(r, &reason); err != nil {
			reason = string(r)
		}
	}
	return pass, score, strings.TrimSpace(reason), nil
}

// jsonCandidates are the texts of a reply that may be its JSON verdict,
// in order: each fenced code block's body, then each balanced {…} of the
// reply outside strings.
func jsonCandidates(reply string) []string {
	var out []string
	lines := strings.Split(reply, "\n")
	for i := 0; i < len(lines); i++ {
		if !strings.HasPrefix(strings.TrimSpace(lines[i]), "```") {
			continue
		}
		var body []string
		j := i + 1
		for ; j < len(lines) && !strings.HasPrefix(strings.TrimSpace(lines[j]), "```"); j++ {
			body = append(body, lines[j])
		}
		out = append(out, strings.Join(body, "\n"))
		i = j
	}
	for i := 0; i < len(reply); i++ {
		if reply[i] != '{' {
			continue
		}
		if end := objectEnd(reply, i); end > 0 {
			out = append(out, reply[i:end])
		}
	}
	return out
}

// objectEnd is the index after the '}' that closes the '{' at start, or
// -1 when it is not closed.
func objectEnd(s string, start int) int {
	depth, inString, escaped := 0, false, false
	for i := start; i < len(s); i++ {
		c := s[i]
		switch {
		case escaped:
			escaped = false
		case inString && c == '\\':
			escaped = true
		case c == '"':
			inString = !inString
		case inString:
		case c == '{':
			depth++
		case c == '}':
			depth--
			if depth == 0 {
				return i + 1
			}
		}
	}
	return -1
}

// quote shows a reply in a message: quoted, on one line, at most 160
// characters.
func quote(s string) string {
	if strings.TrimSpace(s) == "" {
		return "(no text)"
	}
	return fmt.Sprintf("%q", truncate(s, 160))
}
