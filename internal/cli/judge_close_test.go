package cli

import (
	"bytes"
	"encoding/base64"
	"encoding/json"
	"fmt"
	"image/jpeg"
	"io"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/worldprobe/worldprobe/internal/worldjudge/look"
	"github.com/worldprobe/worldprobe/internal/worldjudge/probe"
)

// closingProvider answers every role of 'judge --models' as OpenAI's chat
// completions API does, by the request's system prompt, for the three
// islets of testdata/judge/placed: blind identification looks at each
// frame's pixels (mostly red: the volcano, mostly yellow: the desert,
// else the island); the visual judge sees a few volcano and desert items
// (one of them only in the overview, which cannot count); the bug-hunt's
// first vote on orbit_top flags floating blocks and the two votes after it
// do not; the code probe quotes a few lines (a quote with its whitespace
// changed among them); classify finds the volcano, the desert and the
// jungle the frames never show (its quote with changed whitespace), and
// extract makes up a desert–jungle border and an ocean; the evidence
// agent finds nothing. It keeps each evidence agent request.
type closingProvider struct {
	t      *testing.T
	mu     sync.Mutex
	calls  map[string]int
	agents []string
}

func (p *closingProvider) serve() *httptest.Server {
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		raw, _ := io.ReadAll(r.Body)
		var body struct {
			Messages []struct {
				Role    string          `json:"role"`
				Content json.RawMessage `json:"content"`
			} `json:"messages"`
			Temperature *float64 `json:"temperature"`
		}
		if err := json.Unmarshal(raw, &body); err != nil || len(body.Messages) < 2 {
			http.Error(w, `{"error":{"message":"bad request","type":"invalid_request_error"}}`, http.StatusBadRequest)
			return
		}
		var system string
		_ = json.Unmarshal(body.Messages[0].Content, &system)
		var user string
		var parts []struct {
			Type     string `json:"type"`
			Text     string `json:"text"`
			ImageURL struct {
				URL string `json:"url"`
			} `json:"image_url"`
		}
		if json.Unmarshal(body.Messages[1].Content, &user) != nil {
			_ = json.Unmarshal(body.Messages[1].Content, &parts)
		}
		kind, content, tool, args := "", "", "", ""
		switch {
		case system == probe.ProbePrompt:
			kind = "probe"
			content = p.probe(user)
		case system == probe.ClassifyPrompt:
			kind = "classify"
			// JSON after a sentence, as models often answer.
			content = "I traced each biome to the code that builds it.\n\n" + `{"biomes": [
 {"id": "volcano", "present": true, "placement_code": "function buildVolcano() { placeBiome(14, 0, 3, 0xff2200); }", "elevation_code": "", "reason": "a red islet three cubes high"},
 {"id": "desert", "present": true, "placement_code": "function buildDesert() { placeBiome(-14, 0, 0, 0xffcc00); }", "elevation_code": "", "reason": "a flat yellow islet"},
 {"id": "jungle", "present": true, "placement_code": "function buildJungle() {\n  placeBiome(0,14,1,0x118811);\n}", "elevation_code": "", "reason": "a green islet"},
 {"id": "mountains", "present": false, "placement_code": "", "elevation_code": "", "reason": "not built"},
 {"id": "forest", "present": false, "placement_code": "", "elevation_code": "", "reason": "not built"},
 {"id": "highlands", "present": false, "placement_code": "", "elevation_code": "", "reason": "not built"},
 {"id": "swamp", "present": false, "placement_code": "", "elevation_code": "", "reason": "not built"},
 {"id": "grove", "present": false, "placement_code": "", "elevation_code": "", "reason": "not built"},
 {"id": "grassland", "present": false, "placement_code": "", "elevation_code": "", "reason": "not built"},
 {"id": "delta", "present": false, "placement_code": "", "elevation_code": "", "reason": "not built"}]}`
		case system == probe.ExtractPrompt:
			kind = "extract"
			tool, args = "report_map", `{"nodes": [{"id": "volcano", "neighbours": ["ocean"]}, {"id": "desert", "neighbours": ["jungle"]}, {"id": "jungle", "neighbours": []}], "elevation_order": ["volcano", "jungle", "desert"]}`
		case system == probe.AgentPrompt:
			kind = "agent"
			p.mu.Lock()
			p.agents = append(p.agents, user)
			p.mu.Unlock()
			tool, args = "final_answer", `{"found": false, "evidence": "", "lines": [], "explanation": "no code builds it"}`
		case system == look.BlindInstruction:
			kind = "blind"
			content = p.blind(parts)
		case system == look.VisualInstruction:
			kind = "visual"
			content = p.visual(parts)
		case system == look.BugHuntInstruction:
			kind = "bughunt"
			floating := len(parts) > 1 && parts[1].Text == "[orbit_top]" && body.Temperature != nil && *body.Temperature == 0
			content = fmt.Sprintf(`{"entities": ["island", "cubes"], "defects": {"floating_blocks": %t, "hollow_mass": false, "non_voxel": false, "water_void": false}}`, floating)
		default:
			p.t.Errorf("unexpected call: %.80q", system)
			http.Error(w, `{"error":{"message":"unexpected","type":"invalid_request_error"}}`, http.StatusBadRequest)
			return
		}
		p.mu.Lock()
		p.calls[kind]++
		p.mu.Unlock()
		msg := map[string]any{"role": "assistant", "content": nil, "refusal": nil}
		finish := "stop"
		if content != "" {
			msg["content"] = content
		}
		if tool != "" {
			msg["tool_calls"] = []any{map[string]any{"id": "call_" + kind, "type": "function", "function": map[string]any{"name": tool, "arguments": args}}}
			finish = "tool_calls"
		}
		w.Header().Set("Content-Type", "application/json")
		b, _ := json.Marshal(map[string]any{"id": "chatcmpl-close", "object": "chat.completion", "created": 1760000000, "model": "judge-model-2025-06-01",
			"choices": []any{map[string]any{"index": 0, "message": msg, "logprobs": nil, "finish_reason": finish}},
			"usage":   map[string]any{"prompt_tokens": 2500, "completion_tokens": 120, "total_tokens": 2620}})
		_, _ = w.Write(b)
	}))
	p.t.Cleanup(srv.Close)
	return srv
}

