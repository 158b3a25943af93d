package llm

import (
	"encoding/json"
	"testing"
	"time"

	"github.com/stretchr/testify/require"
)

func TestOpenAIText(t *testing.T) {
	srv := newFakeServer(t, ok("openai_text.json"))
	h := newHarness(t, yamlRoles("  visual_judge:\n    "+openaiRole(srv)+"\n    temperature: 0.3\n    max_tokens: 500"))

	resp, err := h.chat(t, VisualJudge, Request{Messages: []Message{SystemText("You judge worlds."), UserText("Describe the scene.")}})
	require.NoError(t, err)

	require.Equal(t, "A red cube floats above a grid.", resp.Text)
	require.Equal(t, StopEnd, resp.StopReason)
	require.Equal(t, VisualJudge, resp.Role)
	require.Equal(t, "openai", resp.Provider)
	require.Equal(t, "test-gpt", resp.Model)
	require.Equal(t, "test-gpt-2025-01-01", resp.ServedModel)
	require.Equal(t, Usage{InputTokens: 1200, OutputTokens: 300, CachedInputTokens: 200}, resp.Usage)
	// (1000×2 + 200×0.5 + 300×8) / 1e6
	require.InDelta(t, 0.0045, resp.CostUSD, 1e-12)
	require.Equal(t, "table", resp.CostSource)
	require.Equal(t, SourceLive, resp.Source)
	require.Equal(t, 1, resp.Attempts)
	require.Len(t, resp.Digest, 64)

	reqs := srv.requests()
	require.Len(t, reqs, 1)
	require.Equal(t, "/v1/chat/completions", reqs[0].Path)
	require.Equal(t, "Bearer "+testKey, reqs[0].Header.Get("Authorization"))
	require.Equal(t, "test-gpt", reqs[0].Body["model"])
	require.Equal(t, 0.3, reqs[0].Body["temperature"])
	require.Equal(t, 500.0, reqs[0].Body["max_completion_tokens"])
	require.Equal(t, []any{
		map[string]any{"role": "system", "content": "You judge worlds."},
		map[string]any{"role": "user", "content": "Describe the scene."},
	}, reqs[0].Body["messages"])

	run := h.reg.Ledger().Run()
	require.Equal(t, 1, run.Calls)
	require.Equal(t, int64(1200), run.InputTokens)
	require.Equal(t, int64(300), run.OutputTokens)
	require.Equal(t, int64(200), run.CachedInputTokens)
	require.InDelta(t, 0.0045, run.CostUSD, 1e-12)
	require.Equal(t, []EventKind{EventDone}, h.kinds())
}

func TestOpenAIImage(t *testing.T) {
	srv := newFakeServer(t, ok("openai_text.json"))
	h := newHarness(t, yamlRoles("  visual_judge:\n    "+openaiRole(srv)))
	png := []byte{0x89, 'P', 'N', 'G', 1, 2, 3}

	_, err := h.chat(t, VisualJudge, Request{Messages: []Message{
		UserParts(Text("What is shown?"), Image("image/png", png), ImageURL("https://example.test/shot.jpg")),
	}})
	require.NoError(t, err)

	reqs := srv.requests()
	require.Len(t, reqs, 1)
	require.Equal(t, []any{map[string]any{"role": "user", "content": []any{
		map[string]any{"type": "text", "text": "What is shown?"},
		map[string]any{"type": "image_url", "image_url": map[string]any{"url": "data:image/png;base64,iVBORwECAw=="}},
		map[string]any{"type": "image_url", "image_url": map[string]any{"url": "https://example.test/shot.jpg"}},
	}}}, reqs[0].Body["messages"])
}

func TestOpenAIToolCalls(t *testing.T) {
	srv := newFakeServer(t, ok("openai_tool_calls.json"))
	h := newHarness(t, yamlRoles("  navigator:\n    "+openaiRole(srv)))
	tools := []Tool{
		{Name: "move", Description: "Move the camera.", Parameters: json.RawMessage(`{"type":"object","properties":{"direction":{"type":"string"},"meters":{"type":"number"}},"required":["direction"]}`)},
		{Name: "screenshot"},
	}

	resp, err := h.chat(t, Navigator, Request{
		Messages: []Message{
			UserText("Reach the door."),
			AssistantText("Looking around.", ToolCall{ID: "call_0", Name: "screenshot", Arguments: json.RawMessage(`{}`)}),
			ToolResult("call_0", "a door ahead"),
		},
		Tools:      tools,
		ToolChoice: ToolChoiceRequired,
	})
	require.NoError(t, err)

	require.Equal(t, StopToolUse, resp.StopReason)
	require.Equal(t, []ToolCall{
		{ID: "call_1", Name: "move", Arguments: json.RawMessage(`{"direction":"forward","meters":2}`)},
		{ID: "call_2", Name: "screenshot", Arguments: json.RawMessage(`{}`)},
	}, resp.ToolCalls)

	body := srv.requests()[0].Body
	require.Equal(t, "required", body["tool_choice"])
	require.Equal(t, []any{
		map[string]any{"type": "function", "function": map[string]any{
			"name": "move", "description": "Move the camera.",
			"parameters": map[string]any{"type": "object", "required": []any{"direction"}, "properties": map[string]any{
				"direction": map[string]any{"type": "string"}, "meters": map[string]any{"type": "number"}}},
		}},
		map[string]any{"type": "function", "function": map[string]any{
			"name": "screenshot", "parameters": map[string]any{"type": "object", "properties": map[string]any{}},
		}},
	}, body["tools"])
	require.Equal(t, []any{
		map[string]any{"role": "user", "content": "Reach the door."},
		map[string]any{"role": "assistant", "content": "Looking around.", "tool_calls": []any{
			map[string]any{"id": "call_0", "type": "function", "function": map[string]any{"name": "screenshot", "arguments": "{}"}},
		}},
		map[string]any{"role": "tool", "tool_call_id": "call_0", "content": "a door ahead"},
	}, body["messages"])
}

