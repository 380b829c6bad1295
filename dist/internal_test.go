package dist

import (
	"math"
	"testing"
)

func TestOrderedKey(t *testing.T) {
	xs := []float64{math.Inf(-1), -math.MaxFloat64, -1, -math.SmallestNonzeroFloat64, 0,
		math.SmallestNonzeroFloat64, 1, math.Nextafter(1, 2), math.MaxFloat64, math.Inf(1)}
	for i, x := range xs {
		if back := keyFloat(orderedKey(x)); back != x {
			t.Errorf("keyFloat(orderedKey(%v)) = %v", x, back)
		}
		if i > 0 && !(orderedKey(xs[i-1]) < orderedKey(x)) {
			t.Errorf("orderedKey(%v) ≥ orderedKey(%v)", xs[i-1], x)
		}
	}
	if orderedKey(math.Copysign(0, -1)) != orderedKey(0) {
		t.Error("−0 and +0 have different keys")
	}
}

func TestInvert(t *testing.T) {
	// The smallest x with cdf(x) ≥ p, to the ulp, across zero and across
	// the whole float64 range.
	cdf := func(x float64) float64 { return math.Min(math.Max((x+5)/10, 0), 1) }
	for _, p := range []float64{0.1, 0.5, 0.8} {
		want := 10*p - 5
		if got := invert(cdf, p, -5, 5); math.Abs(got-want) > 1e-15 {
			t.Errorf("invert at p = %v: %v, want %v", p, got, want)
		}
		if got := invert(cdf, p, -math.MaxFloat64, math.Inf(1)); math.Abs(got-want) > 1e-15 {
			t.Errorf("invert over all floats at p = %v: %v, want %v", p, got, want)
		}
	}
	// A step: the answer is the step itself.
	step := func(x float64) float64 {
		if x < 2 {
			return 0
		}
		return 1
	}
	if got := invert(step, 0.5, -1e300, 1e300); got != 2 {
		t.Errorf("invert(step) = %v, want 2", got)
	}
}
