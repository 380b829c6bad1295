package dist

import (
	"math"
	"testing"
)

func TestWeibull(t *testing.T) {
	w := Weibull{K: 2, Lambda: 0.5}
	// Median λ·(ln 2)^(1/k); mean λ·Γ(1 + 1/k) = λ·√π/2 for k = 2.
	if q, want := w.Quantile(0.5), 0.5*math.Sqrt(math.Ln2); math.Abs(q-want) > 1e-15 {
		t.Errorf("Quantile(0.5) = %v, want %v", q, want)
	}
	if m, want := w.Mean(), 0.5*math.Sqrt(math.Pi)/2; math.Abs(m-want) > 1e-15 {
		t.Errorf("Mean = %v, want %v", m, want)
	}
	// Lambda is the 1 − 1/e quantile whatever K.
	if c := (Weibull{K: 0.7, Lambda: 3}).CDF(3); math.Abs(c-(1-1/math.E)) > 1e-15 {
		t.Errorf("CDF(λ) = %v, want 1 − 1/e", c)
	}
}
