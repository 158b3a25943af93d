package probe

import (
	"context"
	"encoding/json"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/worldprobe/worldprobe/internal/llm"
	"github.com/worldprobe/worldprobe/internal/worldjudge/quote"
)

var deltaGroup = Group{Test: "WC004", Title: "Physics", Biome: "delta", BiomeLabel: "Coastal Delta / Ocean", Aliases: []string{"beach"}, Items: []Ask{
	{ID: "palm_trunks", Label: "Palm trunks"},
	{ID: "voxel_boxes", Label: "Unit boxes"},
	{ID: "cactus", Label: "A cactus"},
	{ID: "reef", Label: "Reefs"},
	{ID: "palm_loop", Label: "Palms placed in a loop over beach cells"},
	{ID: "rain_fall", Label: "Rain falls", Motion: true, Axis: "falling"},
	{ID: "tiny", Label: "Something"},
	{ID: "crabs", Label: "Crabs"},
	{ID: "rain_twice", Label: "Rain moves", Motion: true, Axis: "falling"},
	{ID: "rain_sideways", Label: "Rain falls", Motion: true, Axis: "falling"},
	{ID: "rain_no_axis", Label: "Rain falls", Motion: true, Axis: "falling"},
	{ID: "palm_sway", Label: "Palms sway in the wind", Motion: true, Axis: "blowing"},
	{ID: "box_rising", Label: "Boxes stand still", Axis: "n/a"},
}}

// probeReply is written as models write it: a sentence, then the JSON in
// a fence, with the mistakes real probes make.
const probeReply = "I read the scripts; here is what the code builds for the delta.\n\n```json\n" + `{"items": [
 {"id": "palm_trunks", "found": true, "probability": 0.9, "evidence": "const trunk = new THREE.Mesh(box, trunkMat);\n    trunk.position.set(c.x, c.h + 1, c.z);", "motion_evidence": "", "axis": "n/a", "reason": "palm trunks are boxes placed per beach cell"},
 {"id": "voxel_boxes", "found": true, "probability": 0.8, "evidence": "const  box=new THREE.BoxGeometry( 1,1,1 );", "motion_evidence": "", "reason": "unit boxes"},
 {"id": "cactus", "found": true, "probability": 0.7, "evidence": "cactus.position.set(cells[0].x, 1, cells[0].z);", "motion_evidence": "", "axis": "n/a", "reason": "buildCactus places one"},
 {"id": "reef", "found": true, "probability": 0.6, "evidence": "scene.add(new THREE.Mesh(reefGeo, reefMat));", "motion_evidence": "", "axis": "n/a", "reason": "reef meshes"},
 {"id": "palm_loop", "found": true, "probability": 0.9, "evidence": "for (const c of cells) { ... scene.add(trunk);", "motion_evidence": "", "axis": "n/a", "reason": "loop over cells"},
 {"id": "rain_fall", "found": true, "probability": 0.9, "evidence": "const rain = new THREE.Points(rainGeo, rainMat);", "motion_evidence": "rain.position.y -= delta * GRAVITY;", "axis": "down", "reason": "rain points fall each frame"},
 {"id": "tiny", "found": true, "probability": 0.5, "evidence": "box", "motion_evidence": "", "axis": "n/a", "reason": "box"},
 {"id": "crabs", "found": false, "probability": 0.0, "evidence": "", "motion_evidence": "", "axis": "n/a", "reason": "no crabs in the code"},
 {"id": "rain_twice", "found": true, "probability": 0.8, "evidence": "const rain = new THREE.Points(rainGeo, rainMat);", "motion_evidence": "const rain = new THREE.Points(rainGeo, rainMat);", "axis": "falling", "reason": "rain"},
 {"id": "rain_sideways", "found": true, "probability": 0.8, "evidence": "const rain = new THREE.Points(rainGeo, rainMat);", "motion_evidence": "rain.position.y -= dt * 9.8;", "axis": "sideways", "reason": "rain moves"},
 {"id": "rain_no_axis", "found": true, "probability": 0.8, "evidence": "const rain = new THREE.Points(rainGeo, rainMat);", "motion_evidence": "rain.position.y -= dt * 9.8;", "reason": "an item as replies recorded before the axis was asked for"},
 {"id": "palm_sway", "found": true, "probability": 0.6, "evidence": "const trunk = new THREE.Mesh(box, trunkMat);", "motion_evidence": "trunk.position.set(c.x, c.h + 1, c.z);", "axis": "blowing", "reason": "trunks are placed"},
 {"id": "box_rising", "found": true, "probability": 0.6, "evidence": "const box = new THREE.BoxGeometry(1, 1, 1);", "motion_evidence": "", "axis": "up", "reason": "boxes"}
]}` + "\n```\nLet me know if you need more."

