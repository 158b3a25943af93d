// Package audio prepares the sounds an injectAudio step plays through a
// page's synthetic microphone: a small strict RIFF/WAVE reader, a
// deterministic mix-down and resampler to the microphone's format (mono,
// [Rate] samples a second), and text spoken by Debian's espeak-ng.
package audio

import (
	"encoding/binary"
	"errors"
	"fmt"
	"math"
	"os"
	"path/filepath"
)

// Rate is the synthetic microphone's sample rate: every injected sound is
// resampled to it, mono.
const Rate = 48000

// MaxSeconds is the longest sound an injectAudio step may play.
const MaxSeconds = 60

// Sound is decoded audio: one slice of samples in [-1, 1] per channel, all
// of the same length, at its field Rate samples a second (the file's own
// rate; the package's Rate is what the microphone plays).
type Sound struct {
	Rate     int
	Channels [][]float64
}

// Frames is the number of samples in each channel.
func (s *Sound) Frames() int {
	if len(s.Channels) == 0 {
		return 0
	}
	return len(s.Channels[0])
}

// WAVE format tags (the fmt chunk's first field, or the sub-format of
// WAVE_FORMAT_EXTENSIBLE).
const (
	formatPCM        = 1
	formatFloat      = 3
	formatExtensible = 0xFFFE
)

// ReadWAV reads and parses (ParseWAV) the WAV file name, a slash-separated
// path inside folder dir: the one way a task's wav: file is read, by the
// task checker and by the trial. A file that cannot be read is an error
// "reading NAME: …" wrapping the *os.PathError.
func ReadWAV(dir, name string) (*Sound, error) {
	data, err := os.ReadFile(filepath.Join(dir, filepath.FromSlash(name)))
	if err != nil {
		return nil, fmt.Errorf("reading %s: %w", name, err)
	}
	return ParseWAV(name, data)
}

// ParseWAV reads a RIFF/WAVE file: integer PCM of 8 (unsigned), 16, 24 or
// 32 bits or IEEE float of 32 or 64 bits, one or two channels, any rate
// from 1 Hz to 384 kHz, at most MaxSeconds long. name is the file's name,
// which every error begins with. The reader is strict: the RIFF size, the
// fmt fields (block align, byte rate) and the data size must agree with
// each other and with the file.
func ParseWAV(name string, data []byte) (*Sound, error) {
	fail := func(format string, args ...any) (*Sound, error) {
		return nil, fmt.Errorf("%s: "+format, append([]any{name}, args...)...)
	}
	if len(data) < 12 || string(data[0:4]) != "RIFF" || string(data[8:12]) != "WAVE" {
		return fail("not a RIFF/WAVE file (it must start with RIFF....WAVE)")
	}
	riffSize := int64(binary.LittleEndian.Uint32(data[4:8]))
	if riffSize+8 != int64(len(data)) {
		return fail("the RIFF header says %d bytes follow it, the file has %d", riffSize, len(data)-8)
	}
	var (
		haveFmt                   bool
		format, channels, bits    int
		rate, byteRate, blockSize int
		samples                   []byte
		haveData                  bool
	)
	for off := 12; off < len(data); {
		if len(data)-off < 8 {
			return fail("%d stray bytes at the end of the file, after the last chunk", len(data)-off)
		}
		id := string(data[off : off+4])
		size := int(binary.LittleEndian.Uint32(data[off+4 : off+8]))
		body := off + 8
		if size < 0 || size > len(data)-body {
			return fail("chunk %q at byte %d says it holds %d bytes, only %d follow", id, off, size, len(data)-body)
		}
		chunk := data[body : body+size]
		switch id {
		case "fmt ":
			if haveFmt {
				return fail("two fmt chunks")
			}
			if size < 16 {
				return fail("the fmt chunk holds %d bytes, want at least 16", size)
			}
			haveFmt = true
			format = int(binary.LittleEndian.Uint16(chunk[0:2]))
			channels = int(binary.LittleEndian.Uint16(chunk[2:4]))
			rate = int(binary.LittleEndian.Uint32(chunk[4:8]))
			byteRate = int(binary.LittleEndian.Uint32(chunk[8:12]))
			blockSize = int(binary.LittleEndian.Uint16(chunk[12:14]))
			bits = int(binary.LittleEndian.Uint16(chunk[14:16]))
			if format == formatExtensible {
				if size < 40 {
					return fail("the fmt chunk of a WAVE_FORMAT_EXTENSIBLE file holds %d bytes, want 40", size)
				}
				format = int(binary.LittleEndian.Uint16(chunk[24:26]))
			}
		case "data":
			if haveData {
				return fail("two data chunks")
			}
			if !haveFmt {
				return fail("the data chunk comes before the fmt chunk")
			}
			haveData = true
			samples = chunk
		}
		off = body + size + size%2 // chunks are padded to an even size
		if off > len(data) {
			if off == len(data)+1 && id == "data" {
				break // an odd data chunk whose pad byte the writer left out
			}
			return fail("chunk %q is missing its pad byte", id)
		}
	}
	switch {
	case !haveFmt:
		return fail("no fmt chunk")
	case !haveData:
		return fail("no data chunk")
	case format != formatPCM && format != formatFloat:
		return fail("format %d is not supported (want 1, integer PCM, or 3, IEEE float)", format)
	case channels != 1 && channels != 2:
		return fail("%d channels: want 1 (mono) or 2 (stereo)", channels)
	case rate < 1 || rate > 384000:
		return fail("sample rate %d Hz: want 1 to 384000", rate)
	case format == formatPCM && bits != 8 && bits != 16 && bits != 24 && bits != 32:
		return fail("%d-bit integer PCM: want 8, 16, 24 or 32 bits", bits)
	case format == formatFloat && bits != 32 && bits != 64:
		return fail("%d-bit float: want 32 or 64 bits", bits)
	case blockSize != channels*bits/8:
		return fail("block align %d: %d channels of %d bits take %d bytes", blockSize, channels, bits, channels*bits/8)
	case byteRate != rate*blockSize:
		return fail("byte rate %d: %d Hz × %d bytes a frame is %d", byteRate, rate, blockSize, rate*blockSize)
	case len(samples)%blockSize != 0:
		return fail("the data chunk holds %d bytes, not a whole number of %d-byte frames", len(samples), blockSize)
	}
	n := len(samples) / blockSize
	if n > MaxSeconds*rate {
		return fail("%.1f s of sound: an injected sound may last at most %d s", float64(n)/float64(rate), MaxSeconds)
	}
	s := &Sound{Rate: rate, Channels: make([][]float64, channels)}
	for c := range s.Channels {
		s.Channels[c] = make([]float64, n)
	}
	width := bits / 8
	for i := 0; i < n; i++ {
		for c := 0; c < channels; c++ {
			b := samples[i*blockSize+c*width:]
			var v float64
			switch {
			case format == formatFloat && bits == 32:
				v = float64(math.Float32frombits(binary.LittleEndian.Uint32(b)))
			case format == formatFloat:
				v = math.Float64frombits(binary.LittleEndian.Uint64(b))
			case bits == 8:
				v = (float64(b[0]) - 128) / 128
			case bits == 16:
				v = float64(int16(binary.LittleEndian.Uint16(b))) / (1 << 15)
			case bits == 24:
				u := int32(uint32(b[0])|uint32(b[1])<<8|uint32(b[2])<<16) << 8 >> 8
				v = float64(u) / (1 << 23)
			default:
				v = float64(int32(binary.LittleEndian.Uint32(b))) / (1 << 31)
			}
			if math.IsNaN(v) || math.IsInf(v, 0) {
				return fail("sample %d of channel %d is %v", i, c+1, v)
			}
			s.Channels[c][i] = v
		}
	}
	return s, nil
}

