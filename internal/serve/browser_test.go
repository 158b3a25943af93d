package serve

import (
	"context"
	"flag"
	"fmt"
	"net"
	"os"
	"path/filepath"
	"slices"
	"sync"
	"testing"
	"time"

	"github.com/chromedp/cdproto/runtime"
	"github.com/chromedp/chromedp"
	"github.com/stretchr/testify/require"

	"github.com/worldprobe/worldprobe/internal/browser"
	"github.com/worldprobe/worldprobe/internal/report"
)

var updateShot = flag.Bool("update", false, "rewrite docs/serve-overview.png from the browser test")

// launchForLoopback starts the real, sandboxed Chromium worldprobe uses,
// with one door opened: 127.0.0.1 is reached directly (worldprobe's
// flags send every request to a dead proxy and resolve no name, which
// is right for candidate pages and wrong for a viewer on loopback).
func launchForLoopback(t *testing.T) *browser.Browser {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	b, err := browser.Launch(ctx, browser.Options{Jobs: 1, Width: 1100, Height: 760, ExtraFlags: map[string]any{
		"proxy-bypass-list":   "127.0.0.1",
		"host-resolver-rules": "MAP * ~NOTFOUND, EXCLUDE 127.0.0.1",
	}})
	require.NoError(t, err, "chromium missing? run 'make setup'")
	t.Cleanup(func() { b.Close() })
	return b
}

