// Package video turns the frames a trial recorded of a probe's page into a
// clip: a WebM (VP9) encoded by Debian's ffmpeg when it is on PATH, else a
// contact sheet (a PNG of sampled frames, drawn here). docs/xr.md says
// which trials record and what it costs.
package video

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"image"
	"image/color"
	"image/draw"
	"image/png"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
)

// DefaultMaxFrames is the most frames a clip keeps by default: 600, ten
// seconds at 60 fps. A probe that steps more is recorded at every 2nd,
// 4th, … frame (see Clip.Add), so the clip still covers the whole probe.
const DefaultMaxFrames = 600

// Kinds of clip.
const (
	KindWebM         = "webm"          // a VP9 WebM, played by <video>
	KindContactSheet = "contact-sheet" // a PNG of sampled frames (no ffmpeg)
)

// Clip gathers one probe's recorded frames in a temporary folder.
type Clip struct {
	dir    string
	fps    float64
	every  int
	max    int
	frames []frame
	// W and H are the first frame's size.
	w, h int
}

type frame struct {
	n    int // the frame's count since recording started (1-based)
	path string
}

// NewClip starts a clip of a page stepped at fps, recording every
// every-th frame, keeping at most maxFrames (0: DefaultMaxFrames). Its
// frames live in a new folder under tmp ("" for the system's) until Close.
func NewClip(tmp string, fps float64, every, maxFrames int) (*Clip, error) {
	if fps <= 0 {
		return nil, fmt.Errorf("a clip needs a frame rate > 0, not %g", fps)
	}
	if maxFrames <= 0 {
		maxFrames = DefaultMaxFrames
	}
	dir, err := os.MkdirTemp(tmp, "worldprobe-clip-")
	if err != nil {
		return nil, fmt.Errorf("making a folder for the clip's frames: %w", err)
	}
	return &Clip{dir: dir, fps: fps, every: max(1, every), max: max(2, maxFrames)}, nil
}

// Every is how many stepped frames one kept frame stands for.
func (c *Clip) Every() int { return c.every }

// Frames is how many frames the clip holds.
func (c *Clip) Frames() int { return len(c.frames) }

// Add keeps frame n (counted from 1 since recording started; a multiple
// of Every) as PNG data. When the clip would hold more than its maximum,
// every other frame goes and Every doubles: the clip keeps the frames
// whose count is a multiple of the new Every, and the recorder should
// record only those from now on.
func (c *Clip) Add(n int, data []byte) error {
	if len(c.frames) == 0 {
		cfg, err := png.DecodeConfig(bytes.NewReader(data))
		if err != nil {
			return fmt.Errorf("reading recorded frame %d: %w", n, err)
		}
		c.w, c.h = cfg.Width, cfg.Height
	}
	p := filepath.Join(c.dir, fmt.Sprintf("f%08d.png", n))
	if err := os.WriteFile(p, data, 0o644); err != nil {
		return fmt.Errorf("keeping recorded frame %d: %w", n, err)
	}
	c.frames = append(c.frames, frame{n: n, path: p})
	for len(c.frames) > c.max {
		c.every *= 2
		kept := c.frames[:0]
		for _, f := range c.frames {
			if f.n%c.every == 0 {
				kept = append(kept, f)
			} else if err := os.Remove(f.path); err != nil {
				return fmt.Errorf("dropping recorded frame %d: %w", f.n, err)
			}
		}
		c.frames = kept
	}
	return nil
}

// Close removes the clip's frames.
func (c *Clip) Close() error { return os.RemoveAll(c.dir) }

// Info describes an encoded clip.
type Info struct {
	Kind string `json:"kind"`
	// Frames is how many frames it holds; Every how many stepped frames
	// each stands for; FPS its frame rate (the page's divided by Every).
	Frames int     `json:"frames"`
	Every  int     `json:"every"`
	FPS    float64 `json:"fps"`
	// Duration is Frames / FPS, in seconds: the virtual time the clip covers.
	Duration float64 `json:"duration_s"`
	Width    int     `json:"width"`
	Height   int     `json:"height"`
	// Sampled lists, for a contact sheet, the counts of the frames it shows.
	Sampled []int `json:"sampled,omitempty"`
}

