package measure

import (
	"image"
	"image/color"
	"reflect"
	"testing"
)

// solid makes a w×h RGB image filled by f(x, y).
func solid(w, h int, f func(x, y int) [3]uint8) RGB {
	m := RGB{W: w, H: h, Pix: make([]uint8, w*h*3)}
	for y := 0; y < h; y++ {
		for x := 0; x < w; x++ {
			c := f(x, y)
			copy(m.Pix[(y*w+x)*3:], c[:])
		}
	}
	return m
}

func grey(v uint8) [3]uint8 { return [3]uint8{v, v, v} }

func TestLuma8IsPillowsConvertL(t *testing.T) {
	cases := []struct {
		r, g, b, want uint8
	}{
		{255, 255, 255, 255}, {0, 0, 0, 0}, {255, 0, 0, 76}, {0, 255, 0, 150}, {0, 0, 255, 29},
		{100, 150, 200, 141}, // 0.299·100 + 0.587·150 + 0.114·200 = 140.75 → 141
		{12, 13, 12, 13},     // 12.587 → 13
	}
	for _, c := range cases {
		if got := Luma8(c.r, c.g, c.b); got != c.want {
			t.Errorf("Luma8(%d,%d,%d) = %d, want %d", c.r, c.g, c.b, got, c.want)
		}
	}
}

func TestResizeAveragesAreas(t *testing.T) {
	// 3 → 2 columns: each output covers 1.5 source pixels.
	g := Gray{W: 3, H: 1, Pix: []uint8{0, 30, 60}}
	if got := g.Resize(2, 1).Pix; !reflect.DeepEqual(got, []uint8{10, 50}) {
		t.Fatalf("3→2: %v, want [10 50]", got)
	}
	// 4×2 → 2×1: plain 2×2 block means, rounded half up (12.5 → 13).
	g = Gray{W: 4, H: 2, Pix: []uint8{10, 15, 100, 100, 10, 15, 0, 0}}
	if got := g.Resize(2, 1).Pix; !reflect.DeepEqual(got, []uint8{13, 50}) {
		t.Fatalf("4×2→2×1: %v, want [13 50]", got)
	}
	// Same size is the identity.
	g = Gray{W: 2, H: 2, Pix: []uint8{1, 2, 3, 4}}
	if got := g.Resize(2, 2).Pix; !reflect.DeepEqual(got, g.Pix) {
		t.Fatalf("identity: %v", got)
	}
}

func TestCropLeftDropsIntShareOfWidth(t *testing.T) {
	m := solid(10, 1, func(x, _ int) [3]uint8 { return grey(uint8(x)) })
	c := m.CropLeft(0.2)
	if c.W != 8 || c.Pix[0] != 2 || c.Pix[len(c.Pix)-1] != 9 {
		t.Fatalf("crop: w %d, first %d, last %d", c.W, c.Pix[0], c.Pix[len(c.Pix)-1])
	}
	// int(0.2 · 7) = 1 column.
	if got := solid(7, 1, func(x, _ int) [3]uint8 { return grey(0) }).CropLeft(0.2).W; got != 6 {
		t.Fatalf("crop of 7: %d columns left, want 6", got)
	}
}

func TestLitLumaCropsTheHUDAndIgnoresTheVoid(t *testing.T) {
	// 10×4: a white HUD in the left two columns, then per row: void (0),
	// dark sky at the cut (12, not lit), land at 100, land at 201.
	rows := []uint8{0, 12, 100, 201}
	m := solid(10, 4, func(x, y int) [3]uint8 {
		if x < 2 {
			return grey(255)
		}
		return grey(rows[y])
	})
	cfg := LitLumaConfig{CropLeft: 0.2, Width: 8, Height: 4, VoidMax: 12}
	if got := LitLuma(m, cfg); got != 150.5 {
		t.Fatalf("lit luma %v, want 150.5 (mean of 100 and 201)", got)
	}
	// Without the crop the HUD would count.
	// Without the crop the HUD counts: 8 HUD pixels at 255, 8 at 100 and
	// 8 at 201 → 4448 / 24 = 185.33.
	cfg.CropLeft, cfg.Width = 0, 10
	if got := LitLuma(m, cfg); got != 185.33 {
		t.Fatalf("uncropped lit luma %v, want 185.33", got)
	}
	// All void: 0.
	if got := LitLuma(solid(5, 5, func(int, int) [3]uint8 { return grey(12) }), LitLumaConfig{Width: 5, Height: 5, VoidMax: 12}); got != 0 {
		t.Fatalf("void frame: %v, want 0", got)
	}
	// Rounded to 2 decimals: lit pixels 13, 13, 14 → 13.33.
	m = RGB{W: 3, H: 1, Pix: []uint8{13, 13, 13, 13, 13, 13, 14, 14, 14}}
	if got := LitLuma(m, LitLumaConfig{Width: 3, Height: 1, VoidMax: 12}); got != 13.33 {
		t.Fatalf("rounding: %v, want 13.33", got)
	}
}

