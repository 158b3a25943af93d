package measure

import (
	"math"
	"testing"
)

// TestDayLength fits the day's length to lumas sampled as the capture's
// light probes are: a pure sinusoid's period exactly; a day clipped at
// night (no light from sunset to sunrise, as the capture package's isle)
// fitted a little off by the sinusoid (1185 frames) and refined by its
// repeat to the frame; less than 1.3 days sampled gives a period whose
// repeat cannot be checked (-1); constant lumas or too few give none.
func TestDayLength(t *testing.T) {
	samples := func(n, every int, luma func(f int) float64) ([]int, []float64) {
		var fs []int
		var ls []float64
		for i := 0; i < n; i++ {
			f := 1 + i*every
			fs, ls = append(fs, f), append(ls, Round(luma(f), 2))
		}
		return fs, ls
	}
	check := func(name string, fs []int, ls []float64, minP, maxP, wantP int, wantFit, wantRepeat float64) {
		t.Helper()
		if p, fit, repeat := DayLength(fs, ls, minP, maxP); p != wantP || fit != wantFit || repeat != wantRepeat {
			t.Errorf("%s: %d frames, fit %v, repeat %v; want %d, %v, %v", name, p, fit, repeat, wantP, wantFit, wantRepeat)
		}
	}
	// 12 samples 40 frames apart, a day of 160 frames.
	fs, ls := samples(12, 40, func(f int) float64 { return 100 + 40*math.Sin(2*math.Pi*float64(f-1)/160) })
	check("sinusoid", fs, ls, 80, 440, 160, 1, 0)
	clipped := func(f int) float64 { return 20 + 90*math.Max(0, math.Sin(2*math.Pi*float64(f-1)/1200)) }
	fs, ls = samples(48, 50, clipped) // 2350 frames: almost two days
	check("clipped, two days", fs, ls, 100, 2350, 1200, 0.836, 0)
	fs, ls = samples(28, 37, clipped) // 999 frames: less than a day
	check("clipped, under a day", fs, ls, 74, 999, 979, 0.9271, -1)
	fs, ls = samples(8, 150, func(int) float64 { return 50 })
	check("constant", fs, ls, 300, 1050, 0, 0, -1)
	check("three samples", fs[:3], []float64{1, 2, 3}, 300, 1050, 0, 0, -1)
}
