package trial

import (
	"context"
	"encoding/json"
	"math"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/worldprobe/worldprobe/internal/audio"
	"github.com/worldprobe/worldprobe/internal/contract"
	"github.com/worldprobe/worldprobe/internal/result"
	"github.com/worldprobe/worldprobe/internal/session"
)

// tone is a sine of freq Hz and amplitude amp at rate, seconds long.
func tone(rate int, freq, amp, seconds float64) []float64 {
	x := make([]float64, int(float64(rate)*seconds))
	for i := range x {
		x[i] = amp * math.Sin(2*math.Pi*freq*float64(i)/float64(rate))
	}
	return x
}

// micState is what testdata/mic.html publishes.
type micState struct {
	Open     bool     `json:"open"`
	Error    string   `json:"error"`
	Rate     float64  `json:"rate"`
	Label    string   `json:"label"`
	Devices  []string `json:"devices"`
	Level    float64  `json:"level"`
	Bin      int      `json:"bin"`
	PeakDb   *float64 `json:"peakDb"`
	ByteBin  int      `json:"byteBin"`
	ByteTime int      `json:"byteTime0"`
}

// micPage writes testdata/mic.html into dir with its CFG line replaced by
// cfg ("" keeps it) and opens it at 60 fps.
func openMicPage(t *testing.T, dir, cfg string) *page {
	t.Helper()
	html, err := os.ReadFile(filepath.Join("testdata", "mic.html"))
	require.NoError(t, err)
	if cfg != "" {
		html = []byte(strings.Replace(string(html), "const CFG = { smoothing: null, from: 0, k: -1 };", "const CFG = "+cfg+";", 1))
	}
	path := filepath.Join(dir, "index.html")
	require.NoError(t, os.WriteFile(path, html, 0o644))
	s, err := session.Open(context.Background(), shared.Browser, shared.Resolver, path, session.Config{Seed: 1, FPS: 60, SkipDraw: true})
	require.NoError(t, err)
	t.Cleanup(s.Close)
	require.True(t, s.Loaded(), "%+v", s.Log())
	return &page{s: s, fps: 60, dir: dir}
}

func readMic(t *testing.T, p *page) micState {
	t.Helper()
	st, err := p.s.ReadState(context.Background())
	require.NoError(t, err)
	var m micState
	require.NoError(t, json.Unmarshal(st.JSON, &m), string(st.JSON))
	return m
}

// TestMicrophoneHearsAnInjectedTone: a page meters its microphone through
// a GainNode into an AnalyserNode (fftSize 2048). Silent until the 440 Hz
// tone is injected at frame 5; the first frame after holds 800 of its
// samples (1000/60 ms at 48 kHz) in the 2048-sample window, from frame 8
// on the window is all tone (RMS 0.5/√2) and its dominant bin is 19
// (440 Hz × 2048 / 48000 = 18.77); a second after the injection the tone
// has ended and the window is silent again.
func TestMicrophoneHearsAnInjectedTone(t *testing.T) {
	ctx := context.Background()
	dir := t.TempDir()
	require.NoError(t, os.WriteFile(filepath.Join(dir, "tone.wav"), audio.EncodePCM16(48000, tone(48000, 440, 0.5, 1)), 0o644))
	p := openMicPage(t, dir, "")
	require.NoError(t, p.Step(ctx, 5))
	m := readMic(t, p)
	require.True(t, m.Open, m.Error)
	require.Equal(t, micState{Open: true, Rate: 48000, Label: "worldprobe synthetic microphone", Devices: []string{"audioinput:worldprobe synthetic microphone"},
		Bin: -1, ByteBin: -1, ByteTime: 128}, m, "the microphone is open and silent")

	require.NoError(t, p.InjectAudio(ctx, contract.Sound{WAV: "tone.wav"}))
	require.NoError(t, p.Step(ctx, 1))
	m = readMic(t, p)
	require.Equal(t, 19, m.Bin, "%+v", m)
	require.InDelta(t, 0.5/math.Sqrt2*math.Sqrt(800.0/2048), m.Level, 0.002, "800 of the window's 2048 samples are tone")

	require.NoError(t, p.Step(ctx, 2))
	m = readMic(t, p)
	require.InDelta(t, 0.5/math.Sqrt2, m.Level, 0.0005, "the window is all tone")
	require.Equal(t, 19, m.Bin)
	require.Equal(t, 19, m.ByteBin)

	require.NoError(t, p.Step(ctx, 60))
	m = readMic(t, p)
	require.Equal(t, 0.0, m.Level, "the 1 s tone has ended")
	require.Equal(t, -1, m.Bin)
	require.Equal(t, 128, m.ByteTime)

	err := p.InjectAudio(ctx, contract.Sound{WAV: "missing.wav"})
	require.True(t, contract.IsInfra(err))
	require.ErrorContains(t, err, "injectAudio: reading missing.wav: open ")
	require.NoError(t, os.WriteFile(filepath.Join(dir, "bad.wav"), []byte("RIFF\x04\x00\x00\x00WAVX"), 0o644))
	err = p.InjectAudio(ctx, contract.Sound{WAV: "bad.wav"})
	require.True(t, contract.IsInfra(err))
	require.EqualError(t, err, "injectAudio: bad.wav: not a RIFF/WAVE file (it must start with RIFF....WAVE)")
}

