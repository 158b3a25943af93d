package contract

import (
	"errors"
	"testing"

	"github.com/stretchr/testify/require"
)

func TestInjectAudioStartsTheSoundAndStepsItsFrames(t *testing.T) {
	o := &opener{}
	res := run(t, `
version: 1
probes:
  - name: hear
    level: transition
    steps:
      - step: 2
      - injectAudio: {wav: sounds/clap.wav}
      - assert: frame == 3
      - injectAudio: {say: "jump", voice: en-us, frames: 4}
      - assert: frame == 7
      - injectAudio: {say: go}
      - assert: frame == 8
`, o, Options{})
	for _, v := range res.Verdicts {
		require.Equal(t, StatusPass, v.Status, v.Expr+": "+v.Message)
	}
	p := o.pages[0]
	require.Equal(t, []injected{
		{Sound{WAV: "sounds/clap.wav"}, 2},
		{Sound{Say: "jump", Voice: "en-us"}, 3},
		{Sound{Say: "go", Voice: "en"}, 7},
	}, p.sounds, "each sound starts at the frame it was injected at; the read after it settles one frame")
	require.Equal(t, []int{2, 1, 4, 1}, p.stepped)
}

func TestInjectAudioFailureIsInfrastructure(t *testing.T) {
	o := &opener{tweak: func(p *fakePage) {
		p.fail = map[string]error{"InjectAudio": Infra(errors.New("clap.wav: not a RIFF/WAVE file"))}
	}}
	c := mustParse(t, `
version: 1
probes:
  - name: hear
    level: transition
    steps:
      - injectAudio: {wav: clap.wav}
      - assert: "true"
`)
	_, err := Run(t.Context(), c, o.open, nil, Options{FPS: 60})
	require.True(t, IsInfra(err))
	require.ErrorContains(t, err, "clap.wav: not a RIFF/WAVE file")
}

func TestInjectAudioParseErrors(t *testing.T) {
	for _, c := range []struct{ step, want string }{
		{`{wav: a.wav, say: hi}`, "injectAudio: want wav: or say:, not both"},
		{`{}`, "injectAudio: want wav: FILE (a RIFF/WAVE file of the task folder) or say: TEXT"},
		{`{wav: ../a.wav}`, `injectAudio: wav: "../a.wav" must be a plain path inside the task folder`},
		{`{wav: /tmp/a.wav}`, `injectAudio: wav: "/tmp/a.wav" must be relative to the task folder`},
		{`{wav: a.mp3}`, `injectAudio: wav: "a.mp3" must be a .wav file`},
		{`{wav: ./a.wav}`, `injectAudio: wav: "./a.wav" must be a plain path inside the task folder`},
		{`{wav: 'a\b.wav'}`, `injectAudio: wav: "a\\b.wav" must use / between folders`},
		{`{wav: .wav}`, `injectAudio: wav: ".wav" must be a .wav file`},
		{`{wav: a.wav, voice: en}`, "injectAudio: voice: goes with say:, not wav:"},
		{`{say: " "}`, "injectAudio: say: want some text"},
		{`{say: hi, voice: "en; rm"}`, `injectAudio: voice: "en; rm" is not an espeak-ng voice name (en, en-us, fr, de, …; ` + "`espeak-ng --voices`" + ` lists them)`},
		{`{say: hi, frames: -1}`, "injectAudio: frames: want a whole number >= 0, got -1"},
		{`{wav: a.wav, gain: 2}`, `injectAudio: unknown field "gain"`},
	} {
		_, err := Parse("contract.yaml", []byte("version: 1\nprobes:\n  - name: a\n    level: state\n    steps:\n      - injectAudio: "+c.step+"\n      - assert: \"true\"\n"))
		require.ErrorContains(t, err, "contract.yaml:6: probe a: steps: "+c.want, c.step)
	}
}
