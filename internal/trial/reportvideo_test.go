package trial

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/worldprobe/worldprobe/internal/report"
	"github.com/worldprobe/worldprobe/internal/result"
	"github.com/worldprobe/worldprobe/internal/session"
)

// reportPlays writes report.html for the XR trial tr (its folder trialDir)
// and loads the trial's page the report links to in real Chromium: each
// of its <video> elements, as the report wrote it, loads its WebM from the
// trial's folder without a media error, with the clip's duration (WebM
// keeps milliseconds) and the recorded size.
func reportPlays(t *testing.T, tr *result.Trial, trialDir string) {
	t.Helper()
	ctx := context.Background()
	run := filepath.Dir(trialDir)
	require.NoError(t, report.WriteHTML(filepath.Join(run, "report.html"), report.Page{Title: "t", Trials: []*result.Trial{tr},
		Dirs: map[string]string{tr.Key: filepath.Base(trialDir)}}))
	page := filepath.Join(trialDir, "index.html")
	html, err := os.ReadFile(page)
	require.NoError(t, err)
	for _, v := range tr.Videos {
		require.Contains(t, string(html), fmt.Sprintf(`<video class="shot" controls preload="metadata" src="%s" width="%d" height="%d"></video>`, v.File, v.Width, v.Height))
	}

	s, err := session.Open(ctx, shared.Browser, shared.Resolver, page, session.Config{Seed: 1, FPS: 60, SkipDraw: true})
	require.NoError(t, err)
	defer s.Close()
	type clip struct {
		Ready, Err, W, H int
		Duration         float64
		Src              string
	}
	var clips []clip
	loaded := func() bool {
		for _, c := range clips {
			if c.Ready < 1 && c.Err == 0 {
				return false
			}
		}
		return len(clips) > 0
	}
	const read = `[...document.querySelectorAll('video')].map(v => ({ready: v.readyState, err: v.error ? v.error.code : 0,
		w: v.videoWidth, h: v.videoHeight, duration: v.duration || 0, src: v.currentSrc.split('/').pop()}))`
	for i := 0; i < 60 && !loaded(); i++ {
		_, err := s.Step(ctx, 5, false)
		require.NoError(t, err)
		require.NoError(t, s.Eval(ctx, 0, read, &clips))
	}
	require.Len(t, clips, len(tr.Videos))
	for i, v := range tr.Videos {
		c := clips[i]
		require.Equal(t, clip{Ready: c.Ready, W: v.Width, H: v.Height, Duration: webmSeconds(v), Src: v.File}, c, v.Probe)
		require.GreaterOrEqual(t, c.Ready, 1, "%s: HAVE_METADATA", v.Probe)
	}
}