// TestAnalyserMatchesTheSpecByHand: a 750 Hz sine of amplitude 0.5 is bin
// 32 of a 2048-point FFT at 48 kHz, a whole number of periods in the
// window. Blackman-windowed (a0 = 0.42, a1 = 0.5, a2 = 0.08) and scaled by
// 1/N, it has |X[32]| = 0.5/2 × 0.42 = 0.105, |X[31]| = |X[33]| = 0.5/2 ×
// 0.25 = 0.0625, |X[30]| = |X[34]| = 0.5/2 × 0.04 = 0.01 and nothing else:
// −19.5762, −24.0824 and −40 dB; as bytes (−100 to −30 dB) 255 and
// ⌊255 × 60/70⌋ = 218. With smoothingTimeConstant 0.5 and the first read at
// frame 20 (the window all tone), the first spectrum is half the
// magnitude (−25.5968 dB at bin 32) and the next three quarters (−22.0749).
func TestAnalyserMatchesTheSpecByHand(t *testing.T) {
	ctx := context.Background()
	dir := t.TempDir()
	require.NoError(t, os.WriteFile(filepath.Join(dir, "tone.wav"), audio.EncodePCM16(48000, tone(48000, 750, 0.5, 1)), 0o644))
	db := func(x float64) float64 { return 20 * math.Log10(x) }
	near := func(t *testing.T, want, got []float64) {
		t.Helper()
		require.Len(t, got, 7)
		for i := 1; i <= 5; i++ {
			require.InDelta(t, want[i-1], got[i], 0.001, "bin %d of %v", 29+i, got)
		}
		require.Less(t, got[0], -80.0, "bin 29 holds only the 16-bit rounding")
		require.Less(t, got[6], -80.0, "bin 35 holds only the 16-bit rounding")
	}

	p := openMicPage(t, dir, "{ smoothing: 0, from: 0, k: 32 }")
	require.NoError(t, p.Step(ctx, 5))
	require.NoError(t, p.InjectAudio(ctx, contract.Sound{WAV: "tone.wav"}))
	require.NoError(t, p.Step(ctx, 10))
	st, err := p.s.ReadState(ctx)
	require.NoError(t, err)
	var m struct {
		Spectrum []float64 `json:"spectrum"`
		Bytes    []int     `json:"bytes"`
	}
	require.NoError(t, json.Unmarshal(st.JSON, &m), string(st.JSON))
	near(t, []float64{db(0.01), db(0.0625), db(0.105), db(0.0625), db(0.01)}, m.Spectrum)
	require.Equal(t, []int{0, 218, 255, 255, 255, 218, 0}, m.Bytes)

	p = openMicPage(t, dir, "{ smoothing: 0.5, from: 20, k: 32 }")
	require.NoError(t, p.Step(ctx, 5))
	require.NoError(t, p.InjectAudio(ctx, contract.Sound{WAV: "tone.wav"}))
	require.NoError(t, p.Step(ctx, 15))
	st, err = p.s.ReadState(ctx)
	require.NoError(t, err)
	require.NoError(t, json.Unmarshal(st.JSON, &m), string(st.JSON))
	near(t, []float64{db(0.005), db(0.03125), db(0.0525), db(0.03125), db(0.005)}, m.Spectrum)
	require.NoError(t, p.Step(ctx, 1))
	st, err = p.s.ReadState(ctx)
	require.NoError(t, err)
	require.NoError(t, json.Unmarshal(st.JSON, &m), string(st.JSON))
	near(t, []float64{db(0.0075), db(0.046875), db(0.07875), db(0.046875), db(0.0075)}, m.Spectrum)
}

