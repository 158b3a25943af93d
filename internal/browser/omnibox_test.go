package browser

import (
	"bytes"
	"context"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"github.com/chromedp/chromedp"
	"github.com/stretchr/testify/require"
)

// openWithFlags launches Chromium with worldprobe's flags and extra, and
// opens url in a page; both close when the test ends.
func openWithFlags(t *testing.T, extra map[string]any, url string) (*Browser, *Page) {
	t.Helper()
	ctx := context.Background()
	b, err := Launch(ctx, Options{Jobs: 1, ExtraFlags: extra})
	require.NoError(t, err, "run 'make setup'")
	t.Cleanup(func() { b.Close() })
	p, err := b.NewPage(ctx, nil)
	require.NoError(t, err)
	t.Cleanup(p.Close)
	_, err = chromedp.Run(p.Context(), chromedp.Navigate(url))
	require.NoError(t, err)
	return b, p
}

// TestNoOmniboxPopupRenderer: a page's browser context gets no renderer for
// the address bar's WebUI popup. Headless Chromium builds a window for
// every context, and that window used to preload
// chrome://omnibox-popup.top-chrome/ in a renderer of its own (about 1.7
// CPU-seconds per trial). Launched with the old feature list, the same
// test finds that renderer (the subtest "old flags"), so it can fail.
func TestNoOmniboxPopupRenderer(t *testing.T) {
	for _, tc := range []struct {
		name  string
		extra map[string]any
		want  bool
	}{
		{"worldprobe's flags", nil, false},
		{"old flags", map[string]any{"disable-features": "Translate,MediaRouter,OptimizationHints,DialMediaRouteProvider,AutofillServerCommunication"}, true},
	} {
		t.Run(tc.name, func(t *testing.T) {
			b, p := openWithFlags(t, tc.extra, "data:text/html,<p>page</p>")
			infos, err := chromedp.Targets(p.Context())
			require.NoError(t, err)
			var popups []string
			for _, in := range infos {
				if strings.HasPrefix(in.URL, "chrome://omnibox-popup") {
					popups = append(popups, in.URL)
				}
			}
			var webui []int
			for _, pid := range descendants(b.PID()) {
				cmd, _ := os.ReadFile(filepath.Join("/proc", strconv.Itoa(pid), "cmdline"))
				if processKind(cmd) == "renderer" && bytes.Contains(cmd, []byte("--top-chrome-webui")) {
					webui = append(webui, pid)
				}
			}
			require.Equal(t, tc.want, len(popups) > 0, "omnibox popup targets: %v", popups)
			require.Equal(t, tc.want, len(webui) > 0, "top-chrome WebUI renderers: %v", webui)
		})
	}
}
