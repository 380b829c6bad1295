package dist

import (
	"math/rand/v2"
	"testing"
)

func TestConstant(t *testing.T) {
	c := Constant{Value: 0.25}
	src := rand.NewPCG(1, 2)
	before := *src
	if got := c.Rand(src); got != 0.25 {
		t.Errorf("Rand = %v, want 0.25", got)
	}
	if *src != before {
		t.Error("Rand consumed randomness; Constant should not")
	}
	for _, tt := range []struct{ x, cdf float64 }{{0.2, 0}, {0.25, 1}, {0.3, 1}} {
		if got := c.CDF(tt.x); got != tt.cdf {
			t.Errorf("CDF(%v) = %v, want %v", tt.x, got, tt.cdf)
		}
		if got := c.Survival(tt.x); got != 1-tt.cdf {
			t.Errorf("Survival(%v) = %v, want %v", tt.x, got, 1-tt.cdf)
		}
	}
	for _, p := range []float64{0, 0.5, 1} {
		if got := c.Quantile(p); got != 0.25 {
			t.Errorf("Quantile(%v) = %v, want 0.25", p, got)
		}
	}
}
