package metrics

import (
	"fmt"
	"math"
)

// KendallTauB is Kendall's τ_b rank correlation of two paired score lists,
// with ties (Kendall 1945): over the n(n−1)/2 pairs (i, j),
//
//	τ_b = (n_c − n_d) / √((n_0 − n_1)(n_0 − n_2))
//
// where n_c and n_d count the concordant and discordant pairs (tied in
// neither list), n_0 = n(n−1)/2, and n_1 and n_2 the pairs tied in x and
// in y (Σ t(t−1)/2 over the groups of tied values). It is NaN when every
// value of x or of y is equal, and fails on lists of other lengths, of
// fewer than two values, or holding a NaN. WorldCoder-Bench compares
// judges with it (τ_b of each judge's verdicts against V-Cov).
func KendallTauB(x, y []float64) (float64, error) {
	if len(x) != len(y) {
		return 0, fmt.Errorf("kendall's tau-b: %d scores against %d", len(x), len(y))
	}
	if len(x) < 2 {
		return 0, fmt.Errorf("kendall's tau-b: %d pair(s); it needs at least 2", len(x))
	}
	for i := range x {
		if math.IsNaN(x[i]) || math.IsNaN(y[i]) {
			return 0, fmt.Errorf("kendall's tau-b: pair %d holds NaN", i)
		}
	}
	var nc, nd, tx, ty int
	for i := range x {
		for j := i + 1; j < len(x); j++ {
			dx, dy := cmp(x[i], x[j]), cmp(y[i], y[j])
			switch {
			case dx == 0 && dy == 0:
				tx++
				ty++
			case dx == 0:
				tx++
			case dy == 0:
				ty++
			case dx == dy:
				nc++
			default:
				nd++
			}
		}
	}
	n0 := len(x) * (len(x) - 1) / 2
	den := math.Sqrt(float64(n0-tx) * float64(n0-ty))
	if den == 0 {
		return math.NaN(), nil
	}
	return float64(nc-nd) / den, nil
}

func cmp(a, b float64) int {
	switch {
	case a < b:
		return -1
	case a > b:
		return 1
	}
	return 0
}
