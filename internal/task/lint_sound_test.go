package task

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/worldprobe/worldprobe/internal/audio"
)

// TestLintSounds: every wav: file an injectAudio step plays is read at
// lint time; a missing or malformed one is a finding at its first step.
func TestLintSounds(t *testing.T) {
	dir := copyDir(t, ballDir)
	write := func(rel string, body []byte) {
		require.NoError(t, os.MkdirAll(filepath.Dir(filepath.Join(dir, rel)), 0o755))
		require.NoError(t, os.WriteFile(filepath.Join(dir, rel), body, 0o644))
	}
	write("sounds/ok.wav", audio.EncodePCM16(8000, []float64{0, 0.5}))
	write("sounds/bad.wav", []byte("RIFF\x04\x00\x00\x00WAVE"))
	write("contract.yaml", []byte(`version: 1
probes:
  - name: hears
    level: state
    setup:
      - injectAudio: {wav: sounds/missing.wav}
    steps:
      - injectAudio: {wav: sounds/ok.wav}
      - injectAudio: {wav: sounds/bad.wav}
      - injectAudio: {wav: sounds/bad.wav}
      - injectAudio: {say: hello}
      - assert: s.ball.bounces == 0
`))
	tk, err := Load(dir)
	require.NoError(t, err)
	var got []string
	for _, f := range Lint(tk) {
		if f.File == tk.ContractPath() && strings.Contains(f.Message, "injectAudio") {
			got = append(got, filepath.Base(f.File)+":"+f.String()[len(f.File)+1:])
		}
	}
	require.Equal(t, []string{
		"contract.yaml:6: injectAudio: sounds/missing.wav: no such file or directory",
		"contract.yaml:9: injectAudio: sounds/bad.wav: no fmt chunk",
	}, got)
}
