package fit

import (
	"context"
	"math"
	"testing"

	"gonum.org/v1/gonum/stat/distuv"
)

// lognormalQuantiles returns the n evenly spaced quantiles
// exp(Φ⁻¹((i − ½)/n)) of the standard lognormal: one mode, no sampling
// noise.
func lognormalQuantiles(n int) []float64 {
	x := make([]float64, n)
	for i := range x {
		x[i] = math.Exp(distuv.UnitNormal.Quantile((float64(i) + 0.5) / float64(n)))
	}
	return x
}

// TestEMWorkBounded: EM's work is bounded by the sample's size whatever
// the data. Three components fitted to one lognormal's 120 evenly spaced
// quantiles have no modes to find: the likelihood is flat along the ways
// of splitting the one mode, and EM creeps along it without meeting its
// tolerance. Counted, not timed: the runs stop at emIterationBound
// iterations (8 short runs of 50, then 2000), each O(n·k), and still
// return a mixture (weights summing to 1, finite parameters, σ > 0).
// Two components on the same data converge well before the bound.
func TestEMWorkBounded(t *testing.T) {
	x := lognormalQuantiles(120)
	for _, tc := range []struct {
		k       int
		opt     EMOptions
		atBound bool
	}{
		{3, EMOptions{Seed: 1}, true},
		{3, EMOptions{Seed: 1, MaxIter: 100, Starts: 2}, true},
		{2, EMOptions{Seed: 1}, false},
		{1, EMOptions{Seed: 1}, false},
	} {
		m, ll, iters, err := fitMixtureWork(context.Background(), x, tc.k, tc.opt)
		if err != nil {
			t.Fatalf("k = %d: %v", tc.k, err)
		}
		bound := emIterationBound(tc.k, tc.opt)
		if iters > bound || tc.atBound != (iters == bound) {
			t.Errorf("k = %d, %+v: %d EM iterations; bound %d, want it reached: %v", tc.k, tc.opt, iters, bound, tc.atBound)
		}
		sum := 0.0
		for j := range m.K() {
			sum += m.Weights[j]
			if !(m.Sigma[j] > 0) || math.IsInf(m.Mu[j], 0) || math.IsNaN(m.Mu[j]) || math.IsInf(m.Sigma[j], 0) {
				t.Errorf("k = %d: component %d: mu %v sigma %v", tc.k, j, m.Mu[j], m.Sigma[j])
			}
		}
		if math.Abs(sum-1) > 1e-12 || math.IsNaN(ll) || math.IsInf(ll, 0) {
			t.Errorf("k = %d: weights sum to %v, log-likelihood %v", tc.k, sum, ll)
		}
	}
	if got, want := emIterationBound(3, EMOptions{}), 8*50+2000; got != want {
		t.Errorf("default bound %d, want %d", got, want)
	}
	if got, want := emIterationBound(1, EMOptions{}), 50+2000; got != want {
		t.Errorf("k = 1 bound %d, want %d", got, want)
	}
}
