// Package result holds the plain result types shared by the runner, the
// store, the metrics and the report. It depends on nothing else in
// worldprobe, so the arrows between those packages point one way.
package result

import "time"

// Assertion statuses. StatusUnjudged is a model-dependent check (a look
// step: a scoped visual assertion) that could not be judged — no model
// for its role, the budget spent, the provider failing after its
// retries, a reply without a verdict. It counts neither as passed nor as
// failed: scores and pass are over the judged assertions, stated with
// the count unjudged (docs/contracts.md, "Unjudged").
const (
	StatusPass     = "pass"
	StatusFail     = "fail"
	StatusError    = "error"
	StatusUnjudged = "unjudged"
)

// Assertion kinds besides a CEL assert (Kind "").
const (
	// KindLook is a scoped visual assertion: one frame of the user's view
	// and one criterion judged by the visual_judge model role.
	KindLook = "look"
)

// Trial outcomes. A crash scores zero; its kind is in CrashKind. An
// infrastructure error is not scored at all: the harness could not judge
// the page (the machine was too overloaded for the page to meet its
// deadlines, even with retries), which says nothing about the page.
const (
	OutcomeOK    = "ok"
	OutcomeCrash = "crash"
	OutcomeInfra = "infra_error"
)

// Repairs: how a page was made when it is not the model's first answer.
const (
	// RepairErrorOnly: the model was shown the errors its page raised
	// (load failures, uncaught exceptions) and answered again.
	RepairErrorOnly = "error-only"
	// RepairFeedback: the model was shown the failed assertions' messages
	// and answered again.
	RepairFeedback = "feedback"
)

// ModelOracle is the model name of each task's reference solution in a
// run (run --oracle); the report draws its trial of a task as the
// expected curve of the others.
const ModelOracle = "oracle"

// Repairs lists the values Trial.Repair may take besides "" (first-shot).
func Repairs() []string { return []string{RepairErrorOnly, RepairFeedback} }

// Assertion is the verdict of one assertion of a contract probe.
type Assertion struct {
	Probe string `json:"probe"`
	Level string `json:"level"`
	// ProbeKind labels a probe of a task with a scaffold: "fail_to_pass",
	// "pass_to_pass", or empty for an ordinary probe.
	ProbeKind string `json:"probe_kind,omitempty"`
	Status    string `json:"status"`
	Message   string `json:"message"`
	Expr      string `json:"expr,omitempty"`
	// Line is the assertion's line in contract.yaml, 0 for the interface
	// probe; the trace's "assert" line of the same probe and line holds
	// the state it evaluated.
	Line int `json:"line,omitempty"`
	// Kind is "" for a CEL assertion, KindLook for a scoped visual
	// assertion, whose Expr is its criterion.
	Kind string `json:"kind,omitempty"`
	// Reason is the model's reason for a judged look, or why it was not
	// judged; Image is the frame it judged, a file in the trial folder;
	// Model names who judged it ("openai/gpt-4.1").
	Reason string `json:"reason,omitempty"`
	Image  string `json:"image,omitempty"`
	Model  string `json:"model,omitempty"`
}

// Trial is one candidate page judged against one task's contract. Its JSON
// form is result.json in the trial's folder (schema: docs/schemas.md).
type Trial struct {
	Key        string `json:"key"`
	Task       string `json:"task"`
	Category   string `json:"category"`
	Subdomain  string `json:"subdomain,omitempty"`
	Difficulty string `json:"difficulty"`
	Variant    string `json:"variant,omitempty"`
	// VariantOf is the Core task a Robust variant was drawn from.
	VariantOf string `json:"variant_of,omitempty"`
	Model     string `json:"model"`
	Candidate string `json:"candidate"`
	Sample    int    `json:"sample"`
	// Repair says how the page was made: "" (first-shot: the model's
	// first answer), RepairErrorOnly or RepairFeedback (the page after
	// the generator's repair turns). Metrics keep first-shot and repaired
	// pages apart.
	Repair       string `json:"repair,omitempty"`
	Outcome      string `json:"outcome"`
	CrashKind    string `json:"crash_kind"`
	CrashMessage string `json:"crash_message,omitempty"`
	// CrashCause refines a page_crashed: "memory" when the page was ended
	// for using more memory than its share.
	CrashCause  string      `json:"crash_cause,omitempty"`
	Pass        bool        `json:"pass"`
	VCov        float64     `json:"v_cov"`
	ACov        float64     `json:"a_cov"`
	SCov        float64     `json:"s_cov"`
	TCov        float64     `json:"t_cov"`
	Attribution string      `json:"attribution"`
	Assertions  []Assertion `json:"assertions"`
	// Unjudged counts the assertions with StatusUnjudged: Pass and the
	// coverages are over the others.
	Unjudged int `json:"unjudged,omitempty"`
	// StateHash digests every state (and, when fingerprinting, scene and
	// pixels) the contract read, in order: the same page, seed and contract
	// give the same hash.
	StateHash  string   `json:"state_hash,omitempty"`
	Screenshot string   `json:"screenshot,omitempty"`
	Artifacts  []string `json:"artifacts,omitempty"`
	// Videos are the recordings of the probes' pages, one per probe, in
	// the order run (XR trials, or every trial with run --video).
	Videos []Video `json:"videos,omitempty"`
	// Design is the design score of an XR trial's recorded frames (run
	// --design), apart from pass and the coverages.
	Design *Design `json:"design,omitempty"`
	// World is the world judge's score of a task judged against a rubric
	// (task.yaml judge:), out of its maximum (280 for WorldBench's
	// island); nil for a contract-judged trial.
	World      *World    `json:"world,omitempty"`
	StartedAt  time.Time `json:"started_at"`
	DurationMs float64   `json:"duration_ms"`
	// Retries is how many times the trial was judged again because a
	// harness deadline was missed while the machine was overloaded;
	// RetryReasons says why, one line per retry.
	Retries      int      `json:"retries,omitempty"`
	RetryReasons []string `json:"retry_reasons,omitempty"`
}