// TestProbeChecksEveryQuote: one probe call answered in prose with a
// fenced JSON, every quote checked: an exact quote and one with changed
// whitespace pass; a quote from a function that never ran is source text
// but refused; a made-up quote is refused with nothing to repair; a quote
// abbreviated with "..." is repaired mechanically; a garbled motion quote
// is repaired by the model picking line 22 from a numbered window; a
// too-short quote is refused; a motion quote equal to its look quote is
// refused; WC004's motion rules refuse a wrong axis, a missing axis on a
// mover, a motion quote with no clock and a still entity said to move.
func TestProbeChecksEveryQuote(t *testing.T) {
	f := newFake(t, text(probeReply), call("pick_lines", `{"lines": [22]}`))
	m := f.model(t, llm.CodeProbe)
	c := world(t, m)
	res, err := Probe(context.Background(), m, c, deltaGroup)
	require.NoError(t, err)
	got := map[string]string{}
	for id, fd := range res.Findings {
		s := ""
		for _, ev := range []*Evidence{fd.Look, fd.Motion} {
			if ev == nil {
				continue
			}
			ran := "-"
			if ev.Ran != nil {
				ran = map[bool]string{true: "ran", false: "not run"}[*ev.Ran]
			}
			s += ev.Kind + ":" + ev.Refused + ":" + ev.Verdict.How + ":" + spansText(ev.Lines) + ":" + ran + ":" + ev.Repair + " "
		}
		got[id] = strings.TrimSpace(s)
	}
	require.Equal(t, map[string]string{
		"palm_trunks": "look::whole:9-10:ran:",
		"voxel_boxes": "look::whole:6-6:ran:",
		"cactus":      "look:not_run:whole:16-16:not run:",
		"reef":        "look:not_in_source:::-:failed",
		"palm_loop":   "look::lines:8-8,11-11:ran:mechanical",
		"rain_fall":   "look::whole:20-20:ran: motion::whole:22-22:ran:model",
		"tiny":        "look:too_short:::-:",
		"crabs":       "",
		"rain_twice":  "look::whole:20-20:ran: motion:same_as_look:whole:20-20:ran:",
		// The motion rules (WC004): an axis the expected one does not
		// accept, no axis at all (a reply recorded before the axis was
		// asked for: "" is n/a), a motion quote with no clock in it, and a
		// still entity's look quote said to rise.
		"rain_sideways": "look::whole:20-20:ran: motion:wrong_axis:whole:22-22:ran:",
		"rain_no_axis":  "look::whole:20-20:ran: motion:wrong_axis:whole:22-22:ran:",
		"palm_sway":     "look::whole:9-9:ran: motion:no_time_update:whole:10-10:ran:",
		"box_rising":    "look:wrong_axis:whole:6-6:ran:",
	}, got)
	require.Equal(t, `axis mismatch: the code probe says the quoted code moves it "sideways" (blowing), expected falling`, res.Findings["rain_sideways"].Motion.Detail)
	require.Equal(t, `axis mismatch: the code probe gave no axis for the quoted code (n/a), expected falling`, res.Findings["rain_no_axis"].Motion.Detail)
	require.Nil(t, res.Findings["rain_no_axis"].Axis)
	require.Equal(t, "the motion quote reads no clock and updates nothing over time (no match of WC004's timeUpdate pattern)", res.Findings["palm_sway"].Motion.Detail)
	require.Equal(t, `axis mismatch: the code probe says the quoted code moves it "up" (rising), expected n/a`, res.Findings["box_rising"].Look.Detail)
	require.Equal(t, "the motion quote is the look quote: it shows the thing is made, not that it changes", res.Findings["rain_twice"].Motion.Detail)
	// A still entity with no axis in the reply is not checked for one.
	require.True(t, res.Findings["voxel_boxes"].Look.OK)
	require.Equal(t, "for (const c of cells) {\nscene.add(trunk);", res.Findings["palm_loop"].Look.Quote)
	require.Equal(t, "for (const c of cells) { ... scene.add(trunk);", res.Findings["palm_loop"].Look.Original)
	rain := res.Findings["rain_fall"].Motion
	require.Equal(t, "rain.position.y -= dt * 9.8;", rain.Quote)
	require.Equal(t, "rain.position.y -= delta * GRAVITY;", rain.Original)
	require.True(t, rain.OK)
	require.Equal(t, "down", *res.Findings["rain_fall"].Axis)
	require.Equal(t, "no fragment of the quote begins like any source text (nothing to pick from)", res.Findings["reef"].Look.RepairNote)
	require.False(t, res.Findings["crabs"].Found)
	require.Equal(t, "no crabs in the code", res.Findings["crabs"].Reason)

	// The probe was sent the rules, the items and the scripts; the repair
	// a window of lines 14–25 (line 22 ± 8, within the file) and no code
	// to write.
	require.Len(t, f.bodies, 2)
	pm := f.messages(0)
	require.Equal(t, ProbePrompt, pm[0]["content"])
	user := pm[1]["content"].(string)
	require.Contains(t, user, `"id": "rain_fall"`)
	require.Contains(t, user, "The source (the page's scripts):\nimport * as THREE from 'three';")
	require.Equal(t, 0.0, f.bodies[0]["temperature"])
	rm := f.messages(1)
	require.Equal(t, RepairPrompt, rm[0]["content"])
	require.True(t, strings.HasPrefix(rm[1]["content"].(string), "The quote:\nrain.position.y -= delta * GRAVITY;\n\nThe source window:\n14: function buildCactus(cells) {\n"), rm[1]["content"])
	require.True(t, strings.HasSuffix(rm[1]["content"].(string), "22:   rain.position.y -= dt * 9.8;\n23:   if (rain.position.y < 0) rain.position.y = 40;\n24: }\n25: </script>\n26: </body></html>\n"), rm[1]["content"])
}

