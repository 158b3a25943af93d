package agent

import (
	"encoding/json"
	"fmt"
	"io"
	"strings"

	"github.com/worldprobe/worldprobe/internal/llm"
)

// TrajectoryFile is the file beside gen.json that holds an agent run's
// every turn, one JSON object per line ([Entry]).
const TrajectoryFile = "trajectory.jsonl"

// Kinds of [Entry].
const (
	// KindPrompt: the system text, the task's prompt and the tools offered.
	KindPrompt = "prompt"
	// KindModel: one answered call, its text and tool calls.
	KindModel = "model"
	// KindTool: one tool call's result, as the model got it.
	KindTool = "tool"
	// KindNote: a message the loop sent the model of its own (a reply
	// cut off by the output limit).
	KindNote = "note"
	// KindEnd: how the run ended.
	KindEnd = "end"
)

// Entry is one line of trajectory.jsonl.
type Entry struct {
	// Turn counts the model's calls: 0 for the prompt, n for what call n
	// answered and the tools it called.
	Turn int `json:"turn"`
	// Kind is prompt, model, tool, note or end.
	Kind string `json:"kind"`

	// System and Tools (prompt): the system text and the tools' names.
	System string   `json:"system,omitempty"`
	Tools  []string `json:"tools,omitempty"`
	// Text is the task's prompt (prompt), the model's text (model), or
	// the loop's message (note).
	Text string `json:"text,omitempty"`

	// ToolCalls, StopReason, Model, TokensIn, TokensOut, CostUSD and
	// LatencyMS describe an answered call (model).
	ToolCalls  []CallEntry    `json:"tool_calls,omitempty"`
	StopReason llm.StopReason `json:"stop_reason,omitempty"`
	Model      string         `json:"model,omitempty"`
	TokensIn   int64          `json:"tokens_in,omitempty"`
	TokensOut  int64          `json:"tokens_out,omitempty"`
	CostUSD    float64        `json:"cost_usd,omitempty"`
	LatencyMS  int64          `json:"latency_ms,omitempty"`

	// ID, Name, Result, Error and MS describe a tool call's result (tool):
	// the text sent back, whether it is an error, the time it took.
	ID     string `json:"id,omitempty"`
	Name   string `json:"name,omitempty"`
	Result string `json:"result,omitempty"`
	Error  bool   `json:"error,omitempty"`
	MS     int64  `json:"ms,omitempty"`

	// EndedBy, Budget, FinishReason and Reason say how the run ended (end).
	EndedBy      string `json:"ended_by,omitempty"`
	Budget       string `json:"budget,omitempty"`
	FinishReason string `json:"finish_reason,omitempty"`
	Reason       string `json:"reason,omitempty"`
}

// CallEntry is a tool call as the trajectory keeps it: arguments that are no
// JSON (cut off by the output limit) are kept as a string.
type CallEntry struct {
	ID        string          `json:"id"`
	Name      string          `json:"name"`
	Arguments json.RawMessage `json:"arguments"`
}

func callsOf(calls []llm.ToolCall) []CallEntry {
	out := make([]CallEntry, len(calls))
	for i, c := range calls {
		args := c.Arguments
		if !json.Valid(args) {
			args, _ = json.Marshal(string(c.Arguments))
		}
		out[i] = CallEntry{ID: c.ID, Name: c.Name, Arguments: args}
	}
	return out
}

// Trajectory writes the entries of one run, each line with every secret
// replaced by [REDACTED].
type Trajectory struct {
	w       io.Writer
	secrets []string
	err     error
}

// NewTrajectory writes to w, redacting secrets (API keys; values shorter
// than 4 characters are ignored).
func NewTrajectory(w io.Writer, secrets []string) *Trajectory {
	t := &Trajectory{w: w}
	for _, s := range secrets {
		if len(s) >= 4 {
			t.secrets = append(t.secrets, s)
		}
	}
	return t
}

// Redact replaces every secret in s.
func (t *Trajectory) Redact(s string) string {
	if t == nil {
		return s
	}
	for _, secret := range t.secrets {
		s = strings.ReplaceAll(s, secret, "[REDACTED]")
	}
	return s
}

// add writes one entry; the first write error is kept for Err.
func (t *Trajectory) add(e Entry) {
	if t == nil || t.err != nil {
		return
	}
	var b strings.Builder
	enc := json.NewEncoder(&b)
	enc.SetEscapeHTML(false) // pages stay readable: <script>, not \u003cscript\u003e
	if err := enc.Encode(e); err != nil {
		t.err = fmt.Errorf("encoding a trajectory entry: %w", err)
		return
	}
	if _, err := io.WriteString(t.w, t.Redact(b.String())); err != nil {
		t.err = fmt.Errorf("writing the trajectory: %w", err)
	}
}

// Err is the first error writing the trajectory met.
func (t *Trajectory) Err() error {
	if t == nil {
		return nil
	}
	return t.err
}
