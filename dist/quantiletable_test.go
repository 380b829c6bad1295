package dist

import (
	"math"
	"testing"

	"gonum.org/v1/gonum/mathext"
)

func TestQuantileTablePublishedPoints(t *testing.T) {
	ps := []float64{0.5, 0.9, 0.95, 0.99, 0.999}
	xs := []float64{0.21, 0.33, 0.41, 0.9, 2.5}
	q := mustQuantileTable(ps, xs)
	for i, p := range ps {
		if got := q.Quantile(p); math.Abs(got-xs[i]) > 1e-12*xs[i] {
			t.Errorf("Quantile(%v) = %v, want %v", p, got, xs[i])
		}
		if got := q.CDF(xs[i]); math.Abs(got-p) > 1e-12 {
			t.Errorf("CDF(%v) = %v, want %v", xs[i], got, p)
		}
	}
	// Between points the quantile is increasing and stays between them.
	prev := 0.0
	for p := 0.001; p < 1; p += 0.001 {
		x := q.Quantile(p)
		if !(x > prev) {
			t.Fatalf("Quantile not increasing at p = %v: %v after %v", p, x, prev)
		}
		prev = x
	}
	gotPs, gotXs := q.Points()
	if len(gotPs) != len(ps) || gotXs[4] != 2.5 {
		t.Errorf("Points() = %v, %v", gotPs, gotXs)
	}
}

func TestQuantileTableIsLogNormal(t *testing.T) {
	// Two percentiles of a lognormal determine it, and the table's
	// extrapolated tails are that lognormal's tails.
	l := LogNormal{Mu: -1, Sigma: 0.7}
	q := mustQuantileTable([]float64{0.5, 0.9}, []float64{l.Quantile(0.5), l.Quantile(0.9)})
	for _, p := range []float64{1e-6, 0.01, 0.3, 0.7, 0.95, 0.999} {
		if got, want := q.Quantile(p), l.Quantile(p); math.Abs(got-want) > 1e-12*want {
			t.Errorf("Quantile(%v) = %v, lognormal %v", p, got, want)
		}
	}
	for _, x := range []float64{0.01, 0.2, 0.37, 1, 5} {
		if got, want := q.CDF(x), l.CDF(x); math.Abs(got-want) > 1e-12 {
			t.Errorf("CDF(%v) = %v, lognormal %v", x, got, want)
		}
		if got, want := q.Survival(x), l.Survival(x); math.Abs(got-want) > 1e-12*want {
			t.Errorf("Survival(%v) = %v, lognormal %v", x, got, want)
		}
	}
	if got, want := q.Mean(), l.Mean(); math.Abs(got-want) > 1e-12*want {
		t.Errorf("Mean = %v, lognormal %v", got, want)
	}
}

func TestQuantileTableMean(t *testing.T) {
	// The closed-form mean against a midpoint rule for ∫ Q(Φ(z)) φ(z) dz
	// over z in [−12, 12] with 10^5 cells (h = 2.4e-4): the rule's error is
	// O(h²), a few 1e-10 relative here, and the mass beyond ±12 is ~1e-33, so
	// 1e-7 leaves a wide margin while still catching a wrong formula.
	q := mustQuantileTable([]float64{0.5, 0.9, 0.95, 0.99}, []float64{0.21, 0.33, 0.41, 0.9})
	const a, b, n = -12.0, 12.0, 100_000
	h := (b - a) / n
	var sum float64
	for i := range n {
		z := a + (float64(i)+0.5)*h
		sum += math.Exp(q.logQuantileZ(z)) * math.Exp(-z*z/2) / math.Sqrt(2*math.Pi) * h
	}
	if got := q.Mean(); math.Abs(got-sum) > 1e-7*sum {
		t.Errorf("Mean = %v, numerical integral %v", got, sum)
	}
}

func TestQuantileTableSegments(t *testing.T) {
	// At p between two published points the log-quantile is linear in z.
	q := mustQuantileTable([]float64{0.5, 0.9, 0.99}, []float64{1, 2, 8})
	z0, z1 := 0.0, mathext.NormalQuantile(0.9)
	for _, f := range []float64{0.25, 0.5, 0.75} {
		z := z0 + f*(z1-z0)
		want := math.Exp(f * math.Log(2))
		if got := q.Quantile(0.5 * math.Erfc(-z/math.Sqrt2)); math.Abs(got-want) > 1e-12*want {
			t.Errorf("Quantile at z = %v: %v, want %v", z, got, want)
		}
	}
}

func TestNewQuantileTableErrors(t *testing.T) {
	for _, tc := range []struct {
		name   string
		ps, xs []float64
	}{
		{"one point", []float64{0.5}, []float64{1}},
		{"length mismatch", []float64{0.5, 0.9}, []float64{1}},
		{"p = 0", []float64{0, 0.9}, []float64{1, 2}},
		{"p = 1", []float64{0.5, 1}, []float64{1, 2}},
		{"p NaN", []float64{0.5, math.NaN()}, []float64{1, 2}},
		{"p decreasing", []float64{0.9, 0.5}, []float64{1, 2}},
		{"p repeated", []float64{0.5, 0.5}, []float64{1, 2}},
		{"x = 0", []float64{0.5, 0.9}, []float64{0, 2}},
		{"x Inf", []float64{0.5, 0.9}, []float64{1, math.Inf(1)}},
		{"x decreasing", []float64{0.5, 0.9}, []float64{2, 1}},
		{"x repeated", []float64{0.5, 0.9}, []float64{1, 1}},
	} {
		if _, err := NewQuantileTable(tc.ps, tc.xs); err == nil {
			t.Errorf("%s: no error", tc.name)
		}
	}
}