func spansText(ss []quote.Span) string {
	var out []string
	for _, s := range ss {
		b, _ := json.Marshal(s.From)
		e, _ := json.Marshal(s.To)
		out = append(out, string(b)+"-"+string(e))
	}
	return strings.Join(out, ",")
}

// TestProbeReplies: a reply as a tool call is read; a reply that cannot
// be read, one naming an item that was not asked, one leaving an item
// out and a failed call leave the items unjudged, saying why; a bad key
// is an error.
func TestProbeReplies(t *testing.T) {
	g := Group{Test: "WC004", Biome: "delta", Items: []Ask{{ID: "rain_fall", Motion: true, Axis: "falling"}, {ID: "crabs"}}}
	cases := []struct {
		name  string
		reply reply
		want  map[string]string // id → unjudged reason prefix, or "found"/"absent"
	}{
		{"tool call", call("report_items", `{"items":[{"id":"rain_fall","found":true,"probability":1,"evidence":"const rain = new THREE.Points(rainGeo, rainMat);","motion_evidence":"rain.position.y -= dt * 9.8;","axis":"falling","reason":"falls"},{"id":"crabs","found":false,"probability":0,"evidence":"","motion_evidence":"","axis":"n/a","reason":""}]}`),
			map[string]string{"rain_fall": "found", "crabs": "absent"}},
		{"prose only", text("The rain falls in animate() and there are no crabs."),
			map[string]string{"rain_fall": "the code probe's reply could not be read (the reply holds no JSON object)", "crabs": "the code probe's reply could not be read"}},
		{"unknown field", text(`{"items":[{"id":"crabs","found":false,"confidence":0.2}]}`),
			map[string]string{"crabs": "the code probe's reply could not be read (not the expected JSON: json: unknown field \"confidence\")"}},
		{"unasked item", text(`{"items":[{"id":"whales","found":false,"probability":0,"evidence":"","motion_evidence":"","reason":""}]}`),
			map[string]string{"crabs": "the code probe's reply names item \"whales\", which was not asked"}},
		{"left out", text(`{"items":[{"id":"crabs","found":false,"probability":0,"evidence":"","motion_evidence":"","reason":"none"}]}`),
			map[string]string{"crabs": "absent", "rain_fall": "the code probe's reply left this item out"}},
		{"server error", reply{status: 500, body: `{"error":{"message":"The server had an error while processing your request.","type":"server_error"}}`},
			map[string]string{"crabs": "the code probe's call failed: "}},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			f := newFake(t, tc.reply)
			m := f.model(t, llm.CodeProbe)
			res, err := Probe(context.Background(), m, world(t, nil), g)
			require.NoError(t, err)
			for id, want := range tc.want {
				fd := res.Findings[id]
				switch want {
				case "found":
					require.True(t, fd.Look.OK && fd.Motion.OK, "%+v", fd)
				case "absent":
					require.Empty(t, fd.Unjudged)
					require.False(t, fd.Found)
				default:
					require.True(t, strings.HasPrefix(fd.Unjudged, want), "%s: %q", id, fd.Unjudged)
				}
			}
		})
	}
	f := newFake(t, reply{status: 401, body: `{"error":{"message":"Incorrect API key provided: sk-probe****test.","type":"invalid_request_error","param":null,"code":"invalid_api_key"}}`})
	_, err := Probe(context.Background(), f.model(t, llm.CodeProbe), world(t, nil), g)
	require.Error(t, err)
	require.True(t, llm.IsFatal(err), "%v", err)
}