// TestMicrophoneSpeaks: espeak-ng's "jump" is heard exactly over the frames
// whose analyser window holds any of its clearly audible samples, and the
// microphone is silent once the window holds only the silence after it.
func TestMicrophoneSpeaks(t *testing.T) {
	ctx := context.Background()
	speech, err := audio.Say(ctx, "jump", "en")
	require.NoError(t, err, "espeak-ng is needed: `make setup` installs it")
	p := openMicPage(t, t.TempDir(), "")
	require.NoError(t, p.Step(ctx, 2))
	require.NoError(t, p.InjectAudio(ctx, contract.Sound{Say: "jump", Voice: "en"}))
	frames := (len(speech)+2048)/800 + 3
	heard := 0
	for f := 1; f <= frames; f++ {
		require.NoError(t, p.Step(ctx, 1))
		m := readMic(t, p)
		end := f * 800
		audible, silent := false, true
		for i := max(end-2048, 0); i < end; i++ {
			if i < len(speech) && speech[i] != 0 {
				silent = false
				if math.Abs(float64(speech[i])) > 0.01 {
					audible = true
				}
			}
		}
		switch {
		case audible:
			require.Greater(t, m.Level, 0.0, "frame %d after the injection", f)
			heard++
		case silent:
			require.Equal(t, 0.0, m.Level, "frame %d after the injection", f)
		}
	}
	dur := float64(len(speech)) / audio.Rate
	t.Logf("\"jump\": %.3f s of speech, heard on %d frames", dur, heard)
	require.Greater(t, heard, int(dur*60/2), "the speech is heard for most of its length")
}

// TestInjectAudioIsDeterministic: a task's contract injects the 440 Hz
// tone from its folder and asserts the meter's level and dominant bin at
// the frame after the injection, with the window all tone, after the tone,
// and after a second injection that steps its own frames; two trials
// (three with the slow tests) give the same verdicts and state hash.
func TestInjectAudioIsDeterministic(t *testing.T) {
	html, err := os.ReadFile(filepath.Join("testdata", "mic.html"))
	require.NoError(t, err)
	dir := filepath.Join(t.TempDir(), "simulation", "meter")
	tk, c := writeTask(t, dir, map[string]string{
		"task.yaml": "id: simulation/meter\ntitle: Meter\ncategory: simulation\ndifficulty: D1\ntimeout: 120s\nframes: 200\nstate:\n" +
			"  - {path: level, type: number}\n  - {path: bin, type: number}\n",
		"brief.md":        "# Meter\n\nMeter the microphone.\n",
		"tone.wav":        string(audio.EncodePCM16(48000, tone(48000, 440, 0.5, 1))),
		"page/index.html": string(html),
		"contract.yaml": `version: 1
probes:
  - name: hears-the-tone
    level: transition
    steps:
      - step: 5
      - assert: s.open && s.level == 0.0 && s.bin == -1
      - injectAudio: {wav: tone.wav}
      - assert: s.level > 0.2 && s.level < 0.23 && s.bin == 19 && frame == 6
      - step: 2
      - assert: approx(s.level, 0.35355, 0.0005) && s.bin == 19
      - wait: 1000
      - assert: s.level == 0.0 && s.bin == -1
      - injectAudio: {wav: tone.wav, frames: 3}
      - assert: approx(s.level, 0.35355, 0.0005) && s.bin == 19 && frame == 71
`,
	})
	r := &Runner{Browser: shared.Browser, Resolver: shared.Resolver, SkipDraw: true, Load: func() float64 { return 0.2 }}
	var hashes []string
	for range repeats() {
		tr, err := r.Run(context.Background(), Input{Key: "k", Task: tk, Contract: c, Page: filepath.Join(dir, "page", "index.html"), Model: "m", Candidate: "c", Dir: t.TempDir()})
		require.NoError(t, err)
		require.Equal(t, result.OutcomeOK, tr.Outcome, "%s: %s", tr.CrashKind, tr.CrashMessage)
		for _, a := range tr.Assertions {
			require.Equal(t, "pass", a.Status, "%s: %s %s", a.Probe, a.Expr, a.Message)
		}
		hashes = append(hashes, tr.StateHash)
	}
	require.Len(t, hashes, repeats())
	require.NotEmpty(t, hashes[0])
	require.Equal(t, slices.Repeat([]string{hashes[0]}, repeats()), hashes)
}