func (c *Clip) info(kind string) Info {
	fps := c.fps / float64(c.every)
	return Info{Kind: kind, Frames: len(c.frames), Every: c.every, FPS: fps, Duration: float64(len(c.frames)) / fps, Width: c.w, Height: c.h}
}

// FFmpeg returns ffmpeg's path, or "" when it is not on PATH.
func FFmpeg() string {
	p, err := exec.LookPath("ffmpeg")
	if err != nil {
		return ""
	}
	return p
}

// Encode writes the clip as a VP9 WebM to out with ffmpeg (the path given,
// from FFmpeg). Frames are shown at the page's rate divided by Every, each
// scaled to the first frame's size (a canvas resized mid-probe) and padded
// to even sides (4:2:0 video needs them).
func (c *Clip) Encode(ctx context.Context, ffmpeg, out string) (Info, error) {
	if len(c.frames) == 0 {
		return Info{}, errors.New("encoding a clip: no frames were recorded")
	}
	list, err := c.sequence()
	if err != nil {
		return Info{}, err
	}
	rate := strconv.FormatFloat(c.fps, 'f', -1, 64) + "/" + strconv.Itoa(c.every)
	vf := fmt.Sprintf("scale=%d:%d:flags=neighbor,pad=ceil(iw/2)*2:ceil(ih/2)*2,format=yuv420p", c.w, c.h)
	args := []string{"-hide_banner", "-loglevel", "error", "-nostdin", "-y",
		"-framerate", rate, "-i", filepath.Join(list, "%08d.png"),
		"-vf", vf, "-c:v", "libvpx-vp9", "-crf", "15", "-b:v", "0", "-deadline", "good", "-cpu-used", "4",
		"-row-mt", "1", "-threads", "2", "-an", "-f", "webm", out}
	cmd := exec.CommandContext(ctx, ffmpeg, args...)
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	if err := cmd.Run(); err != nil {
		return Info{}, fmt.Errorf("encoding %s with ffmpeg: %w: %s", filepath.Base(out), err, strings.TrimSpace(stderr.String()))
	}
	return c.info(KindWebM), nil
}

// sequence links the frames, in order, as 00000000.png, 00000001.png, …
// in a folder of their own (ffmpeg's image sequence).
func (c *Clip) sequence() (string, error) {
	dir := filepath.Join(c.dir, "seq")
	if err := os.RemoveAll(dir); err != nil {
		return "", fmt.Errorf("clearing the frame sequence: %w", err)
	}
	if err := os.Mkdir(dir, 0o755); err != nil {
		return "", fmt.Errorf("making the frame sequence: %w", err)
	}
	for i, f := range c.frames {
		if err := os.Link(f.path, filepath.Join(dir, fmt.Sprintf("%08d.png", i))); err != nil {
			return "", fmt.Errorf("making the frame sequence: %w", err)
		}
	}
	return dir, nil
}

// Contact sheet geometry.
const (
	SheetFrames  = 12  // frames sampled at most, the first and last among them
	SheetColumns = 4   // tiles per row
	SheetTile    = 320 // widest tile, in pixels
	sheetGap     = 4   // pixels between tiles
)

