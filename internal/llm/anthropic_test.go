package llm

import (
	"encoding/json"
	"testing"

	"github.com/stretchr/testify/require"
)

func TestAnthropicText(t *testing.T) {
	srv := newFakeServer(t, ok("anthropic_text.json"))
	h := newHarness(t, yamlRoles("  evidence_agent:\n    "+anthropicRole(srv)+"\n    temperature: 0.5\n    max_tokens: 900"))

	resp, err := h.chat(t, EvidenceAgent, Request{Messages: []Message{SystemText("Weigh evidence."), UserText("What is there?")}})
	require.NoError(t, err)

	require.Equal(t, "The scene shows a red cube.", resp.Text)
	require.Equal(t, StopEnd, resp.StopReason)
	require.Equal(t, "test-claude-20250929", resp.ServedModel)
	require.Equal(t, Usage{InputTokens: 1500, OutputTokens: 250, CachedInputTokens: 400, CacheWriteTokens: 100}, resp.Usage)
	// (1000×3 + 400×0.30 + 100×3.75 + 250×15) / 1e6
	require.InDelta(t, 0.007245, resp.CostUSD, 1e-12)

	reqs := srv.requests()
	require.Len(t, reqs, 1)
	require.Equal(t, "/v1/messages", reqs[0].Path)
	require.Equal(t, "Bearer "+testKey, reqs[0].Header.Get("Authorization"), "the SDK sends the key as a bearer token")
	require.NotEmpty(t, reqs[0].Header.Get("Anthropic-Version"))
	require.Equal(t, map[string]any{
		"model":       "test-claude",
		"max_tokens":  900.0,
		"temperature": 0.5,
		"system":      []any{map[string]any{"type": "text", "text": "Weigh evidence."}},
		"messages": []any{map[string]any{"role": "user", "content": []any{
			map[string]any{"type": "text", "text": "What is there?"},
		}}},
	}, reqs[0].Body)
}

func TestAnthropicImage(t *testing.T) {
	srv := newFakeServer(t, ok("anthropic_text.json"))
	h := newHarness(t, yamlRoles("  visual_judge:\n    "+anthropicRole(srv)))

	_, err := h.chat(t, VisualJudge, Request{Messages: []Message{
		UserParts(Text("Judge this."), Image("image/png", []byte{0x89, 'P', 'N', 'G', 1, 2, 3}), ImageURL("https://example.test/a.jpg")),
	}})
	require.NoError(t, err)
	require.Equal(t, []any{map[string]any{"role": "user", "content": []any{
		map[string]any{"type": "text", "text": "Judge this."},
		map[string]any{"type": "image", "source": map[string]any{"type": "base64", "media_type": "image/png", "data": "iVBORwECAw=="}},
		map[string]any{"type": "image", "source": map[string]any{"type": "url", "url": "https://example.test/a.jpg"}},
	}}}, srv.requests()[0].Body["messages"])
}

func TestAnthropicToolUse(t *testing.T) {
	srv := newFakeServer(t, ok("anthropic_tool_use.json"))
	h := newHarness(t, yamlRoles("  xr_actor:\n    "+anthropicRole(srv)))

	resp, err := h.chat(t, XRActor, Request{
		Messages: []Message{
			UserText("Enter the room."),
			AssistantText("", ToolCall{ID: "toolu_00", Name: "look", Arguments: json.RawMessage(`{"yaw":90}`)},
				ToolCall{ID: "toolu_0b", Name: "look", Arguments: json.RawMessage(`{"yaw":180}`)}),
			ToolResult("toolu_00", "a wall"),
			ToolResult("toolu_0b", "a door"),
		},
		Tools:      []Tool{{Name: "move", Description: "Walk.", Parameters: json.RawMessage(`{"type":"object","properties":{"direction":{"type":"string"}},"required":["direction"],"additionalProperties":false}`)}},
		ToolChoice: "move",
	})
	require.NoError(t, err)

	require.Equal(t, "I will move forward.", resp.Text)
	require.Equal(t, StopToolUse, resp.StopReason)
	require.Equal(t, []ToolCall{{ID: "toolu_01", Name: "move", Arguments: json.RawMessage(`{"direction": "forward", "meters": 2}`)}}, resp.ToolCalls)

	body := srv.requests()[0].Body
	require.Equal(t, map[string]any{"type": "tool", "name": "move"}, body["tool_choice"])
	require.Equal(t, []any{map[string]any{
		"name": "move", "description": "Walk.",
		"input_schema": map[string]any{"type": "object", "properties": map[string]any{"direction": map[string]any{"type": "string"}},
			"required": []any{"direction"}, "additionalProperties": false},
	}}, body["tools"])
	require.Equal(t, []any{
		map[string]any{"role": "user", "content": []any{map[string]any{"type": "text", "text": "Enter the room."}}},
		map[string]any{"role": "assistant", "content": []any{
			map[string]any{"type": "tool_use", "id": "toolu_00", "name": "look", "input": map[string]any{"yaw": 90.0}},
			map[string]any{"type": "tool_use", "id": "toolu_0b", "name": "look", "input": map[string]any{"yaw": 180.0}},
		}},
		map[string]any{"role": "user", "content": []any{
			map[string]any{"type": "tool_result", "tool_use_id": "toolu_00", "is_error": false, "content": []any{map[string]any{"type": "text", "text": "a wall"}}},
			map[string]any{"type": "tool_result", "tool_use_id": "toolu_0b", "is_error": false, "content": []any{map[string]any{"type": "text", "text": "a door"}}},
		}},
	}, body["messages"])
}

func TestAnthropicStructuredOutput(t *testing.T) {
	srv := newFakeServer(t, ok("anthropic_structured.json"))
	h := newHarness(t, yamlRoles("  blind_identifier:\n    "+anthropicRole(srv)))
	schema := `{"type":"object","properties":{"score":{"type":"integer"},"objects":{"type":"array","items":{"type":"string"}}},"required":["score","objects"],"additionalProperties":false}`

	resp, err := h.chat(t, BlindIdentifier, Request{Messages: []Message{UserText("What is it?")}, Schema: &Schema{Name: "guess", Schema: json.RawMessage(schema)}})
	require.NoError(t, err)

	var got struct {
		Score   int      `json:"score"`
		Objects []string `json:"objects"`
	}
	require.NoError(t, resp.DecodeJSON(&got))
	require.Equal(t, 9, got.Score)
	require.Equal(t, []string{"sphere"}, got.Objects)

	var wantSchema map[string]any
	require.NoError(t, json.Unmarshal([]byte(schema), &wantSchema))
	require.Equal(t, map[string]any{"format": map[string]any{"type": "json_schema", "schema": wantSchema}}, srv.requests()[0].Body["output_config"])
}
