package cli

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
)

// judgeProvider answers the judge's model calls as OpenAI does, by what
// each request asks (the probe's calls run in parallel): the WC001 and
// WC005 probes quote the small isle's source — a line that runs, a line
// of buildVolcano, which sits behind if (false) and never runs, and a
// quote with its whitespace changed — every other group finds nothing;
// the evidence agent answers at once that it found nothing either; the
// looking side's calls (frames in the content) get a reply nothing can
// read, so sight halves stay unjudged.
type judgeProvider struct {
	mu    sync.Mutex
	calls map[string]int
}

func (p *judgeProvider) serve(t *testing.T) *httptest.Server {
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		raw, _ := io.ReadAll(r.Body)
		var body struct {
			Messages []struct {
				Content any `json:"content"`
			} `json:"messages"`
		}
		if err := json.Unmarshal(raw, &body); err != nil || len(body.Messages) < 2 {
			http.Error(w, `{"error":{"message":"bad request","type":"invalid_request_error"}}`, http.StatusBadRequest)
			return
		}
		user, text := body.Messages[1].Content.(string)
		msg := map[string]any{"role": "assistant", "content": nil}
		finish := "stop"
		kind := "agent"
		if i := strings.Index(user, "The items ("); i == 0 {
			var g struct {
				Test  string `json:"test"`
				Biome string `json:"biome"`
				Items []struct {
					ID string `json:"id"`
				} `json:"items"`
			}
			head, _, _ := strings.Cut(user[strings.Index(user, "\n")+1:], "\n\nThe source")
			require.NoError(t, json.Unmarshal([]byte(head), &g))
			kind = strings.TrimSpace(g.Test + " " + g.Biome)
			var items []string
			for _, it := range g.Items {
				ev, mo := "", ""
				switch g.Test + "/" + it.ID {
				case "WC001/cube_primitive":
					ev = "const box = new THREE.BoxGeometry( 1, 1, 1 );"
				case "WC001/water_bed":
					ev = "lava.position.set(2.5, 1, 2.5);"
				case "WC005/night_dimming":
					ev, mo = "const ambient = new THREE.AmbientLight(0xffffff, 0.2);", "ambient.intensity = 0.05 + 0.5 * light;"
				}
				// The axis the quoted code moves the item along: every WC005
				// cycle is cyclic; nothing else here moves.
				axis := "n/a"
				if g.Test == "WC005" {
					axis = "cyclic"
				}
				b, _ := json.Marshal(map[string]any{"id": it.ID, "found": ev != "", "probability": 1, "evidence": ev, "motion_evidence": mo, "axis": axis, "reason": "read from the source"})
				items = append(items, string(b))
			}
			msg["content"] = "Here are the findings for " + kind + ":\n{\"items\": [" + strings.Join(items, ",\n") + "]}"
		} else if strings.HasPrefix(user, "The biomes:") {
			// WC002's classify and extract: a reply neither can read
			// leaves WC002 unjudged.
			kind = "extract"
			msg["content"] = "The biomes are spread over the island."
		} else if !text {
			// The looking side's calls carry frames (content parts): a
			// reply no reader accepts leaves their halves unjudged.
			kind = "look"
			msg["content"] = "I cannot tell from these frames."
		} else {
			msg["tool_calls"] = []any{map[string]any{"id": "call_final", "type": "function", "function": map[string]any{"name": "final_answer",
				"arguments": `{"found": false, "evidence": "", "lines": [], "explanation": "no code builds it"}`}}}
			finish = "tool_calls"
		}
		p.mu.Lock()
		p.calls[kind]++
		p.mu.Unlock()
		w.Header().Set("Content-Type", "application/json")
		b, _ := json.Marshal(map[string]any{"id": "chatcmpl-judge", "object": "chat.completion", "created": 1760000000, "model": "judge-model-2025-06-01",
			"choices": []any{map[string]any{"index": 0, "message": msg, "logprobs": nil, "finish_reason": finish}},
			"usage":   map[string]any{"prompt_tokens": 2500, "completion_tokens": 120, "total_tokens": 2620}})
		_, _ = w.Write(b)
	}))
	t.Cleanup(srv.Close)
	return srv
}