// TestRepairThatFailsKeepsTheQuote: a repair model that picks a line of
// markup, or a line outside the window, repairs nothing: the quote stays
// as the model gave it, refused.
func TestRepairThatFailsKeepsTheQuote(t *testing.T) {
	f := newFake(t, call("pick_lines", `{"lines": [25]}`), text(`I think it is line 3: {"lines": [3]}`))
	c := world(t, f.model(t, llm.CodeProbe))
	q := "rain.position.y -= delta * GRAVITY;"
	ev, err := c.Verify(context.Background(), "motion", ByProbe, q)
	require.NoError(t, err)
	require.Equal(t, q, ev.Quote)
	require.Empty(t, ev.Original)
	require.Equal(t, RepairFailed, ev.Repair)
	require.Equal(t, `the model picked lines [25] from a window of 13 lines, but they are not source text either (not_in_source): "</script>"`, ev.RepairNote)
	require.Equal(t, RefusedNotInSource, ev.Refused)
	ev, err = c.Verify(context.Background(), "motion", ByProbe, q)
	require.NoError(t, err)
	require.Equal(t, RepairFailed, ev.Repair)
	require.Equal(t, "the repair model picked line 3, which is not in the window", ev.RepairNote)
	require.Equal(t, RefusedNotInSource, ev.Refused)
}

// TestProbeOverAnthropic: the probe on an Anthropic model whose reply is
// a tool_use block after a sentence, as Claude answers; the tool went out
// in Anthropic's format.
func TestProbeOverAnthropic(t *testing.T) {
	var sent map[string]any
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		raw, _ := io.ReadAll(r.Body)
		_ = json.Unmarshal(raw, &sent)
		w.Header().Set("Content-Type", "application/json")
		_, _ = w.Write([]byte(`{"id": "msg_probe", "type": "message", "role": "assistant", "model": "claude-probe",
  "content": [
    {"type": "text", "text": "I checked the scripts for both items."},
    {"type": "tool_use", "id": "toolu_probe", "name": "report_items", "input": {"items": [
      {"id": "rain_fall", "found": true, "probability": 0.9, "evidence": "const rain = new THREE.Points(rainGeo, rainMat);", "motion_evidence": "rain.position.y -= dt * 9.8;", "axis": "falling", "reason": "rain falls in animate"},
      {"id": "crabs", "found": false, "probability": 0.1, "evidence": "", "motion_evidence": "", "axis": "n/a", "reason": "no crabs"}]}}
  ],
  "stop_reason": "tool_use", "stop_sequence": null,
  "usage": {"input_tokens": 1800, "cache_creation_input_tokens": 0, "cache_read_input_tokens": 0, "output_tokens": 140}}`))
	}))
	t.Cleanup(srv.Close)
	cfg, err := llm.ParseConfig([]byte("allow_unpriced: true\nroles:\n  code_probe:\n    provider: anthropic\n    model: claude-probe\n    max_retries: 0\n    base_url: " + srv.URL + "\n    key_env: TEST_PROBE_KEY\n"))
	require.NoError(t, err)
	reg, err := llm.New(cfg, func(k string) string { return map[string]string{"TEST_PROBE_KEY": "sk-ant-test"}[k] })
	require.NoError(t, err)
	m, err := reg.Role(context.Background(), llm.CodeProbe)
	require.NoError(t, err)
	res, err := Probe(context.Background(), m, world(t, nil), Group{Test: "WC004", Biome: "delta", Items: []Ask{{ID: "rain_fall", Motion: true, Axis: "falling"}, {ID: "crabs"}}})
	require.NoError(t, err)
	rf := res.Findings["rain_fall"]
	require.True(t, rf.Look.OK && rf.Motion.OK, "%+v", rf)
	require.Equal(t, "22-22", spansText(rf.Motion.Lines))
	require.Equal(t, "falling", *rf.Axis)
	require.False(t, res.Findings["crabs"].Found)
	tools := sent["tools"].([]any)
	require.Equal(t, "report_items", tools[0].(map[string]any)["name"])
	require.NotNil(t, tools[0].(map[string]any)["input_schema"])
	require.Equal(t, ProbePrompt, sent["system"].([]any)[0].(map[string]any)["text"])
}
