package dist

import (
	"math"
	"testing"
)

func TestUniform(t *testing.T) {
	u := Uniform{Min: 2, Max: 6}
	if m := u.Mean(); m != 4 {
		t.Errorf("Mean = %v, want 4", m)
	}
	for _, tt := range []struct{ x, cdf float64 }{{1, 0}, {2, 0}, {3, 0.25}, {6, 1}, {7, 1}} {
		if got := u.CDF(tt.x); got != tt.cdf {
			t.Errorf("CDF(%v) = %v, want %v", tt.x, got, tt.cdf)
		}
		if got := u.Survival(tt.x); got != 1-tt.cdf {
			t.Errorf("Survival(%v) = %v, want %v", tt.x, got, 1-tt.cdf)
		}
	}
	if q := u.Quantile(0.75); math.Abs(q-5) > 1e-15 {
		t.Errorf("Quantile(0.75) = %v, want 5", q)
	}
}
