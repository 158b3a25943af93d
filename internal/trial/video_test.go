package trial

import (
	"bytes"
	"context"
	"encoding/json"
	"image"
	"image/png"
	"math"
	"os"
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/worldprobe/worldprobe/internal/result"
	"github.com/worldprobe/worldprobe/internal/session"
	"github.com/worldprobe/worldprobe/internal/video"
)

// xrVideoContract has a still probe at the task's rate, one at 30 fps
// with a reload and one that moves the head and a hand (the view turns).
const xrVideoContract = `version: 1
probes:
  - name: presents
    level: state
    steps:
      - step: 10
      - assert: s.presenting && s.frames == 10
  - name: presents_30fps
    level: state
    fps: 30
    steps:
      - step: 3
      - reload: {}
      - step: 4
      - assert: s.presenting && s.frames == 4
  - name: head_and_hand
    level: transition
    steps:
      - step: 2
      - head: {position: [0.3, 1.4, 0.2], orientation: [0, 0.2588190451, 0, 0.9659258263]}
      - step: 6
      - assert: approx(s.head[1], 1.4, 0.000001)
      - hand: {hand: right, position: [0.2, 1.3, -0.4]}
      - hand: {hand: right, pinch: 1}
      - assert: s.selecting
`

// firstLast keeps the first and last frame recorded of each probe.
type firstLast struct {
	first, last map[string]session.RecordedFrame
	n           map[string]int
}

func (fl *firstLast) see(probe string, f session.RecordedFrame) {
	if _, ok := fl.first[probe]; !ok {
		fl.first[probe] = f
	}
	fl.last[probe] = f
	fl.n[probe]++
}

func decodePNG(t *testing.T, b []byte) image.Image {
	t.Helper()
	img, err := png.Decode(bytes.NewReader(b))
	require.NoError(t, err)
	return img
}

// TestXRTrialVideo: an XR trial records each probe's page as a WebM of one
// frame per stepped frame at the probe's rate; ffprobe finds those frames
// and that duration, and the clip's first and last frames are the
// captured ones. Recording changes nothing the contract sees: verdicts and
// the state hash (with the pixels of each probe's last frame
// fingerprinted) are those of the same trial without video.
func TestXRTrialVideo(t *testing.T) {
	vrPage, err := filepath.Abs(filepath.Join("..", "xr", "testdata", "three-vr.html"))
	require.NoError(t, err)
	dir := filepath.Join(t.TempDir(), "xr", "vr-cube")
	tk, c := writeTask(t, dir, map[string]string{
		"task.yaml": "id: xr/vr-cube\ntitle: VR cube\ncategory: xr\ndifficulty: D1\nxr: metaQuest3\nstate:\n" +
			"  - {path: presenting, type: boolean}\n  - {path: frames, type: number}\n  - {path: head, type: vec3}\n" +
			"  - {path: tip, type: vec3}\n  - {path: selecting, type: boolean}\n  - {path: selects, type: number}\n",
		"brief.md":      "# VR cube\n\nExpose the state.\n",
		"contract.yaml": xrVideoContract,
	})
	ctx := context.Background()
	judge := func(v Video) *result.Trial {
		r := &Runner{Browser: shared.Browser, Resolver: shared.Resolver, SkipDraw: true, Load: func() float64 { return 0.2 }, Video: v}
		tr, err := r.Run(ctx, Input{Key: "k", Task: tk, Contract: c, Page: vrPage, Model: "m", Candidate: "c", Dir: t.TempDir(), Fingerprint: true})
		require.NoError(t, err)
		require.Equal(t, result.OutcomeOK, tr.Outcome, "%s: %s", tr.CrashKind, tr.CrashMessage)
		for _, a := range tr.Assertions {
			require.Equal(t, "pass", a.Status, "%s: %s: %s", a.Probe, a.Expr, a.Message)
		}
		return tr
	}
	plain := judge(Video{})
	require.Empty(t, plain.Videos)

	fl := &firstLast{first: map[string]session.RecordedFrame{}, last: map[string]session.RecordedFrame{}, n: map[string]int{}}
	rec := judge(Video{Mode: VideoXR, frames: fl.see})
	require.Equal(t, plain.StateHash, rec.StateHash, "recording changes no state and no fingerprinted pixels")
	require.Equal(t, plain.Assertions, rec.Assertions)
	require.Equal(t, plain.Pass, rec.Pass)

	// Frames: presents steps 10; presents_30fps 3, then 4 after its
	// reload (one clip for the probe); head_and_hand 2 + 6 + a settle
	// frame after each of the hand's two inputs + the frame in which the
	// fingers close before the pinch is reported.
	want := []result.Video{
		{Probe: "presents", File: "video-presents.webm", Kind: video.KindWebM, Frames: 10, Every: 1, FPS: 60, DurationS: 10.0 / 60, Width: 640, Height: 400},
		{Probe: "presents_30fps", File: "video-presents_30fps.webm", Kind: video.KindWebM, Frames: 7, Every: 1, FPS: 30, DurationS: 7.0 / 30, Width: 640, Height: 400},
		{Probe: "head_and_hand", File: "video-head_and_hand.webm", Kind: video.KindWebM, Frames: 11, Every: 1, FPS: 60, DurationS: 11.0 / 60, Width: 640, Height: 400},
	}
	require.Equal(t, want, rec.Videos)
	trialDir := filepath.Dir(rec.Screenshot)
	for _, v := range want {
		require.Contains(t, rec.Artifacts, v.File)
		require.Equal(t, v.Frames, fl.n[v.Probe], "one capture per clip frame")
		path := filepath.Join(trialDir, v.File)
		p, err := video.Probe(ctx, path)
		require.NoError(t, err)
		require.Equal(t, video.Probed{Codec: "vp9", Width: 640, Height: 400, Frames: v.Frames, Duration: webmSeconds(v)}, p, v.Probe)
		for i, f := range map[int]session.RecordedFrame{0: fl.first[v.Probe], v.Frames - 1: fl.last[v.Probe]} {
			got, err := video.FrameAt(ctx, path, i)
			require.NoError(t, err)
			d, err := video.MeanAbsDiff(got, decodePNG(t, f.PNG))
			require.NoError(t, err)
			require.Less(t, d, videoTolerance, "%s: frame %d of the clip is the captured one", v.Probe, i)
		}
	}
	// Chromium plays the clip: a page beside it reads its metadata.
	playable(t, trialDir, want[2].File, webmSeconds(want[2]))
	// And the trial's page in report.html plays every clip in its own
	// <video> elements.
	reportPlays(t, rec, trialDir)

	// The comparison can fail: turning the head moves the view.
	d, err := video.MeanAbsDiff(decodePNG(t, fl.first["head_and_hand"].PNG), decodePNG(t, fl.last["head_and_hand"].PNG))
	require.NoError(t, err)
	require.Greater(t, d, 2*videoTolerance)
}

