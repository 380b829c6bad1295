package sim

import (
	"math/rand/v2"
	"testing"
)

// TestMSERCutsATransient: a series whose first 100 values hold around 0
// and the rest around 10 (noise of standard deviation 1) is cut at the
// step, at most 2 values past it; a stationary series is cut at a small
// fraction of its length at most.
func TestMSERCutsATransient(t *testing.T) {
	rng := rand.New(rand.NewPCG(1, 2))
	ramp := make([]float64, 1000)
	flat := make([]float64, 1000)
	for i := range ramp {
		ramp[i] = 10 + rng.NormFloat64()
		if i < 100 {
			ramp[i] -= 10
		}
		flat[i] = 10 + rng.NormFloat64()
	}
	if d := mserCut(ramp); d < 100 || d > 102 {
		t.Errorf("transient of 100 cut at %d, want 100", d)
	}
	if d := mserCut(flat); d > 100 {
		t.Errorf("stationary series cut at %d of 1000", d)
	}
	if d := mserCut([]float64{5, 1, 1}); d != 0 {
		t.Errorf("three values cut at %d, want 0 (too few)", d)
	}
}

// TestExactSumIgnoresOrder: the sum of values whose naive float64 sum
// depends on their order is the exact one, whatever the order.
func TestExactSumIgnoresOrder(t *testing.T) {
	xs := []float64{1e16, 1, -1e16, 1, 3.5, 1e-3, -2.25e15, 2.25e15}
	want := 5.501 // the exact sum, correctly rounded
	rng := rand.New(rand.NewPCG(3, 4))
	for range 100 {
		rng.Shuffle(len(xs), func(i, j int) { xs[i], xs[j] = xs[j], xs[i] })
		var s exactSum
		for _, x := range xs {
			s.add(x)
		}
		if got := s.sum(); got != want {
			t.Fatalf("order %v: sum %v, want %v", xs, got, want)
		}
	}
}
