package worldjudge

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
	"github.com/worldprobe/worldprobe/internal/worldjudge/capture"
	"github.com/worldprobe/worldprobe/internal/worldjudge/coverage"
	"github.com/worldprobe/worldprobe/internal/worldjudge/probe"
	"github.com/worldprobe/worldprobe/internal/worldjudge/quote"
	"github.com/worldprobe/worldprobe/internal/worldjudge/rubric"
)

// isleHTML is the capture package's small world.
func isleHTML(t *testing.T) string {
	t.Helper()
	b, err := os.ReadFile(filepath.Join("capture", "testdata", "isle", "world.html"))
	require.NoError(t, err)
	return string(b)
}

// isleCoverage: every script line ran but buildVolcano's (49–53) and its
// call behind if (false) (55).
func isleCoverage(html string) *coverage.Report {
	n := strings.Count(html, "\n") + 1
	r := &coverage.Report{Lines: make([]coverage.State, n+1)}
	for l := 17; l <= 83; l++ {
		r.Lines[l] = coverage.Ran
		if (l >= 49 && l <= 53) || l == 55 {
			r.Lines[l] = coverage.NotRun
		}
	}
	return r
}

// routedOpenAI answers as OpenAI does, choosing each reply by what the
// request holds (the probe's calls run in parallel): route returns the
// reply's message (content or tool_calls).
type routedOpenAI struct {
	t     *testing.T
	srv   *httptest.Server
	mu    sync.Mutex
	calls []string
	route func(system, user string, tools int) map[string]any
}

func newRouted(t *testing.T, route func(system, user string, tools int) map[string]any) *routedOpenAI {
	f := &routedOpenAI{t: t, route: route}
	f.srv = httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		raw, _ := io.ReadAll(r.Body)
		var body struct {
			Messages []struct {
				Role    string `json:"role"`
				Content any    `json:"content"`
			} `json:"messages"`
		}
		require.NoError(t, json.Unmarshal(raw, &body))
		system, _ := body.Messages[0].Content.(string)
		user, _ := body.Messages[1].Content.(string)
		tools := 0
		for _, m := range body.Messages {
			if m.Role == "tool" {
				tools++
			}
		}
		msg := route(system, user, tools)
		f.mu.Lock()
		f.calls = append(f.calls, fmt.Sprintf("%.20s|%d", user, tools))
		n := len(f.calls)
		f.mu.Unlock()
		if msg == nil {
			w.WriteHeader(http.StatusBadRequest)
			_, _ = w.Write([]byte(`{"error":{"message":"unexpected request","type":"invalid_request_error"}}`))
			t.Errorf("unexpected request: %.200s", user)
			return
		}
		msg["role"] = "assistant"
		finish := "stop"
		if msg["tool_calls"] != nil {
			finish = "tool_calls"
		}
		w.Header().Set("Content-Type", "application/json")
		b, _ := json.Marshal(map[string]any{"id": fmt.Sprintf("chatcmpl-%d", n), "object": "chat.completion", "created": 1760000000, "model": "judge-model-2025-06-01",
			"choices": []any{map[string]any{"index": 0, "message": msg, "logprobs": nil, "finish_reason": finish}},
			"usage":   map[string]any{"prompt_tokens": 3000, "completion_tokens": 200, "total_tokens": 3200}})
		_, _ = w.Write(b)
	}))
	t.Cleanup(f.srv.Close)
	return f
}

func (f *routedOpenAI) registry(t *testing.T) *llm.Registry {
	t.Helper()
	role := "    provider: openai\n    model: judge-model\n    max_retries: 0\n    base_url: " + f.srv.URL + "/v1\n    key_env: TEST_JUDGE_KEY\n"
	cfg, err := llm.ParseConfig([]byte("allow_unpriced: true\nroles:\n  code_probe:\n" + role + "  evidence_agent:\n" + role))
	require.NoError(t, err)
	reg, err := llm.New(cfg, func(k string) string { return map[string]string{"TEST_JUDGE_KEY": "sk-judge-test"}[k] })
	require.NoError(t, err)
	return reg
}

