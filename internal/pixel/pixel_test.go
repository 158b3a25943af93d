package pixel

import (
	"image"
	"image/color"
	"testing"

	"github.com/stretchr/testify/require"
)

func fill(w, h int, c color.RGBA) *image.RGBA {
	img := image.NewRGBA(image.Rect(0, 0, w, h))
	for y := 0; y < h; y++ {
		for x := 0; x < w; x++ {
			img.SetRGBA(x, y, c)
		}
	}
	return img
}

func TestBlankUniformImage(t *testing.T) {
	st := Measure(fill(100, 50, color.RGBA{10, 20, 30, 255}))
	require.True(t, st.Blank())
	require.Equal(t, [4]uint8{10, 20, 30, 255}, st.Dominant)
	require.Equal(t, 0.0, st.Differing)
	require.InDelta(t, 0.299*10+0.587*20+0.114*30, st.MeanLuma, 1e-9)
}

func TestNotBlankWithASquare(t *testing.T) {
	img := fill(100, 100, color.RGBA{0, 0, 0, 255})
	for y := 40; y < 50; y++ {
		for x := 40; x < 50; x++ {
			img.SetRGBA(x, y, color.RGBA{255, 0, 0, 255})
		}
	}
	st := Measure(img)
	require.False(t, st.Blank())
	require.InDelta(t, 0.01, st.Differing, 1e-12)
}

func TestNoiseWithinToleranceIsBlank(t *testing.T) {
	img := fill(10, 10, color.RGBA{100, 100, 100, 255})
	img.SetRGBA(3, 3, color.RGBA{105, 95, 108, 255})
	require.True(t, Measure(img).Blank())
}

func TestEmptyImageIsBlank(t *testing.T) {
	require.True(t, Measure(image.NewRGBA(image.Rect(0, 0, 0, 0))).Blank())
}
