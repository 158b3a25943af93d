package probe

import (
	"context"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/worldprobe/worldprobe/internal/llm"
)

var placeRegions = []Region{{ID: "delta", Label: "Coastal Delta", Aliases: []string{"beach"}}, {ID: "desert", Label: "Desert"}, {ID: "volcano", Label: "Volcano"}}

// TestClassifyChecksLayoutQuotes: classify's reply, JSON after a sentence
// as models write it, gives a placement quote that ran (covered), one with
// its whitespace changed that is source text but never ran (not covered),
// and a biome not present.
func TestClassifyChecksLayoutQuotes(t *testing.T) {
	f := newFake(t, text("Here is where each biome is built.\n"+`{"biomes": [
 {"id": "delta", "present": true, "placement_code": "buildPalms(beachCells);", "elevation_code": "", "reason": "palms on the beach cells"},
 {"id": "desert", "present": true, "placement_code": "  cactus.position.set(cells[0].x,  1, cells[0].z );", "elevation_code": "", "reason": "buildCactus"},
 {"id": "volcano", "present": false, "placement_code": "", "elevation_code": "", "reason": "only named"}
]}`+"\nLet me know if you need more."))
	m := f.model(t, llm.Extract)
	c := world(t, nil)
	cl, err := Classify(context.Background(), m, c, placeRegions)
	require.NoError(t, err)
	require.Equal(t, Judged, cl.Status, cl.Reason)
	d := cl.Biomes["delta"]
	require.True(t, d.Covered())
	require.Equal(t, ByExtract, d.Placement.By)
	require.Equal(t, "placement", d.Placement.Kind)
	require.Equal(t, 19, d.Placement.Lines[0].From)
	require.Nil(t, d.Elevation)
	ds := cl.Biomes["desert"]
	require.True(t, ds.Present)
	require.False(t, ds.Covered())
	require.Equal(t, "whole", ds.Placement.Verdict.How)
	require.Equal(t, RefusedNotRun, ds.Placement.Refused)
	require.False(t, cl.Biomes["volcano"].Covered())
	// The request carries the biomes, the source and the tool.
	msgs := f.messages(0)
	require.Equal(t, ClassifyPrompt, msgs[0]["content"])
	require.Contains(t, msgs[1]["content"], `"id": "delta"`)
	require.Contains(t, msgs[1]["content"], "buildPalms(beachCells);")
}

// TestClassifyIsStrict: a biome not asked, a biome twice, a missing
// present or an unknown field leave the whole call unjudged, saying why.
func TestClassifyIsStrict(t *testing.T) {
	for name, tc := range map[string]struct{ reply, why string }{
		"not asked": {`{"biomes": [{"id": "tundra", "present": true, "placement_code": "", "elevation_code": "", "reason": ""}]}`, `names biome "tundra", which was not asked`},
		"twice":     {`{"biomes": [{"id": "delta", "present": true, "placement_code": "", "elevation_code": "", "reason": ""}, {"id": "delta", "present": false, "placement_code": "", "elevation_code": "", "reason": ""}]}`, `gives biome "delta" twice`},
		"present":   {`{"biomes": [{"id": "delta", "placement_code": "", "elevation_code": "", "reason": ""}]}`, `does not say whether biome "delta" is present`},
		"unknown":   {`{"biomes": [{"id": "delta", "present": true, "where": "south", "placement_code": "", "elevation_code": "", "reason": ""}]}`, `unknown field "where"`},
		"no json":   {`The delta is in the south.`, "holds no JSON object"},
	} {
		t.Run(name, func(t *testing.T) {
			f := newFake(t, text(tc.reply))
			cl, err := Classify(context.Background(), f.model(t, llm.Extract), world(t, nil), placeRegions)
			require.NoError(t, err)
			require.Equal(t, Unjudged, cl.Status)
			require.Contains(t, cl.Reason, tc.why)
			require.Nil(t, cl.Biomes)
		})
	}
}

// TestExtractReadsTheMap: a tool call with a made-up name (the ocean is
// no biome), a neighbour repeated and one naming itself; adjacency is
// symmetric and the ranks follow the elevation order.
func TestExtractReadsTheMap(t *testing.T) {
	f := newFake(t, call(extractTool, `{"nodes": [{"id": "delta", "neighbours": ["ocean", "desert", "desert", "delta"]}, {"id": "volcano", "neighbours": []}, {"id": "ocean", "neighbours": ["delta"]}], "elevation_order": ["volcano", "sky", "desert", "delta"]}`))
	mp, err := Extract(context.Background(), f.model(t, llm.Extract), world(t, nil).Src, placeRegions)
	require.NoError(t, err)
	require.Equal(t, Judged, mp.Status, mp.Reason)
	require.Equal(t, map[string][]string{"delta": {"desert"}, "volcano": {}}, mp.Neighbours)
	require.Equal(t, []string{"ocean", "sky"}, mp.Ignored)
	require.True(t, mp.Adjacent("desert", "delta"), "symmetric")
	require.False(t, mp.Adjacent("desert", "volcano"))
	r, ok := mp.Rank("desert")
	require.Equal(t, 1, r)
	require.True(t, ok)
	_, ok = mp.Rank("ocean")
	require.False(t, ok)
	require.Equal(t, ExtractPrompt, f.messages(0)[0]["content"])

	for name, tc := range map[string]struct{ reply, why string }{
		"node twice": {`{"nodes": [{"id": "delta", "neighbours": []}, {"id": "delta", "neighbours": ["desert"]}], "elevation_order": []}`, `gives node "delta" twice`},
		"rank twice": {`{"nodes": [], "elevation_order": ["delta", "delta"]}`, `ranks "delta" twice`},
		"unknown":    {`{"nodes": [], "elevation_order": [], "confidence": 0.9}`, `unknown field "confidence"`},
		"trailing":   {"```json\n{\"nodes\": [], \"elevation_order\": []} {\"nodes\": []}\n```", "data after the object"},
	} {
		t.Run(name, func(t *testing.T) {
			f := newFake(t, text(tc.reply))
			mp, err := Extract(context.Background(), f.model(t, llm.Extract), world(t, nil).Src, placeRegions)
			require.NoError(t, err)
			require.Equal(t, Unjudged, mp.Status)
			require.True(t, strings.Contains(mp.Reason, tc.why), mp.Reason)
		})
	}
}

// TestPlacementCallFailureIsUnjudged: a server error leaves the call
// unjudged (never a verdict against the world); a bad key is fatal.
func TestPlacementCallFailureIsUnjudged(t *testing.T) {
	f := newFake(t, reply{status: 500, body: `{"error":{"message":"overloaded","type":"server_error"}}`})
	cl, err := Classify(context.Background(), f.model(t, llm.Extract), world(t, nil), placeRegions)
	require.NoError(t, err)
	require.Equal(t, Unjudged, cl.Status)
	require.Contains(t, cl.Reason, "the classify call failed")
	f = newFake(t, reply{status: 401, body: `{"error":{"message":"Incorrect API key provided","type":"invalid_request_error","code":"invalid_api_key"}}`})
	_, err = Extract(context.Background(), f.model(t, llm.Extract), world(t, nil).Src, placeRegions)
	require.Error(t, err)
}
