package agent

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"strings"
	"unicode/utf8"

	"github.com/worldprobe/worldprobe/internal/llm"
)

// Tool is one tool the model may call. Each is one file (tool_*.go) and
// one row of [Tools].
type Tool interface {
	// Name is what the model calls it by.
	Name() string
	// Description tells the model what it does and when to call it.
	Description() string
	// Schema is the JSON Schema of its arguments object.
	Schema() json.RawMessage
	// Run runs it with args (the arguments object) against env and
	// returns the text the model gets back. An error goes back to the
	// model too, as the result ("error: …"), unless it is an
	// [*InfraError]: then the run stops.
	Run(ctx context.Context, env *Env, args json.RawMessage) (string, error)
}

// Env is what tools act on: one sample's workspace and runtime.
type Env struct {
	// Workspace is the folder the model works in.
	Workspace *Workspace
	// Runtime runs the page for run_page; nil when there is none (run_page
	// then says so).
	Runtime Runtime
	// Frames is the task's frame budget: what run_page steps at most.
	Frames int
	// Finished is set by finish, with the model's Summary.
	Finished bool
	Summary  string
}

// InfraError is a tool's failure that is not the model's doing (the
// browser failed): it stops the run instead of going back to the model.
type InfraError struct{ Err error }

func (e *InfraError) Error() string { return e.Err.Error() }

// Unwrap returns the cause.
func (e *InfraError) Unwrap() error { return e.Err }

// MaxOutput caps the text one tool call returns to the model, in bytes.
const MaxOutput = 16 << 10

// capOutput cuts s to at most max bytes, at a line end when one is near
// and never inside a UTF-8 sequence, and says how much was left out.
func capOutput(s string, max int) string {
	if len(s) <= max {
		return s
	}
	cut := max - 120 // room for the note
	for cut > 0 && !utf8.RuneStart(s[cut]) {
		cut--
	}
	if nl := strings.LastIndexByte(s[:cut], '\n'); nl >= cut-2000 && nl > 0 {
		cut = nl + 1
	}
	return s[:cut] + fmt.Sprintf("\n[output cut: %d of %d bytes shown; ask for less, e.g. a line range]\n", cut, len(s))
}

// decode reads a tool's arguments object into v, strictly: an unknown
// argument is an error the model can act on.
func decode(args json.RawMessage, v any) error {
	if len(bytes.TrimSpace(args)) == 0 {
		args = json.RawMessage("{}")
	}
	dec := json.NewDecoder(bytes.NewReader(args))
	dec.DisallowUnknownFields()
	if err := dec.Decode(v); err != nil {
		return fmt.Errorf("the arguments are not the JSON object the tool takes (%v); its schema lists them", err)
	}
	return nil
}

// Tools is the registry: every tool, in the order the model is shown them.
var Tools = []Tool{listFiles{}, readFile{}, grep{}, writeFile{}, editFile{}, runPage{}, finish{}}

// Definitions are the tools as a request declares them.
func Definitions() []llm.Tool {
	out := make([]llm.Tool, len(Tools))
	for i, t := range Tools {
		out[i] = llm.Tool{Name: t.Name(), Description: t.Description(), Parameters: t.Schema()}
	}
	return out
}

// lookup finds the tool called name.
func lookup(name string) (Tool, bool) {
	for _, t := range Tools {
		if t.Name() == name {
			return t, true
		}
	}
	return nil, false
}

// Call runs the tool call c against env and returns the text for the
// model, whether it is an error, and an error only for an [*InfraError]
// or the end of ctx. The text is capped at [MaxOutput].
func Call(ctx context.Context, env *Env, c llm.ToolCall) (text string, failed bool, err error) {
	t, ok := lookup(c.Name)
	if !ok {
		names := make([]string, len(Tools))
		for i, t := range Tools {
			names[i] = t.Name()
		}
		return fmt.Sprintf("error: there is no tool %q; the tools are %s", c.Name, strings.Join(names, ", ")), true, nil
	}
	out, err := t.Run(ctx, env, c.Arguments)
	var infra *InfraError
	switch {
	case ctx.Err() != nil:
		return "", true, ctx.Err()
	case errors.As(err, &infra):
		return "", true, infra
	case err != nil:
		return capOutput("error: "+err.Error(), MaxOutput), true, nil
	}
	return capOutput(out, MaxOutput), false, nil
}

// schema builds a tool's arguments schema: an object of properties, the
// required ones named, no others allowed.
func schema(properties string, required ...string) json.RawMessage {
	req, _ := json.Marshal(required)
	if len(required) == 0 {
		req = []byte("[]")
	}
	return json.RawMessage(`{"type":"object","properties":{` + properties + `},"required":` + string(req) + `,"additionalProperties":false}`)
}
