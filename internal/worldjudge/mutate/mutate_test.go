package mutate

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/worldprobe/worldprobe/internal/llm"
	"github.com/worldprobe/worldprobe/internal/testenv"
	"github.com/worldprobe/worldprobe/internal/worldjudge"
	"github.com/worldprobe/worldprobe/internal/worldjudge/capture"
	"github.com/worldprobe/worldprobe/internal/worldjudge/rubric"
)

var h testenv.Harness

func TestMain(m *testing.M) { testenv.RunMain(m, 1, &h) }

func island(t *testing.T) *rubric.Rubric {
	t.Helper()
	r, err := rubric.Load(filepath.Join("..", "..", "..", "suites", "worldbench", "island"))
	require.NoError(t, err)
	return r
}

// openAI answers chat completions as OpenAI's API does; route picks the
// assistant message from the request's user text (nil: an unexpected
// request, answered 400 and failing the test).
func openAI(t *testing.T, route func(user string) map[string]any) (*llm.Registry, *[]string) {
	var mu sync.Mutex
	var calls []string
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		raw, _ := io.ReadAll(r.Body)
		var body struct {
			Messages []struct {
				Content any `json:"content"`
			} `json:"messages"`
		}
		require.NoError(t, json.Unmarshal(raw, &body))
		user, _ := body.Messages[1].Content.(string)
		msg := route(user)
		mu.Lock()
		calls = append(calls, fmt.Sprintf("%.30s", user))
		n := len(calls)
		mu.Unlock()
		if msg == nil {
			w.WriteHeader(http.StatusBadRequest)
			_, _ = w.Write([]byte(`{"error":{"message":"unexpected request","type":"invalid_request_error"}}`))
			t.Errorf("unexpected request: %.200s", user)
			return
		}
		msg["role"] = "assistant"
		w.Header().Set("Content-Type", "application/json")
		b, _ := json.Marshal(map[string]any{"id": fmt.Sprintf("chatcmpl-%d", n), "object": "chat.completion", "created": 1760000000, "model": "judge-model-2025-06-01",
			"choices": []any{map[string]any{"index": 0, "message": msg, "logprobs": nil, "finish_reason": "tool_calls"}},
			"usage":   map[string]any{"prompt_tokens": 3000, "completion_tokens": 200, "total_tokens": 3200}})
		_, _ = w.Write(b)
	}))
	t.Cleanup(srv.Close)
	role := "    provider: openai\n    model: judge-model\n    max_retries: 0\n    base_url: " + srv.URL + "/v1\n    key_env: TEST_JUDGE_KEY\n"
	cfg, err := llm.ParseConfig([]byte("allow_unpriced: true\nroles:\n  code_probe:\n" + role + "  evidence_agent:\n" + role))
	require.NoError(t, err)
	reg, err := llm.New(cfg, func(k string) string { return map[string]string{"TEST_JUDGE_KEY": "sk-judge-test"}[k] })
	require.NoError(t, err)
	return reg, &calls
}

func report(items string) map[string]any {
	return map[string]any{"content": nil, "tool_calls": []any{map[string]any{"id": "call_1", "type": "function",
		"function": map[string]any{"name": "report_items", "arguments": `{"items": [` + items + `]}`}}}}
}

// isleRubric: two WC003 items of 5 points, each half code, half sight,
// in two biomes; both built by the isle's buildIsle().
func isleRubric(t *testing.T) *rubric.Rubric {
	return &rubric.Rubric{Name: "tiny", TotalPoints: 10, Pixels: island(t).Pixels, Quote: island(t).Quote,
		Biomes: []rubric.Biome{{ID: "grassland", Label: "Grassland"}, {ID: "mountains", Label: "Snow Mountains"}},
		Tests: []rubric.Test{{ID: "WC003", Title: "Micro-contents", Points: 10, Items: []rubric.Item{
			{ID: "grass_cells", Biome: "grassland", Points: 5, Halves: []string{rubric.HalfCode, rubric.HalfSight}},
			{ID: "stone_peak", Biome: "mountains", Points: 5, Halves: []string{rubric.HalfCode, rubric.HalfSight}},
		}}}}
}

// isleRoute answers the code probe as a model that quotes the same lines
// whatever the world (they are there, or not, in each mutant).
func isleRoute(user string) map[string]any {
	switch {
	case strings.Contains(user, "The items (WC003 grassland)"):
		return report(`{"id": "grass_cells", "found": true, "probability": 0.9, "evidence": "m.position.set(x + 0.5, 0, z + 0.5);", "motion_evidence": "", "reason": "a grid of grass cubes"}`)
	case strings.Contains(user, "The items (WC003 mountains)"):
		return report(`{"id": "stone_peak", "found": true, "probability": 0.9, "evidence": "m.position.set(-2.5, y, -2.5);", "motion_evidence": "", "reason": "a stack of stone cubes"}`)
	}
	return nil
}