// TestViewerInChromium opens the viewer in headless Chromium: the
// overview shows the leaderboard; a trial saved to the store while the
// page is open arrives through the event stream without a reload; a
// grid link opens the trial's page with its failed assertion, its
// values against the reference's and its screenshot. No script error
// along the way (a script or image the pages' CSP refused would leave
// the status, the rows or the screenshot empty).
func TestViewerInChromium(t *testing.T) {
	f := newFixture(t)
	// The generation jobs feeding the run, as queue.StepCounter counts
	// them (TestStepCounterInPostgres): two waiting, then one done.
	var stepsMu sync.Mutex
	steps := []report.StepCount{{Kind: "generate", Queued: 2}}
	s, err := New(context.Background(), Options{Run: f.dir, Poll: 100 * time.Millisecond, Steps: func(context.Context) ([]report.StepCount, error) {
		stepsMu.Lock()
		defer stepsMu.Unlock()
		return slices.Clone(steps), nil
	}})
	require.NoError(t, err)
	defer s.Close()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	require.NoError(t, err)
	sctx, stop := context.WithCancel(context.Background())
	served := make(chan error, 1)
	go func() { served <- s.Serve(sctx, ln) }()
	defer func() {
		stop()
		require.NoError(t, <-served)
	}()
	base := "http://" + ln.Addr().String()

	b := launchForLoopback(t)
	ctx, cancel := context.WithTimeout(context.Background(), 3*time.Minute)
	defer cancel()
	var mu sync.Mutex
	var problems []string
	p, err := b.NewPage(ctx, func(ev any) {
		mu.Lock()
		defer mu.Unlock()
		if e, ok := ev.(*runtime.EventExceptionThrown); ok {
			d := e.ExceptionDetails
			msg := d.Text
			if d.Exception != nil {
				msg += " " + d.Exception.Description
			}
			problems = append(problems, fmt.Sprintf("%s:%d: %s", d.URL, d.LineNumber, msg))
		}
	})
	require.NoError(t, err)
	defer p.Close()
	pc := p.Context()

	type overview struct {
		Rows    []string
		Done    string
		Planned string
		Status  string
		Steps   []string
		Marker  bool
	}
	const look = `(() => ({
		rows: [...document.querySelectorAll("#live-board tbody tr")].map(r => r.cells[0].textContent),
		done: document.querySelector("#progress .done").textContent,
		planned: document.querySelector("#progress .planned").textContent,
		status: document.getElementById("live-status").textContent,
		steps: [...document.querySelectorAll("#progress tr[data-step]")].map(r => [...r.cells].map(c => c.textContent).join(" ")),
		marker: window.__stillTheSamePage === true,
	}))()`
	_, err = chromedp.Run(pc, chromedp.Navigate(base+"/"))
	require.NoError(t, err)
	// The stream is open once the script has heard from it.
	_, err = chromedp.Run(pc, chromedp.Poll[bool](`document.getElementById("live-status").textContent.startsWith("live ·")`,
		chromedp.WithPollingTimeout(time.Minute)))
	require.NoError(t, err)
	first, err := chromedp.Run(pc, chromedp.Evaluate[overview](look))
	require.NoError(t, err)
	require.Equal(t, overview{Rows: []string{"oracle", "gpt"}, Done: "3", Planned: "5", Status: "live · 3 of 5 finished, 1 unfinished",
		Steps: []string{"generate 2 0 0 0"}}, first)
	if *updateShot {
		png, err := chromedp.Run(pc, chromedp.FullScreenshot(100))
		require.NoError(t, err)
		require.NoError(t, os.WriteFile(filepath.Join("..", "..", "docs", "serve-overview.png"), png, 0o644))
	}
	_, err = chromedp.Run(pc, chromedp.Evaluate[bool](`window.__stillTheSamePage = true`))
	require.NoError(t, err)

	// A generation job finishes and its page's repair is queued: the
	// counts change in place.
	stepsMu.Lock()
	steps = []report.StepCount{{Kind: "generate", Queued: 1, Done: 1}, {Kind: "repair", Queued: 1}}
	stepsMu.Unlock()
	_, err = chromedp.Run(pc, chromedp.Poll[bool](`document.querySelectorAll("#progress tr[data-step]").length === 2`, chromedp.WithPollingTimeout(2*time.Minute)))
	require.NoError(t, err, "the generation jobs' counts never reached the page")
	stepped, err := chromedp.Run(pc, chromedp.Evaluate[overview](look))
	require.NoError(t, err)
	require.Equal(t, []string{"generate 1 0 1 0", "repair 1 0 0 0"}, stepped.Steps)
	require.True(t, stepped.Marker, "updated in place, not reloaded")

	// A new model's trial finishes while the page is open.
	late := trialOf("k-claude", "simulation/ball", "claude", "page", 0)
	late.Pass, late.VCov, late.ACov, late.SCov, late.TCov = true, 1, 1, 1, 1
	f.add(t, late, nil)
	_, err = chromedp.Run(pc, chromedp.Poll[bool](`document.querySelector("#progress .done").textContent === "4" &&
		document.querySelectorAll("#live-board tbody tr").length === 3`, chromedp.WithPollingTimeout(2*time.Minute)))
	require.NoError(t, err, "the new trial never reached the page")
	after, err := chromedp.Run(pc, chromedp.Evaluate[overview](look))
	require.NoError(t, err)
	// Tied at 100%, claude and oracle are ranked by name, as report.html ranks them.
	require.Equal(t, []string{"claude", "oracle", "gpt"}, after.Rows)
	require.True(t, after.Marker, "updated in place, not reloaded")
	latest, err := chromedp.Run(pc, chromedp.Evaluate[string](`document.querySelector("#live-latest tbody tr[data-key='k-claude'] td:nth-child(3)").textContent`))
	require.NoError(t, err)
	require.Equal(t, "claude", latest)

	// The grid follows too, its filters kept: showing gpt only, a new
	// model's column arrives hidden and its name joins the model list.
	require.NoError(t, chromedp.Do(pc, chromedp.Navigate(base+"/grid")))
	_, err = chromedp.Run(pc, chromedp.Poll[bool](`document.getElementById("live-status").textContent.startsWith("live ·")`,
		chromedp.WithPollingTimeout(time.Minute)))
	require.NoError(t, err)
	_, err = chromedp.Run(pc, chromedp.Evaluate[bool](`(() => { const s = document.querySelector('#filters select[name="model"]'); s.value = "gpt"; s.dispatchEvent(new Event("change")); window.__stillTheSamePage = true; return true; })()`))
	require.NoError(t, err)
	gemini := trialOf("k-gemini", "rendering/fog", "gemini", "page", 0)
	gemini.VCov, gemini.ACov, gemini.Attribution = 0.5, 1, "state_mismatch"
	f.add(t, gemini, nil)
	type gridView struct {
		Models []string
		Chosen string
		Cols   []string
		Shown  string
		Marker bool
	}
	grid, err := chromedp.Run(pc, chromedp.Poll[gridView](`(() => {
		if (!document.querySelector('#grid th[data-model="gemini"]')) return false;
		const vis = el => el.offsetParent !== null;
		return {
			models: [...document.querySelectorAll('#filters select[name="model"] option')].map(o => o.textContent),
			chosen: document.querySelector('#filters select[name="model"]').value,
			cols: [...document.querySelectorAll("#grid thead th[data-model]")].filter(vis).map(c => c.dataset.model),
			shown: document.getElementById("shown").textContent,
			marker: window.__stillTheSamePage === true,
		};
	})()`, chromedp.WithPollingTimeout(2*time.Minute)))
	require.NoError(t, err, "the new trial never reached the grid")
	require.Equal(t, gridView{Models: []string{"any", "claude", "oracle", "gemini", "gpt"}, Chosen: "gpt", Cols: []string{"gpt"}, Shown: "2 of 5 trials shown", Marker: true}, grid)

	// The grid's mark of the failed trial opens its page.
	require.NoError(t, chromedp.Do(pc, chromedp.Click(chromedp.CSS(`#grid a.chip.fail[data-model="gpt"]`)),
		chromedp.WaitVisible(chromedp.ID("failed"))))
	type trialView struct {
		URL     string
		Asserts int
		Values  []string
		Shot    int
		Plots   int
	}
	got, err := chromedp.Run(pc, chromedp.Poll[trialView](`(() => {
		const img = document.querySelector("img.shot");
		if (!img || !img.complete) return false;
		return {
			url: location.pathname,
			asserts: document.querySelectorAll(".assert").length,
			values: [...document.querySelectorAll(".assert table tbody td")].map(td => td.textContent),
			shot: img.naturalWidth,
			plots: document.querySelectorAll(".assert svg").length,
		};
	})()`, chromedp.WithPollingTimeout(time.Minute)))
	require.NoError(t, err)
	require.Equal(t, trialView{URL: flawedPage, Asserts: 1, Values: []string{"ball.position[1]", "s at line 11 (frame 31)", "5.3", "0.5"}, Shot: 4, Plots: 1}, got)

	mu.Lock()
	defer mu.Unlock()
	require.Empty(t, problems)
}
