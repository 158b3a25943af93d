package audio

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"sync"
)

// Espeak is the text-to-speech program Say runs (Debian's espeak-ng).
const Espeak = "espeak-ng"

// ErrNoEspeak is wrapped when espeak-ng is not installed.
var ErrNoEspeak = errors.New(Espeak + " is not installed: `make setup` installs it (Debian package espeak-ng)")

// MaxSayRunes is the longest text Say speaks.
const MaxSayRunes = 500

// voiceName is what a voice may be called (en, en-us, fr, en+f3, mb-en1…).
var voiceName = regexp.MustCompile(`^[A-Za-z0-9][A-Za-z0-9_+-]{0,39}$`)

// ValidVoice says whether voice is a well-formed espeak-ng voice name.
func ValidVoice(voice string) bool { return voiceName.MatchString(voice) }

type sayKey struct{ text, voice string }

var (
	sayMu    sync.Mutex
	sayCache = map[sayKey][]float32{}
)

// Say speaks text with espeak-ng's voice (`espeak-ng -v VOICE -w out.wav`,
// the text on standard input so that no text is taken for an option) and
// returns the speech as the microphone takes it (Mono). espeak-ng gives the
// same samples for the same text and voice, and answers are kept for the
// process's lifetime, so each text is spoken once per run.
func Say(ctx context.Context, text, voice string) ([]float32, error) {
	if strings.TrimSpace(text) == "" {
		return nil, errors.New("say: no text to speak")
	}
	if n := len([]rune(text)); n > MaxSayRunes {
		return nil, fmt.Errorf("say: %d characters of text, at most %d", n, MaxSayRunes)
	}
	if !ValidVoice(voice) {
		return nil, fmt.Errorf("say: %q is not an espeak-ng voice name", voice)
	}
	k := sayKey{text, voice}
	sayMu.Lock()
	got, ok := sayCache[k]
	sayMu.Unlock()
	if ok {
		return got, nil
	}
	bin, err := exec.LookPath(Espeak)
	if err != nil {
		return nil, fmt.Errorf("say %q: %w", text, ErrNoEspeak)
	}
	dir, err := os.MkdirTemp("", "worldprobe-say-")
	if err != nil {
		return nil, fmt.Errorf("say: making a temporary folder: %w", err)
	}
	defer os.RemoveAll(dir)
	out := filepath.Join(dir, "say.wav")
	cmd := exec.CommandContext(ctx, bin, "-v", voice, "-w", out)
	cmd.Stdin = strings.NewReader(text)
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	if err := cmd.Run(); err != nil {
		return nil, fmt.Errorf("say %q with voice %s: %s: %w: %s", text, voice, Espeak, err, strings.TrimSpace(stderr.String()))
	}
	data, err := os.ReadFile(out)
	if err != nil {
		return nil, fmt.Errorf("say %q: reading %s's answer: %w", text, Espeak, err)
	}
	s, err := ParseWAV(Espeak+" output", data)
	if err != nil {
		return nil, err
	}
	mono, err := Mono(s)
	if err != nil {
		return nil, fmt.Errorf("say %q: %w", text, err)
	}
	sayMu.Lock()
	sayCache[k] = mono
	sayMu.Unlock()
	return mono, nil
}
