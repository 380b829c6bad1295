package sim

import (
	"math"
	"math/rand/v2"
	"slices"
	"testing"

	"gonum.org/v1/gonum/stat"
)

// TestNearestRankIsEmpirical: nearestRank picks the element gonum's
// stat.Quantile(p, stat.Empirical, …) picks, for every size up to 300 and
// probabilities on a fine grid and at the report's percentiles.
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
			if got, want := nearestRank(x, p), stat.Quantile(p, stat.Empirical, x, nil); got != want {
				t.Fatalf("n=%d p=%v: nearestRank %v, stat.Quantile %v", n, p, got, want)
			}
		}
	}
	if !math.IsNaN(nearestRank(nil, 0.5)) {
		t.Error("empty: want NaN")
	}
}

// TestKthOfTwoIsMerge: kthOfTwo(a, b, k) is mergeSorted(a, b)[k] for every
// k, on random sorted slices with ties and empty sides; mergeAll is the
// sorted union.
func TestKthOfTwoIsMerge(t *testing.T) {
	rng := rand.New(rand.NewPCG(5, 6))
	draw := func(n int) []float64 {
		x := make([]float64, n)
		for i := range x {
			x[i] = float64(rng.IntN(20))
		}
		slices.Sort(x)
		return x
	}
	for range 500 {
		a, b := draw(rng.IntN(12)), draw(rng.IntN(12))
		m := mergeSorted(a, b)
		for k := range m {
			if got := kthOfTwo(a, b, k); got != m[k] {
				t.Fatalf("a=%v b=%v k=%d: %v, want %v", a, b, k, got, m[k])
			}
		}
		c := draw(rng.IntN(12))
		var all []float64
		all = append(append(append(all, a...), b...), c...)
		slices.Sort(all)
		if got := mergeAll([][]float64{a, b, c}); !slices.Equal(got, all) && len(all) > 0 {
			t.Fatalf("mergeAll(%v, %v, %v) = %v", a, b, c, got)
		}
	}
}