func toolCall(name, args string) map[string]any {
	return map[string]any{"content": nil, "tool_calls": []any{map[string]any{"id": "call_" + name, "type": "function", "function": map[string]any{"name": name, "arguments": args}}}}
}

// isleRoute answers the probe's three calls and the evidence agent's two
// for the tiny rubric, as models write: prose around JSON, tool calls.
func isleRoute(system, user string, tools int) map[string]any {
	switch {
	case system == probe.AgentPrompt && tools == 0:
		return toolCall("grep", `{"pattern": "intensity =", "context": 0}`)
	case system == probe.AgentPrompt:
		return toolCall("final_answer", `{"found": true, "evidence": "ambient.intensity = 0.05 + 0.5 * light;", "lines": [76], "explanation": "ambient light follows the sun's height"}`)
	case strings.Contains(user, "The items (WC001)"):
		return map[string]any{"content": "Here is my assessment.\n" + `{"items": [
{"id": "cube_primitive", "found": true, "probability": 0.8, "evidence": "const box = new THREE.BoxGeometry(1, 1, 1);", "motion_evidence": "", "axis": "n/a", "reason": "a unit box geometry"},
{"id": "water_bed", "found": true, "probability": 0.9, "evidence": "lava.position.set(2.5, 1, 2.5);", "motion_evidence": "", "axis": "n/a", "reason": "a block under the water"}]}`}
	case strings.Contains(user, "The items (WC004 delta)"):
		return toolCall("report_items", `{"items": [{"id": "mill_spin", "found": true, "probability": 0.9, "evidence": "mill.position.set(1, 2.5, 1);", "motion_evidence": "mill.rotation.y += dt * 3;", "axis": "pulsing", "reason": "the mill turns each frame"}]}`)
	case strings.Contains(user, "The items (WC005)"):
		return map[string]any{"content": "```json\n" + `{"items": [
{"id": "night_dimming", "found": false, "probability": 0.2, "evidence": "", "motion_evidence": "", "axis": "n/a", "reason": "I did not find it"},
{"id": "moon", "found": true, "probability": 0.7, "evidence": "const moon = new THREE.Mesh(moonGeo, moonMat);", "motion_evidence": "moon.position.set(-sun.position.x, -sun.position.y, 0);", "axis": "cyclic", "reason": "a moon opposite the sun"},
{"id": "stars_or_atmosphere_dome", "found": true, "probability": 0.6, "evidence": "const sun = new THREE.DirectionalLight(0xffffff, 1);", "motion_evidence": "", "axis": "n/a", "reason": "a light in the sky"}]}` + "\n```"}
	}
	return nil
}

// readRubric: WC001 (two code items), WC004 (a moving delta entity with
// four quarter halves), WC005 (night dimming judged by code and pixels,
// the moon by code).
func readRubric(t *testing.T) *rubric.Rubric {
	return &rubric.Rubric{Name: "tiny", TotalPoints: 11, Pixels: island(t).Pixels, Quote: rubric.Quote{MinChars: 8, MinMatchShare: 0.8, MinPrefixShare: 0.85},
		Biomes: []rubric.Biome{{ID: "delta", Label: "Coastal Delta / Ocean"}},
		Tests: []rubric.Test{
			{ID: "WC001", Title: "Voxel island", Points: 3, Parts: []rubric.Part{{ID: "source_judge", Points: 3}}, Items: []rubric.Item{
				{ID: "cube_primitive", Points: 2, Halves: []string{rubric.HalfCode}},
				{ID: "water_bed", Points: 1, Halves: []string{rubric.HalfCode}}}},
			{ID: "WC004", Title: "Physics", Points: 4, Items: []rubric.Item{
				{ID: "mill_spin", Biome: "delta", Points: 4, Kind: "terrain", Motion: true, Axis: "pulsing", Halves: []string{rubric.HalfCode, rubric.HalfSight, rubric.HalfCodeMotion, rubric.HalfSightMotion}}}},
			{ID: "WC005", Title: "Temporal cycles", Points: 4, Items: []rubric.Item{
				{ID: "night_dimming", Points: 2, Clock: "day", Sight: "pixel", Measure: "night_dimming", Halves: []string{rubric.HalfCode, rubric.HalfSight}},
				{ID: "moon", Points: 2, Clock: "day", Sight: "none", Halves: []string{rubric.HalfCode}}},
				Forbidden: []rubric.Forbidden{{ID: "stars_or_atmosphere_dome", Penalty: 2, Label: "Stars or a sky dome"}}},
		}}
}