// videoTolerance is how far (mean absolute difference, 0–255 levels) a
// decoded clip frame may be from the captured one: 4:2:0 VP9 rounds each
// channel by about a level and blurs colour at sharp edges.
const videoTolerance = 2.0

// TestVideoContactSheetWithoutFFmpeg: with Video.Mode all a flat page is
// recorded too; without ffmpeg on PATH its clip is a contact sheet of the
// frames kept, which past MaxFrames (8 here) are every 2nd, then every
// 4th frame, so the sheet still spans the whole probe.
func TestVideoContactSheetWithoutFFmpeg(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "rendering", "red")
	tk, c := writeTask(t, dir, map[string]string{
		"task.yaml":     "id: rendering/red\ntitle: Red\ncategory: rendering\ndifficulty: D1\nstate:\n  - {path: n, type: number}\n",
		"brief.md":      "# Red\n\nExpose n.\n",
		"contract.yaml": "version: 1\nprobes:\n  - name: reddens\n    level: state\n    steps:\n      - step: 20\n      - assert: s.n == 20\n",
		"page/index.html": `<!doctype html><body style="margin:0"><canvas id=c width=64 height=48></canvas><script>
const gl = document.getElementById('c').getContext('webgl');
const sh = (type, src) => { const x = gl.createShader(type); gl.shaderSource(x, src); gl.compileShader(x); return x; };
const prog = gl.createProgram(); // a point outside the view: a draw call that draws nothing
gl.attachShader(prog, sh(gl.VERTEX_SHADER, 'void main() { gl_Position = vec4(2.0, 2.0, 0.0, 1.0); gl_PointSize = 1.0; }'));
gl.attachShader(prog, sh(gl.FRAGMENT_SHADER, 'void main() { gl_FragColor = vec4(1.0); }'));
gl.linkProgram(prog);
let n = 0;
window.__3D_STATE__ = {get n() { return n; }};
requestAnimationFrame(function f() { n++; gl.clearColor(10 * n / 255, 0, 0, 1); gl.clear(gl.COLOR_BUFFER_BIT); gl.useProgram(prog); gl.drawArrays(gl.POINTS, 0, 1); requestAnimationFrame(f); });
</script>`,
	})
	t.Setenv("PATH", t.TempDir())
	require.Empty(t, video.FFmpeg())
	captures := 0
	r := &Runner{Browser: shared.Browser, Resolver: shared.Resolver, SkipDraw: true, Load: func() float64 { return 0.2 },
		Video: Video{Mode: VideoAll, MaxFrames: 8, frames: func(string, session.RecordedFrame) { captures++ }}}
	tr, err := r.Run(context.Background(), Input{Key: "k", Task: tk, Contract: c, Page: filepath.Join(dir, "page", "index.html"),
		Model: "m", Candidate: "c", Dir: t.TempDir()})
	require.NoError(t, err)
	require.True(t, tr.Pass, "%s %+v", tr.CrashMessage, tr.Assertions)
	require.Equal(t, []result.Video{{Probe: "reddens", File: "video-reddens.png", Kind: video.KindContactSheet,
		Frames: 5, Every: 4, FPS: 15, DurationS: 5.0 / 15, Width: 64, Height: 48, Sampled: []int{4, 8, 12, 16, 20}}}, tr.Videos)
	require.Equal(t, 9+5+1, captures, "frames 1–9, then every 2nd to 18, then 20")
	require.Contains(t, tr.Artifacts, "video-reddens.png")
	b, err := os.ReadFile(filepath.Join(filepath.Dir(tr.Screenshot), "video-reddens.png"))
	require.NoError(t, err)
	sheet := decodePNG(t, b)
	require.Equal(t, image.Rect(0, 0, 4*64+5*4, 2*48+3*4), sheet.Bounds())
	for k, n := range []int{4, 8, 12, 16, 20} {
		x, y := 4+(k%4)*(64+4)+32, 4+(k/4)*(48+4)+24
		r, g, b, _ := sheet.At(x, y).RGBA()
		require.Equal(t, [3]uint32{uint32(10 * n), 0, 0}, [3]uint32{r >> 8, g >> 8, b >> 8}, "tile %d shows frame %d", k, n)
	}
}

