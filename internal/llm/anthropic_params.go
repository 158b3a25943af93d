package llm

import (
	"encoding/base64"
	"encoding/json"
	"fmt"

	"github.com/anthropics/anthropic-sdk-go/v2"
)

// anthropicParams converts a request (with the model's parameters
// applied) to SDK parameters. System messages go to the system field;
// consecutive tool results share one user turn.
func anthropicParams(m ResolvedModel, req Request) (anthropic.MessageNewParams, error) {
	p := anthropic.MessageNewParams{Model: m.Model, MaxTokens: int64(req.MaxTokens)}
	if p.MaxTokens <= 0 {
		p.MaxTokens = defaultMaxTokens
	}
	for i, msg := range req.Messages {
		if err := appendAnthropicMessage(&p, msg); err != nil {
			return p, fmt.Errorf("llm: message %d: %w", i, err)
		}
	}
	if req.Temperature != nil {
		// The SDK's parameters have no temperature field; send it as an extra field.
		p.SetExtraFields(map[string]any{"temperature": *req.Temperature})
	}
	for _, t := range req.Tools {
		schema, err := schemaMap(t.Parameters)
		if err != nil {
			return p, fmt.Errorf("llm: tool %s: %w", t.Name, err)
		}
		tool := anthropic.ToolParam{Name: t.Name, InputSchema: anthropicInputSchema(schema)}
		if t.Description != "" {
			tool.Description = anthropic.String(t.Description)
		}
		p.Tools = append(p.Tools, anthropic.ToolUnionParam{OfTool: &tool})
	}
	switch req.ToolChoice {
	case "":
	case ToolChoiceAuto:
		p.ToolChoice.OfAuto = &anthropic.ToolChoiceAutoParam{}
	case ToolChoiceNone:
		p.ToolChoice.OfNone = &anthropic.ToolChoiceNoneParam{}
	case ToolChoiceRequired:
		p.ToolChoice.OfAny = &anthropic.ToolChoiceAnyParam{}
	default:
		p.ToolChoice.OfTool = &anthropic.ToolChoiceToolParam{Name: string(req.ToolChoice)}
	}
	if req.Schema != nil {
		schema, err := schemaMap(req.Schema.Schema)
		if err != nil {
			return p, fmt.Errorf("llm: schema %s: %w", req.Schema.Name, err)
		}
		p.OutputConfig.Format = anthropic.JSONOutputFormatParam{Schema: schema}
	}
	return p, nil
}

func appendAnthropicMessage(p *anthropic.MessageNewParams, msg Message) error {
	switch msg.Role {
	case MsgSystem:
		p.System = append(p.System, anthropic.TextBlockParam{Text: msg.TextContent()})
	case MsgTool:
		block := anthropic.NewToolResultBlock(msg.ToolCallID, msg.TextContent(), false)
		if n := len(p.Messages); n > 0 && p.Messages[n-1].OfUser != nil && isToolResultTurn(p.Messages[n-1]) {
			p.Messages[n-1].OfUser.Content = append(p.Messages[n-1].OfUser.Content, block)
			return nil
		}
		p.Messages = append(p.Messages, anthropic.NewUserMessage(block))
	case MsgAssistant:
		var blocks []anthropic.ContentBlockParamUnion
		if text := msg.TextContent(); text != "" {
			blocks = append(blocks, anthropic.NewTextBlock(text))
		}
		for _, tc := range msg.ToolCalls {
			input := json.RawMessage(tc.Arguments)
			if len(input) == 0 {
				input = json.RawMessage("{}")
			}
			blocks = append(blocks, anthropic.NewToolUseBlock(tc.ID, input, tc.Name))
		}
		p.Messages = append(p.Messages, anthropic.NewAssistantMessage(blocks...))
	case MsgUser:
		var blocks []anthropic.ContentBlockParamUnion
		for _, part := range msg.Parts {
			switch {
			case part.Kind == PartText:
				blocks = append(blocks, anthropic.NewTextBlock(part.Text))
			case part.Kind == PartImage && len(part.Data) > 0:
				blocks = append(blocks, anthropic.NewImageBlockBase64(part.MediaType, base64.StdEncoding.EncodeToString(part.Data)))
			case part.Kind == PartImage:
				blocks = append(blocks, anthropic.NewImageBlock(anthropic.URLImageSourceParam{URL: part.URL}))
			default:
				return fmt.Errorf("unknown part kind %q", part.Kind)
			}
		}
		p.Messages = append(p.Messages, anthropic.NewUserMessage(blocks...))
	default:
		return fmt.Errorf("unknown message role %q", msg.Role)
	}
	return nil
}

func isToolResultTurn(m anthropic.MessageParam) bool {
	for _, b := range m.OfUser.Content {
		if b.OfToolResult == nil {
			return false
		}
	}
	return len(m.OfUser.Content) > 0
}

// anthropicInputSchema splits a JSON Schema object into the SDK's fields.
func anthropicInputSchema(schema map[string]any) anthropic.ToolInputSchemaParam {
	s := anthropic.ToolInputSchemaParam{Properties: schema["properties"]}
	if req, ok := schema["required"].([]any); ok {
		for _, r := range req {
			if name, ok := r.(string); ok {
				s.Required = append(s.Required, name)
			}
		}
	}
	for k, v := range schema {
		switch k {
		case "type", "properties", "required":
		default:
			if s.ExtraFields == nil {
				s.ExtraFields = map[string]any{}
			}
			s.ExtraFields[k] = v
		}
	}
	return s
}