// ErrEmpty is returned by Mono for a sound without samples.
var ErrEmpty = errors.New("the sound has no samples")

// Mono mixes s down to one channel (the mean of its channels) and
// resamples it to Rate by linear interpolation between neighbouring
// samples (past the last sample the sound is silent). Integer arithmetic
// places every output sample, so the result is the same on every machine.
// There is no anti-alias filter: content above 24 kHz in a file sampled
// faster than Rate folds back.
func Mono(s *Sound) ([]float32, error) {
	n := s.Frames()
	if n == 0 {
		return nil, ErrEmpty
	}
	mono := make([]float64, n)
	for i := range mono {
		var sum float64
		for _, ch := range s.Channels {
			sum += ch[i]
		}
		mono[i] = sum / float64(len(s.Channels))
	}
	return Resample(mono, s.Rate, Rate), nil
}

// Resample resamples x from rate in to rate out by linear interpolation:
// output sample i sits at input position i·in/out, a whole part j and a
// fraction (i·in mod out)/out, and is x[j] + (x[j+1] − x[j])·fraction, with
// x silent past its end. The output has ceil(len(x)·out/in) samples.
func Resample(x []float64, in, out int) []float32 {
	if in == out {
		y := make([]float32, len(x))
		for i, v := range x {
			y[i] = float32(v)
		}
		return y
	}
	m := int((int64(len(x))*int64(out) + int64(in) - 1) / int64(in))
	y := make([]float32, m)
	at := func(j int64) float64 {
		if j < int64(len(x)) {
			return x[j]
		}
		return 0
	}
	for i := range y {
		pos := int64(i) * int64(in)
		j, rem := pos/int64(out), pos%int64(out)
		a := at(j)
		y[i] = float32(a + (at(j+1)-a)*float64(rem)/float64(out))
	}
	return y
}

// EncodePCM16 writes mono or stereo samples in [-1, 1] as a 16-bit PCM
// RIFF/WAVE file at rate (tests build their sounds with it). Samples are
// rounded to the nearest step of 1/32768 and clipped.
func EncodePCM16(rate int, channels ...[]float64) []byte {
	n := 0
	if len(channels) > 0 {
		n = len(channels[0])
	}
	block := 2 * len(channels)
	size := n * block
	b := make([]byte, 44+size)
	copy(b[0:], "RIFF")
	binary.LittleEndian.PutUint32(b[4:], uint32(36+size))
	copy(b[8:], "WAVEfmt ")
	binary.LittleEndian.PutUint32(b[16:], 16)
	binary.LittleEndian.PutUint16(b[20:], formatPCM)
	binary.LittleEndian.PutUint16(b[22:], uint16(len(channels)))
	binary.LittleEndian.PutUint32(b[24:], uint32(rate))
	binary.LittleEndian.PutUint32(b[28:], uint32(rate*block))
	binary.LittleEndian.PutUint16(b[32:], uint16(block))
	binary.LittleEndian.PutUint16(b[34:], 16)
	copy(b[36:], "data")
	binary.LittleEndian.PutUint32(b[40:], uint32(size))
	for i := 0; i < n; i++ {
		for c, ch := range channels {
			v := math.Round(ch[i] * (1 << 15))
			v = math.Max(-(1 << 15), math.Min(1<<15-1, v))
			binary.LittleEndian.PutUint16(b[44+i*block+2*c:], uint16(int16(v)))
		}
	}
	return b
}
