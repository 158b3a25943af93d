package browser_test

import (
	"context"
	"testing"
	"time"

	"github.com/chromedp/chromedp"
	"github.com/stretchr/testify/require"

	"github.com/worldprobe/worldprobe/internal/browser"
)

// TestCPUTimesByKind: a busy loop of JavaScript (about a fifth of a CPU-second)
// shows up as renderer CPU time between two readings, more than any other
// kind of process used meanwhile, and the browser process is counted as
// "browser".
func TestCPUTimesByKind(t *testing.T) {
	ctx := context.Background()
	b, err := browser.Launch(ctx, browser.Options{Jobs: 1})
	require.NoError(t, err, "run 'make setup'")
	defer b.Close()
	p, err := b.NewPage(ctx, nil)
	require.NoError(t, err)
	defer p.Close()
	_, err = chromedp.Run(p.Context(), chromedp.Navigate("data:text/html,<p>busy</p>"))
	require.NoError(t, err)

	before := b.CPUTimes()
	require.Positive(t, before["browser"], "%v", before)
	_, err = chromedp.Run(p.Context(), chromedp.Evaluate[float64](`(() => { let x = 0; for (let i = 0; i < 1e8; i++) x += i % 7; return x })()`))
	require.NoError(t, err)
	used := b.CPUTimes().Sub(before)
	t.Logf("CPU used by the loop: %v", used)
	require.GreaterOrEqual(t, used["renderer"], 100*time.Millisecond, "%v", used)
	for kind, d := range used {
		if kind != "renderer" {
			require.Less(t, d, used["renderer"], "%s used more than the renderer: %v", kind, used)
		}
	}
}