// Design is a trial's design score (run --design): an XR trial's recorded
// frames rated by the visual_judge model on the ten heuristics of
// docs/xr-design.md, 1 (poor) to 5 (excellent). It is reported apart from
// the functional verdict and changes no pass or coverage.
type Design struct {
	// Score is the mean of the ten ratings; 0 when unjudged.
	Score   float64        `json:"score,omitempty"`
	Ratings []DesignRating `json:"ratings,omitempty"`
	// Frames are the rated frames, files in the trial folder, in order.
	Frames []string `json:"frames,omitempty"`
	Model  string   `json:"model,omitempty"`
	// Unjudged says why there is no score (no model, budget, provider
	// failure, a reply without ten ratings); "" when rated.
	Unjudged string `json:"unjudged,omitempty"`
}

// DesignRating is one heuristic's rating.
type DesignRating struct {
	Heuristic string `json:"heuristic"`
	Score     int    `json:"score"`
	Reason    string `json:"reason,omitempty"`
}

// Video is one probe's page recorded at the virtual frame rate: a WebM
// (kind "webm"), or without ffmpeg a contact sheet PNG of sampled frames
// (kind "contact-sheet").
type Video struct {
	Probe string `json:"probe"`
	// File is the clip's name in the trial folder ("" when nothing could
	// be written: see Error).
	File string `json:"file,omitempty"`
	Kind string `json:"kind,omitempty"`
	// Frames is how many frames the clip holds, each standing for Every
	// stepped frames; FPS is its rate (the page's over Every) and
	// DurationS the virtual time it covers, Frames / FPS.
	Frames    int     `json:"frames"`
	Every     int     `json:"every,omitempty"`
	FPS       float64 `json:"fps,omitempty"`
	DurationS float64 `json:"duration_s,omitempty"`
	Width     int     `json:"width,omitempty"`
	Height    int     `json:"height,omitempty"`
	// Sampled lists the frames a contact sheet shows (counted from the
	// probe's first stepped frame, 1).
	Sampled []int `json:"sampled,omitempty"`
	// Error says why the recording stopped early or was not written; it
	// never changes the verdict.
	Error string `json:"error,omitempty"`
}

// Scored reports whether the trial counts in scores: every trial but an
// infrastructure error.
func (t *Trial) Scored() bool { return t.Outcome != OutcomeInfra }

// Failed returns the judged assertions that did not pass (an unjudged one
// is neither passed nor failed).
func (t *Trial) Failed() []Assertion {
	var out []Assertion
	for _, a := range t.Assertions {
		if a.Status != StatusPass && a.Status != StatusUnjudged {
			out = append(out, a)
		}
	}
	return out
}

// Class is the trial's class: "infra" (an infrastructure error),
// "timeout" (a crash of kind timeout), "crash" (any other crash), "fail"
// or "pass".
func (t *Trial) Class() string {
	switch {
	case t.Outcome == OutcomeInfra:
		return "infra"
	case t.Outcome == OutcomeCrash && t.CrashKind == "timeout":
		return "timeout"
	case t.Outcome == OutcomeCrash:
		return "crash"
	case t.Pass:
		return "pass"
	}
	return "fail"
}

// RerunClasses are the classes --rerun accepts: "crash" takes in every
// crash, timeouts included; "all" is every trial.
var RerunClasses = []string{"infra", "crash", "timeout", "fail", "pass", "all"}

// InRerun reports whether the trial belongs to the rerun class c.
func (t *Trial) InRerun(c string) bool {
	switch c {
	case "all":
		return true
	case "crash":
		return t.Outcome == OutcomeCrash
	}
	return t.Class() == c
}
