package contract

import (
	"fmt"
	"strings"

	"go.yaml.in/yaml/v3"

	"github.com/worldprobe/worldprobe/internal/audio"
	"github.com/worldprobe/worldprobe/internal/taskfile"
)

// StepInjectAudio plays a sound through the page's synthetic microphone.
const StepInjectAudio StepKind = "injectAudio"

// DefaultVoice is the espeak-ng voice a say: sound is spoken with unless
// the step names one.
const DefaultVoice = "en"

// InjectAudioStep plays Sound from the current virtual time, then steps
// Frames frames (0: none; the sound goes on over the steps that follow).
type InjectAudioStep struct {
	Sound  Sound
	Frames int
}

func init() {
	registerStep(stepType{
		Kind: StepInjectAudio, Order: 340,
		Example: "`injectAudio: {wav: clap.wav}`",
		Doc: "plays a sound through the page's synthetic microphone from the current virtual time (docs/audio.md): `wav:` a RIFF/WAVE file " +
			"of the task folder (PCM 8/16/24/32-bit or float, mono or stereo, any rate, at most 60 s), or `say: \"jump\"` spoken by espeak-ng " +
			"(`voice:`, default `en`); `frames: N` then steps N frames (default none: the sound plays on over the steps that follow). " +
			"The first frame stepped after it hears the sound's first 1000/fps ms",
		Parse: parseInjectAudio,
	})
}

// parseInjectAudio reads {wav: FILE} or {say: TEXT, voice: VOICE}, and frames:.
func parseInjectAudio(p *parser, v *yaml.Node, c stepContext) (Action, bool) {
	what := c.what
	fields := p.mapping(v, what, "wav", "say", "voice", "frames")
	if fields == nil {
		return nil, false
	}
	a := &InjectAudioStep{}
	ok := true
	wav, hasWAV := fields["wav"]
	say, hasSay := fields["say"]
	switch {
	case hasWAV && hasSay:
		p.errorf(v, "%s: want wav: or say:, not both", what)
		return a, false
	case !hasWAV && !hasSay:
		p.errorf(v, "%s: want wav: FILE (a RIFF/WAVE file of the task folder) or say: TEXT", what)
		return a, false
	case hasWAV:
		f, good := p.str(wav.value, what+": wav")
		ok = good
		if good {
			if msg := taskfile.Check(f, ".wav"); msg != "" {
				p.errorf(wav.value, "%s: wav: %q %s", what, f, msg)
				ok = false
			}
			a.Sound.WAV = f
		}
		if vf, has := fields["voice"]; has {
			p.errorf(vf.key, "%s: voice: goes with say:, not wav:", what)
			ok = false
		}
	default:
		t, good := p.str(say.value, what+": say")
		ok = good
		if good && strings.TrimSpace(t) == "" {
			p.errorf(say.value, "%s: say: want some text", what)
			ok = false
		}
		if n := len([]rune(t)); n > audio.MaxSayRunes {
			p.errorf(say.value, "%s: say: %d characters, at most %d", what, n, audio.MaxSayRunes)
			ok = false
		}
		a.Sound.Say, a.Sound.Voice = t, DefaultVoice
		if vf, has := fields["voice"]; has {
			voice, good := p.str(vf.value, what+": voice")
			if good && !audio.ValidVoice(voice) {
				p.errorf(vf.value, "%s: voice: %q is not an espeak-ng voice name (en, en-us, fr, de, …; `espeak-ng --voices` lists them)", what, voice)
				good = false
			}
			ok = ok && good
			a.Sound.Voice = voice
		}
	}
	if f, has := fields["frames"]; has {
		n, good := p.whole(f.value, what+": frames", 0)
		ok = ok && good
		a.Frames = n
	}
	return a, ok
}

// Describe renders "injectAudio {wav: clap.wav}".
func (a *InjectAudioStep) Describe() string {
	d := "injectAudio " + a.Sound.String()
	if a.Frames > 0 {
		d += fmt.Sprintf(" then %d frames", a.Frames)
	}
	return d
}

// Traits: a sound is input (the page hears it on the next frame); with
// frames: the step steps them itself.
func (a *InjectAudioStep) Traits() Traits { return Traits{Input: true, Advances: a.Frames > 0} }

// FrameCount is frames:.
func (a *InjectAudioStep) FrameCount(Timing) int { return a.Frames }

func (a *InjectAudioStep) run(x *exec) error {
	mic, err := capability[Microphone](x.page, "a synthetic microphone")
	if err != nil {
		return err
	}
	if err := mic.InjectAudio(x.ctx, a.Sound); err != nil {
		return err
	}
	if a.Frames > 0 {
		return x.advance(a.Frames)
	}
	return nil
}
