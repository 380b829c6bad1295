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
