package sim

import (
	"math"
	"testing"
)

// TestBatchShareIntervalAtBound: 30 batch shares all at 1 (or all at 0)
// have no spread, and the t interval of them is [1, 1]; the interval is
// the Wilson interval of 30 means in [0, 1] instead. A share with spread
// keeps its t interval, clipped.
func TestBatchShareIntervalAtBound(t *testing.T) {
	const z = 1.959963984540054
	ones, zeros := make([]float64, 30), make([]float64, 30)
	for j := range ones {
		ones[j] = 1
	}
	want := 30 / (30 + z*z)
	if ci := BatchShareInterval(1, ones, 0.95); math.Abs(ci[0]-want) > 1e-12 || ci[1] != 1 {
		t.Errorf("all batches at 1: %v, want [%v, 1]", ci, want)
	}
	if ci := BatchShareInterval(0, zeros, 0.95); ci[0] != 0 || math.Abs(ci[1]-(1-want)) > 1e-12 {
		t.Errorf("all batches at 0: %v, want [0, %v]", ci, 1-want)
	}
	mixed := append([]float64(nil), ones...)
	mixed[3] = 0.9
	est := (29 + 0.9) / 30
	if got, tci := BatchShareInterval(est, mixed, 0.95), ClipShare(BatchInterval(est, mixed, 0.95)); got != tci {
		t.Errorf("batches with spread: %v, want the clipped t interval %v", got, tci)
	}
}
