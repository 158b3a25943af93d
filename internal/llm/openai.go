package llm

import (
	"context"
	"net/http"

	"github.com/openai/openai-go/v3"
	"github.com/openai/openai-go/v3/option"
)

// openaiClient speaks the OpenAI chat completions wire format through the
// official SDK: OpenAI, OpenRouter, Gemini, vLLM, Ollama and any
// compatible base URL. SDK retries are off; retries are ours.
type openaiClient struct {
	m      ResolvedModel
	svc    openai.ChatCompletionService
	redact *redactor
	clock  Clock
}

func newOpenAIClient(m ResolvedModel, key string, hc *http.Client, red *redactor, clock Clock) *openaiClient {
	opts := []option.RequestOption{
		option.WithBaseURL(m.BaseURL),
		option.WithHTTPClient(hc),
		option.WithMaxRetries(0),
	}
	if key != "" {
		opts = append(opts, option.WithAPIKey(key))
	}
	// A service built without openai.NewClient reads nothing (keys, URLs,
	// headers) from the process environment.
	return &openaiClient{m: m, svc: openai.NewChatCompletionService(opts...), redact: red, clock: clock}
}

func (c *openaiClient) chat(ctx context.Context, req Request) (*Response, error) {
	params, err := openaiParams(c.m, req)
	if err != nil {
		return nil, err
	}
	capture := &httpCapture{}
	opts := []option.RequestOption{option.WithMiddleware(capture.middleware)}
	if c.m.spec.reportsCost {
		opts = append(opts, option.WithJSONSet("usage", map[string]any{"include": true}))
	}
	completion, err := c.svc.New(ctx, params, opts...)
	if err != nil {
		return nil, capture.toError(c.m, err, c.redact, c.clock.Now())
	}
	return c.response(completion)
}

func (c *openaiClient) response(cc *openai.ChatCompletion) (*Response, error) {
	if len(cc.Choices) == 0 {
		return nil, &APIError{Provider: c.m.Provider, Model: c.m.Model, Status: http.StatusOK,
			Message: "response has no choices", Kind: KindRetryable}
	}
	choice := cc.Choices[0]
	resp := &Response{
		Text:        choice.Message.Content,
		ServedModel: cc.Model,
		StopReason:  openaiStopReason(choice.FinishReason, choice.Message.Refusal),
		Usage: Usage{
			InputTokens:       cc.Usage.PromptTokens,
			OutputTokens:      cc.Usage.CompletionTokens,
			CachedInputTokens: cc.Usage.PromptTokensDetails.CachedTokens,
			CacheWriteTokens:  cc.Usage.PromptTokensDetails.CacheWriteTokens,
		},
	}
	if resp.Text == "" && choice.Message.Refusal != "" {
		resp.Text = choice.Message.Refusal
	}
	for _, tc := range choice.Message.ToolCalls {
		if tc.Type != "function" {
			continue
		}
		call := ToolCall{ID: tc.ID, Name: tc.Function.Name}
		if tc.Function.Arguments != "" {
			call.Arguments = []byte(tc.Function.Arguments)
		}
		resp.ToolCalls = append(resp.ToolCalls, call)
	}
	if f, ok := cc.Usage.JSON.ExtraFields["cost"]; ok {
		if cost, ok := parseCost(f.Raw()); ok {
			resp.CostUSD, resp.CostSource = cost, costFromProvider
		}
	}
	return resp, nil
}

func openaiStopReason(finish, refusal string) StopReason {
	switch {
	case refusal != "":
		return StopRefusal
	case finish == "stop":
		return StopEnd
	case finish == "length":
		return StopLength
	case finish == "tool_calls" || finish == "function_call":
		return StopToolUse
	case finish == "content_filter":
		return StopRefusal
	default:
		return StopOther
	}
}
