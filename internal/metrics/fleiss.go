package metrics

import (
	"fmt"
	"math"
)

// FleissKappa is Fleiss' κ (Fleiss 1971, "Measuring nominal scale
// agreement among many raters", Psychological Bulletin 76(5)) for N
// subjects each rated by the same n ≥ 2 raters into k categories:
// counts[i][j] is how many raters put subject i in category j. With
//
//	P_i = (Σ_j n_ij² − n) / (n(n − 1))   agreement on subject i
//	P̄   = (1/N) Σ_i P_i                  observed agreement
//	p_j = (1/(N n)) Σ_i n_ij             share of ratings in category j
//	P̄_e = Σ_j p_j²                       agreement expected by chance
//
// κ = (P̄ − P̄_e) / (1 − P̄_e). κ is NaN when P̄_e = 1 (every rating in one
// category: agreement beyond chance is undefined). It fails when there is
// no subject, a row has another length or another total than the first,
// fewer than two raters, or a negative count.
func FleissKappa(counts [][]int) (float64, error) {
	if len(counts) == 0 {
		return 0, fmt.Errorf("fleiss' kappa: no subjects")
	}
	k := len(counts[0])
	n := 0
	for _, c := range counts[0] {
		n += c
	}
	if n < 2 {
		return 0, fmt.Errorf("fleiss' kappa: %d rater(s) per subject; it needs at least 2", n)
	}
	colSums := make([]int, k)
	sumP := 0.0
	for i, row := range counts {
		if len(row) != k {
			return 0, fmt.Errorf("fleiss' kappa: subject %d has %d categories, subject 0 has %d", i, len(row), k)
		}
		total, squares := 0, 0
		for j, c := range row {
			if c < 0 {
				return 0, fmt.Errorf("fleiss' kappa: subject %d, category %d: negative count %d", i, j, c)
			}
			total += c
			squares += c * c
			colSums[j] += c
		}
		if total != n {
			return 0, fmt.Errorf("fleiss' kappa: subject %d has %d ratings, subject 0 has %d", i, total, n)
		}
		sumP += float64(squares-n) / float64(n*(n-1))
	}
	N := float64(len(counts))
	pBar := sumP / N
	pe := 0.0
	for _, s := range colSums {
		p := float64(s) / (N * float64(n))
		pe += p * p
	}
	if pe == 1 {
		return math.NaN(), nil
	}
	return (pBar - pe) / (1 - pe), nil
}