func judgeModelsFile(t *testing.T, url string) string {
	t.Helper()
	role := "    provider: openai\n    model: judge-model\n    max_retries: 0\n    base_url: " + url + "/v1\n    key_env: WP_TEST_JUDGE_KEY\n"
	path := filepath.Join(t.TempDir(), "models.yaml")
	require.NoError(t, os.WriteFile(path, []byte("allow_unpriced: true\nroles:\n  code_probe:\n"+role+"  evidence_agent:\n"+role+"  blind_identifier:\n"+role+"  visual_judge:\n"+role+"  extract:\n"+role), 0o644))
	return path
}

// TestJudgeWithModels judges the small isle in real Chromium with --models
// pointing at an httptest provider: the probe ran once per test and biome
// (22 calls), a quote that ran earns its code half, a quote of the
// disabled volcano builder is source text but earns nothing and is listed
// as refused, and the score stays open while sight halves are unjudged.
func TestJudgeWithModels(t *testing.T) {
	p := &judgeProvider{calls: map[string]int{}}
	srv := p.serve(t)
	t.Setenv("WP_TEST_JUDGE_KEY", "sk-judge-test")
	out := t.TempDir()
	isle := filepath.Join("..", "worldjudge", "capture", "testdata", "isle", "world.html")
	code, stdout, errOut := execute(t, "judge", "--rubric", filepath.Join("..", "..", "suites", "worldbench", "island"), "--models", judgeModelsFile(t, srv.URL),
		"--out", out, "--horizon", "60", "--samples", "4", "--timeout", "5s", "--jobs", "1", "--viewport", "480x300", isle)
	require.Equal(t, ExitOK, code, "stdout %s\nstderr %s", stdout, errOut)

	probes := 0
	for k, n := range p.calls {
		if k != "agent" && k != "look" && k != "extract" {
			require.Equal(t, 1, n, k)
			probes++
		}
	}
	require.Equal(t, 22, probes, "WC001, WC003 × 10 biomes, WC004 × 10 biomes, WC005: %v", p.calls)
	require.Equal(t, 2, p.calls["extract"], "WC002's classify and extract")

	b, err := os.ReadFile(filepath.Join(out, "isle", "judge.json"))
	require.NoError(t, err)
	var j struct {
		Mode  string `json:"mode"`
		Tests []struct {
			ID    string `json:"id"`
			Items []struct {
				ID     string `json:"id"`
				Halves []struct {
					Half     string   `json:"half"`
					Status   string   `json:"status"`
					Earned   *float64 `json:"earned"`
					Evidence []struct {
						Kind    string                   `json:"kind"`
						Refused string                   `json:"refused"`
						Ran     *bool                    `json:"ran"`
						Lines   []struct{ From, To int } `json:"html_lines"`
						Verdict struct{ How string }     `json:"verdict"`
					} `json:"evidence"`
					Hunt *struct{ Steps int } `json:"hunt"`
				} `json:"halves"`
			} `json:"items"`
		} `json:"tests"`
		RefusedQuotes []struct {
			Item, Refused, Quote string
		} `json:"refused_quotes"`
		Score struct {
			Earned         *float64 `json:"earned"`
			Judged         float64  `json:"judged"`
			EarnedOfJudged float64  `json:"earned_of_judged"`
		} `json:"score"`
	}
	require.NoError(t, json.Unmarshal(b, &j))
	require.Equal(t, "models", j.Mode)
	code1 := map[string]string{}
	hunts := 0
	for _, tr := range j.Tests {
		for _, it := range tr.Items {
			for _, h := range it.Halves {
				if h.Hunt != nil {
					hunts++
				}
				if h.Half != "code" {
					continue
				}
				s := h.Status
				if h.Earned != nil {
					s += fmt.Sprintf(" %g", *h.Earned)
				}
				for _, ev := range h.Evidence {
					ran := "?"
					if ev.Ran != nil {
						ran = fmt.Sprint(*ev.Ran)
					}
					s += fmt.Sprintf(" [%s %s %s ran=%s lines=%v]", ev.Kind, ev.Verdict.How, ev.Refused, ran, ev.Lines)
				}
				code1[tr.ID+"/"+it.ID] = s
			}
		}
	}
	require.Equal(t, "pass 1 [look whole  ran=true lines=[{34 34}]]", code1["WC001/cube_primitive"])
	require.Equal(t, "fail 0 [look whole not_run ran=false lines=[{51 51}]]", code1["WC001/water_bed"])
	require.Equal(t, "pass [look whole  ran=true lines=[{62 62}]] [motion whole  ran=true lines=[{76 76}]]", code1["WC005/night_dimming"])
	require.Equal(t, "fail", code1["WC005/moon"])
	require.Equal(t, "fail", code1["WC003/high_relief_peaks"])
	for k, s := range code1 {
		require.NotEqual(t, "unjudged", s, k)
	}
	require.Len(t, j.RefusedQuotes, 1)
	require.Equal(t, "water_bed", j.RefusedQuotes[0].Item)
	require.Equal(t, "not_run", j.RefusedQuotes[0].Refused)
	require.Equal(t, hunts, p.calls["agent"], "one evidence agent call per hunt: it answered at once")
	require.Positive(t, p.calls["look"], "the looking side asked its models too")
	require.Nil(t, j.Score.Earned, "sight halves are unjudged: the score stays open")
	t.Log(stdout)
	require.Contains(t, stdout, "isle: complete")
}

