package dist

import "testing"

// TestInverseMeanInfinite: E[1/X] is infinite exactly for the families
// whose density near 0 does not vanish (uniform from 0, exponential, gamma
// and Weibull with shape ≤ 1); finite for lognormal, a quantile table
// (lognormal tails) and for shapes > 1.
func TestInverseMeanInfinite(t *testing.T) {
	table, err := NewQuantileTable([]float64{0.1, 0.5, 0.9}, []float64{1, 10, 20})
	if err != nil {
		t.Fatal(err)
	}
	for _, tt := range []struct {
		d        Continuous
		infinite bool
	}{
		{Uniform{Min: 0, Max: 10}, true},
		{Uniform{Min: 1, Max: 10}, false},
		{Exponential{Rate: 1}, true},
		{Gamma{Alpha: 1, Beta: 1}, true},
		{Gamma{Alpha: 1.5, Beta: 1}, false},
		{Weibull{K: 1, Lambda: 1}, true},
		{Weibull{K: 2, Lambda: 1}, false},
		{LogNormal{Mu: 0, Sigma: 1}, false},
		{table, false},
	} {
		if got := InverseMeanInfinite(tt.d) != ""; got != tt.infinite {
			t.Errorf("%#v: infinite %v, want %v", tt.d, got, tt.infinite)
		}
	}
}
