package audio

import (
	"context"
	"encoding/binary"
	"math"
	"os/exec"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"
)

// wav builds a RIFF/WAVE file from a fmt chunk's fields and raw data.
func wav(format, channels, rate, bits int, data []byte) []byte {
	block := channels * bits / 8
	b := []byte("RIFF\x00\x00\x00\x00WAVEfmt \x10\x00\x00\x00")
	b = binary.LittleEndian.AppendUint16(b, uint16(format))
	b = binary.LittleEndian.AppendUint16(b, uint16(channels))
	b = binary.LittleEndian.AppendUint32(b, uint32(rate))
	b = binary.LittleEndian.AppendUint32(b, uint32(rate*block))
	b = binary.LittleEndian.AppendUint16(b, uint16(block))
	b = binary.LittleEndian.AppendUint16(b, uint16(bits))
	b = append(b, "data"...)
	b = binary.LittleEndian.AppendUint32(b, uint32(len(data)))
	b = append(b, data...)
	if len(data)%2 == 1 {
		b = append(b, 0)
	}
	binary.LittleEndian.PutUint32(b[4:], uint32(len(b)-8))
	return b
}

func TestParseWAVReadsExactSamples(t *testing.T) {
	le16 := func(vs ...int16) []byte {
		var b []byte
		for _, v := range vs {
			b = binary.LittleEndian.AppendUint16(b, uint16(v))
		}
		return b
	}
	s, err := ParseWAV("a.wav", wav(1, 1, 8000, 16, le16(0, 16384, -32768, 32767, -1)))
	require.NoError(t, err)
	require.Equal(t, 8000, s.Rate)
	require.Equal(t, [][]float64{{0, 0.5, -1, 32767.0 / 32768, -1.0 / 32768}}, s.Channels)

	s, err = ParseWAV("b.wav", wav(1, 1, 11025, 8, []byte{128, 0, 255, 192, 64}))
	require.NoError(t, err)
	require.Equal(t, [][]float64{{0, -1, 127.0 / 128, 0.5, -0.5}}, s.Channels)

	s, err = ParseWAV("c.wav", wav(1, 1, 48000, 24, []byte{0, 0, 0x80, 0xff, 0xff, 0x7f, 0, 0, 0x40}))
	require.NoError(t, err)
	require.Equal(t, [][]float64{{-1, float64(1<<23-1) / (1 << 23), 0.5}}, s.Channels)

	var f32 []byte
	for _, v := range []float32{0.5, -0.25, 1, 0.75} {
		f32 = binary.LittleEndian.AppendUint32(f32, math.Float32bits(v))
	}
	s, err = ParseWAV("d.wav", wav(3, 2, 44100, 32, f32))
	require.NoError(t, err)
	require.Equal(t, [][]float64{{0.5, 1}, {-0.25, 0.75}}, s.Channels)
	mono, err := Mono(&Sound{Rate: Rate, Channels: s.Channels})
	require.NoError(t, err)
	require.Equal(t, []float32{0.125, 0.875}, mono, "stereo mixes down to the mean of its channels")

	// A file with an extra chunk (LIST) before data, as many editors write.
	b := wav(1, 1, 8000, 16, le16(100))
	list := append([]byte("LIST\x03\x00\x00\x00abc\x00"), b[36:]...)
	b = append(b[:36:36], list...)
	binary.LittleEndian.PutUint32(b[4:], uint32(len(b)-8))
	s, err = ParseWAV("e.wav", b)
	require.NoError(t, err)
	require.Equal(t, [][]float64{{100.0 / 32768}}, s.Channels)

	// The encoder round-trips exact 16-bit values.
	s, err = ParseWAV("f.wav", EncodePCM16(22050, []float64{0.5, -1, 2}, []float64{0.25, 0, -2}))
	require.NoError(t, err)
	require.Equal(t, 22050, s.Rate)
	require.Equal(t, [][]float64{{0.5, -1, 32767.0 / 32768}, {0.25, 0, -1}}, s.Channels)
}

func TestParseWAVNamesTheFileAndTheProblem(t *testing.T) {
	good := wav(1, 1, 8000, 16, []byte{1, 0, 2, 0})
	badAlign := append([]byte(nil), good...)
	binary.LittleEndian.PutUint16(badAlign[32:], 4)
	badRate := append([]byte(nil), good...)
	binary.LittleEndian.PutUint32(badRate[28:], 8000)
	short := append([]byte(nil), good...)
	binary.LittleEndian.PutUint32(short[4:], 100)
	long := append([]byte(nil), good...)
	binary.LittleEndian.PutUint32(long[40:], 400)
	for _, c := range []struct {
		data []byte
		want string
	}{
		{[]byte("ID3\x03 an mp3"), "clap.wav: not a RIFF/WAVE file (it must start with RIFF....WAVE)"},
		{short, "clap.wav: the RIFF header says 100 bytes follow it, the file has 40"},
		{long, `clap.wav: chunk "data" at byte 36 says it holds 400 bytes, only 4 follow`},
		{badAlign, "clap.wav: block align 4: 1 channels of 16 bits take 2 bytes"},
		{badRate, "clap.wav: byte rate 8000: 8000 Hz × 2 bytes a frame is 16000"},
		{wav(1, 3, 8000, 16, make([]byte, 6)), "clap.wav: 3 channels: want 1 (mono) or 2 (stereo)"},
		{wav(2, 1, 8000, 4, make([]byte, 2)), "clap.wav: format 2 is not supported (want 1, integer PCM, or 3, IEEE float)"},
		{wav(1, 1, 8000, 12, make([]byte, 2)), "clap.wav: 12-bit integer PCM: want 8, 16, 24 or 32 bits"},
		{wav(3, 1, 8000, 16, make([]byte, 2)), "clap.wav: 16-bit float: want 32 or 64 bits"},
		{wav(1, 2, 8000, 16, make([]byte, 6)), "clap.wav: the data chunk holds 6 bytes, not a whole number of 4-byte frames"},
		{wav(1, 1, 1, 8, make([]byte, 61)), "clap.wav: 61.0 s of sound: an injected sound may last at most 60 s"},
		{good[:36:36], "clap.wav: the RIFF header says 40 bytes follow it, the file has 28"},
	} {
		_, err := ParseWAV("clap.wav", c.data)
		require.EqualError(t, err, c.want)
	}
	noData := good[:36:36]
	binary.LittleEndian.PutUint32(noData[4:], 28)
	_, err := ParseWAV("clap.wav", noData)
	require.EqualError(t, err, "clap.wav: no data chunk")
	_, err = Mono(&Sound{Rate: 8000, Channels: [][]float64{{}}})
	require.ErrorIs(t, err, ErrEmpty)
}

