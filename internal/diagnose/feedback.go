package diagnose

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"sync"

	"github.com/worldprobe/worldprobe/internal/contract"
	"github.com/worldprobe/worldprobe/internal/repair"
	"github.com/worldprobe/worldprobe/internal/result"
	"github.com/worldprobe/worldprobe/internal/session"
	"github.com/worldprobe/worldprobe/internal/task"
	"github.com/worldprobe/worldprobe/internal/trial"
)

// Kinds of the findings of the feedback mode.
const (
	KindFailedCheck = "failed check"
	// KindUncheckable is a check that could not be evaluated (the state
	// it reads is missing or of another type).
	KindUncheckable = "check that could not be evaluated"
	KindLoadCheck   = "the page failed its load check"
	KindJudgedFail  = "the page failed while it was checked"
)

// Feedback judges a page as 'worldprobe run' does — the load check, then
// the task's contract, each probe in a fresh page — and returns the
// messages of the checks it failed: each failed assertion's message: as
// the contract writes it, with its status, and the interface check's
// messages (about the state fields the brief declares). Never an
// expression, a probe name or another line of the contract; failed
// assertions without a message are only counted. A page that crashed or
// hung is said so, with the load check's message. It implements
// [repair.Diagnoser] for the feedback mode.
type Feedback struct {
	Runner *trial.Runner

	mu        sync.Mutex
	contracts map[string]*contract.Contract
}

// Diagnose implements [repair.Diagnoser]. The error is for
// infrastructure problems only, an infrastructure verdict (the machine
// too overloaded to judge the page) included.
func (f *Feedback) Diagnose(ctx context.Context, t *task.Task, page string) (*repair.Findings, error) {
	c, err := f.contract(t)
	if err != nil {
		return nil, err
	}
	dir, err := os.MkdirTemp("", "worldprobe-check-")
	if err != nil {
		return nil, fmt.Errorf("making a folder for the page: %w", err)
	}
	defer os.RemoveAll(dir)
	path := filepath.Join(dir, "page", task.PageFile)
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		return nil, fmt.Errorf("making a folder for the page: %w", err)
	}
	if err := os.WriteFile(path, []byte(page), 0o644); err != nil {
		return nil, fmt.Errorf("writing the page: %w", err)
	}
	j := &rawJudge{contract: c}
	tr, err := f.Runner.Run(ctx, trial.Input{Task: t, Contract: c, Page: path, Params: t.DefaultParams(),
		Dir: filepath.Join(dir, "trial"), Judges: []trial.Judge{j}})
	if err != nil {
		return nil, fmt.Errorf("judging the page of %s: %w", t.ID, err)
	}
	if tr.Outcome == result.OutcomeInfra {
		return nil, fmt.Errorf("judging the page of %s: %s", t.ID, tr.CrashMessage)
	}
	var loadCrash string
	if tr.Outcome == result.OutcomeCrash && !j.opened {
		loadCrash = tr.CrashKind + ": " + tr.CrashMessage
	}
	return &repair.Findings{
		Checked: "The page was loaded in Chromium (with WebGL) and tested against the checks of its task.",
		Items:   FeedbackFindings(c, j.verdicts, loadCrash, j.failure),
	}, nil
}

func (f *Feedback) contract(t *task.Task) (*contract.Contract, error) {
	f.mu.Lock()
	defer f.mu.Unlock()
	if c, ok := f.contracts[t.Dir]; ok {
		return c, nil
	}
	c, err := contract.Load(t.ContractPath())
	if err != nil {
		return nil, fmt.Errorf("task %s: %w", t.ID, err)
	}
	if f.contracts == nil {
		f.contracts = map[string]*contract.Contract{}
	}
	f.contracts[t.Dir] = c
	return c, nil
}

