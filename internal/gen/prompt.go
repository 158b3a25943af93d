package gen

import (
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"fmt"

	"github.com/worldprobe/worldprobe/internal/llm"
	"github.com/worldprobe/worldprobe/internal/task"
)

// Instructions is the system text of every generation request: what to
// answer with. The task itself comes from [task.Task.Prompt] alone.
const Instructions = `You write interactive 3D web pages with Three.js.

Answer with one complete, self-contained HTML file: a single fenced code block marked html that holds the whole document, from <!DOCTYPE html> to </html>. Put all JavaScript and CSS inside that file; do not split it into several files, and do not load local files, images, fonts or other assets that are not in it.

Three.js and its addons may be loaded from a CDN URL with a pinned version (unpkg.com, cdn.jsdelivr.net, cdnjs.cloudflare.com or esm.sh), through an import map or a script tag. Nothing else is fetched from the network.

Follow the task exactly: object names, element ids, keys, units, numbers and the state interface must be as it says. If the task leaves a detail open, choose something reasonable; do not ask questions. Write no explanation outside the code block.`

// Continue is the user turn that asks for the rest of a reply cut off by
// the output limit; the partial reply is sent back as the assistant turn
// before it.
const Continue = `Your answer was cut off by the output limit. Continue exactly where it stopped: write only the rest, starting with the very next character. Do not repeat anything, do not restart the code block and add no introduction.`

// Prompt is the exact text a model is given for one task.
type Prompt struct {
	// System is [Instructions].
	System string
	// User is the task's prompt: its brief with parameters filled in and
	// the state interface ([task.Task.Prompt]).
	User string
	// Tools are the tools every call offers (agent runs); none for a
	// single-shot generation.
	Tools []llm.Tool
}

// PromptOf builds the prompt of t.
func PromptOf(t *task.Task) (Prompt, error) {
	user, err := t.Prompt()
	if err != nil {
		return Prompt{}, fmt.Errorf("task %s: building its prompt: %w", t.ID, err)
	}
	return Prompt{System: Instructions, User: user}, nil
}

// Digest is the sha256, in hex, of the exact prompt: the system text, a
// NUL byte and the user text; with tools, another NUL byte and their
// definitions as JSON.
func (p Prompt) Digest() string {
	h := sha256.New()
	h.Write([]byte(p.System))
	h.Write([]byte{0})
	h.Write([]byte(p.User))
	if len(p.Tools) > 0 {
		b, err := json.Marshal(p.Tools)
		if err != nil {
			panic(err) // tools are plain data and always marshal
		}
		h.Write([]byte{0})
		h.Write(b)
	}
	return hex.EncodeToString(h.Sum(nil))
}

// Request is the first call of a sample; variant tells samples of the same
// prompt apart in the response cache and the recordings.
func (p Prompt) Request(variant string) llm.Request {
	return llm.Request{Messages: []llm.Message{llm.SystemText(p.System), llm.UserText(p.User)}, Tools: p.Tools, Variant: variant}
}

// Continuation is the call that asks for the rest of partial, the reply so
// far.
func (p Prompt) Continuation(variant, partial string) llm.Request {
	req := p.Request(variant)
	req.Messages = append(req.Messages, llm.AssistantText(partial), llm.UserText(Continue))
	return req
}