// TestReadCodeGradesCodeHalves: the code probe, the quote checks, the
// coverage and the evidence agent give the code halves exact statuses and
// points; the score stays open while WC004's sight halves are unjudged.
func TestReadCodeGradesCodeHalves(t *testing.T) {
	r := readRubric(t)
	html := isleHTML(t)
	c := &capture.Capture{SHA256: "x", DayNight: &capture.DayNight{Day: "time_00", Night: "time_01", Gap: 170, Pinned: true}}
	for i, v := range []uint8{200, 30} {
		c.Views = append(c.Views, capture.WithRGB(capture.View{Name: []string{"time_00", "time_01"}[i], Kind: "time", Luma: float64(v)}, fill(grey3(v))))
	}
	rep := Grade(r, "isle/world.html", html, c)
	rep.Coverage = &CoverageSummary{Report: isleCoverage(html)}
	f := newRouted(t, isleRoute)
	require.NoError(t, ReadCode(context.Background(), rep, r, html, f.registry(t)))
	require.Len(t, f.calls, 5, "three probe calls, two evidence agent calls")
	require.Equal(t, "models", rep.Mode)

	got := map[string]string{}
	for _, tr := range rep.Tests {
		for _, it := range tr.Items {
			for _, h := range it.Halves {
				e := ""
				if h.Earned != nil {
					e = fmt.Sprintf(" %g", *h.Earned)
				}
				got[it.ID+"."+h.Half] = h.Status + e
			}
		}
	}
	require.Equal(t, map[string]string{
		"cube_primitive.code":    "pass 1.6",
		"water_bed.code":         "fail 0",
		"mill_spin.code":         "pass",
		"mill_spin.sight":        "unjudged",
		"mill_spin.code_motion":  "pass",
		"mill_spin.sight_motion": "unjudged",
		"night_dimming.code":     "pass",
		"night_dimming.sight":    "pass",
		"moon.code":              "fail",
	}, got)

	wc1, wc4, wc5 := rep.Tests[0], rep.Tests[1], rep.Tests[2]
	require.Equal(t, "look quote verified (whole) at HTML lines 34, ran (probability 0.8)", wc1.Items[0].Halves[0].Reason)
	require.Equal(t, "look quote is source text at HTML lines 51 that never ran: refused (probability 0.9)", wc1.Items[1].Halves[0].Reason)
	require.NotNil(t, wc1.Earned)
	require.Equal(t, 1.6, *wc1.Earned)
	require.Nil(t, wc4.Earned, "WC004's sight halves are unjudged")
	require.Equal(t, 2.0, wc4.Judged)
	require.Equal(t, 2.0, wc4.Unjudged)
	// A light offered as the forbidden stars or sky dome is source text
	// that ran, but builds neither: WC005's star-or-dome pattern refuses
	// it, so no leak is proven and the test waits for its sight half.
	require.Nil(t, wc5.Earned, "the forbidden item's sight half is unjudged")
	require.Equal(t, 2.0, wc5.EarnedOfJudged)
	require.Equal(t, "pass", wc5.Forbidden[0].Halves[0].Status)
	require.Equal(t, "no leak proven: the look quote refused: not_star_or_dome (the quote builds no stars, starfield, sky dome or atmosphere (no match of WC005's star-or-dome pattern))", wc5.Forbidden[0].Halves[0].Reason)
	nd := wc5.Items[0].Halves[0]
	require.NotNil(t, nd.Hunt)
	require.Equal(t, "look quote (evidence agent) verified (whole) at HTML lines 76, ran", nd.Reason)
	require.Len(t, nd.Hunt.Tools, 1)
	require.Equal(t, "75:   sun.intensity = 0.05 + 2.5 * light;\n76:   ambient.intensity = 0.05 + 0.5 * light;", nd.Hunt.Tools[0].Answer)
	require.Equal(t, "look quote refused: not_in_source; motion quote refused: not_in_source", wc5.Items[1].Halves[0].Reason)

	require.Nil(t, rep.Score.Earned)
	require.Equal(t, Tally{Judged: 9, EarnedOfJudged: 5.6, Unjudged: 2}, rep.Score.Tally)
	var refused []string
	for _, q := range rep.RefusedQuotes {
		refused = append(refused, q.Item+"."+q.Half+":"+q.Kind+":"+q.Refused)
	}
	require.Equal(t, []string{"water_bed.code:look:not_run", "stars_or_atmosphere_dome.code:look:not_star_or_dome", "moon.code:look:not_in_source", "moon.code:motion:not_in_source"}, refused)

	dir := t.TempDir()
	require.NoError(t, Write(dir, rep))
	page, err := os.ReadFile(filepath.Join(dir, "report.html"))
	require.NoError(t, err)
	require.Contains(t, string(page), "<td class=\"bad\">not_run</td><td><pre>lava.position.set(2.5, 1, 2.5);</pre></td><td>51–51 </td>")
	require.Contains(t, string(page), "evidence agent: 1 tool calls, 3 steps")
}

