package dist

import (
	"math"
	"testing"
)

func TestPareto(t *testing.T) {
	p := Pareto{Xm: 0.1, Alpha: 3}
	if m, want := p.Mean(), 0.15; math.Abs(m-want) > 1e-15 {
		t.Errorf("Mean = %v, want %v", m, want)
	}
	// Survival (x_m/x)^α: P(X > 1) = 0.1³.
	if s := p.Survival(1); math.Abs(s-1e-3) > 1e-18 {
		t.Errorf("Survival(1) = %v, want 1e-3", s)
	}
	if q := p.Quantile(0.999); math.Abs(q-1) > 1e-12 {
		t.Errorf("Quantile(0.999) = %v, want 1", q)
	}
	for _, alpha := range []float64{0.5, 1} {
		if m := (Pareto{Xm: 1, Alpha: alpha}).Mean(); !math.IsInf(m, 1) {
			t.Errorf("Pareto α = %v: Mean = %v, want +Inf", alpha, m)
		}
	}
}
