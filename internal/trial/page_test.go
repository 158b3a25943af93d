package trial

import (
	"errors"
	"image"
	"image/color"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/worldprobe/worldprobe/internal/target"
)

func TestRegionMean(t *testing.T) {
	// A 10x4 canvas: left half red, right half blue.
	img := image.NewRGBA(image.Rect(0, 0, 10, 4))
	for y := 0; y < 4; y++ {
		for x := 0; x < 10; x++ {
			c := color.RGBA{R: 255, A: 255}
			if x >= 5 {
				c = color.RGBA{B: 255, A: 255}
			}
			img.SetRGBA(x, y, c)
		}
	}
	m, err := regionMean(img, 0, 0, 10, 4)
	require.NoError(t, err)
	require.Equal(t, 127.5, m["r"])
	require.Equal(t, 127.5, m["b"])
	m, err = regionMean(img, 5, 1, 5, 3)
	require.NoError(t, err)
	require.Equal(t, 0.0, m["r"])
	require.Equal(t, 255.0, m["b"])

	for _, c := range []struct {
		x, y, w, h float64
		want       string
	}{
		{8, 0, 4, 4, "region (8, 0, 4, 4) is not inside the 10x4 canvas"},
		{-1, 0, 2, 2, "region (-1, 0, 2, 2) is not inside the 10x4 canvas"},
		{20, 20, 2, 2, "region (20, 20, 2, 2) is not inside the 10x4 canvas"},
		{0, 0, 0, 2, "region (0, 0, 0, 2) has no area"},
	} {
		_, err := regionMean(img, c.x, c.y, c.w, c.h)
		require.ErrorContains(t, err, c.want)
		require.True(t, errors.Is(err, target.ErrNotFound))
	}
}
