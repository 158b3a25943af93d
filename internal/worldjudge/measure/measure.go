// Package measure holds the world judge's pixel measures: lit-pixel luma
// (time-of-day brightness, with the HUD crop and the void cut), the day and
// night pick, changed pixels and the changed-pixel fraction of a motion
// burst with its overlay, the frame difference and the land chromaticity.
// They follow WorldBench's definitions (../shared/reference/worldbench-judge.md
// section 15) with two choices of our own, documented in docs/judge.md: grey
// is Pillow's integer ITU-R 601 luma, and resizing is an exact area average
// rounded to 8 bits.
package measure

import (
	"bytes"
	"fmt"
	"image"
	"image/color"
	"image/jpeg"
	"math"
)

// Gray is an 8-bit grey image, row by row.
type Gray struct {
	W, H int
	Pix  []uint8
}

// RGB is an 8-bit colour image, row by row, three bytes a pixel.
type RGB struct {
	W, H int
	Pix  []uint8
}

// Luma8 is Pillow's convert("L") of one pixel: ITU-R 601-2 luma
// (0.299 R + 0.587 G + 0.114 B) in 16-bit fixed point, rounded.
func Luma8(r, g, b uint8) uint8 {
	return uint8((uint32(r)*19595 + uint32(g)*38470 + uint32(b)*7471 + 0x8000) >> 16)
}

// ToRGB copies img into an RGB image, alpha dropped (a screenshot of an
// opaque page has none): each pixel is its colour as color.NRGBAModel
// gives it. NRGBA images, and opaque pixels of RGBA ones (premultiplied
// equals straight colour there) — what png.Decode returns for screenshots
// — are copied without converting.
func ToRGB(img image.Image) RGB {
	bd := img.Bounds()
	out := RGB{W: bd.Dx(), H: bd.Dy(), Pix: make([]uint8, bd.Dx()*bd.Dy()*3)}
	var pix []uint8
	stride, premultiplied := 0, false
	switch m := img.(type) {
	case *image.NRGBA:
		pix, stride = m.Pix, m.Stride
	case *image.RGBA:
		pix, stride, premultiplied = m.Pix, m.Stride, true
	}
	i := 0
	for y := bd.Min.Y; y < bd.Max.Y; y++ {
		for x := bd.Min.X; x < bd.Max.X; x++ {
			if o := (y-bd.Min.Y)*stride + (x-bd.Min.X)*4; pix != nil && (!premultiplied || pix[o+3] == 255) {
				copy(out.Pix[i:i+3], pix[o:o+3])
			} else {
				c := color.NRGBAModel.Convert(img.At(x, y)).(color.NRGBA)
				out.Pix[i], out.Pix[i+1], out.Pix[i+2] = c.R, c.G, c.B
			}
			i += 3
		}
	}
	return out
}

// Gray converts to grey with Luma8.
func (m RGB) Gray() Gray {
	out := Gray{W: m.W, H: m.H, Pix: make([]uint8, m.W*m.H)}
	for i := range out.Pix {
		out.Pix[i] = Luma8(m.Pix[3*i], m.Pix[3*i+1], m.Pix[3*i+2])
	}
	return out
}

// CropLeft drops the left share of the width, as int(share · W) columns
// (WorldBench's HUD crop: legends sit on the left).
func (m RGB) CropLeft(share float64) RGB {
	x0 := int(share * float64(m.W))
	w := m.W - x0
	out := RGB{W: w, H: m.H, Pix: make([]uint8, w*m.H*3)}
	for y := 0; y < m.H; y++ {
		copy(out.Pix[y*w*3:(y+1)*w*3], m.Pix[(y*m.W+x0)*3:(y+1)*m.W*3])
	}
	return out
}

// CropLeft drops the left share of the width, as int(share · W) columns.
func (m Gray) CropLeft(share float64) Gray {
	x0 := int(share * float64(m.W))
	w := m.W - x0
	out := Gray{W: w, H: m.H, Pix: make([]uint8, w*m.H)}
	for y := 0; y < m.H; y++ {
		copy(out.Pix[y*w:(y+1)*w], m.Pix[y*m.W+x0:(y+1)*m.W])
	}
	return out
}

// Resize scales a grey image to w×h by area averaging: each output pixel is
// the mean of the source area it covers (partial pixels weighted by their
// covered share), rounded half up to 8 bits.
func (m Gray) Resize(w, h int) Gray {
	ch := resize([][]uint8{m.Pix}, 1, m.W, m.H, w, h)
	return Gray{W: w, H: h, Pix: ch}
}

// Resize scales an RGB image to w×h by area averaging per channel (see
// Gray.Resize).
func (m RGB) Resize(w, h int) RGB {
	return RGB{W: w, H: h, Pix: resize([][]uint8{m.Pix}, 3, m.W, m.H, w, h)}
}