// playable loads a page in the folder dir that plays file in a <video>
// and waits (stepping frames, at most 300) until Chromium has decoded
// enough of it to play (readyState 4); it then checks its duration (WebM
// keeps milliseconds) and size.
func playable(t *testing.T, dir, file string, duration float64) {
	t.Helper()
	page := filepath.Join(dir, "play.html")
	require.NoError(t, os.WriteFile(page, []byte(`<!doctype html><canvas id=c width=8 height=8></canvas><script>
const st = {duration: 0, w: 0, h: 0, ready: 0, err: 0};
window.__3D_STATE__ = st;
const v = document.createElement('video');
v.muted = true;
v.onloadedmetadata = () => { st.duration = v.duration; st.w = v.videoWidth; st.h = v.videoHeight; };
v.oncanplaythrough = () => { st.ready = v.readyState; };
v.onerror = () => { st.err = v.error.code; };
v.src = '`+file+`';
document.body.appendChild(v);
requestAnimationFrame(function f() { requestAnimationFrame(f); });
</script>`), 0o644))
	defer os.Remove(page)
	ctx := context.Background()
	s, err := session.Open(ctx, shared.Browser, shared.Resolver, page, session.Config{Seed: 1, FPS: 60, SkipDraw: true})
	require.NoError(t, err)
	defer s.Close()
	var st struct {
		Duration   float64
		W, H       int
		Ready, Err int
	}
	for i := 0; i < 30 && st.Ready == 0 && st.Err == 0; i++ {
		_, err := s.Step(ctx, 10, false)
		require.NoError(t, err)
		state, err := s.ReadState(ctx)
		require.NoError(t, err)
		require.NoError(t, json.Unmarshal(state.JSON, &st))
	}
	require.Equal(t, 0, st.Err, "MediaError code")
	require.Equal(t, 4, st.Ready, "HAVE_ENOUGH_DATA")
	require.Equal(t, duration, st.Duration)
	require.Equal(t, [2]int{640, 400}, [2]int{st.W, st.H})
}

// webmSeconds is a clip's duration as WebM keeps it, in whole
// milliseconds: its last frame starts at its rounded time and lasts one
// rounded frame.
func webmSeconds(v result.Video) float64 {
	return (math.Round(float64(v.Frames-1)*1000/v.FPS) + math.Round(1000/v.FPS)) / 1000
}