// TestAggregateMatchesGrade: summing again from the halves gives what
// Grade gave offline.
func TestAggregateMatchesGrade(t *testing.T) {
	r := island(t)
	c := &capture.Capture{SHA256: "x", DayNight: &capture.DayNight{Day: "time_00", Night: "time_01", Gap: 170, Pinned: true}}
	for i, v := range []uint8{200, 30} {
		c.Views = append(c.Views, capture.WithRGB(capture.View{Name: []string{"time_00", "time_01"}[i], Kind: "time", Luma: float64(v)}, fill(grey3(v))))
	}
	rep := Grade(r, "w.html", "", c)
	before, _ := json.Marshal(rep)
	Aggregate(r, rep)
	after, _ := json.Marshal(rep)
	require.JSONEq(t, string(before), string(after))
}

// TestNoReadingWithoutCoverage: with models but without the coverage the
// capture asked for, the probe is not asked and the code halves stay
// unjudged, saying why (a quote could not be checked against what ran).
func TestNoReadingWithoutCoverage(t *testing.T) {
	r := readRubric(t)
	c := &capture.Capture{SHA256: "x", DayNight: &capture.DayNight{Day: "time_00", Night: "time_01", Gap: 170, Pinned: true}}
	for i, v := range []uint8{200, 30} {
		c.Views = append(c.Views, capture.WithRGB(capture.View{Name: []string{"time_00", "time_01"}[i], Kind: "time", Luma: float64(v)}, fill(grey3(v))))
	}
	rep := Grade(r, "isle/world.html", isleHTML(t), c)
	f := newRouted(t, isleRoute)
	o := Options{Rubric: r, Models: f.registry(t)}
	o.Capture.Coverage = true
	require.NoError(t, readWithModels(context.Background(), rep, o, isleHTML(t)))
	require.Empty(t, f.calls)
	require.Equal(t, "models", rep.Mode)
	h := rep.Tests[0].Items[0].Halves[0]
	require.Equal(t, "unjudged", h.Status)
	require.Equal(t, "coverage was asked for but none was collected, so no quote can be checked against what ran", h.Reason)
}

