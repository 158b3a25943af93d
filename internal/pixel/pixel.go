// Package pixel measures images: blank detection, luma and the share of
// pixels that differ from a colour. It works on decoded images and knows
// nothing of browsers.
package pixel

import (
	"bytes"
	"fmt"
	"image"
	"image/png"
)

// BlankTolerance is the per-channel difference (0–255) under which a pixel
// counts as the same colour as the dominant one.
const BlankTolerance = 8

// BlankShare is the largest share of pixels that may differ from the
// dominant colour in an image that still counts as blank.
const BlankShare = 0.001

// Stats describes an image.
type Stats struct {
	Width, Height int
	// Dominant is the most common colour (RGBA, 8 bits per channel).
	Dominant [4]uint8
	// Differing is the share of pixels more than BlankTolerance away from
	// Dominant in some channel.
	Differing float64
	// MeanLuma is the mean Rec. 601 luma, 0–255.
	MeanLuma float64
}

// Blank reports whether the image shows a single colour (nothing drawn, or
// only a clear colour): at most BlankShare of its pixels differ from the
// dominant colour.
func (s Stats) Blank() bool { return s.Width == 0 || s.Height == 0 || s.Differing <= BlankShare }

// DecodePNG decodes PNG bytes.
func DecodePNG(b []byte) (image.Image, error) {
	img, err := png.Decode(bytes.NewReader(b))
	if err != nil {
		return nil, fmt.Errorf("decoding PNG: %w", err)
	}
	return img, nil
}

// Measure computes Stats for img.
func Measure(img image.Image) Stats {
	b := img.Bounds()
	st := Stats{Width: b.Dx(), Height: b.Dy()}
	n := st.Width * st.Height
	if n == 0 {
		return st
	}
	counts := make(map[[4]uint8]int)
	var luma float64
	px := func(x, y int) [4]uint8 {
		r, g, bb, a := img.At(x, y).RGBA()
		return [4]uint8{uint8(r >> 8), uint8(g >> 8), uint8(bb >> 8), uint8(a >> 8)}
	}
	for y := b.Min.Y; y < b.Max.Y; y++ {
		for x := b.Min.X; x < b.Max.X; x++ {
			c := px(x, y)
			counts[c]++
			luma += 0.299*float64(c[0]) + 0.587*float64(c[1]) + 0.114*float64(c[2])
		}
	}
	best := 0
	for c, k := range counts {
		if k > best || (k == best && less(c, st.Dominant)) {
			best, st.Dominant = k, c
		}
	}
	differing := 0
	for c, k := range counts {
		if far(c, st.Dominant) {
			differing += k
		}
	}
	st.Differing = float64(differing) / float64(n)
	st.MeanLuma = luma / float64(n)
	return st
}

func less(a, b [4]uint8) bool {
	for i := range a {
		if a[i] != b[i] {
			return a[i] < b[i]
		}
	}
	return false
}

func far(a, b [4]uint8) bool {
	for i := 0; i < 3; i++ {
		d := int(a[i]) - int(b[i])
		if d > BlankTolerance || d < -BlankTolerance {
			return true
		}
	}
	return false
}

// RGBA is a colour with float channels, 0–255.
type RGBA struct{ R, G, B, A float64 }

// At reads one pixel as 0–255 channels.
func At(img image.Image, x, y int) RGBA {
	r, g, b, a := img.At(x, y).RGBA()
	return RGBA{float64(r >> 8), float64(g >> 8), float64(b >> 8), float64(a >> 8)}
}

// Mean is the mean colour over r (which must lie inside img).
func Mean(img image.Image, r image.Rectangle) RGBA {
	var sum RGBA
	n := float64(r.Dx() * r.Dy())
	if n == 0 {
		return sum
	}
	for y := r.Min.Y; y < r.Max.Y; y++ {
		for x := r.Min.X; x < r.Max.X; x++ {
			c := At(img, x, y)
			sum.R += c.R
			sum.G += c.G
			sum.B += c.B
			sum.A += c.A
		}
	}
	return RGBA{sum.R / n, sum.G / n, sum.B / n, sum.A / n}
}

// Luma is Rec. 601 luma of 0–255 channels.
func Luma(r, g, b float64) float64 { return 0.299*r + 0.587*g + 0.114*b }
