package llm

import (
	"encoding/json"
	"errors"
	"fmt"
	"strings"
	"time"
)

// Request is one chat call.
type Request struct {
	// Messages is the conversation so far.
	Messages []Message `json:"messages"`
	// Tools the model may call.
	Tools []Tool `json:"tools,omitempty"`
	// ToolChoice constrains tool use; empty means auto.
	ToolChoice ToolChoice `json:"tool_choice,omitempty"`
	// Schema, when set, asks for a JSON answer matching it.
	Schema *Schema `json:"schema,omitempty"`
	// Temperature overrides the role's temperature when set.
	Temperature *float64 `json:"temperature,omitempty"`
	// MaxTokens overrides the role's output token limit when positive.
	MaxTokens int `json:"max_tokens,omitempty"`
	// Variant tells deliberately repeated identical requests apart (e.g. the
	// sample index of a trial), so that the cache and recordings keep one
	// answer per variant instead of one per prompt.
	Variant string `json:"variant,omitempty"`
}

// StopReason tells why the model stopped, normalised across providers.
type StopReason string

// Stop reasons.
const (
	// StopEnd is a natural end of turn (or a stop sequence).
	StopEnd StopReason = "end"
	// StopLength means the output token limit was hit.
	StopLength StopReason = "length"
	// StopToolUse means the model is waiting for tool results.
	StopToolUse StopReason = "tool_use"
	// StopRefusal means the model or a filter refused.
	StopRefusal StopReason = "refusal"
	// StopOther is any other reason.
	StopOther StopReason = "other"
)

// Source tells where a response came from.
type Source string

// Response sources.
const (
	// SourceLive is a response fetched from the provider.
	SourceLive Source = "live"
	// SourceCache is a response read from the response cache.
	SourceCache Source = "cache"
	// SourceReplay is a response read from a recording.
	SourceReplay Source = "replay"
)

// Usage counts tokens of one call. InputTokens includes cached and
// cache-write tokens whatever the provider's convention.
type Usage struct {
	// InputTokens is the total prompt tokens.
	InputTokens int64 `json:"input_tokens"`
	// OutputTokens is the completion tokens (reasoning included).
	OutputTokens int64 `json:"output_tokens"`
	// CachedInputTokens is the part of InputTokens read from the provider's prompt cache.
	CachedInputTokens int64 `json:"cached_input_tokens,omitempty"`
	// CacheWriteTokens is the part of InputTokens written to the provider's prompt cache.
	CacheWriteTokens int64 `json:"cache_write_tokens,omitempty"`
}

// Total returns input plus output tokens.
func (u Usage) Total() int64 { return u.InputTokens + u.OutputTokens }

// Response is a model's answer with its accounting.
type Response struct {
	// Text is the text of the answer (the JSON document for a Schema request).
	Text string `json:"text"`
	// ToolCalls are the functions the model called.
	ToolCalls []ToolCall `json:"tool_calls,omitempty"`
	// StopReason tells why the model stopped.
	StopReason StopReason `json:"stop_reason"`
	// Role is the role that asked.
	Role Role `json:"role"`
	// Provider is the provider that answered.
	Provider string `json:"provider"`
	// Model is the configured model that answered (after any fallback).
	Model string `json:"model"`
	// ServedModel is the model name the provider reported, if any.
	ServedModel string `json:"served_model,omitempty"`
	// Usage counts the tokens.
	Usage Usage `json:"usage"`
	// CostUSD is the price of the call in US dollars.
	CostUSD float64 `json:"cost_usd"`
	// CostSource is "provider" (reported by the provider), "table" (from
	// the pricing table), or "unpriced".
	CostSource string `json:"cost_source,omitempty"`
	// Latency is the time of the successful attempt.
	Latency time.Duration `json:"latency_ns"`
	// Attempts counts the attempts on the model that answered.
	Attempts int `json:"attempts"`
	// FallbackIndex is 0 for the role's primary model, i for the i-th fallback.
	FallbackIndex int `json:"fallback_index"`
	// Source is live, cache or replay.
	Source Source `json:"source"`
	// Digest is the request digest used for recordings.
	Digest string `json:"digest,omitempty"`
}

// DecodeJSON unmarshals the answer of a structured-output request into v.
// Code fences around the document are tolerated.
func (r *Response) DecodeJSON(v any) error {
	if r == nil {
		return errors.New("llm: decode JSON: nil response")
	}
	text := strings.TrimSpace(r.Text)
	if strings.HasPrefix(text, "```") {
		text = strings.TrimPrefix(text, "```json")
		text = strings.TrimPrefix(text, "```")
		text = strings.TrimSuffix(strings.TrimSpace(text), "```")
	}
	if err := json.Unmarshal([]byte(text), v); err != nil {
		return fmt.Errorf("llm: decode JSON answer of %s %s: %w", r.Provider, r.Model, err)
	}
	return nil
}
