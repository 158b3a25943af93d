package measure

import "math"

// DayLength is the day cycle's length fitted to lit lumas sampled at
// frames: for every whole period P from minP to maxP frames, the sinusoid
// a + b·cos(2πf/P) + c·sin(2πf/P) nearest the lumas in least squares;
// the period of the nearest fit wins (the shortest on ties), then is
// refined to the period within a tenth of it after which the lumas come
// back closest (Repeat below; the shortest on ties). A fit whose
// amplitude √(b²+c²) exceeds the lumas' range is refused (a period at
// which the samples' phases nearly coincide fits anything with a huge
// amplitude). Fit is the share of the lumas' variance the winner explains
// (R², rounded to 4 decimals); 0 and 0 when no period could be fitted
// (fewer than 4 samples, constant lumas).
//
// A sinusoid fits a stretch of less than one day too, at a wrong period,
// so Repeat checks that the lumas do come back after the period: the mean
// |luma(f) − luma(f + period)| over the samples f whose f + period lies
// within the samples (luma there interpolated linearly), as a share of
// the lumas' range, rounded to 4 decimals; -1 when fewer than a third of
// the samples have such a partner (less than about 1.3 periods sampled).
func DayLength(frames []int, lumas []float64, minP, maxP int) (period int, fit, repeat float64) {
	n := len(frames)
	if n < 4 || len(lumas) != n || minP < 1 || maxP < minP {
		return 0, 0, -1
	}
	lo, hi, mean := lumas[0], lumas[0], 0.0
	for _, l := range lumas {
		lo, hi, mean = math.Min(lo, l), math.Max(hi, l), mean+l
	}
	mean /= float64(n)
	sst := 0.0
	for _, l := range lumas {
		sst += (l - mean) * (l - mean)
	}
	if hi-lo < 1e-9 {
		return 0, 0, -1
	}
	best := math.Inf(1)
	for p := minP; p <= maxP; p++ {
		// The normal equations of the three columns 1, cos, sin.
		var m [3][4]float64
		for i, f := range frames {
			w := 2 * math.Pi * float64(f) / float64(p)
			x := [3]float64{1, math.Cos(w), math.Sin(w)}
			for r := 0; r < 3; r++ {
				for c := 0; c < 3; c++ {
					m[r][c] += x[r] * x[c]
				}
				m[r][3] += x[r] * lumas[i]
			}
		}
		coef, ok := solve3(m)
		if !ok || math.Hypot(coef[1], coef[2]) > hi-lo {
			continue
		}
		sse := 0.0
		for i, f := range frames {
			w := 2 * math.Pi * float64(f) / float64(p)
			d := lumas[i] - (coef[0] + coef[1]*math.Cos(w) + coef[2]*math.Sin(w))
			sse += d * d
		}
		if sse < best-1e-9*sst {
			best, period = sse, p
		}
	}
	if period == 0 {
		return 0, 0, -1
	}
	fit = Round(1-best/sst, 4)
	// The sinusoid's period, refined: within a tenth of it, the period
	// after which the lumas come back closest (a day of another shape
	// than a sinusoid, clipped at night, say, is fitted a little off).
	repeat = repeats(frames, lumas, period, hi-lo)
	if repeat < 0 {
		return period, fit, repeat
	}
	for p := max(minP, period*9/10); p <= min(maxP, period*11/10); p++ {
		if r := repeats(frames, lumas, p, hi-lo); r >= 0 && r < repeat {
			period, repeat = p, r
		}
	}
	return period, fit, repeat
}

// repeats is DayLength's Repeat for period p over lumas of range span.
func repeats(frames []int, lumas []float64, p int, span float64) float64 {
	last := frames[len(frames)-1]
	sum, pairs := 0.0, 0
	for i, f := range frames {
		g := f + p
		if g > last {
			break
		}
		j := i
		for frames[j] < g {
			j++
		}
		at := lumas[j]
		if frames[j] > g {
			a, b := frames[j-1], frames[j]
			at = lumas[j-1] + (lumas[j]-lumas[j-1])*float64(g-a)/float64(b-a)
		}
		sum += math.Abs(lumas[i] - at)
		pairs++
	}
	if 3*pairs < len(frames) {
		return -1
	}
	return Round(sum/float64(pairs)/span, 4)
}

// solve3 solves a 3×3 system given as its augmented matrix, by Gaussian
// elimination with partial pivoting; false when it is (nearly) singular.
func solve3(m [3][4]float64) ([3]float64, bool) {
	scale := 0.0
	for r := 0; r < 3; r++ {
		for c := 0; c < 3; c++ {
			scale = math.Max(scale, math.Abs(m[r][c]))
		}
	}
	for col := 0; col < 3; col++ {
		piv := col
		for r := col + 1; r < 3; r++ {
			if math.Abs(m[r][col]) > math.Abs(m[piv][col]) {
				piv = r
			}
		}
		if math.Abs(m[piv][col]) <= 1e-9*scale {
			return [3]float64{}, false
		}
		m[col], m[piv] = m[piv], m[col]
		for r := 0; r < 3; r++ {
			if r == col {
				continue
			}
			k := m[r][col] / m[col][col]
			for c := col; c < 4; c++ {
				m[r][c] -= k * m[col][c]
			}
		}
	}
	return [3]float64{m[0][3] / m[0][0], m[1][3] / m[1][1], m[2][3] / m[2][2]}, true
}
