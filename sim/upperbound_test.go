package sim

import (
	"math"
	"math/rand/v2"
	"slices"
	"testing"
)

// TestUpperBoundRank: the ranks at the edges (none below 59 values for
// p95 at 95 %: 0.95^58 > 0.05; the largest value from 59 on) and at 100
// values (rank 99: P(Binomial(100, 0.95) ≤ 98) = 0.963, where rank 98
// gives only 0.882), and the bound's coverage: over 4000 samples of 100
// exponential values (seed 1), X(99) is at or above the true p95 in at
// least 95 % less 3 standard errors of a share at 4000 trials
// (3·√(0.95·0.05/4000) = 1.03 points); rank 98 would cover 88 %.
func TestUpperBoundRank(t *testing.T) {
	for _, tc := range []struct {
		n, k int
		ok   bool
	}{{58, 58, false}, {59, 59, true}, {100, 99, true}} {
		if k, ok := UpperBoundRank(tc.n, 0.95, 0.95); k != tc.k || ok != tc.ok {
			t.Errorf("UpperBoundRank(%d, 0.95, 0.95) = %d, %v; want %d, %v", tc.n, k, ok, tc.k, tc.ok)
		}
	}
	q := -math.Log(0.05) // the p95 of an exponential of rate 1
	rng := rand.New(rand.NewPCG(1, 2))
	const trials = 4000
	covered := 0
	xs := make([]float64, 100)
	for range trials {
		for i := range xs {
			xs[i] = rng.ExpFloat64()
		}
		slices.Sort(xs)
		if xs[99-1] >= q {
			covered++
		}
	}
	if share, min := float64(covered)/trials, 0.95-3*math.Sqrt(0.95*0.05/trials); share < min {
		t.Errorf("X(99) of 100 covers the p95 in %.3f of samples; want ≥ %.3f", share, min)
	}
}
