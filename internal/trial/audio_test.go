package trial

import (
	"context"
	"encoding/json"
	"math"
	"os"
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/worldprobe/worldprobe/internal/audio"
	"github.com/worldprobe/worldprobe/internal/contract"
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

func openMicPage(t *testing.T, dir string) *page {
	t.Helper()
	html, err := os.ReadFile(filepath.Join("testdata", "mic.html"))
	require.NoError(t, err)
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

func TestMicrophoneHearsAnInjectedTone(t *testing.T) {
	ctx := context.Background()
	dir := t.TempDir()
	require.NoError(t, os.WriteFile(filepath.Join(dir, "tone.wav"), audio.EncodePCM16(48000, tone(48000, 440, 0.5, 1)), 0o644))
	p := openMicPage(t, dir)
	require.NoError(t, p.Step(ctx, 5))
	m := readMic(t, p)
	require.True(t, m.Open, m.Error)
	require.Equal(t, 0.0, m.Level)
	t.Logf("%+v", m)
	require.NoError(t, p.InjectAudio(ctx, contract.Sound{WAV: "tone.wav"}))
	require.NoError(t, p.Step(ctx, 1))
	m = readMic(t, p)
	t.Logf("%+v", m)
	require.NoError(t, p.Step(ctx, 10))
	m = readMic(t, p)
	t.Logf("%+v", m)
}
