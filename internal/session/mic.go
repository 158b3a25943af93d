package session

import (
	"context"
	"encoding/base64"
	"encoding/binary"
	"encoding/json"
	"math"
)

// MicRefusal is the page runtime's refusal to play a sound into the
// synthetic microphone (a page without Web Audio), or an answer of its
// that could not be read: the harness's side, never the page's fault.
type MicRefusal struct{ Reason string }

func (e *MicRefusal) Error() string { return e.Reason }

// InjectMic plays samples (mono, at the synthetic microphone's 48 kHz)
// through the page's synthetic microphone from the current virtual time
// on (docs/audio.md). A refusal is a *MicRefusal; other errors are the
// session's (a crashed or hung page).
func (s *Session) InjectMic(ctx context.Context, samples []float32) error {
	b := make([]byte, 4*len(samples))
	for i, v := range samples {
		binary.LittleEndian.PutUint32(b[4*i:], math.Float32bits(v))
	}
	arg, _ := json.Marshal(base64.StdEncoding.EncodeToString(b)) // a string: cannot fail
	var raw string
	if err := s.Eval(ctx, 0, `window.__wp.micInject(`+string(arg)+`)`, &raw); err != nil {
		return err
	}
	var r struct {
		Error string `json:"error"`
	}
	if err := json.Unmarshal([]byte(raw), &r); err != nil {
		return &MicRefusal{Reason: "decoding the page runtime's answer: " + err.Error()}
	}
	if r.Error != "" {
		return &MicRefusal{Reason: r.Error}
	}
	return nil
}