// ContactSheet draws up to SheetFrames frames of the clip, evenly spaced
// from the first to the last, as tiles in rows of SheetColumns, each at
// most SheetTile pixels wide (scaled down by a whole factor, each tile
// pixel the mean of the pixels it covers), on a dark grey background, and
// returns it as PNG. Info.Sampled lists the frames shown.
func (c *Clip) ContactSheet() ([]byte, Info, error) {
	if len(c.frames) == 0 {
		return nil, Info{}, errors.New("drawing a contact sheet: no frames were recorded")
	}
	idx := Sample(len(c.frames), SheetFrames)
	factor := max(1, (c.w+SheetTile-1)/SheetTile)
	tw, th := max(1, c.w/factor), max(1, c.h/factor)
	cols := min(SheetColumns, len(idx))
	rows := (len(idx) + cols - 1) / cols
	sheet := image.NewRGBA(image.Rect(0, 0, cols*tw+(cols+1)*sheetGap, rows*th+(rows+1)*sheetGap))
	draw.Draw(sheet, sheet.Bounds(), &image.Uniform{C: sheetBackground}, image.Point{}, draw.Src)
	info := c.info(KindContactSheet)
	for k, i := range idx {
		f := c.frames[i]
		data, err := os.ReadFile(f.path)
		if err != nil {
			return nil, Info{}, fmt.Errorf("reading recorded frame %d: %w", f.n, err)
		}
		img, err := png.Decode(bytes.NewReader(data))
		if err != nil {
			return nil, Info{}, fmt.Errorf("decoding recorded frame %d: %w", f.n, err)
		}
		x0, y0 := sheetGap+(k%cols)*(tw+sheetGap), sheetGap+(k/cols)*(th+sheetGap)
		shrink(sheet, image.Pt(x0, y0), img, factor, tw, th)
		info.Sampled = append(info.Sampled, f.n)
	}
	var buf bytes.Buffer
	if err := png.Encode(&buf, sheet); err != nil {
		return nil, Info{}, fmt.Errorf("encoding the contact sheet: %w", err)
	}
	return buf.Bytes(), info, nil
}

var sheetBackground = color.RGBA{R: 32, G: 32, B: 32, A: 255}

// Sample picks up to k of n indexes, evenly spaced, the first and the
// last included: i × (n−1) / (k−1), rounded down.
func Sample(n, k int) []int {
	if n <= k {
		out := make([]int, n)
		for i := range out {
			out[i] = i
		}
		return out
	}
	out := make([]int, k)
	for i := range out {
		out[i] = i * (n - 1) / (k - 1)
	}
	return out
}

// shrink draws src at dst's point at, scaled down by factor into a w×h
// tile: each tile pixel is the mean of the factor×factor pixels it covers.
func shrink(dst *image.RGBA, at image.Point, src image.Image, factor, w, h int) {
	b := src.Bounds()
	for y := 0; y < h; y++ {
		for x := 0; x < w; x++ {
			var r, g, bl, a, n uint32
			for dy := 0; dy < factor; dy++ {
				for dx := 0; dx < factor; dx++ {
					px, py := b.Min.X+x*factor+dx, b.Min.Y+y*factor+dy
					if px >= b.Max.X || py >= b.Max.Y {
						continue
					}
					cr, cg, cb, ca := src.At(px, py).RGBA()
					r, g, bl, a, n = r+cr>>8, g+cg>>8, bl+cb>>8, a+ca>>8, n+1
				}
			}
			if n == 0 {
				continue
			}
			i := dst.PixOffset(at.X+x, at.Y+y)
			dst.Pix[i], dst.Pix[i+1], dst.Pix[i+2], dst.Pix[i+3] = uint8(r/n), uint8(g/n), uint8(bl/n), uint8(a/n)
		}
	}
}

// Probed is what ffprobe reads of a video file.
type Probed struct {
	Codec    string
	Width    int
	Height   int
	Frames   int
	Duration float64 // seconds
}

