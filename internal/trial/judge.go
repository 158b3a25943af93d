package trial

import (
	"bytes"
	"context"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"fmt"

	"github.com/worldprobe/worldprobe/internal/contract"
	"github.com/worldprobe/worldprobe/internal/result"
	"github.com/worldprobe/worldprobe/internal/task"
)

// Judge judges a candidate page after the load check: the task's hidden
// contract today, the world judge and XR assertions later. A trial is the
// load check followed by its judges, in order; each gets fresh pages of
// the candidate through Env.Open and writes its files through
// Env.Artifacts, and returns its assertions and scores in the shared
// vocabulary (package result).
type Judge interface {
	// Name identifies the judge ("contract").
	Name() string
	// Judge judges the candidate. The error is for infrastructure
	// problems only; a page that failed while judged is Verdict.Failure.
	Judge(ctx context.Context, env *Env) (*Verdict, error)
}

// Env is what a judge works with.
type Env struct {
	Task *task.Task
	// Page is the candidate's HTML file (a judge with a session of its
	// own, the world judge, loads it).
	Page string
	// Params are the task parameters (the contract's params).
	Params map[string]any
	// Open loads a fresh page of the candidate at a frame rate. When the
	// load check failed it returns the load failure, so every judge
	// records its assertions as not run.
	Open contract.Opener
	// Artifacts stores the judge's files in the trial's folder.
	Artifacts *Artifacts
	// InterfaceRead is the state the load check read on its way after the
	// interface probe's frames, leaving the page untouched (nil when it
	// could not): the contract's interface probe checks it instead of
	// loading a page of its own.
	InterfaceRead *contract.InterfaceRead
}

// Verdict is what one judge found.
type Verdict struct {
	// Assertions are the judge's checks, in order, whatever happened.
	Assertions []result.Assertion
	// Pass, the coverages and the attribution score the candidate; Pass
	// and the coverages are over the judged assertions, Unjudged counts
	// the others (result.StatusUnjudged).
	Pass                   bool
	Unjudged               int
	VCov, ACov, SCov, TCov float64
	Attribution            string
	// StateHash digests what the judge observed (identical pages under
	// the same judge give the same hash).
	StateHash string
	// Failure is set when the page failed while judged (crashed, hung,
	// broke the harness); the trial maps it to a crash kind.
	Failure *contract.PageFailure
	// World is the world judge's score (result.Trial.World), nil from
	// other judges.
	World *result.World
}

// ContractJudge runs the task's hidden contract: the interface probe and
// every probe, each in a fresh page, recording every state it read into
// trace.jsonl, whose digest is the state hash.
type ContractJudge struct {
	Contract *contract.Contract
	// Fingerprint and StopAtFirstFailure are contract.Options'.
	Fingerprint        bool
	StopAtFirstFailure bool
	// Looker judges the contract's look steps (the visual_judge role);
	// nil leaves them unjudged.
	Looker contract.Looker
	// Actor drives the contract's act steps (the xr_actor role); nil
	// leaves the assertions after them unjudged.
	Actor contract.Actor
}

// Name is "contract".
func (c *ContractJudge) Name() string { return "contract" }

// Judge runs the contract.
func (c *ContractJudge) Judge(ctx context.Context, env *Env) (*Verdict, error) {
	t := env.Task
	res, err := contract.Run(ctx, c.Contract, env.Open, env.Params, contract.Options{
		FPS: t.FPS, FrameBudget: t.Frames, Interface: t.Interface(), InterfaceRead: env.InterfaceRead,
		Record: true, Fingerprint: c.Fingerprint, StopAtFirstFailure: c.StopAtFirstFailure,
		Looker: c.Looker, Actor: c.Actor, Artifact: env.Artifacts.Write,
	})
	if err != nil {
		return nil, fmt.Errorf("running the contract of %s: %w", t.ID, err)
	}
	hash, err := writeTrace(env.Artifacts, res.Observations)
	if err != nil {
		return nil, err
	}
	crashed := res.Failure != nil
	sc := contract.Coverage(res.Verdicts, crashed)
	v := &Verdict{Pass: sc.Pass, Unjudged: sc.Unjudged, VCov: sc.V, ACov: sc.A, SCov: sc.S, TCov: sc.T,
		Attribution: contract.Attribute(res.Verdicts, crashed), StateHash: hash, Failure: res.Failure}
	for _, a := range res.Verdicts {
		v.Assertions = append(v.Assertions, result.Assertion{Probe: a.Probe, Level: a.Level, ProbeKind: a.ProbeKind, Status: string(a.Status), Message: a.Message, Expr: a.Expr, Line: a.Line,
			Kind: a.Kind, Reason: a.Reason, Image: a.Image, Model: a.Model})
	}
	return v, nil
}

// writeTrace writes the observations as JSON lines (TraceFile) and
// returns the SHA-256 of the written bytes.
func writeTrace(a *Artifacts, obs []contract.Observation) (string, error) {
	var buf bytes.Buffer
	enc := json.NewEncoder(&buf)
	for _, o := range obs {
		if err := enc.Encode(o); err != nil {
			return "", fmt.Errorf("encoding %s: %w", TraceFile, err)
		}
	}
	sum := sha256.Sum256(buf.Bytes())
	if err := a.Write(TraceFile, buf.Bytes()); err != nil {
		return "", err
	}
	return hex.EncodeToString(sum[:]), nil
}
