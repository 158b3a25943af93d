package video

import (
	"bytes"
	"context"
	"image"
	"image/color"
	"image/draw"
	"image/png"
	"os"
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/require"
)

// frameImage is a w×h frame: a grey background whose level depends on n
// and a white 8×8 square that moves right with n.
func frameImage(w, h, n int) *image.RGBA {
	img := image.NewRGBA(image.Rect(0, 0, w, h))
	draw.Draw(img, img.Bounds(), image.NewUniform(color.RGBA{uint8(40 + 4*n), 60, 90, 255}), image.Point{}, draw.Src)
	sq := image.Rect(2*n%(w-8), h/2-4, 2*n%(w-8)+8, h/2+4)
	draw.Draw(img, sq, image.NewUniform(color.RGBA{255, 255, 255, 255}), image.Point{}, draw.Src)
	return img
}

func pngOf(t *testing.T, img image.Image) []byte {
	t.Helper()
	var buf bytes.Buffer
	require.NoError(t, png.Encode(&buf, img))
	return buf.Bytes()
}

// kept lists the counts of the frames a clip holds.
func kept(c *Clip) []int {
	var out []int
	for _, f := range c.frames {
		out = append(out, f.n)
	}
	return out
}

// A clip past its maximum drops every other frame and doubles Every, so
// it keeps covering the whole probe; the dropped frames' files go.
func TestClipHalvesPastItsMaximum(t *testing.T) {
	c, err := NewClip(t.TempDir(), 60, 1, 4)
	require.NoError(t, err)
	defer c.Close()
	data := pngOf(t, frameImage(16, 16, 0))
	for n := 1; n <= 4; n++ {
		require.NoError(t, c.Add(n, data))
	}
	require.Equal(t, []int{1, 2, 3, 4}, kept(c))
	require.Equal(t, 1, c.Every())
	require.NoError(t, c.Add(5, data))
	require.Equal(t, []int{2, 4}, kept(c))
	require.Equal(t, 2, c.Every())
	for _, n := range []int{6, 8, 10} {
		require.NoError(t, c.Add(n, data))
	}
	require.Equal(t, []int{4, 8}, kept(c))
	require.Equal(t, 4, c.Every())
	files, err := filepath.Glob(filepath.Join(c.dir, "*.png"))
	require.NoError(t, err)
	require.Len(t, files, 2, "the dropped frames' files are removed")
	require.NoError(t, c.Close())
	_, err = os.Stat(c.dir)
	require.True(t, os.IsNotExist(err), "Close removes the frames")
}

func TestSample(t *testing.T) {
	require.Equal(t, []int{0, 1, 2}, Sample(3, 12))
	require.Equal(t, []int{0, 2, 4, 6, 9}, Sample(10, 5))
	require.Equal(t, []int{0, 99}, Sample(100, 2))
}

// The contact sheet tiles the sampled frames in rows of four, scaled down
// by a whole factor to at most 320 pixels wide, on a dark grey background.
func TestContactSheet(t *testing.T) {
	c, err := NewClip(t.TempDir(), 30, 1, 0)
	require.NoError(t, err)
	defer c.Close()
	for n := 1; n <= 20; n++ {
		require.NoError(t, c.Add(n, pngOf(t, frameImage(64, 48, n))))
	}
	data, info, err := c.ContactSheet()
	require.NoError(t, err)
	require.Equal(t, Info{Kind: KindContactSheet, Frames: 20, Every: 1, FPS: 30, Duration: 20.0 / 30, Width: 64, Height: 48,
		Sampled: []int{1, 2, 4, 6, 7, 9, 11, 13, 14, 16, 18, 20}}, info)
	img, err := png.Decode(bytes.NewReader(data))
	require.NoError(t, err)
	require.Equal(t, image.Rect(0, 0, 4*64+5*4, 3*48+4*4), img.Bounds())
	require.Equal(t, color.RGBA{32, 32, 32, 255}, color.RGBAModel.Convert(img.At(0, 0)))
	for k, n := range info.Sampled {
		x0, y0 := 4+(k%4)*(64+4), 4+(k/4)*(48+4)
		want := frameImage(64, 48, n)
		for _, p := range []image.Point{{0, 0}, {63, 47}, {2 * n % 56, 20}, {2*n%56 + 7, 27}} {
			require.Equal(t, want.At(p.X, p.Y), color.RGBAModel.Convert(img.At(x0+p.X, y0+p.Y)), "tile %d (frame %d) at %v", k, n, p)
		}
	}

	// A 700-pixel frame is shrunk by 3 (each tile pixel the mean of 3×3).
	wide, err := NewClip(t.TempDir(), 30, 1, 0)
	require.NoError(t, err)
	defer wide.Close()
	src := image.NewRGBA(image.Rect(0, 0, 700, 9))
	for x := 0; x < 700; x++ {
		for y := 0; y < 9; y++ {
			src.Set(x, y, color.RGBA{uint8(x % 3 * 30), 0, 0, 255}) // columns 0, 30, 60: mean 30
		}
	}
	require.NoError(t, wide.Add(1, pngOf(t, src)))
	data, info, err = wide.ContactSheet()
	require.NoError(t, err)
	require.Equal(t, []int{1}, info.Sampled)
	img, err = png.Decode(bytes.NewReader(data))
	require.NoError(t, err)
	require.Equal(t, image.Rect(0, 0, 233+8, 3+8), img.Bounds())
	require.Equal(t, color.RGBA{30, 0, 0, 255}, color.RGBAModel.Convert(img.At(4+100, 5)))
}

// Encode makes a VP9 WebM with one video frame per kept frame at the
// page's rate divided by Every, padded to even sides; its first and last
// frames are the recorded ones, up to the codec's small loss.
func TestEncodeWebM(t *testing.T) {
	ffmpeg := FFmpeg()
	require.NotEmpty(t, ffmpeg, "ffmpeg is not on PATH: run make setup")
	ctx := context.Background()
	c, err := NewClip(t.TempDir(), 60, 2, 0)
	require.NoError(t, err)
	defer c.Close()
	var first, last *image.RGBA
	for n := 2; n <= 60; n += 2 {
		img := frameImage(161, 121, n)
		if first == nil {
			first = img
		}
		last = img
		require.NoError(t, c.Add(n, pngOf(t, img)))
	}
	out := filepath.Join(t.TempDir(), "clip.webm")
	info, err := c.Encode(ctx, ffmpeg, out)
	require.NoError(t, err)
	require.Equal(t, Info{Kind: KindWebM, Frames: 30, Every: 2, FPS: 30, Duration: 1, Width: 161, Height: 121}, info)
	p, err := Probe(ctx, out)
	require.NoError(t, err)
	require.Equal(t, Probed{Codec: "vp9", Width: 162, Height: 122, Frames: 30, Duration: 1}, p)

	// 4:2:0 video rounds each channel by a level or so and blurs colour
	// at sharp edges: 2.3 and 1.9 levels here.
	const tolerance = 3.0
	for i, want := range map[int]*image.RGBA{0: first, 29: last} {
		got, err := FrameAt(ctx, out, i)
		require.NoError(t, err)
		got = got.(interface {
			SubImage(image.Rectangle) image.Image
		}).SubImage(image.Rect(0, 0, 161, 121))
		d, err := MeanAbsDiff(got, want)
		require.NoError(t, err)
		require.Less(t, d, tolerance, "frame %d", i)
	}
	// The comparison can fail: the first frame is far from the last.
	d, err := MeanAbsDiff(first, last)
	require.NoError(t, err)
	require.Greater(t, d, 2*tolerance)
}
