package dist

import (
	"math"
	"testing"
)

func TestGamma(t *testing.T) {
	// Beta is a rate: mean α/β.
	g := Gamma{Alpha: 3, Beta: 4}
	if m := g.Mean(); m != 0.75 {
		t.Errorf("Mean = %v, want 0.75", m)
	}
	// Alpha = 1 is the exponential with the same rate.
	g1, e := Gamma{Alpha: 1, Beta: 2}, Exponential{Rate: 2}
	for _, x := range []float64{0.01, 0.5, 3} {
		if a, b := g1.CDF(x), e.CDF(x); math.Abs(a-b) > 1e-14 {
			t.Errorf("Gamma(1, 2).CDF(%v) = %v, Exponential(2).CDF = %v", x, a, b)
		}
	}
	// Integer α (Erlang): CDF(x) = 1 − e^(−βx)·Σ_{k<α} (βx)^k/k!.
	x := 0.6
	bx := 4 * x
	want := 1 - math.Exp(-bx)*(1+bx+bx*bx/2)
	if c := g.CDF(x); math.Abs(c-want) > 1e-14 {
		t.Errorf("CDF(%v) = %v, want %v", x, c, want)
	}
}