func TestPickDayNight(t *testing.T) {
	// WorldBench's own example (claude-opus-5-5): 51.38 / 41.6 / 87.09 / 51.21.
	d := PickDayNight([]float64{51.38, 41.6, 87.09, 51.21}, 4)
	if d != (DayNight{Day: 2, Night: 1, Gap: 45.49, Pinned: true}) {
		t.Fatalf("%+v", d)
	}
	// Ties keep the first; a gap under 4.0 is not pinned; exactly 4.0 is.
	if d := PickDayNight([]float64{10, 12, 12, 10}, 4); d != (DayNight{Day: 1, Night: 0, Gap: 2, Pinned: false}) {
		t.Fatalf("ties: %+v", d)
	}
	if d := PickDayNight([]float64{20, 16}, 4); !d.Pinned || d.Gap != 4 {
		t.Fatalf("gap of exactly 4: %+v", d)
	}
	if d := PickDayNight(nil, 4); d.Day != -1 || d.Night != -1 {
		t.Fatalf("empty: %+v", d)
	}
}

func TestBurstMotionUsesTheThresholdAndTheUnionOfPairs(t *testing.T) {
	g := func(p ...uint8) Gray { return Gray{W: 4, H: 1, Pix: p} }
	frames := []Gray{
		g(0, 0, 0, 0),
		g(24, 25, 0, 0), // pixel 0 changed by exactly 24: not changed; pixel 1 by 25: changed
		g(24, 25, 0, 0),
		g(24, 25, 0, 200), // pixel 3 changes in the last pair only
	}
	m := BurstMotion(frames, 24)
	if m.Changed != 2 || m.Pixels != 4 || m.Fraction != 0.5 || !reflect.DeepEqual(m.Mask, []bool{false, true, false, true}) {
		t.Fatalf("%+v", m)
	}
	if m := BurstMotion(frames[:1], 24); m.Fraction != 0 {
		t.Fatalf("one frame: %+v", m)
	}
	// 1 changed pixel in 3 → 0.33333 (5 decimals).
	if m := BurstMotion([]Gray{{W: 3, H: 1, Pix: []uint8{0, 0, 0}}, {W: 3, H: 1, Pix: []uint8{99, 0, 0}}}, 24); m.Fraction != 0.33333 {
		t.Fatalf("rounding: %v", m.Fraction)
	}
}

func TestOverlayDimsAndPaints(t *testing.T) {
	first := RGB{W: 2, H: 1, Pix: []uint8{201, 100, 51, 10, 20, 30}}
	img := Overlay(first, []bool{false, true})
	if got := img.NRGBAAt(0, 0); got != (color.NRGBA{100, 50, 25, 255}) {
		t.Fatalf("dimmed pixel %v", got)
	}
	if got := img.NRGBAAt(1, 0); got != OverlayColor {
		t.Fatalf("changed pixel %v", got)
	}
}

