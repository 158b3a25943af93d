package report

import (
	"bytes"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/worldprobe/worldprobe/internal/result"
)

// TestHTMLLooks: a trial with scoped visual assertions shows each look's
// criterion, verdict, the model's reason and its frame beside them; the
// unjudged ones are listed apart, counted in the summary and never among
// the failed; a frame missing from the folder is said to be.
func TestHTMLLooks(t *testing.T) {
	dir := t.TempDir()
	tr := &result.Trial{Key: "k-look", Task: "xr/panel", Category: "xr", Difficulty: "D1", Model: "gpt", Candidate: "page",
		Outcome: result.OutcomeOK, StartedAt: time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC), DurationMs: 10,
		VCov: 0.75, ACov: 1, SCov: 2.0 / 3, TCov: 1, Attribution: "state_mismatch", Unjudged: 2,
		Design: &result.Design{Score: 3.2, Model: "openai/gpt-4.1", Frames: []string{"design-panel-1.png"},
			Ratings: []result.DesignRating{{Heuristic: "comfort", Score: 5, Reason: "level " + evilScript}, {Heuristic: "depth", Score: 1, Reason: "flat"}}},
		Assertions: []result.Assertion{
			{Probe: "interface", Level: "affordance", Status: "pass", Expr: "presenting: boolean"},
			{Probe: "panel", Level: "state", Status: "pass", Expr: "a white panel ahead", Line: 7, Kind: result.KindLook,
				Reason: "A white square fills the centre.", Image: "look-panel-7.png", Model: "openai/gpt-4.1"},
			{Probe: "panel", Level: "state", Status: "fail", Expr: "a white panel ahead", Line: 9, Kind: result.KindLook,
				Message: `the model judged that the view does not show "a white panel ahead": only a green cube`,
				Reason:  "only a green cube " + evilScript, Image: "look-panel-9.png", Model: "openai/gpt-4.1"},
			{Probe: "panel", Level: "state", Status: "pass", Expr: "s.presenting", Line: 11},
			{Probe: "more", Level: "state", Status: "unjudged", Expr: "the panel casts a shadow", Line: 17, Kind: result.KindLook,
				Message: "unjudged: no verdict in the reply", Reason: "no verdict in the reply", Image: "look-more-17.png", Model: "openai/gpt-4.1"},
			{Probe: "more", Level: "state", Status: "unjudged", Expr: "the table is brown", Line: 18, Kind: result.KindLook,
				Message: "unjudged: the model call failed: HTTP 500", Reason: "the model call failed: HTTP 500", Image: "look-more-18.png"},
		}}
	rel := "trials/xr_panel__gpt__page__s0"
	full := filepath.Join(dir, filepath.FromSlash(rel))
	require.NoError(t, os.MkdirAll(full, 0o755))
	b, err := json.Marshal(tr)
	require.NoError(t, err)
	require.NoError(t, os.WriteFile(filepath.Join(full, "result.json"), b, 0o644))
	for _, f := range []string{"look-panel-7.png", "look-panel-9.png", "look-more-17.png"} { // 18's frame is gone
		var png bytes.Buffer
		require.NoError(t, pngEncode(&png))
		require.NoError(t, os.WriteFile(filepath.Join(full, f), png.Bytes(), 0o644))
	}
	require.NoError(t, WriteHTML(filepath.Join(dir, "report.html"), Page{Title: "worldprobe run: looks", Generated: "2026-01-01T00:00:00Z",
		Sandbox: "Chromium's sandbox", Trials: []*result.Trial{tr}, Dirs: map[string]string{tr.Key: rel}}))
	page, err := os.ReadFile(filepath.Join(full, "index.html"))
	require.NoError(t, err)
	goldenHTML(t, "trial-look.html", page)
	got := string(page)
	require.Contains(t, got, "V-Cov 75.0% · A-Cov 100.0% · S-Cov 66.7% · T-Cov 100.0% over the judged assertions · <b>2 unjudged</b>")
	require.Contains(t, got, "<dt>assertions</dt><dd>3 passed, 1 failed, 2 unjudged of 6</dd>")
	require.Equal(t, 4, strings.Count(got, `<figure class="look `))
	require.Contains(t, got, `<img class="shot" src="look-panel-9.png" alt="the frame judged against: a white panel ahead">`)
	require.Contains(t, got, "the model's reason: only a green cube &lt;script&gt;alert(1)&lt;/script&gt;")
	require.Contains(t, got, "not judged: the model call failed: HTTP 500")
	require.Contains(t, got, `<p class="muted">The frame is not in the trial's folder.</p>`)
	require.Contains(t, got, "<details open><summary>2 assertion(s) unjudged</summary>")
	failed := got[strings.Index(got, `id="failed"`):strings.Index(got, `id="looks"`)]
	require.Equal(t, 1, strings.Count(failed, `<div class="assert `), "only the failed look is a failure")
	require.NotContains(t, got, "<script>alert")
	require.Contains(t, got, `<p><b>3.2</b> of 5 · rated by <span class="mono">openai/gpt-4.1</span></p>`)
	require.Contains(t, got, `<tr><td>comfort</td><td class="num">5</td><td>level &lt;script&gt;alert(1)&lt;/script&gt;</td></tr>`)
	require.Contains(t, got, `<img class="plot" src="design-panel-1.png" alt="a rated frame" width="200">`)

	// An unjudged design says why and shows no score.
	tr.Design = &result.Design{Unjudged: "no visual_judge model is configured"}
	require.NoError(t, WriteHTML(filepath.Join(dir, "report.html"), Page{Title: "worldprobe run: looks", Generated: "2026-01-01T00:00:00Z",
		Sandbox: "Chromium's sandbox", Trials: []*result.Trial{tr}, Dirs: map[string]string{tr.Key: rel}}))
	page, err = os.ReadFile(filepath.Join(full, "index.html"))
	require.NoError(t, err)
	require.Contains(t, string(page), `<p><span class="chip unjudged">unjudged</span> no visual_judge model is configured</p>`)
	require.NotContains(t, string(page), " of 5")
}
