package llm

import (
	"context"
	"net/http"

	"github.com/anthropics/anthropic-sdk-go/v2"
	"github.com/anthropics/anthropic-sdk-go/v2/option"
)

// anthropicClient speaks the Anthropic messages wire format through the
// official SDK. SDK retries are off; retries are ours.
type anthropicClient struct {
	m      ResolvedModel
	client anthropic.Client
	redact *redactor
	clock  Clock
}

func newAnthropicClient(m ResolvedModel, key string, hc *http.Client, red *redactor, clock Clock) *anthropicClient {
	opts := []option.RequestOption{
		// Read no key, URL, profile or header from the process environment.
		option.WithoutEnvironmentDefaults(),
		option.WithBaseURL(m.BaseURL),
		option.WithHTTPClient(hc),
		option.WithMaxRetries(0),
	}
	if key != "" {
		opts = append(opts, option.WithAPIKey(key))
	}
	return &anthropicClient{m: m, client: anthropic.NewClient(opts...), redact: red, clock: clock}
}

func (c *anthropicClient) chat(ctx context.Context, req Request) (*Response, error) {
	params, err := anthropicParams(c.m, req)
	if err != nil {
		return nil, err
	}
	capture := &httpCapture{}
	msg, err := c.client.Messages.New(ctx, params, option.WithMiddleware(capture.middleware))
	if err != nil {
		return nil, capture.toError(c.m, err, c.redact, c.clock.Now())
	}
	resp := &Response{
		ServedModel: msg.Model,
		StopReason:  anthropicStopReason(msg.StopReason),
		Usage: Usage{
			InputTokens:       msg.Usage.InputTokens + msg.Usage.CacheReadInputTokens + msg.Usage.CacheCreationInputTokens,
			OutputTokens:      msg.Usage.OutputTokens,
			CachedInputTokens: msg.Usage.CacheReadInputTokens,
			CacheWriteTokens:  msg.Usage.CacheCreationInputTokens,
		},
	}
	for _, block := range msg.Content {
		switch block.Type {
		case "text":
			resp.Text += block.Text
		case "tool_use":
			resp.ToolCalls = append(resp.ToolCalls, ToolCall{ID: block.ID, Name: block.Name, Arguments: append([]byte(nil), block.Input...)})
		}
	}
	return resp, nil
}

func anthropicStopReason(r anthropic.StopReason) StopReason {
	switch r {
	case anthropic.StopReasonEndTurn, anthropic.StopReasonStopSequence:
		return StopEnd
	case anthropic.StopReasonMaxTokens, anthropic.StopReasonModelContextWindowExceeded:
		return StopLength
	case anthropic.StopReasonToolUse:
		return StopToolUse
	case anthropic.StopReasonRefusal:
		return StopRefusal
	default:
		return StopOther
	}
}
