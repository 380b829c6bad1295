package dist

import (
	"math"
	"testing"
)

func TestLogNormalFromMedianP95(t *testing.T) {
	// Median 1 and sigma 1 give p95 = e^1.6449 = 5.180 (rounded to four
	// figures, hence the 1e-4 tolerance on Sigma).
	l, err := LogNormalFromMedianP95(1, 5.180)
	if err != nil {
		t.Fatal(err)
	}
	if l.Mu != 0 || math.Abs(l.Sigma-1) > 1e-4 {
		t.Errorf("LogNormalFromMedianP95(1, 5.180) = %+v, want Mu 0, Sigma ≈ 1", l)
	}
	// With the exact p95 the round trip is exact to rounding.
	l, err = LogNormalFromMedianP95(1, math.Exp(z95))
	if err != nil {
		t.Fatal(err)
	}
	if math.Abs(l.Sigma-1) > 1e-15 {
		t.Errorf("Sigma = %v, want 1", l.Sigma)
	}
	// A latency of median 0.8 s and p95 3 s reproduces both quantiles.
	l, err = LogNormalFromMedianP95(0.8, 3)
	if err != nil {
		t.Fatal(err)
	}
	if q := l.Quantile(0.5); math.Abs(q-0.8) > 1e-12 {
		t.Errorf("Quantile(0.5) = %v, want 0.8", q)
	}
	if q := l.Quantile(0.95); math.Abs(q-3) > 1e-12 {
		t.Errorf("Quantile(0.95) = %v, want 3", q)
	}
	for _, bad := range [][2]float64{{0, 1}, {-1, 1}, {1, 1}, {2, 1}, {math.NaN(), 1}, {1, math.NaN()}, {1, math.Inf(1)}} {
		if _, err := LogNormalFromMedianP95(bad[0], bad[1]); err == nil {
			t.Errorf("LogNormalFromMedianP95(%v, %v): no error", bad[0], bad[1])
		}
	}
}

func TestLogNormalTails(t *testing.T) {
	l := LogNormal{Mu: 0, Sigma: 1}
	// 10 standard deviations out, 1 − CDF would be 0; Survival is not.
	x := math.Exp(10)
	// The tolerance allows for one ulp in erfc's argument (relative error
	// ≈ 2u·ulp(u) ≈ 1.3e-14 at u = 10/√2).
	want := 0.5 * math.Erfc(10/math.Sqrt2) // 7.62e-24
	if s := l.Survival(x); math.Abs(s/want-1) > 1e-13 {
		t.Errorf("Survival(e^10) = %v, want %v", s, want)
	}
	for _, x := range []float64{0, -1} {
		if c, s := l.CDF(x), l.Survival(x); c != 0 || s != 1 {
			t.Errorf("CDF(%v), Survival(%v) = %v, %v, want 0, 1", x, x, c, s)
		}
	}
	if m := l.Mean(); math.Abs(m-math.Exp(0.5)) > 1e-15 {
		t.Errorf("Mean = %v, want e^0.5", m)
	}
}
