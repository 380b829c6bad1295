package dist

import (
	"math"
	"testing"
)

func TestExponential(t *testing.T) {
	e := Exponential{Rate: 4} // mean 0.25 s
	if m := e.Mean(); m != 0.25 {
		t.Errorf("Mean = %v, want 0.25", m)
	}
	median := math.Ln2 / 4
	if c := e.CDF(median); math.Abs(c-0.5) > 1e-15 {
		t.Errorf("CDF(ln2/λ) = %v, want 0.5", c)
	}
	if q := e.Quantile(0.5); math.Abs(q-median) > 1e-15 {
		t.Errorf("Quantile(0.5) = %v, want %v", q, median)
	}
	// Survival keeps relative precision far in the tail: e^(−4·10) = e^−40.
	if s := e.Survival(10); math.Abs(s/math.Exp(-40)-1) > 1e-14 {
		t.Errorf("Survival(10) = %v, want %v", s, math.Exp(-40))
	}
	if c := e.CDF(-1); c != 0 {
		t.Errorf("CDF(-1) = %v, want 0", c)
	}
}
