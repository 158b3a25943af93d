package report

import (
	"bytes"
	"os"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/worldprobe/worldprobe/internal/metrics"
	"github.com/worldprobe/worldprobe/internal/result"
)

// designTrials are XR trials of two models with design scores: a's two
// rated (3.2 and 4.0) and one unjudged, b's only unjudged; c asked for
// none.
func designTrials() []*result.Trial {
	r := func(score float64, comfort, legibility int) *result.Design {
		return &result.Design{Score: score, Model: "openai/gpt-4.1", Ratings: []result.DesignRating{
			{Heuristic: "comfort", Score: comfort}, {Heuristic: "legibility", Score: legibility}}}
	}
	un := &result.Design{Unjudged: "no visual_judge model is configured"}
	tr := func(key, model string, pass bool, d *result.Design) *result.Trial {
		return &result.Trial{Key: key, Model: model, Task: "xr/pinch-grab", Category: "xr", Difficulty: "D2", Outcome: result.OutcomeOK,
			Pass: pass, VCov: map[bool]float64{true: 1, false: 0.5}[pass], ACov: 1, SCov: 1, TCov: 1, Design: d}
	}
	return []*result.Trial{
		tr("a0", "a", false, r(3.2, 4, 2)), tr("a1", "a", true, r(4, 5, 3)), tr("a2", "a", true, un),
		tr("b0", "b", true, un), tr("c0", "c", true, nil),
	}
}

// The leaderboard shows the design score in a section of its own, apart
// from pass: a rated row's mean and heuristics, an unjudged row as
// unjudged, a row without design scores not at all; the same section is
// in report.html's leaderboard.
func TestLeaderboardDesign(t *testing.T) {
	l, err := NewLeaderboard("t", "", designTrials(), metrics.BoardOptions{})
	require.NoError(t, err)
	var md bytes.Buffer
	Markdown(&md, l)
	want := "## Design score (XR)\n\n" +
		"The recorded frames of XR trials rated by the visual_judge model on the ten heuristics of docs/xr-design.md (`run --design`), " +
		"1 poor to 5 excellent: the mean over rated trials, apart from pass and the coverages, which it never changes. " +
		"A trial without a model (or whose reply had no ten ratings) is unjudged, not scored.\n\n" +
		"| model | rated | unjudged | design (1–5) | comfort | legibility |\n" +
		"|---|---:|---:|---:|---:|---:|\n" +
		"| b | 0 | 1 | unjudged | – | – |\n" +
		"| a | 2 | 1 | 3.60 | 4.50 | 2.50 |\n"
	require.Contains(t, md.String(), want)
	require.NotContains(t, md.String(), "| c | 0 | 0 |")

	dir := t.TempDir()
	require.NoError(t, WriteHTML(dir+"/report.html", Page{Title: "t", Board: l, Trials: designTrials()}))
	b, err := os.ReadFile(dir + "/report.html")
	require.NoError(t, err)
	html := string(b)
	require.Contains(t, html, `<a href="#design">Design score (XR)</a>`)
	require.Contains(t, html, `<h3 id="design">Design score (XR)</h3>`)
	require.Contains(t, html, `<tr><td>b</td><td class="num">0</td><td class="num">1</td><td class="num">unjudged</td><td class="num">–</td><td class="num">–</td></tr>`)
	require.Contains(t, html, `<tr><td>a</td><td class="num">2</td><td class="num">1</td><td class="num">3.60</td><td class="num">4.50</td><td class="num">2.50</td></tr>`)

	// Without design scores there is no section.
	l, err = NewLeaderboard("t", "", designTrials()[4:], metrics.BoardOptions{})
	require.NoError(t, err)
	md.Reset()
	Markdown(&md, l)
	require.NotContains(t, md.String(), "Design score")
}
