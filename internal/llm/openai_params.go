package llm

import (
	"encoding/base64"
	"encoding/json"
	"fmt"

	"github.com/openai/openai-go/v3"
	"github.com/openai/openai-go/v3/shared"
)

// openaiParams converts a request (with the model's parameters applied)
// to SDK parameters.
func openaiParams(m ResolvedModel, req Request) (openai.ChatCompletionNewParams, error) {
	p := openai.ChatCompletionNewParams{Model: m.Model}
	for i, msg := range req.Messages {
		mp, err := openaiMessage(msg)
		if err != nil {
			return p, fmt.Errorf("llm: message %d: %w", i, err)
		}
		p.Messages = append(p.Messages, mp)
	}
	if req.Temperature != nil {
		p.Temperature = openai.Float(*req.Temperature)
	}
	if req.MaxTokens > 0 {
		if m.spec.maxCompletionTokens {
			p.MaxCompletionTokens = openai.Int(int64(req.MaxTokens))
		} else {
			p.MaxTokens = openai.Int(int64(req.MaxTokens))
		}
	}
	for _, t := range req.Tools {
		params, err := schemaMap(t.Parameters)
		if err != nil {
			return p, fmt.Errorf("llm: tool %s: %w", t.Name, err)
		}
		def := shared.FunctionDefinitionParam{Name: t.Name, Parameters: params}
		if t.Description != "" {
			def.Description = openai.String(t.Description)
		}
		p.Tools = append(p.Tools, openai.ChatCompletionFunctionTool(def))
	}
	switch req.ToolChoice {
	case "":
	case ToolChoiceAuto, ToolChoiceNone, ToolChoiceRequired:
		p.ToolChoice.OfAuto = openai.String(string(req.ToolChoice))
	default:
		p.ToolChoice.OfFunctionToolChoice = &openai.ChatCompletionNamedToolChoiceParam{
			Function: openai.ChatCompletionNamedToolChoiceFunctionParam{Name: string(req.ToolChoice)},
		}
	}
	if req.Schema != nil {
		schema, err := schemaMap(req.Schema.Schema)
		if err != nil {
			return p, fmt.Errorf("llm: schema %s: %w", req.Schema.Name, err)
		}
		js := shared.ResponseFormatJSONSchemaJSONSchemaParam{Name: req.Schema.Name, Schema: schema}
		if req.Schema.Strict {
			js.Strict = openai.Bool(true)
		}
		if req.Schema.Description != "" {
			js.Description = openai.String(req.Schema.Description)
		}
		p.ResponseFormat.OfJSONSchema = &shared.ResponseFormatJSONSchemaParam{JSONSchema: js}
	}
	return p, nil
}

func openaiMessage(msg Message) (openai.ChatCompletionMessageParamUnion, error) {
	switch msg.Role {
	case MsgSystem:
		return openai.SystemMessage(msg.TextContent()), nil
	case MsgTool:
		return openai.ToolMessage(msg.TextContent(), msg.ToolCallID), nil
	case MsgAssistant:
		a := openai.ChatCompletionAssistantMessageParam{}
		if text := msg.TextContent(); text != "" {
			a.Content.OfString = openai.String(text)
		}
		for _, tc := range msg.ToolCalls {
			args := string(tc.Arguments)
			if args == "" {
				args = "{}"
			}
			a.ToolCalls = append(a.ToolCalls, openai.ChatCompletionMessageToolCallUnionParam{
				OfFunction: &openai.ChatCompletionMessageFunctionToolCallParam{
					ID:       tc.ID,
					Function: openai.ChatCompletionMessageFunctionToolCallFunctionParam{Name: tc.Name, Arguments: args},
				},
			})
		}
		return openai.ChatCompletionMessageParamUnion{OfAssistant: &a}, nil
	case MsgUser:
		if len(msg.Parts) == 1 && msg.Parts[0].Kind == PartText {
			return openai.UserMessage(msg.Parts[0].Text), nil
		}
		var parts []openai.ChatCompletionContentPartUnionParam
		for _, part := range msg.Parts {
			switch part.Kind {
			case PartText:
				parts = append(parts, openai.TextContentPart(part.Text))
			case PartImage:
				parts = append(parts, openai.ImageContentPart(openai.ChatCompletionContentPartImageImageURLParam{URL: imageURL(part)}))
			default:
				return openai.ChatCompletionMessageParamUnion{}, fmt.Errorf("unknown part kind %q", part.Kind)
			}
		}
		return openai.UserMessage(parts), nil
	default:
		return openai.ChatCompletionMessageParamUnion{}, fmt.Errorf("unknown message role %q", msg.Role)
	}
}

// imageURL returns the part's URL, or a data URL for inline bytes.
func imageURL(p Part) string {
	if len(p.Data) == 0 {
		return p.URL
	}
	return "data:" + p.MediaType + ";base64," + base64.StdEncoding.EncodeToString(p.Data)
}

// schemaMap decodes a JSON Schema object; empty means an empty object schema.
func schemaMap(raw json.RawMessage) (map[string]any, error) {
	if len(raw) == 0 {
		return map[string]any{"type": "object", "properties": map[string]any{}}, nil
	}
	var m map[string]any
	if err := json.Unmarshal(raw, &m); err != nil {
		return nil, fmt.Errorf("invalid JSON Schema: %w", err)
	}
	return m, nil
}