// resize area-averages an interleaved image of n channels.
func resize(src [][]uint8, n, sw, sh, dw, dh int) []uint8 {
	pix := src[0]
	// Horizontal pass into floats, then vertical.
	wx := weights(sw, dw)
	wy := weights(sh, dh)
	tmp := make([]float64, dw*sh*n)
	for y := 0; y < sh; y++ {
		for ox, ws := range wx {
			for c := 0; c < n; c++ {
				s := 0.0
				for _, t := range ws {
					s += t.w * float64(pix[(y*sw+t.i)*n+c])
				}
				tmp[(y*dw+ox)*n+c] = s
			}
		}
	}
	out := make([]uint8, dw*dh*n)
	for oy, ws := range wy {
		for x := 0; x < dw; x++ {
			for c := 0; c < n; c++ {
				s := 0.0
				for _, t := range ws {
					s += t.w * tmp[(t.i*dw+x)*n+c]
				}
				v := math.Floor(s + 0.5 + 1e-9)
				out[(oy*dw+x)*n+c] = uint8(max(0, min(255, v)))
			}
		}
	}
	return out
}

type tap struct {
	i int
	w float64
}

// weights lists, per output index, the source indices it covers and their
// normalised weights (covered length / output cell length).
func weights(src, dst int) [][]tap {
	scale := float64(src) / float64(dst)
	out := make([][]tap, dst)
	for o := 0; o < dst; o++ {
		a, b := float64(o)*scale, float64(o+1)*scale
		for i := int(math.Floor(a)); i < src && float64(i) < b; i++ {
			lo, hi := math.Max(a, float64(i)), math.Min(b, float64(i+1))
			if hi > lo {
				out[o] = append(out[o], tap{i, (hi - lo) / scale})
			}
		}
	}
	return out
}

// LitLumaConfig is the lit-pixel luma's crop, size and void cut.
type LitLumaConfig struct {
	CropLeft      float64
	Width, Height int
	VoidMax       uint8
}

// LitLuma is a frame's time-of-day brightness: grey, the left CropLeft of
// the width dropped, resized to Width×Height, then the mean of the pixels
// brighter than VoidMax (the void and the night sky do not count), rounded
// to 2 decimals; 0 when no pixel is lit.
func LitLuma(m RGB, c LitLumaConfig) float64 {
	g := m.Gray().CropLeft(c.CropLeft).Resize(c.Width, c.Height)
	sum, n := 0, 0
	for _, v := range g.Pix {
		if v > c.VoidMax {
			sum += int(v)
			n++
		}
	}
	if n == 0 {
		return 0
	}
	return Round(float64(sum)/float64(n), 2)
}

// DayNight is the day and night pick over frames' lit lumas.
type DayNight struct {
	// Day and Night index the brightest and darkest frames (the first in
	// order on ties).
	Day, Night int
	// Gap is luma(day) − luma(night), rounded to 2 decimals.
	Gap float64
	// Pinned: the gap reaches the minimum, so the world really has a
	// darker night.
	Pinned bool
}

// PickDayNight picks day (brightest) and night (darkest) among lumas;
// Pinned when the gap is at least minGap. It returns Day = Night = -1 for
// no lumas.
func PickDayNight(lumas []float64, minGap float64) DayNight {
	if len(lumas) == 0 {
		return DayNight{Day: -1, Night: -1}
	}
	d := DayNight{}
	for i, l := range lumas {
		if l > lumas[d.Day] {
			d.Day = i
		}
		if l < lumas[d.Night] {
			d.Night = i
		}
	}
	d.Gap = Round(lumas[d.Day]-lumas[d.Night], 2)
	d.Pinned = d.Gap >= minGap
	return d
}

// Changed marks the pixels whose grey level differs by more than
// threshold between a and b (same size, full resolution, no crop).
func Changed(a, b Gray, threshold int, mask []bool) {
	for i := range a.Pix {
		d := int(a.Pix[i]) - int(b.Pix[i])
		if d < 0 {
			d = -d
		}
		if d > threshold {
			mask[i] = true
		}
	}
}

// Motion is a burst's changed pixels.
type Motion struct {
	// Fraction φ is the share of pixels changed between any two
	// consecutive frames, rounded to 5 decimals (0 for fewer than 2 frames).
	Fraction float64
	// Changed counts those pixels; Pixels counts all.
	Changed, Pixels int
	// Mask marks them, row by row.
	Mask []bool
}

// BurstMotion measures a burst: the union over consecutive frame pairs of
// the changed pixels (see Changed). Frames of another size than the first
// are skipped.
func BurstMotion(frames []Gray, threshold int) Motion {
	if len(frames) == 0 {
		return Motion{}
	}
	w, h := frames[0].W, frames[0].H
	m := Motion{Pixels: w * h, Mask: make([]bool, w*h)}
	prev := frames[0]
	for _, f := range frames[1:] {
		if f.W != w || f.H != h {
			continue
		}
		Changed(prev, f, threshold, m.Mask)
		prev = f
	}
	for _, c := range m.Mask {
		if c {
			m.Changed++
		}
	}
	if len(frames) >= 2 && m.Pixels > 0 {
		m.Fraction = Round(float64(m.Changed)/float64(m.Pixels), 5)
	}
	return m
}