// probe answers a code probe call: a few items found, the rest not.
func (p *closingProvider) probe(user string) string {
	var g struct {
		Test  string `json:"test"`
		Biome string `json:"biome"`
		Items []struct {
			ID string `json:"id"`
		} `json:"items"`
	}
	head, _, _ := strings.Cut(user[strings.Index(user, "\n")+1:], "\n\nThe source")
	require.NoError(p.t, json.Unmarshal([]byte(head), &g))
	var items []string
	for _, it := range g.Items {
		ev, mo := "", ""
		switch g.Test + "/" + it.ID {
		case "WC001/cube_primitive":
			ev = "const box = new THREE.BoxGeometry(1, 1, 1);"
		case "WC001/bulk_placement":
			ev = "for (let x = -4; x < 4; x++) for (let z = -4; z < 4; z++) for (let y = 0; y <= h; y++) {"
		case "WC003/tall_cone":
			ev = "function buildVolcano() { placeBiome(14, 0, 3, 0xff2200); }"
		case "WC003/flat_arid_basin":
			ev = "function buildDesert() {   placeBiome( -14, 0, 0, 0xffcc00 ); }"
		case "WC004/glowing_crater_mouth":
			ev = "function buildVolcano() { placeBiome(14, 0, 3, 0xff2200); }" // no motion quote
		case "WC003/packed_tall_canopy":
			ev = "function buildJungle() { placeBiome(0, 14, 1, 0x118811); }"
		case "WC005/night_dimming":
			ev, mo = "const ambient = new THREE.AmbientLight(0xffffff, 0.3);", "ambient.intensity = 0.3 + 0.7 * light;"
		}
		// The axis the quoted code moves the item along: every WC005
		// cycle is cyclic; nothing else here moves.
		axis := "n/a"
		if g.Test == "WC005" {
			axis = "cyclic"
		}
		b, _ := json.Marshal(map[string]any{"id": it.ID, "found": ev != "", "probability": 0.9, "evidence": ev, "motion_evidence": mo, "axis": axis, "reason": "read from the source"})
		items = append(items, string(b))
	}
	return "```json\n{\"items\": [" + strings.Join(items, ",\n") + "]}\n```"
}

