package llm

import (
	"encoding/json"
	"strings"
)

// MessageRole is the author of a chat message.
type MessageRole string

// Message authors.
const (
	// MsgSystem carries instructions; providers without a system role get
	// them in their dedicated system field.
	MsgSystem MessageRole = "system"
	// MsgUser is the caller's turn.
	MsgUser MessageRole = "user"
	// MsgAssistant is the model's earlier turn, possibly with tool calls.
	MsgAssistant MessageRole = "assistant"
	// MsgTool carries the result of one tool call.
	MsgTool MessageRole = "tool"
)

// PartKind tells what a [Part] holds.
type PartKind string

// Part kinds.
const (
	// PartText is plain text.
	PartText PartKind = "text"
	// PartImage is an image, inline bytes or a URL.
	PartImage PartKind = "image"
)

// Part is one piece of message content: text or an image.
type Part struct {
	// Kind is PartText or PartImage.
	Kind PartKind `json:"kind"`
	// Text is the text of a PartText.
	Text string `json:"text,omitempty"`
	// MediaType is the image type of inline Data, e.g. "image/png".
	MediaType string `json:"media_type,omitempty"`
	// Data holds the raw (not base64) bytes of an inline image.
	Data []byte `json:"data,omitempty"`
	// URL is a remote image; used when Data is empty.
	URL string `json:"url,omitempty"`
}

// Text returns a text part.
func Text(s string) Part { return Part{Kind: PartText, Text: s} }

// Image returns an inline image part; mediaType is e.g. "image/png".
func Image(mediaType string, data []byte) Part {
	return Part{Kind: PartImage, MediaType: mediaType, Data: data}
}

// ImageURL returns an image part that the provider fetches from url.
func ImageURL(url string) Part { return Part{Kind: PartImage, URL: url} }

// Message is one turn of a conversation.
type Message struct {
	// Role is the author.
	Role MessageRole `json:"role"`
	// Parts is the content, in order.
	Parts []Part `json:"parts,omitempty"`
	// ToolCalls are the calls an assistant turn made.
	ToolCalls []ToolCall `json:"tool_calls,omitempty"`
	// ToolCallID names the call a MsgTool message answers.
	ToolCallID string `json:"tool_call_id,omitempty"`
}

// SystemText returns a system message.
func SystemText(text string) Message {
	return Message{Role: MsgSystem, Parts: []Part{Text(text)}}
}

// UserText returns a user message holding text only.
func UserText(text string) Message {
	return Message{Role: MsgUser, Parts: []Part{Text(text)}}
}

// UserParts returns a user message made of parts, e.g. text and images.
func UserParts(parts ...Part) Message { return Message{Role: MsgUser, Parts: parts} }

// AssistantText returns an assistant message with text and optional tool
// calls, for replaying earlier turns.
func AssistantText(text string, calls ...ToolCall) Message {
	m := Message{Role: MsgAssistant, ToolCalls: calls}
	if text != "" {
		m.Parts = []Part{Text(text)}
	}
	return m
}

// ToolResult returns the message that answers the tool call callID.
func ToolResult(callID, content string) Message {
	return Message{Role: MsgTool, ToolCallID: callID, Parts: []Part{Text(content)}}
}

// TextContent returns the text parts of m joined by newlines.
func (m Message) TextContent() string {
	var texts []string
	for _, p := range m.Parts {
		if p.Kind == PartText {
			texts = append(texts, p.Text)
		}
	}
	return strings.Join(texts, "\n")
}

// Tool declares a function the model may call.
type Tool struct {
	// Name is the function name.
	Name string `json:"name"`
	// Description tells the model when to call it.
	Description string `json:"description,omitempty"`
	// Parameters is the JSON Schema of the arguments object.
	Parameters json.RawMessage `json:"parameters,omitempty"`
}

// ToolCall is one function call made by the model.
type ToolCall struct {
	// ID identifies the call; answer it with [ToolResult].
	ID string `json:"id"`
	// Name is the function called.
	Name string `json:"name"`
	// Arguments is the JSON object of arguments.
	Arguments json.RawMessage `json:"arguments,omitempty"`
}

// ToolChoice constrains tool use: "" or "auto" lets the model decide,
// "none" forbids tools, "required" forces some tool, and any other value
// forces the tool of that name.
type ToolChoice string

// Tool choices with a fixed meaning.
const (
	ToolChoiceAuto     ToolChoice = "auto"
	ToolChoiceNone     ToolChoice = "none"
	ToolChoiceRequired ToolChoice = "required"
)

// Schema asks for structured output: a JSON document matching Schema.
type Schema struct {
	// Name names the schema (OpenAI requires one; [a-zA-Z0-9_-]).
	Name string `json:"name"`
	// Description is optional guidance for the model.
	Description string `json:"description,omitempty"`
	// Schema is the JSON Schema of the answer.
	Schema json.RawMessage `json:"schema"`
	// Strict asks OpenAI-compatible providers for strict schema adherence.
	Strict bool `json:"strict,omitempty"`
}