// TestJudgeModelsUsage: without --offline a models file is needed, both
// together are refused, and a role without its key says which variable.
func TestJudgeModelsUsage(t *testing.T) {
	rub := filepath.Join("..", "..", "suites", "worldbench", "island")
	world := filepath.Join("testdata", "judge", "notaworld.html")
	code, _, errOut := execute(t, "judge", "--rubric", rub, world)
	require.Equal(t, ExitUsage, code)
	require.Contains(t, errOut, "judge needs --models FILE")
	mf := judgeModelsFile(t, "http://127.0.0.1:1")
	code, _, errOut = execute(t, "judge", "--rubric", rub, "--offline", "--models", mf, world)
	require.Equal(t, ExitUsage, code)
	require.Contains(t, errOut, "not both")
	t.Setenv("WP_TEST_JUDGE_KEY", "")
	code, _, errOut = execute(t, "judge", "--rubric", rub, "--models", mf, world)
	require.Equal(t, ExitUsage, code)
	require.Contains(t, errOut, "the code_probe role's model openai/judge-model needs an API key in $WP_TEST_JUDGE_KEY, which is not set")
}

// TestWorldRolesNavigator: the navigator is optional — left out of the
// models file with its default model's key unset, the judge goes on
// without it; configured in the file, it must work: its key unset is a
// usage error naming the file and the role, and with the key it is used.
func TestWorldRolesNavigator(t *testing.T) {
	ctx := context.Background()
	t.Setenv("WP_TEST_JUDGE_KEY", "sk-judge-test")
	t.Setenv("OPENAI_API_KEY", "")
	t.Setenv("WP_TEST_NAV_KEY", "")
	base := judgeModelsFile(t, "http://127.0.0.1:1")
	b, err := os.ReadFile(base)
	require.NoError(t, err)
	withNavigator := filepath.Join(t.TempDir(), "models.yaml")
	require.NoError(t, os.WriteFile(withNavigator, append(b, []byte("  navigator:\n    provider: openai\n    model: nav-model\n    base_url: http://127.0.0.1:1/v1\n    key_env: WP_TEST_NAV_KEY\n")...), 0o644))

	reg, err := llm.Load(base, os.Getenv)
	require.NoError(t, err)
	_, navigator, err := worldRoles(ctx, reg, base)
	require.NoError(t, err)
	require.Nil(t, navigator, "the default navigator has no key: left out")

	reg, err = llm.Load(withNavigator, os.Getenv)
	require.NoError(t, err)
	_, navigator, err = worldRoles(ctx, reg, withNavigator)
	require.Nil(t, navigator)
	require.Equal(t, ExitUsage, exitCodeOf(ctx, err))
	require.ErrorContains(t, err, "--models "+withNavigator+": ")
	require.ErrorContains(t, err, "WP_TEST_NAV_KEY")
	require.ErrorContains(t, err, "navigator")

	t.Setenv("WP_TEST_NAV_KEY", "sk-nav-test")
	reg, err = llm.Load(withNavigator, os.Getenv)
	require.NoError(t, err)
	_, navigator, err = worldRoles(ctx, reg, withNavigator)
	require.NoError(t, err)
	require.NotNil(t, navigator)
}