// TestMutateTheIsle: the small isle judged with a recorded code probe
// (OpenAI wire format) and no looking models; buildIsle() is found from
// the quotes and removed three ways. Dead and disabled, the quoted lines
// are still source text: the code-only judge keeps all 10 points, the
// full judge by WorldBench's rules keeps the code halves (5), and with
// coverage nothing. Deleted, no judge keeps anything. The sight halves
// stay unjudged (no looking model), never counted.
func TestMutateTheIsle(t *testing.T) {
	reg, calls := openAI(t, isleRoute)
	co := capture.DefaultOptions(island(t).Pixels)
	co.Width, co.Height, co.Horizon, co.Samples, co.FPS = 320, 200, 2, 2, 5
	out := t.TempDir()
	world := filepath.Join("..", "capture", "testdata", "isle", "world.html")
	rep, err := Run(context.Background(), h.Browser, h.Resolver, world, out, Options{Judge: worldjudge.Options{Rubric: isleRubric(t), Capture: co, Models: reg}})
	require.NoError(t, err)
	require.Len(t, *calls, 8, "two probe calls for the original and each of the three mutants")
	require.Equal(t, FromQuotes, rep.TargetsFrom)
	require.Len(t, rep.Targets, 1)
	tg := rep.Targets[0]
	require.Equal(t, "buildIsle", tg.Function)
	require.Equal(t, [2]int{37, 48}, tg.Lines)
	require.Equal(t, "WC003 grass_cells quote at line 40; WC003 stone_peak quote at line 45", tg.Why)

	cell := func(kept, un float64) Cell { return Cell{Kept: kept, Unjudged: un} }
	require.Equal(t, Columns{Items: 2, Points: 10, CodeOnly: cell(10, 0), SnapshotOnly: cell(0, 10), Full: cell(5, 5), FullCoverage: cell(5, 5)}, rep.Original.Points)
	want := map[string]Columns{
		"delete":   {Items: 2, Points: 10, CodeOnly: cell(0, 0), SnapshotOnly: cell(0, 10), Full: cell(0, 5), FullCoverage: cell(0, 5)},
		"dead":     {Items: 2, Points: 10, CodeOnly: cell(10, 0), SnapshotOnly: cell(0, 10), Full: cell(5, 5), FullCoverage: cell(0, 5)},
		"disabled": {Items: 2, Points: 10, CodeOnly: cell(10, 0), SnapshotOnly: cell(0, 10), Full: cell(5, 5), FullCoverage: cell(0, 5)},
	}
	for _, r := range rep.Points {
		require.Equal(t, 1, r.Built, r.How)
		require.Equal(t, 1, r.Loaded, r.How)
		require.Equal(t, want[r.How], r.Columns, r.How)
	}
	// The body's eight substantive lines, quoted as they were: gone when
	// deleted; source text that never ran when dead or disabled.
	q := map[string]QuoteRow{}
	for _, r := range rep.Quotes {
		q[r.How] = r
	}
	require.Equal(t, QuoteRow{How: "delete", Loaded: 1, Quotes: 8, Verified: 0, Ran: 0}, q["delete"])
	require.Equal(t, QuoteRow{How: "dead", Loaded: 1, Quotes: 8, Verified: 8, Ran: 0}, q["dead"])
	require.Equal(t, QuoteRow{How: "disabled", Loaded: 1, Quotes: 8, Verified: 8, Ran: 0}, q["disabled"])

	require.NoError(t, Write(out, rep))
	page, err := os.ReadFile(filepath.Join(out, "report.html"))
	require.NoError(t, err)
	require.Contains(t, string(page), "<tr><td>dead</td><td>1</td><td>1</td><td>2</td><td>10</td><td>10</td><td>0 (&#43;10 unjudged)</td><td>5 (&#43;5 unjudged)</td><td>0 (&#43;5 unjudged)</td></tr>")
	mut, err := os.ReadFile(filepath.Join(out, "buildIsle-disabled", "world.html"))
	require.NoError(t, err)
	require.Contains(t, string(mut), "\nif (false) { buildIsle(); }\n")
	var sb strings.Builder
	Print(&sb, rep)
	t.Log("\n" + sb.String())
}