// blind names each frame by its pixels.
func (p *closingProvider) blind(parts []struct {
	Type     string `json:"type"`
	Text     string `json:"text"`
	ImageURL struct {
		URL string `json:"url"`
	} `json:"image_url"`
}) string {
	answers := map[string]string{}
	label := ""
	for _, pt := range parts {
		switch pt.Type {
		case "text":
			if strings.HasPrefix(pt.Text, "[frame_") {
				label = strings.Trim(pt.Text, "[]")
			}
		case "image_url":
			data, err := base64.StdEncoding.DecodeString(strings.TrimPrefix(pt.ImageURL.URL, "data:image/jpeg;base64,"))
			require.NoError(p.t, err)
			img, err := jpeg.Decode(bytes.NewReader(data))
			require.NoError(p.t, err)
			red, yellow, lit := 0, 0, 0
			bd := img.Bounds()
			for y := bd.Min.Y; y < bd.Max.Y; y++ {
				for x := bd.Min.X; x < bd.Max.X; x++ {
					r, g, b, _ := img.At(x, y).RGBA()
					r, g, b = r>>8, g>>8, b>>8
					if r+g+b < 60 {
						continue
					}
					lit++
					switch {
					case r > 2*g && r > 2*b:
						red++
					case r > 2*b && g > 2*b:
						yellow++
					}
				}
			}
			answers[label] = "island"
			switch {
			case lit == 0:
				answers[label] = "none"
			case red*2 > lit:
				answers[label] = "volcano"
			case yellow*2 > lit:
				answers[label] = "desert"
			}
		}
	}
	b, _ := json.Marshal(answers)
	return "Identifications:\n" + string(b)
}

// visual answers a visual judge call: what the pictures show, by the
// labels it was shown.
func (p *closingProvider) visual(parts []struct {
	Type     string `json:"type"`
	Text     string `json:"text"`
	ImageURL struct {
		URL string `json:"url"`
	} `json:"image_url"`
}) string {
	shown := map[string]bool{}
	for _, pt := range parts {
		if pt.Type == "text" && strings.HasPrefix(pt.Text, "[") {
			shown[strings.Trim(pt.Text, "[]")] = true
		}
	}
	seen := map[string][]string{}
	switch {
	case shown["biome_volcano"]:
		seen = map[string][]string{"WC003.tall_cone": {"biome_volcano"}, "WC003.glowing_crater": {"biome_volcano"}, "WC003.lava_flows_on_volcanic_ground": {"overview"}, "WC004.glowing_crater_mouth": {"biome_volcano"}}
	case shown["biome_desert"]:
		seen = map[string][]string{"WC003.flat_arid_basin": {"biome_desert"}, "WC004.flat_basin_horizon": {"biome_desert"}}
	case shown["time_00"]:
		seen = map[string][]string{"sky_or_fog_day_cycle": {"time_00", "time_01"}}
	}
	out := map[string]any{}
	section := ""
	for _, line := range strings.Split(parts[len(parts)-1].Text, "\n") {
		switch {
		case strings.HasPrefix(line, `"items"`), strings.HasPrefix(line, `"leaks"`), strings.HasPrefix(line, `"motion"`), strings.HasPrefix(line, `"questions"`):
			section = strings.Trim(strings.Fields(line)[0], `"`)
		case strings.HasPrefix(line, "- "):
			id, _, _ := strings.Cut(strings.TrimPrefix(line, "- "), ":")
			switch section {
			case "items", "leaks":
				fs := seen[id]
				if section == "leaks" {
					fs = nil
				}
				l, _ := out[section].([]any)
				out[section] = append(l, map[string]any{"id": id, "visible": fs != nil, "frames": append([]string{}, fs...), "seen": map[bool]string{true: "cubes of that colour", false: ""}[fs != nil]})
			case "motion":
				l, _ := out[section].([]any)
				out[section] = append(l, map[string]any{"id": id, "moving": false, "axis": "still", "frames": []string{}})
			case "questions":
				q, _ := out[section].(map[string]any)
				if q == nil {
					q = map[string]any{}
				}
				q[id] = false
				out[section] = q
			}
		}
	}
	b, _ := json.Marshal(out)
	return string(b)
}