// Probe reads a video's first stream with ffprobe (next to ffmpeg on
// PATH), counting its frames by decoding them.
func Probe(ctx context.Context, path string) (Probed, error) {
	cmd := exec.CommandContext(ctx, "ffprobe", "-v", "error", "-count_frames", "-select_streams", "v:0",
		"-show_entries", "stream=codec_name,width,height,nb_read_frames:format=duration", "-of", "json", path)
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	out, err := cmd.Output()
	if err != nil {
		return Probed{}, fmt.Errorf("probing %s with ffprobe: %w: %s", filepath.Base(path), err, strings.TrimSpace(stderr.String()))
	}
	var r struct {
		Streams []struct {
			Codec  string `json:"codec_name"`
			Width  int    `json:"width"`
			Height int    `json:"height"`
			Frames string `json:"nb_read_frames"`
		} `json:"streams"`
		Format struct {
			Duration string `json:"duration"`
		} `json:"format"`
	}
	if err := json.Unmarshal(out, &r); err != nil {
		return Probed{}, fmt.Errorf("decoding ffprobe's answer for %s: %w", filepath.Base(path), err)
	}
	if len(r.Streams) == 0 {
		return Probed{}, fmt.Errorf("%s has no video stream", filepath.Base(path))
	}
	s := r.Streams[0]
	p := Probed{Codec: s.Codec, Width: s.Width, Height: s.Height}
	if p.Frames, err = strconv.Atoi(s.Frames); err != nil {
		return Probed{}, fmt.Errorf("ffprobe's frame count for %s: %w", filepath.Base(path), err)
	}
	if p.Duration, err = strconv.ParseFloat(r.Format.Duration, 64); err != nil {
		return Probed{}, fmt.Errorf("ffprobe's duration for %s: %w", filepath.Base(path), err)
	}
	return p, nil
}

// FrameAt decodes frame i (0-based) of a video with ffmpeg, as an image.
func FrameAt(ctx context.Context, path string, i int) (image.Image, error) {
	cmd := exec.CommandContext(ctx, "ffmpeg", "-hide_banner", "-loglevel", "error", "-nostdin", "-i", path,
		"-vf", fmt.Sprintf(`select=eq(n\,%d)`, i), "-vsync", "0", "-frames:v", "1", "-f", "image2pipe", "-c:v", "png", "-")
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	out, err := cmd.Output()
	if err != nil {
		return nil, fmt.Errorf("decoding frame %d of %s: %w: %s", i, filepath.Base(path), err, strings.TrimSpace(stderr.String()))
	}
	img, err := png.Decode(bytes.NewReader(out))
	if err != nil {
		return nil, fmt.Errorf("decoding frame %d of %s: %w", i, filepath.Base(path), err)
	}
	return img, nil
}

// MeanAbsDiff is the mean absolute difference of two images of one size
// over their R, G and B channels, in 0–255 levels: 0 for identical pixels.
func MeanAbsDiff(a, b image.Image) (float64, error) {
	ab, bb := a.Bounds(), b.Bounds()
	if ab.Dx() != bb.Dx() || ab.Dy() != bb.Dy() {
		return 0, fmt.Errorf("comparing a %dx%d image with a %dx%d one", ab.Dx(), ab.Dy(), bb.Dx(), bb.Dy())
	}
	var sum uint64
	for y := 0; y < ab.Dy(); y++ {
		for x := 0; x < ab.Dx(); x++ {
			r1, g1, b1, _ := a.At(ab.Min.X+x, ab.Min.Y+y).RGBA()
			r2, g2, b2, _ := b.At(bb.Min.X+x, bb.Min.Y+y).RGBA()
			sum += absDiff(r1>>8, r2>>8) + absDiff(g1>>8, g2>>8) + absDiff(b1>>8, b2>>8)
		}
	}
	n := uint64(ab.Dx()) * uint64(ab.Dy()) * 3
	if n == 0 {
		return 0, nil
	}
	return float64(sum) / float64(n), nil
}

func absDiff(a, b uint32) uint64 {
	if a > b {
		return uint64(a - b)
	}
	return uint64(b - a)
}

// SampledFrame is one recorded frame picked by Clip.Sample: its count
// since recording started and its PNG data.
type SampledFrame struct {
	N   int
	PNG []byte
}

// Sample returns up to k of the clip's frames, evenly spaced, the first
// and the last included (as a contact sheet picks them).
func (c *Clip) Sample(k int) ([]SampledFrame, error) {
	var out []SampledFrame
	for _, i := range Sample(len(c.frames), k) {
		f := c.frames[i]
		data, err := os.ReadFile(f.path)
		if err != nil {
			return nil, fmt.Errorf("reading recorded frame %d: %w", f.n, err)
		}
		out = append(out, SampledFrame{N: f.n, PNG: data})
	}
	return out, nil
}
