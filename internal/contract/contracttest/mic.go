package contracttest

import (
	"context"
	"math"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/worldprobe/worldprobe/internal/audio"
	"github.com/worldprobe/worldprobe/internal/contract"
	"github.com/worldprobe/worldprobe/internal/contract/contracttest/world"
)

// MicOpener opens a fresh page of the microphone world (world.MicHTML) at
// fps, with files (name → content) in its task folder; it closes the page
// through t.Cleanup.
type MicOpener func(t *testing.T, fps float64, files map[string][]byte) contract.Page

// MicrophoneConformance checks a page's synthetic microphone
// (contract.Microphone) against the microphone world: silent until a sound
// is injected, then, frame after frame, exactly the level of the window
// of the injected samples (a 44.1 kHz stereo tone, mixed down and
// resampled as package audio does) ending at the frame's virtual time,
// silent again after it; a missing file is an infrastructure error.
func MicrophoneConformance(t *testing.T, open MicOpener) {
	ctx := context.Background()
	const rate = 44100
	left, right := make([]float64, rate/2), make([]float64, rate/2)
	for i := range left {
		left[i] = 0.6 * math.Sin(2*math.Pi*440*float64(i)/rate)
		right[i] = 0.2 * math.Sin(2*math.Pi*660*float64(i)/rate)
	}
	wav := audio.EncodePCM16(rate, left, right)
	snd, err := audio.ParseWAV("tone.wav", wav)
	require.NoError(t, err)
	samples, err := audio.Mono(snd)
	require.NoError(t, err)

	p := open(t, 60, map[string][]byte{"tone.wav": wav})
	mic, ok := p.(contract.Microphone)
	if !ok {
		t.Skip("the page has no synthetic microphone")
	}
	level := func() float64 {
		m, ok := state(t, p)["mic"].(map[string]any)
		require.True(t, ok, "the microphone world publishes mic")
		require.Equal(t, true, m["open"], "the microphone is open")
		return m["level"].(float64)
	}
	require.NoError(t, p.Step(ctx, 5))
	require.Equal(t, 0.0, level(), "silent before any sound")
	require.NoError(t, mic.InjectAudio(ctx, contract.Sound{WAV: "tone.wav"}))
	start := 5 * world.MicRate / 60
	heard := 0
	for f := 6; f <= 40; f++ {
		require.NoError(t, p.Step(ctx, 1))
		want := world.MicLevel(samples, start, f*world.MicRate/60)
		require.InDelta(t, want, level(), 2e-6, "frame %d", f)
		if want > 0 {
			heard++
		}
	}
	require.Equal(t, 32, heard, "0.5 s of tone (samples 4000 to 27999) is heard while the window [f·800 − 2048, f·800) holds some of it: frames 6 to 37")

	err = mic.InjectAudio(ctx, contract.Sound{WAV: "missing.wav"})
	require.True(t, contract.IsInfra(err), "a missing sound is the task's, not the page's: %v", err)
	require.ErrorContains(t, err, "missing.wav")
}
