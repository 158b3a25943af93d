package session

import (
	"bytes"
	"context"
	"image/png"
	"os"
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/require"
)

// A Recorder sees every Every-th stepped frame, counted across Step calls
// of any size and drawn or not, each captured after that very frame was
// drawn (the page clears to red = 10 × its frame number); raising Every
// moves the next capture to its next multiple. Step reports the same
// frames, callbacks and draws as without the recorder.
func TestRecorderCapturesEveryNthFrame(t *testing.T) {
	dir := t.TempDir()
	page := filepath.Join(dir, "index.html")
	require.NoError(t, os.WriteFile(page, []byte(`<!doctype html><body style="margin:0"><canvas id=c width=100 height=50></canvas><script>
const gl = document.getElementById('c').getContext('webgl');
let n = 0;
window.__3D_STATE__ = {get n() { return n; }};
requestAnimationFrame(function f() { n++; gl.clearColor(10 * n / 255, 0, 0, 1); gl.clear(gl.COLOR_BUFFER_BIT); requestAnimationFrame(f); });
</script>`), 0o644))
	ctx := context.Background()
	plain := open(t, page)
	s := open(t, page)
	var seen []int
	rec := &Recorder{Every: 3}
	rec.Frame = func(_ context.Context, f RecordedFrame) error {
		require.NoError(t, f.Err)
		img, err := png.Decode(bytes.NewReader(f.PNG))
		require.NoError(t, err)
		require.Equal(t, 100, img.Bounds().Dx(), "a canvas narrower than RecordWidth is captured at its size")
		r, g, b, _ := img.At(50, 25).RGBA()
		require.Equal(t, [3]uint32{uint32(10 * f.Frame), 0, 0}, [3]uint32{r >> 8, g >> 8, b >> 8}, "frame %d shows itself", f.Frame)
		seen = append(seen, f.N)
		if f.N == 9 {
			rec.Every = 5 // next: 10, 15, …
		}
		return nil
	}
	s.SetRecorder(rec)
	for _, step := range []struct {
		n    int
		draw bool
	}{{4, false}, {1, true}, {7, false}, {5, false}} {
		want, err := plain.Step(ctx, step.n, step.draw)
		require.NoError(t, err)
		got, err := s.Step(ctx, step.n, step.draw)
		require.NoError(t, err)
		require.Equal(t, want, got, "stepping %d frames", step.n)
	}
	require.Equal(t, []int{3, 6, 9, 10, 15}, seen)
	s.SetRecorder(nil)
	_, err := s.Step(ctx, 5, false)
	require.NoError(t, err)
	require.Equal(t, []int{3, 6, 9, 10, 15}, seen, "no recording once the recorder is unset")
	require.Equal(t, 22, s.Frame())
}