// FeedbackFindings turns a contract's verdicts into what goes back to the
// model: loadCrash (the load check's crash kind and message, "" when the
// page loaded) or failure (the page failed while judged), then every
// check that did not pass, by its message: as the contract writes it
// (identical messages once, counted), the interface check's own messages,
// and a count of the failed checks without a message. Checks not run
// because the page had failed are left out: the failure says it.
func FeedbackFindings(c *contract.Contract, verdicts []contract.Verdict, loadCrash string, failure *contract.PageFailure) []repair.Finding {
	messages := map[string]string{} // probe and line → the assertion's message:
	for _, p := range c.Probes {
		for _, a := range p.Assertions() {
			messages[fmt.Sprintf("%s\x00%d", p.Name, a.Line)] = a.Message
		}
	}
	var out []repair.Finding
	switch {
	case loadCrash != "":
		out = append(out, repair.Finding{Kind: KindLoadCheck, Text: loadCrash})
	case failure != nil:
		out = append(out, repair.Finding{Kind: KindJudgedFail, Text: failureText(failure)})
	}
	index := map[string]int{}
	unnamed := 0
	for _, v := range verdicts {
		if v.Status == contract.StatusPass || v.Status == contract.StatusUnjudged || v.Status == contract.StatusError && (loadCrash != "" || failure != nil) {
			continue
		}
		msg := messages[fmt.Sprintf("%s\x00%d", v.Probe, v.Line)]
		if v.Probe == contract.InterfaceProbe {
			msg = v.Message // about a field the brief declares, in the engine's words
		}
		if msg == "" {
			unnamed++
			continue
		}
		kind := KindFailedCheck
		if v.Status == contract.StatusError {
			kind = KindUncheckable
		}
		key := kind + "\x00" + msg
		if i, ok := index[key]; ok {
			out[i].Count++
			continue
		}
		index[key] = len(out)
		out = append(out, repair.Finding{Kind: kind, Text: msg, Count: 1})
	}
	if unnamed > 0 {
		out = append(out, repair.Finding{Kind: KindFailedCheck, Text: fmt.Sprintf("%d more checks that have no description did not pass", unnamed)})
	}
	return out
}

// failureText says how a page failed while judged, without the probe or
// the step (contract text): it hung, its renderer crashed, or it broke
// the harness's access to it.
func failureText(f *contract.PageFailure) string {
	switch {
	case errors.Is(f.Err, session.ErrUnresponsive):
		return "the page stopped answering (it kept control longer than the task allows)"
	case errors.Is(f.Err, session.ErrCrashed):
		return "the page's renderer process crashed"
	}
	return "the page broke the harness's access to it (its state, input or rendering could no longer be read)"
}

// rawJudge is the contract judge that keeps the contract's verdicts as
// they are (with their lines), for FeedbackFindings.
type rawJudge struct {
	contract *contract.Contract
	verdicts []contract.Verdict
	failure  *contract.PageFailure
	opened   bool // whether a page of the candidate opened (it passed the load check)
}

func (j *rawJudge) Name() string { return "contract" }

func (j *rawJudge) Judge(ctx context.Context, env *trial.Env) (*trial.Verdict, error) {
	t := env.Task
	open := func(ctx context.Context, fps float64) (contract.Page, error) {
		p, err := env.Open(ctx, fps)
		if err == nil {
			j.opened = true
		}
		return p, err
	}
	res, err := contract.Run(ctx, j.contract, open, env.Params, contract.Options{FPS: t.FPS, FrameBudget: t.Frames, Interface: t.Interface()})
	if err != nil {
		return nil, fmt.Errorf("running the contract of %s: %w", t.ID, err)
	}
	j.verdicts, j.failure = res.Verdicts, res.Failure
	sc := contract.Coverage(res.Verdicts, res.Failure != nil)
	v := &trial.Verdict{Pass: sc.Pass, VCov: sc.V, ACov: sc.A, SCov: sc.S, TCov: sc.T, Failure: res.Failure}
	for _, a := range res.Verdicts {
		v.Assertions = append(v.Assertions, result.Assertion{Probe: a.Probe, Level: a.Level, Kind: a.Kind, Status: string(a.Status), Message: a.Message, Expr: a.Expr})
	}
	return v, nil
}