// OverlayColor paints changed pixels on an overlay.
var OverlayColor = color.NRGBA{R: 255, G: 40, B: 40, A: 255}

// Overlay is the burst's first frame with every channel halved and the
// changed pixels painted OverlayColor.
func Overlay(first RGB, mask []bool) *image.NRGBA {
	img := image.NewNRGBA(image.Rect(0, 0, first.W, first.H))
	for i := 0; i < first.W*first.H; i++ {
		o := i * 4
		if i < len(mask) && mask[i] {
			img.Pix[o], img.Pix[o+1], img.Pix[o+2] = OverlayColor.R, OverlayColor.G, OverlayColor.B
		} else {
			img.Pix[o], img.Pix[o+1], img.Pix[o+2] = first.Pix[3*i]/2, first.Pix[3*i+1]/2, first.Pix[3*i+2]/2
		}
		img.Pix[o+3] = 255
	}
	return img
}

// FrameDiff is how different two frames are: both cropped by cropLeft, the
// mean absolute difference of each of R, G and B, averaged over the three
// and rounded to 2 decimals. Frames of different sizes give -1.
func FrameDiff(a, b RGB, cropLeft float64) float64 {
	if a.W != b.W || a.H != b.H {
		return -1
	}
	a, b = a.CropLeft(cropLeft), b.CropLeft(cropLeft)
	var sum [3]int
	for i := 0; i < len(a.Pix); i += 3 {
		for c := 0; c < 3; c++ {
			d := int(a.Pix[i+c]) - int(b.Pix[i+c])
			if d < 0 {
				d = -d
			}
			sum[c] += d
		}
	}
	n := float64(a.W * a.H)
	if n == 0 {
		return 0
	}
	return Round((float64(sum[0])/n+float64(sum[1])/n+float64(sum[2])/n)/3, 2)
}

// Chroma is a frame's land chromaticity: red and blue shares of the lit
// pixels' summed colour.
type Chroma struct{ R, B float64 }

// ChromaConfig is the chromaticity's crop, size and dark cut.
type ChromaConfig struct {
	CropLeft      float64
	Width, Height int
	MinSum        int
}

// LandChroma crops, resizes, keeps the pixels whose R+G+B exceeds MinSum
// and returns (ΣR/Σ(R+G+B), ΣB/Σ(R+G+B)); the total is 1 when no pixel is
// kept.
func LandChroma(m RGB, c ChromaConfig) Chroma {
	s := m.CropLeft(c.CropLeft).Resize(c.Width, c.Height)
	var r, b, total int
	for i := 0; i < len(s.Pix); i += 3 {
		sum := int(s.Pix[i]) + int(s.Pix[i+1]) + int(s.Pix[i+2])
		if sum > c.MinSum {
			r += int(s.Pix[i])
			b += int(s.Pix[i+2])
			total += sum
		}
	}
	if total == 0 {
		total = 1
	}
	return Chroma{R: float64(r) / float64(total), B: float64(b) / float64(total)}
}

// Shift is how far two chromaticities are apart: the larger of the red and
// blue share differences, rounded to 4 decimals.
func Shift(a, b Chroma) float64 {
	return Round(math.Max(math.Abs(a.R-b.R), math.Abs(a.B-b.B)), 4)
}

// Round rounds half away from zero to d decimals.
func Round(v float64, d int) float64 {
	p := math.Pow(10, float64(d))
	return math.Round(v*p) / p
}

// JPEG is img as a JPEG of the given quality for a model to look at: at
// most maxWidth wide (an area average, the height kept in proportion),
// opaque. A smaller image keeps its size.
func JPEG(img image.Image, maxWidth, quality int) ([]byte, error) {
	m := ToRGB(img)
	if m.W > maxWidth {
		m = m.Resize(maxWidth, max(1, m.H*maxWidth/m.W))
	}
	out := image.NewRGBA(image.Rect(0, 0, m.W, m.H))
	for i := 0; i < m.W*m.H; i++ {
		out.Pix[4*i], out.Pix[4*i+1], out.Pix[4*i+2], out.Pix[4*i+3] = m.Pix[3*i], m.Pix[3*i+1], m.Pix[3*i+2], 255
	}
	var buf bytes.Buffer
	if err := jpeg.Encode(&buf, out, &jpeg.Options{Quality: quality}); err != nil {
		return nil, fmt.Errorf("encoding a JPEG: %w", err)
	}
	return buf.Bytes(), nil
}