func TestFrameDiffAndChroma(t *testing.T) {
	a := solid(5, 2, func(x, _ int) [3]uint8 {
		if x == 0 {
			return [3]uint8{255, 255, 255} // HUD column, cropped
		}
		return [3]uint8{100, 100, 100}
	})
	b := solid(5, 2, func(x, _ int) [3]uint8 {
		if x == 0 {
			return [3]uint8{0, 0, 0}
		}
		return [3]uint8{110, 100, 70}
	})
	if got := FrameDiff(a, b, 0.2); got != 13.33 {
		t.Fatalf("frame diff %v, want 13.33 ((10+0+30)/3)", got)
	}
	if got := FrameDiff(a, RGB{W: 1, H: 1, Pix: []uint8{0, 0, 0}}, 0.2); got != -1 {
		t.Fatalf("sizes differ: %v", got)
	}
	cfg := ChromaConfig{CropLeft: 0.2, Width: 4, Height: 2, MinSum: 30}
	ka := LandChroma(a, cfg)
	kb := LandChroma(b, cfg)
	if ka.R != 1.0/3 || ka.B != 1.0/3 {
		t.Fatalf("grey chroma %+v", ka)
	}
	if kb.R != 110.0/280 || kb.B != 70.0/280 {
		t.Fatalf("warm chroma %+v", kb)
	}
	// max(|1/3 − 0.392857|, |1/3 − 0.25|) = 0.083333 → 0.0833.
	if got := Shift(ka, kb); got != 0.0833 {
		t.Fatalf("shift %v", got)
	}
	// Dark pixels (R+G+B ≤ 30) are left out; none kept gives 0, 0.
	if k := LandChroma(solid(5, 2, func(int, int) [3]uint8 { return [3]uint8{10, 10, 10} }), cfg); k != (Chroma{}) {
		t.Fatalf("dark chroma %+v", k)
	}
}

func TestToRGBDropsAlpha(t *testing.T) {
	img := image.NewNRGBA(image.Rect(0, 0, 1, 1))
	img.SetNRGBA(0, 0, color.NRGBA{1, 2, 3, 255})
	if got := ToRGB(img); !reflect.DeepEqual(got.Pix, []uint8{1, 2, 3}) {
		t.Fatalf("%v", got.Pix)
	}
}

// TestToRGBCopiesScreenshotsAsTheColourModelDoes: the copied NRGBA and
// opaque RGBA pixels, the converted translucent RGBA ones and sub-images
// give what color.NRGBAModel gives pixel by pixel.
func TestToRGBCopiesScreenshotsAsTheColourModelDoes(t *testing.T) {
	want := func(img image.Image) []uint8 {
		var out []uint8
		b := img.Bounds()
		for y := b.Min.Y; y < b.Max.Y; y++ {
			for x := b.Min.X; x < b.Max.X; x++ {
				c := color.NRGBAModel.Convert(img.At(x, y)).(color.NRGBA)
				out = append(out, c.R, c.G, c.B)
			}
		}
		return out
	}
	n := image.NewNRGBA(image.Rect(0, 0, 3, 2))
	r := image.NewRGBA(image.Rect(0, 0, 3, 2))
	for i := 0; i < 6; i++ {
		n.SetNRGBA(i%3, i/3, color.NRGBA{uint8(40 * i), uint8(200 - 30*i), 7, uint8(255 - 50*(i%2))})
		r.SetRGBA(i%3, i/3, color.RGBA{uint8(20 * i), uint8(100 - 10*i), 3, uint8(255 - 100*(i%2))})
	}
	p := image.NewPaletted(image.Rect(0, 0, 2, 1), color.Palette{color.RGBA{9, 8, 7, 255}, color.RGBA{1, 2, 3, 255}})
	p.SetColorIndex(1, 0, 1)
	for name, img := range map[string]image.Image{
		"nrgba": n, "rgba": r, "paletted": p,
		"nrgba sub-image": n.SubImage(image.Rect(1, 1, 3, 2)), "rgba sub-image": r.SubImage(image.Rect(1, 0, 2, 2)),
	} {
		got := ToRGB(img)
		if b := img.Bounds(); got.W != b.Dx() || got.H != b.Dy() || !reflect.DeepEqual(got.Pix, want(img)) {
			t.Errorf("%s: %dx%d %v, want %v", name, got.W, got.H, got.Pix, want(img))
		}
	}
	// A translucent premultiplied pixel is not copied as it is stored.
	if got := ToRGB(r).Pix[3:6]; reflect.DeepEqual(got, r.Pix[4:7]) {
		t.Errorf("translucent RGBA pixel copied premultiplied: %v", got)
	}
}