func TestOpenAINamedToolChoice(t *testing.T) {
	srv := newFakeServer(t, ok("openai_tool_calls.json"))
	h := newHarness(t, yamlRoles("  navigator:\n    "+openaiRole(srv)))
	_, err := h.chat(t, Navigator, Request{Messages: []Message{UserText("go")}, Tools: []Tool{{Name: "move"}}, ToolChoice: "move"})
	require.NoError(t, err)
	require.Equal(t, map[string]any{"type": "function", "function": map[string]any{"name": "move"}}, srv.requests()[0].Body["tool_choice"])
}

func TestOpenAIStructuredOutput(t *testing.T) {
	srv := newFakeServer(t, ok("openai_structured.json"))
	h := newHarness(t, yamlRoles("  visual_judge:\n    "+openaiRole(srv)))
	schema := json.RawMessage(`{"type":"object","properties":{"score":{"type":"integer"},"objects":{"type":"array","items":{"type":"string"}}},"required":["score","objects"],"additionalProperties":false}`)

	resp, err := h.chat(t, VisualJudge, Request{
		Messages: []Message{UserText("Score the world.")},
		Schema:   &Schema{Name: "verdict", Schema: schema, Strict: true},
	})
	require.NoError(t, err)

	var verdict struct {
		Score   int      `json:"score"`
		Objects []string `json:"objects"`
	}
	require.NoError(t, resp.DecodeJSON(&verdict))
	require.Equal(t, 7, verdict.Score)
	require.Equal(t, []string{"cube", "grid"}, verdict.Objects)

	var wantSchema map[string]any
	require.NoError(t, json.Unmarshal(schema, &wantSchema))
	require.Equal(t, map[string]any{"type": "json_schema", "json_schema": map[string]any{
		"name": "verdict", "strict": true, "schema": wantSchema,
	}}, srv.requests()[0].Body["response_format"])
}

func TestOpenAITimeoutIsRetried(t *testing.T) {
	srv := newFakeServer(t, reply{status: 200, file: "openai_text.json", delay: 2 * time.Second}, ok("openai_text.json"))
	h := newHarness(t, yamlRoles("  navigator:\n    "+openaiRole(srv)+"\n    timeout: 50ms"))

	resp, err := h.chat(t, Navigator, prompt("go"))
	require.NoError(t, err)
	require.Equal(t, 2, resp.Attempts)
	retries := h.eventsOf(EventRetrying)
	require.Len(t, retries, 1)
	require.Contains(t, retries[0].Error, "openai test-gpt: timeout")
	require.Equal(t, []time.Duration{10 * time.Millisecond}, h.clock.slept())
}

func TestOpenRouterProviderCost(t *testing.T) {
	srv := newFakeServer(t, ok("openrouter_cost.json"))
	testEnv["TEST_OPENROUTER_KEY"] = testKey
	t.Cleanup(func() { delete(testEnv, "TEST_OPENROUTER_KEY") })
	h := newHarness(t, "roles:\n  code_probe:\n    provider: openrouter\n    model: some-lab/unpriced-model\n    base_url: "+srv.url("/api/v1")+"\n    key_env: TEST_OPENROUTER_KEY\n")

	resp, err := h.chat(t, CodeProbe, prompt("ping"))
	require.NoError(t, err)
	require.Equal(t, "pong", resp.Text)
	require.Equal(t, 0.0042, resp.CostUSD)
	require.Equal(t, "provider", resp.CostSource)
	require.Equal(t, map[string]any{"include": true}, srv.requests()[0].Body["usage"])
	require.Equal(t, 4096.0, srv.requests()[0].Body["max_tokens"], "non-OpenAI endpoints get max_tokens")
	require.Equal(t, 0.0042, h.reg.Ledger().Run().CostUSD)
}

func TestDecodeJSONToleratesFences(t *testing.T) {
	var v struct{ A int }
	require.NoError(t, (&Response{Text: "```json\n{\"A\": 3}\n```"}).DecodeJSON(&v))
	require.Equal(t, 3, v.A)
	err := (&Response{Provider: "openai", Model: "m", Text: "not json"}).DecodeJSON(&v)
	require.ErrorContains(t, err, "llm: decode JSON answer of openai m")
}
