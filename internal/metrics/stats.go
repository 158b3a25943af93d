package metrics

import (
	"math"
	"sort"
)

// defined returns &x, or nil when x is NaN or infinite: an undefined
// number is reported as absent ("n/a"), never as a zero.
func defined(x float64) *float64 {
	if math.IsNaN(x) || math.IsInf(x, 0) {
		return nil
	}
	return &x
}

// MeanSD is the mean and sample standard deviation of a statistic over
// repeated runs, over the runs where it is defined.
type MeanSD struct {
	// Mean is nil when no run defines the statistic.
	Mean *float64 `json:"mean"`
	// SD is the sample standard deviation (n − 1 in the denominator); nil
	// with fewer than two defined values.
	SD *float64 `json:"sd"`
	// Runs is how many runs define the statistic.
	Runs int `json:"runs"`
}

// meanSD summarises xs, skipping NaNs.
func meanSD(xs []float64) MeanSD {
	var vals []float64
	for _, x := range xs {
		if !math.IsNaN(x) {
			vals = append(vals, x)
		}
	}
	m := MeanSD{Runs: len(vals)}
	if len(vals) == 0 {
		return m
	}
	sum := 0.0
	for _, x := range vals {
		sum += x
	}
	mean := sum / float64(len(vals))
	m.Mean = &mean
	if len(vals) >= 2 {
		ss := 0.0
		for _, x := range vals {
			ss += (x - mean) * (x - mean)
		}
		m.SD = defined(math.Sqrt(ss / float64(len(vals)-1)))
	}
	return m
}

// quantile is the p-quantile of xs by linear interpolation between order
// statistics (Hyndman and Fan's type 7, the default of R and NumPy): with
// xs sorted and h = (len−1)·p, x[⌊h⌋] + (h − ⌊h⌋)·(x[⌊h⌋+1] − x[⌊h⌋]). It
// sorts xs in place; NaN when xs is empty.
func quantile(xs []float64, p float64) float64 {
	if len(xs) == 0 {
		return math.NaN()
	}
	sort.Float64s(xs)
	h := float64(len(xs)-1) * p
	lo := int(math.Floor(h))
	if lo >= len(xs)-1 {
		return xs[len(xs)-1]
	}
	return xs[lo] + (h-float64(lo))*(xs[lo+1]-xs[lo])
}