func TestResampleInterpolatesLinearly(t *testing.T) {
	require.Equal(t, []float32{0, 0.5, 1, 0.5, 0, -0.5, -1, -0.5}, Resample([]float64{0, 1, 0, -1}, 24000, 48000),
		"doubling the rate puts a midpoint between neighbours, and the last one towards silence")
	require.Equal(t, []float32{0, 4.5, 9, 13.5}, Resample([]float64{0, 3, 6, 9, 12, 15}, 3, 2))
	require.Equal(t, []float32{0.25, -1}, Resample([]float64{0.25, -1}, Rate, Rate))
	// 22050 → 48000: ceil(n·48000/22050) samples; sample 147 sits exactly on input 147·22050/48000 = 67.528125.
	x := make([]float64, 1000)
	for i := range x {
		x[i] = float64(i)
	}
	y := Resample(x, 22050, 48000)
	require.Len(t, y, 2177)
	require.Equal(t, float32(67.528125), y[147])
	require.Equal(t, float32(999*0.4), y[2176], "the last output sample leans towards the silence after the end")
}

func TestSayIsDeterministicSpeech(t *testing.T) {
	if _, err := exec.LookPath(Espeak); err != nil {
		t.Fatalf("%v (tests need it: `make test` runs `make setup` first)", ErrNoEspeak)
	}
	a, err := Say(context.Background(), "jump", "en")
	require.NoError(t, err)
	sayMu.Lock()
	sayCache = map[sayKey][]float32{}
	sayMu.Unlock()
	b, err := Say(context.Background(), "jump", "en")
	require.NoError(t, err)
	require.Equal(t, a, b, "espeak-ng speaks the same samples twice")
	require.Greater(t, len(a), Rate/10)
	var peak float32
	for _, v := range a {
		peak = max(peak, v, -v)
	}
	require.Greater(t, peak, float32(0.05), "the speech is not silence")

	_, err = Say(context.Background(), "jump", "zzzq")
	require.EqualError(t, err, `say "jump" with voice zzzq: espeak-ng: exit status 1: Error: The specified espeak-ng voice does not exist.`)
	_, err = Say(context.Background(), "jump", "en; rm -rf /")
	require.EqualError(t, err, `say: "en; rm -rf /" is not an espeak-ng voice name`)
	_, err = Say(context.Background(), "  ", "en")
	require.EqualError(t, err, "say: no text to speak")
}

func TestSayWithoutEspeakIsInfrastructure(t *testing.T) {
	t.Setenv("PATH", t.TempDir())
	_, err := Say(context.Background(), "a text never spoken before", "en")
	require.ErrorIs(t, err, ErrNoEspeak)
	require.ErrorContains(t, err, "`make setup` installs it")
}

// FuzzParseWAV: any bytes are read or refused with an error naming the
// file, never a panic; what is read has equal channels of finite samples
// within [-1, 1] for integer PCM.
func FuzzParseWAV(f *testing.F) {
	f.Add(EncodePCM16(8000, []float64{0, 0.5, -1}))
	f.Add(EncodePCM16(44100, []float64{0.25}, []float64{-0.25}))
	f.Add(wav(3, 1, 48000, 32, []byte{0, 0, 0x80, 0x3f}))
	f.Add(wav(1, 1, 8000, 24, []byte{1, 2, 3}))
	f.Fuzz(func(t *testing.T, data []byte) {
		s, err := ParseWAV("f.wav", data)
		if err != nil {
			if !strings.HasPrefix(err.Error(), "f.wav: ") {
				t.Fatalf("error does not name the file: %v", err)
			}
			return
		}
		for _, ch := range s.Channels {
			if len(ch) != s.Frames() {
				t.Fatalf("channels of different lengths")
			}
			for _, v := range ch {
				if math.IsNaN(v) || math.IsInf(v, 0) {
					t.Fatalf("sample %v", v)
				}
			}
		}
		if s.Frames() > 0 && s.Frames() <= 1000 {
			if _, err := Mono(s); err != nil {
				t.Fatal(err)
			}
		}
	})
}