// TestOneQuoteEarnsOnceInABiome: in WC004 the same code (WorldBench's
// evidence hash: comments dropped, white space runs collapsed) earns for
// the first item of a biome only; the same call spaced otherwise is other
// code to the hash; in WC003 the same code may earn for every item.
func TestOneQuoteEarnsOnceInABiome(t *testing.T) {
	items := []rubric.Item{
		{ID: "a", Biome: "delta", Points: 1, Halves: []string{rubric.HalfCode}},
		{ID: "b", Biome: "delta", Points: 1, Halves: []string{rubric.HalfCode}},
		{ID: "c", Biome: "delta", Points: 1, Halves: []string{rubric.HalfCode}},
	}
	r := &rubric.Rubric{Name: "tiny", TotalPoints: 6, Biomes: []rubric.Biome{{ID: "delta"}}, Tests: []rubric.Test{
		{ID: "WC003", Points: 3, Items: items}, {ID: "WC004", Points: 3, Items: items}}}
	rep := Grade(r, "w.html", "", &capture.Capture{})
	found := map[string]*probe.Finding{}
	for _, test := range []string{"WC003", "WC004"} {
		found[test+"/delta/a"] = &probe.Finding{ID: "a", Found: true, Look: &probe.Evidence{Kind: "look", Quote: "scene.add(mill); // the mill", OK: true, Verdict: quoteVerified()}}
		found[test+"/delta/b"] = &probe.Finding{ID: "b", Found: true, Look: &probe.Evidence{Kind: "look", Quote: "// add it\n  scene.add(mill);\n", OK: true, Verdict: quoteVerified()}}
		found[test+"/delta/c"] = &probe.Finding{ID: "c", Found: true, Look: &probe.Evidence{Kind: "look", Quote: "scene.add( mill );", OK: true, Verdict: quoteVerified()}}
	}
	ApplyFindings(rep, r, found)
	Aggregate(r, rep)
	got := []string{}
	for _, tr := range rep.Tests {
		for _, it := range tr.Items {
			got = append(got, tr.ID+"/"+it.ID+" "+it.Halves[0].Status)
		}
	}
	require.Equal(t, []string{"WC003/a pass", "WC003/b pass", "WC003/c pass", "WC004/a pass", "WC004/b fail", "WC004/c pass"}, got)
	require.Equal(t, "look quote refused: reused (evidence hash 49064728754f1ab3: the same code already earned for a)", rep.Tests[1].Items[1].Halves[0].Reason)
	require.Len(t, rep.RefusedQuotes, 1)
	require.Equal(t, 5.0, *rep.Score.Earned)
}