// TestMicrophoneInAFrame: a same-origin iframe's microphone is the page's:
// it hears the tone injected into the page, at the page's virtual time.
func TestMicrophoneInAFrame(t *testing.T) {
	ctx := context.Background()
	dir := t.TempDir()
	require.NoError(t, os.WriteFile(filepath.Join(dir, "tone.wav"), audio.EncodePCM16(48000, tone(48000, 440, 0.5, 1)), 0o644))
	html := `<!doctype html><canvas id=c width=8 height=8></canvas>
<iframe srcdoc="<script>
let a = null, b = new Float32Array(2048);
navigator.mediaDevices.getUserMedia({audio: true}).then((s) => { const c = new AudioContext(); a = c.createAnalyser(); a.fftSize = 2048; c.createMediaStreamSource(s).connect(a); });
(function f() { if (a) { a.getFloatTimeDomainData(b); let q = 0; for (const v of b) q += v * v; parent.__3D_STATE__.level = Math.round(Math.sqrt(q / 2048) * 1e6) / 1e6; } requestAnimationFrame(f); })();
</script>"></iframe>
<script>
window.__3D_STATE__ = { level: -1 };
const gl = document.getElementById('c').getContext('webgl');
(function f() { gl.clear(gl.COLOR_BUFFER_BIT); requestAnimationFrame(f); })();
</script>`
	path := filepath.Join(dir, "index.html")
	require.NoError(t, os.WriteFile(path, []byte(html), 0o644))
	s, err := session.Open(ctx, shared.Browser, shared.Resolver, path, session.Config{Seed: 1, FPS: 60, SkipDraw: true})
	require.NoError(t, err)
	t.Cleanup(s.Close)
	require.True(t, s.Loaded(), "%+v", s.Log())
	p := &page{s: s, fps: 60, dir: dir}
	level := func() float64 {
		st, err := p.s.ReadState(ctx)
		require.NoError(t, err)
		var v struct{ Level float64 }
		require.NoError(t, json.Unmarshal(st.JSON, &v), string(st.JSON))
		return v.Level
	}
	require.NoError(t, p.Step(ctx, 5))
	require.Equal(t, 0.0, level(), "the frame's microphone is open and silent")
	require.NoError(t, p.InjectAudio(ctx, contract.Sound{WAV: "tone.wav"}))
	require.NoError(t, p.Step(ctx, 3))
	require.InDelta(t, 0.5/math.Sqrt2, level(), 0.0005, "the frame hears the page's tone, the window all tone")
}

// TestScriptProcessorHearsTheMicrophone: a ScriptProcessorNode of 1024
// samples fed by the microphone gets one audioprocess event per 1024
// samples of virtual time (block k ends at sample 1024·k, delivered on the
// first frame whose time reaches it: ⌊800·f/1024⌋ events by frame f at
// 60 fps), each block the injected samples of its span.
func TestScriptProcessorHearsTheMicrophone(t *testing.T) {
	ctx := context.Background()
	dir := t.TempDir()
	wav := audio.EncodePCM16(48000, tone(48000, 440, 0.5, 0.25))
	require.NoError(t, os.WriteFile(filepath.Join(dir, "tone.wav"), wav, 0o644))
	snd, err := audio.ParseWAV("tone.wav", wav)
	require.NoError(t, err)
	samples, err := audio.Mono(snd)
	require.NoError(t, err)
	html, err := os.ReadFile(filepath.Join("testdata", "processor.html"))
	require.NoError(t, err)
	path := filepath.Join(dir, "index.html")
	require.NoError(t, os.WriteFile(path, html, 0o644))
	s, err := session.Open(ctx, shared.Browser, shared.Resolver, path, session.Config{Seed: 1, FPS: 60, SkipDraw: true})
	require.NoError(t, err)
	t.Cleanup(s.Close)
	require.True(t, s.Loaded(), "%+v", s.Log())
	p := &page{s: s, fps: 60, dir: dir}
	require.NoError(t, p.Step(ctx, 5))
	require.NoError(t, p.InjectAudio(ctx, contract.Sound{WAV: "tone.wav"}))
	require.NoError(t, p.Step(ctx, 30))
	st, err := p.s.ReadState(ctx)
	require.NoError(t, err)
	var got struct {
		Blocks   [][2]float64 `json:"blocks"`
		Listened int          `json:"listened"`
	}
	require.NoError(t, json.Unmarshal(st.JSON, &got), string(st.JSON))
	require.Len(t, got.Blocks, 35*800/1024)
	require.Equal(t, len(got.Blocks), got.Listened, "addEventListener's listener hears every event too")
	const start = 5 * 800
	for k, b := range got.Blocks {
		end := (k + 1) * 1024
		require.Equal(t, float64(end), b[0], "block %d's playbackTime", k)
		var sum float64
		for i := end - 1024; i < end; i++ {
			if j := i - start; j >= 0 && j < len(samples) {
				sum += float64(samples[j]) * float64(samples[j])
			}
		}
		require.InDelta(t, math.Round(math.Sqrt(sum/1024)*1e6)/1e6, b[1], 2e-6, "block %d", k)
	}
	require.Equal(t, 0.0, got.Blocks[2][1], "block 3 ends at 3072, before the tone")
	require.Greater(t, got.Blocks[4][1], 0.3, "block 5 is all tone")
}
