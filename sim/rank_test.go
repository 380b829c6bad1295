package sim

import (
	"testing"

	"gonum.org/v1/gonum/stat"
)

// TestNearestRankIsEmpirical: NearestRank picks the element
// gonum's stat.Quantile(p, stat.Empirical, …) picks, for every size up to
// 300 and probabilities on a fine grid and at the report's percentiles.
func TestNearestRankIsEmpirical(t *testing.T) {
	ps := []float64{0, 1e-9, 0.5, 0.9, 0.95, 0.99, 0.999, 1}
	for i := range 1000 {
		ps = append(ps, float64(i)/1000)
	}
	for n := 1; n <= 300; n++ {
		x := make([]float64, n)
		for i := range x {
			x[i] = float64(i)
		}
		for _, p := range ps {
			if got, want := x[NearestRank(n, p)], stat.Quantile(p, stat.Empirical, x, nil); got != want {
				t.Fatalf("n=%d p=%v: NearestRank gives %v, stat.Quantile %v", n, p, got, want)
			}
		}
	}
}