// TestHashOnlyForPassingVerdicts: WC004's motion verdict (C_M) takes its
// quote's hash only when it passes every other rule, so a motion quote
// refused for its axis does not keep a later item from earning with the
// same code; WC005's cycle (look and motion together) takes both hashes.
func TestHashOnlyForPassingVerdicts(t *testing.T) {
	r := &rubric.Rubric{Name: "tiny", TotalPoints: 8, Biomes: []rubric.Biome{{ID: "delta"}}, Tests: []rubric.Test{
		{ID: "WC004", Points: 4, Items: []rubric.Item{
			{ID: "snow", Biome: "delta", Points: 2, Motion: true, Axis: "falling", Halves: []string{rubric.HalfCode, rubric.HalfCodeMotion}},
			{ID: "rain", Biome: "delta", Points: 2, Motion: true, Axis: "falling", Halves: []string{rubric.HalfCode, rubric.HalfCodeMotion}}}},
		{ID: "WC005", Points: 4, Items: []rubric.Item{
			{ID: "sun_orbit", Points: 2, Clock: "day", Halves: []string{rubric.HalfCode}},
			{ID: "moon", Points: 2, Clock: "day", Halves: []string{rubric.HalfCode}}}},
	}}
	rep := Grade(r, "w.html", "", &capture.Capture{})
	ev := func(kind, q string) *probe.Evidence {
		return &probe.Evidence{Kind: kind, Quote: q, OK: true, Verdict: quoteVerified()}
	}
	refused := ev("motion", "drops.position.y -= dt;")
	refused.OK, refused.Refused, refused.Detail = false, probe.RefusedWrongAxis, `axis mismatch: the code probe says the quoted code moves it "up" (rising), expected falling`
	found := map[string]*probe.Finding{
		"WC004/delta/snow": {ID: "snow", Found: true, Look: ev("look", "const snow = new THREE.Points(g, m);"), Motion: refused},
		"WC004/delta/rain": {ID: "rain", Found: true, Look: ev("look", "const rain = new THREE.Points(g, m);"), Motion: ev("motion", "drops.position.y -= dt;")},
		"WC005//sun_orbit": {ID: "sun_orbit", Found: true, Look: ev("look", "const sun = new THREE.Mesh(g, m);"), Motion: ev("motion", "sun.position.set(Math.cos(a), Math.sin(a), 0);")},
		"WC005//moon":      {ID: "moon", Found: true, Look: ev("look", "const moon = new THREE.Mesh(g, m);"), Motion: ev("motion", "sun.position.set(Math.cos(a), Math.sin(a), 0);")},
	}
	ApplyFindings(rep, r, found)
	got := map[string]string{}
	for _, tr := range rep.Tests {
		for _, it := range tr.Items {
			for _, h := range it.Halves {
				got[it.ID+"."+h.Half] = h.Status + ": " + h.Reason
			}
		}
	}
	require.Equal(t, map[string]string{
		"snow.code":        "pass: look quote verified (whole) at HTML lines , coverage not collected",
		"snow.code_motion": `fail: motion quote refused: wrong_axis (axis mismatch: the code probe says the quoted code moves it "up" (rising), expected falling)`,
		"rain.code":        "pass: look quote verified (whole) at HTML lines , coverage not collected",
		"rain.code_motion": "pass: motion quote verified (whole) at HTML lines , coverage not collected",
		"sun_orbit.code":   "pass: look quote verified (whole) at HTML lines , coverage not collected; motion quote verified (whole) at HTML lines , coverage not collected",
		"moon.code":        "fail: look quote verified (whole) at HTML lines , coverage not collected; motion quote refused: reused (evidence hash " + probe.CodeHash("sun.position.set(Math.cos(a), Math.sin(a), 0);") + ": the same code already earned for sun_orbit)",
	}, got)
}

func quoteVerified() quote.Verdict { return quote.Verdict{Verified: true, How: "whole"} }

// TestProbeRequestsOfTheCorpusWorlds: for each corpus world (read in
// place; skipped without it) the island rubric makes 22 probe calls
// asking about 194 items and 79 forbidden items, each call carrying the
// world's scripts once; the sizes are logged (docs/PERFORMANCE.md).
func TestProbeRequestsOfTheCorpusWorlds(t *testing.T) {
	worlds, _ := filepath.Glob(filepath.Join("..", "..", "..", "shared", "corpus", "worldbench", "worlds", "*", "world.html"))
	if len(worlds) == 0 {
		t.Skip("../shared/corpus/worldbench/worlds not present beside the project")
	}
	r := island(t)
	groups := Groups(r)
	require.Len(t, groups, 22)
	items, forbidden := 0, 0
	for _, g := range groups {
		for _, a := range g.Items {
			if a.Forbidden {
				forbidden++
			} else {
				items++
			}
		}
	}
	require.Equal(t, 194, items)
	require.Equal(t, 79, forbidden)
	for _, w := range worlds {
		b, err := os.ReadFile(w)
		require.NoError(t, err)
		src := quote.NewSource(string(b))
		chars := 0
		for _, g := range groups {
			user := probe.Request(g, src).Messages[1].TextContent()
			require.Equal(t, 1, strings.Count(user, src.JS), "the scripts once")
			chars += len(probe.ProbePrompt) + len(user)
		}
		t.Logf("%s: scripts %d chars; 22 probe calls, %d prompt chars (≈ %d tokens at 4 chars a token)", filepath.Base(filepath.Dir(w)), len(src.JS), chars, chars/4)
	}
}
