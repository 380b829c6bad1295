package dist

import (
	"math"
	"math/rand/v2"
	"slices"
	"testing"

	"gonum.org/v1/gonum/stat"
)

func TestEmpiricalQuantileMatchesGonum(t *testing.T) {
	// Oracle: gonum's stat.Quantile with stat.Empirical (nearest rank, R
	// type 1) on the sorted values, at every p = k/(4n) and some irrational
	// p, for sizes with and without ties.
	for _, values := range [][]float64{
		{3},
		{2, 1},
		{5, 1, 4, 1, 5, 9, 2},
		{0.1, 0.2, 0.3, 0.4, 0.5, 0.6, 0.7, 0.8, 0.9, 1.0},
		lognormalSample(100),
		lognormalSample(1001),
	} {
		e, err := NewEmpirical(values)
		if err != nil {
			t.Fatal(err)
		}
		sorted := slices.Sorted(slices.Values(values))
		n := len(values)
		ps := []float64{0, 1, 1 / math.Pi, 1 / math.E, 0.999}
		for k := range 4*n + 1 {
			ps = append(ps, float64(k)/float64(4*n))
		}
		for _, p := range ps {
			want := stat.Quantile(p, stat.Empirical, sorted, nil)
			if got := e.Quantile(p); got != want {
				t.Errorf("n=%d: Quantile(%v) = %v, stat.Quantile = %v", n, p, got, want)
			}
		}
	}
}

func TestEmpirical(t *testing.T) {
	values := []float64{0.5, 0.2, 0.2, 0.9, 0.4}
	e, err := NewEmpirical(values)
	if err != nil {
		t.Fatal(err)
	}
	values[0] = 100 // NewEmpirical keeps its own copy
	if lo, hi := e.Support(); lo != 0.2 || hi != 0.9 {
		t.Errorf("Support = %v, %v, want 0.2, 0.9", lo, hi)
	}
	if m := e.Mean(); math.Abs(m-0.44) > 1e-15 {
		t.Errorf("Mean = %v, want 0.44", m)
	}
	for _, tt := range []struct{ x, cdf float64 }{{0.1, 0}, {0.2, 0.4}, {0.3, 0.4}, {0.4, 0.6}, {0.5, 0.8}, {0.9, 1}, {2, 1}} {
		if c := e.CDF(tt.x); c != tt.cdf {
			t.Errorf("CDF(%v) = %v, want %v", tt.x, c, tt.cdf)
		}
		if s := e.Survival(tt.x); math.Abs(s-(1-tt.cdf)) > 1e-15 {
			t.Errorf("Survival(%v) = %v, want %v", tt.x, s, 1-tt.cdf)
		}
	}
	// Rand returns only observed values, each with frequency 1/n within
	// 5·√(p(1−p)/n) (five binomial standard errors for n = 10^5 draws).
	src := rand.NewPCG(1, 2)
	counts := map[float64]int{}
	const n = 100_000
	for range n {
		counts[e.Rand(src)]++
	}
	want := map[float64]float64{0.2: 0.4, 0.4: 0.2, 0.5: 0.2, 0.9: 0.2}
	if len(counts) != len(want) {
		t.Errorf("Rand returned values %v, want only %v", counts, want)
	}
	for v, p := range want {
		frac := float64(counts[v]) / n
		if tol := 5 * math.Sqrt(p*(1-p)/n); math.Abs(frac-p) > tol {
			t.Errorf("fraction of draws = %v: %v, want %v within %v", v, frac, p, tol)
		}
	}
	for _, bad := range [][]float64{nil, {}, {1, math.NaN()}, {math.Inf(-1)}} {
		if _, err := NewEmpirical(bad); err == nil {
			t.Errorf("NewEmpirical(%v): no error", bad)
		}
	}
}

func TestUintN(t *testing.T) {
	// Each of 7 values within five binomial standard errors of 1/7 over
	// 7·10^4 draws.
	src := rand.NewPCG(9, 10)
	const n, k = 70_000, 7
	var counts [k]int
	for range n {
		counts[uintN(src, k)]++
	}
	p := 1.0 / k
	tol := 5 * math.Sqrt(p*(1-p)/n)
	for i, c := range counts {
		if frac := float64(c) / n; math.Abs(frac-p) > tol {
			t.Errorf("value %d: fraction %v, want %v within %v", i, frac, p, tol)
		}
	}
}
