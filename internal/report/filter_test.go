package report

import (
	"context"
	"encoding/base64"
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/chromedp/chromedp"
	"github.com/stretchr/testify/require"

	"github.com/worldprobe/worldprobe/internal/testenv"
)

// The filters work in a real Chromium under the page's own
// Content-Security-Policy: the script runs (the form shows), and each
// list hides what does not match. The browser reaches no network (its
// proxy refuses), so report.html is opened as a data: URL: the grid is
// all the filters read.
func TestFiltersInChromium(t *testing.T) {
	dir, _, _ := writeFixtureReport(t)
	page, err := os.ReadFile(filepath.Join(dir, "report.html"))
	require.NoError(t, err)
	b, _, err := testenv.Start(1)
	require.NoError(t, err)
	defer b.Close()
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	p, err := b.NewPage(ctx, nil)
	require.NoError(t, err)
	defer p.Close()

	// shown lists the marks left visible, as status/model, and the rows.
	const shown = `(() => {
		const vis = el => el.offsetParent !== null;
		return {
			chips: [...document.querySelectorAll("#grid .chip")].filter(vis).map(c => c.dataset.status + "/" + c.dataset.model),
			rows: [...document.querySelectorAll("#grid tr.task")].filter(vis).map(r => r.cells[0].textContent.split(" ")[0]),
			cols: [...document.querySelectorAll("#grid thead th[data-model]")].filter(vis).map(c => c.dataset.model),
			count: document.getElementById("shown").textContent,
			form: !document.getElementById("filters").hidden,
		};
	})()`
	type view struct {
		Chips, Rows, Cols []string
		Count             string
		Form              bool
	}
	set := func(name, value string) string {
		return `(() => { const s = document.querySelector('#filters select[name="` + name + `"]'); s.value = "` + value + `"; s.dispatchEvent(new Event("change")); return true; })()`
	}
	_, err = chromedp.Run(p.Context(), chromedp.Navigate("data:text/html;base64,"+base64.StdEncoding.EncodeToString(page)))
	require.NoError(t, err)
	look := func(filters ...[2]string) view {
		t.Helper()
		for _, f := range filters {
			_, err := chromedp.Run(p.Context(), chromedp.Evaluate[bool](set(f[0], f[1])))
			require.NoError(t, err)
		}
		v, err := chromedp.Run(p.Context(), chromedp.Evaluate[view](shown))
		require.NoError(t, err)
		return v
	}
	all := look()
	fails := look([2]string{"status", "fail"})
	gpt := look([2]string{"status", ""}, [2]string{"model", "gpt"})
	fog := look([2]string{"category", "rendering"})
	require.True(t, all.Form, "the script ran under the page's CSP and showed the filters")
	require.Equal(t, "8 of 8 trials shown", all.Count)
	require.Equal(t, []string{"application/chart", "rendering/fog", "simulation/ball"}, all.Rows)
	// Columns in the leaderboard's order: oracle 100%, gpt 50%, fixtures 33%.
	require.Equal(t, view{Chips: []string{"fail/gpt", "fail/fixtures"}, Rows: []string{"simulation/ball"},
		Cols: []string{"oracle", "gpt", "fixtures"}, Count: "2 of 8 trials shown", Form: true}, fails)
	require.Equal(t, view{Chips: []string{"pass/gpt", "timeout/gpt", "infra/gpt", "fail/gpt"}, Rows: []string{"application/chart", "rendering/fog", "simulation/ball"},
		Cols: []string{"gpt"}, Count: "4 of 8 trials shown", Form: true}, gpt)
	require.Equal(t, view{Chips: []string{"timeout/gpt", "infra/gpt"}, Rows: []string{"rendering/fog"},
		Cols: []string{"gpt"}, Count: "2 of 8 trials shown", Form: true}, fog)
}