// TestJudgeClosesWithModels judges three islets in real Chromium with
// every role answered by an httptest provider, and gets a closed score:
// WC002 from blind identification, classify and extract, a lost point of
// every class, the evidence agent with WC002's placement code as its
// location hint.
func TestJudgeClosesWithModels(t *testing.T) {
	p := &closingProvider{t: t, calls: map[string]int{}}
	srv := p.serve()
	t.Setenv("WP_TEST_JUDGE_KEY", "sk-judge-test")
	t.Setenv("OPENAI_API_KEY", "") // no navigator: the legend alone frames biomes
	t.Setenv("ANTHROPIC_API_KEY", "")
	out := t.TempDir()
	world := filepath.Join("testdata", "judge", "placed", "world.html")
	code, stdout, errOut := execute(t, "judge", "--rubric", filepath.Join("..", "..", "suites", "worldbench", "island"), "--models", judgeModelsFile(t, srv.URL),
		"--out", out, "--horizon", "20", "--samples", "4", "--timeout", "5s", "--jobs", "1", "--viewport", "480x300", world)
	require.Equal(t, ExitOK, code, "stdout %s\nstderr %s", stdout, errOut)
	t.Log(stdout)

	b, err := os.ReadFile(filepath.Join(out, "placed", "judge.json"))
	require.NoError(t, err)
	var j struct {
		Tests []struct {
			ID     string   `json:"id"`
			Earned *float64 `json:"earned"`
			Parts  []struct {
				ID, Biome, Status, Reason string
			} `json:"parts"`
		} `json:"tests"`
		Score struct {
			Earned   *float64 `json:"earned"`
			Unjudged float64  `json:"unjudged"`
		} `json:"score"`
		Lost struct {
			E1, E2, E3, E4, Penalties, Gates, Open, Other float64
			Items                                         []struct{ Test, Biome, ID, Class string }
		} `json:"lost"`
		NotBuilt  []string `json:"not_built"`
		Placement struct {
			Map struct {
				Ignored []string `json:"ignored"`
			} `json:"map"`
		} `json:"placement"`
	}
	require.NoError(t, json.Unmarshal(b, &j))
	require.Equal(t, map[string]int{"probe": 22, "classify": 1, "extract": 1, "blind": 1, "visual": 3, "bughunt": 7 + 2, "agent": 3}, p.calls,
		"visual: volcano, desert, the day cycle; the bug-hunt votes twice more on orbit_top only")

	earned := map[string]float64{}
	for _, tr := range j.Tests {
		require.NotNil(t, tr.Earned, "%s is open", tr.ID)
		earned[tr.ID] = *tr.Earned
	}
	// WC001: 0.9 + 0.9 (two code items at probability 0.9) + 20 (one flag
	// on orbit_top, outvoted); WC002: 3 covered + 2 placed; WC003: volcano
	// 0.84 · 2 + 0.84, desert 0.72 · 2, jungle 0.56 (half points rounded);
	// WC004: 0.25 · 2 + 0.5; WC005: 2 (night dimming) + 1 (the sky's sight).
	require.Equal(t, map[string]float64{"WC001": 21.8, "WC002": 5, "WC003": 4.52, "WC004": 1, "WC005": 3}, earned)
	require.NotNil(t, j.Score.Earned, "the score is closed")
	require.Equal(t, 35.32, *j.Score.Earned)
	require.Zero(t, j.Score.Unjudged)

	wc2 := map[string]string{}
	for _, tr := range j.Tests {
		if tr.ID == "WC002" {
			require.Len(t, tr.Parts, 20)
			for _, pt := range tr.Parts {
				wc2[pt.Biome+"/"+pt.ID] = pt.Status
			}
		}
	}
	require.Equal(t, "pass", wc2["volcano/covered"], "blind-confirmed")
	require.Equal(t, "pass", wc2["desert/covered"], "blind-confirmed")
	require.Equal(t, "pass", wc2["jungle/covered"], "the frames never show it: classify's quote (whitespace changed) ran")
	require.Equal(t, "pass", wc2["volcano/placed"])
	require.Equal(t, "fail", wc2["desert/placed"], "extract's made-up border with the jungle breaks must_not_connect")
	require.Equal(t, "pass", wc2["jungle/placed"], "its rules name only uncovered biomes: skipped")
	require.Equal(t, "fail", wc2["mountains/covered"])
	require.Equal(t, "fail", wc2["mountains/placed"])
	require.Equal(t, []string{"ocean"}, j.Placement.Map.Ignored)

	classes := map[string]string{}
	for _, li := range j.Lost.Items {
		if li.Class != "E1" {
			classes[li.Test+" "+li.Biome+"/"+li.ID] = li.Class
		}
	}
	require.Equal(t, map[string]string{
		"WC003 jungle/packed_tall_canopy":    "E2", // code, never seen
		"WC003 volcano/glowing_crater":       "E3", // seen, no code (the agent found none either)
		"WC004 desert/flat_basin_horizon":    "E3",
		"WC004 volcano/glowing_crater_mouth": "E4", // both, but no motion quote and seen still
	}, classes)
	require.Equal(t, "E1", lostClass(j.Lost.Items, "WC003", "volcano", "lava_flows_on_volcanic_ground"), "seen only in the overview, which cannot count")
	require.Equal(t, []float64{192.92, 0.56, 1.34, 0.5, 0, 0, 0, 50.2}, []float64{j.Lost.E1, j.Lost.E2, j.Lost.E3, j.Lost.E4, j.Lost.Penalties, j.Lost.Gates, j.Lost.Open, j.Lost.Other})

	// The evidence agent gets WC002's placement code as its location hint.
	require.Len(t, p.agents, 3)
	hints := map[string]string{}
	for _, a := range p.agents {
		var in probe.HuntInput
		require.NoError(t, json.Unmarshal([]byte(a[strings.Index(a, "{"):]), &in))
		hints[in.Test+" "+in.Item.ID] = in.LocationHint
	}
	require.Equal(t, map[string]string{
		"WC003 glowing_crater":       "the code that places this biome (HTML lines 39):\nfunction buildVolcano() { placeBiome(14, 0, 3, 0xff2200); }",
		"WC004 flat_basin_horizon":   "the code that places this biome (HTML lines 40):\nfunction buildDesert() { placeBiome(-14, 0, 0, 0xffcc00); }",
		"WC005 sky_or_fog_day_cycle": "",
	}, hints)
	for _, nb := range j.NotBuilt {
		require.NotContains(t, nb, "WC002")
	}
}

func lostClass(items []struct{ Test, Biome, ID, Class string }, test, biome, id string) string {
	for _, li := range items {
		if li.Test == test && li.Biome == biome && li.ID == id {
			return li.Class
		}
	}
	return ""
}
