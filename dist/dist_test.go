package dist

import (
	"math"
	"math/rand/v2"
	"slices"
	"testing"
)

// testCase is one distribution run through the shared checkers.
type testCase struct {
	name string
	d    Continuous
	// atoms: the distribution has point masses (Constant, Empirical, a
	// mixture with a Constant), so CDF(Quantile(p)) may exceed p.
	atoms bool
	// infVar: the variance is infinite, so the sample mean has no standard
	// error and checkMean is skipped.
	infVar bool
	// tol is the tolerance of the deterministic identities (round trips,
	// Survival + CDF = 1); 0 means 1e-12.
	tol float64
}

func mustMixture(w []float64, c []Continuous) *Mixture {
	m, err := NewMixture(w, c)
	if err != nil {
		panic(err)
	}
	return m
}

func mustEmpirical(v []float64) *Empirical {
	e, err := NewEmpirical(v)
	if err != nil {
		panic(err)
	}
	return e
}

func mustQuantileTable(ps, xs []float64) *QuantileTable {
	t, err := NewQuantileTable(ps, xs)
	if err != nil {
		panic(err)
	}
	return t
}

// lognormalSample returns n lognormal values rounded to milliseconds, so
// that the empirical distribution built from them has ties.
func lognormalSample(n int) []float64 {
	src := rand.NewPCG(3, 4)
	l := LogNormal{Mu: -1, Sigma: 0.6}
	v := make([]float64, n)
	for i := range v {
		v[i] = math.Round(l.Rand(src)*1000) / 1000
	}
	return v
}

// testCases covers every kind, with parameters in the ranges hedgesim uses
// (latencies of tens of milliseconds to tens of seconds) and at the edges of
// the shapes (α < 1, k < 1, infinite variance).
func testCases() []testCase {
	return []testCase{
		{name: "Constant", d: Constant{Value: 0.25}, atoms: true},
		{name: "Uniform", d: Uniform{Min: 0.1, Max: 0.3}},
		{name: "Exponential", d: Exponential{Rate: 2}},
		{name: "LogNormal", d: LogNormal{Mu: -0.5, Sigma: 0.8}},
		{name: "LogNormalWide", d: LogNormal{Mu: 1, Sigma: 1.5}},
		{name: "GammaSmallShape", d: Gamma{Alpha: 0.5, Beta: 2}, tol: 1e-9},
		{name: "Gamma", d: Gamma{Alpha: 3, Beta: 4}, tol: 1e-9},
		{name: "WeibullSmallShape", d: Weibull{K: 0.7, Lambda: 1}},
		{name: "Weibull", d: Weibull{K: 2, Lambda: 0.5}},
		{name: "Pareto", d: Pareto{Xm: 0.1, Alpha: 3}},
		{name: "ParetoInfVar", d: Pareto{Xm: 1, Alpha: 1.5}, infVar: true},
		{name: "ParetoInfMean", d: Pareto{Xm: 1, Alpha: 0.8}, infVar: true},
		{name: "MixtureLogNormal", d: mustMixture([]float64{0.9, 0.1}, []Continuous{
			LogNormal{Mu: -1.5, Sigma: 0.3}, LogNormal{Mu: 1, Sigma: 0.5}})},
		{name: "MixtureGap", d: mustMixture([]float64{0.5, 0.5}, []Continuous{
			Uniform{Min: 0.1, Max: 0.3}, Uniform{Min: 3, Max: 19}})},
		{name: "MixtureAtom", d: mustMixture([]float64{1, 3}, []Continuous{
			Constant{Value: 30}, Exponential{Rate: 1}}), atoms: true},
		{name: "MixtureNested", d: mustMixture([]float64{0.7, 0.3}, []Continuous{
			Gamma{Alpha: 2, Beta: 10},
			mustMixture([]float64{0.5, 0.5}, []Continuous{Weibull{K: 1.5, Lambda: 2}, Pareto{Xm: 1, Alpha: 4}}),
		}), tol: 1e-9},
		{name: "Empirical", d: mustEmpirical(lognormalSample(500)), atoms: true},
		{name: "EmpiricalOne", d: mustEmpirical([]float64{7}), atoms: true},
		{name: "QuantileTable", d: mustQuantileTable(
			[]float64{0.5, 0.9, 0.95, 0.99}, []float64{0.21, 0.33, 0.41, 0.9})},
		{name: "QuantileTableTwo", d: mustQuantileTable(
			[]float64{0.1, 0.5}, []float64{2, 3})},
	}
}

// probs are the probabilities at which quantiles are checked.
var probs = []float64{0.001, 0.01, 0.1, 0.25, 0.5, 0.75, 0.9, 0.95, 0.99, 0.999}

const nSample = 100_000

// sample returns nSample draws from d with a fixed seed.
func sample(d Dist) []float64 {
	src := rand.NewPCG(1, 2)
	x := make([]float64, nSample)
	for i := range x {
		x[i] = d.Rand(src)
	}
	return x
}

func TestDistributions(t *testing.T) {
	for _, tc := range testCases() {
		t.Run(tc.name, func(t *testing.T) {
			tol := tc.tol
			if tol == 0 {
				tol = 1e-12
			}
			x := sample(tc.d)
			checkQuantileEnds(t, tc.d)
			checkQuantileCDFSurvival(t, tc.d, tc.atoms, tol)
			checkSupport(t, tc.d, x)
			if !tc.infVar {
				checkMean(t, tc.d, x)
			}
			slices.Sort(x)
			checkSampleQuantiles(t, tc.d, x)
		})
	}
}

// checkQuantileEnds checks that Quantile(0) and Quantile(1) are the ends of
// Support and that Quantile panics outside [0, 1].
func checkQuantileEnds(t *testing.T, d Continuous) {
	t.Helper()
	lo, hi := d.Support()
	if q := d.Quantile(0); q != lo {
		t.Errorf("Quantile(0) = %v, want Support lo %v", q, lo)
	}
	if q := d.Quantile(1); q != hi {
		t.Errorf("Quantile(1) = %v, want Support hi %v", q, hi)
	}
	for _, p := range []float64{-0.1, 1.1, math.NaN()} {
		func() {
			defer func() {
				if recover() == nil {
					t.Errorf("Quantile(%v) did not panic", p)
				}
			}()
			d.Quantile(p)
		}()
	}
}

// checkQuantileCDFSurvival checks, at x = Quantile(p) for every p in probs:
//   - Quantile's definition, the smallest x with CDF(x) ≥ p: CDF(x) ≥ p and
//     CDF just below x (1e-9 relative) is < p;
//   - without atoms, the round trips CDF(Quantile(p)) = p and
//     Quantile(CDF(x)) = x, to tol;
//   - Survival(x) = 1 − CDF(x), to tol, also outside the support.
//
// These are identities, so the tolerance reflects floating-point error of
// the implementation (1e-12; 1e-9 where gonum inverts the incomplete gamma
// function iteratively), not sampling error.
func checkQuantileCDFSurvival(t *testing.T, d Continuous, atoms bool, tol float64) {
	t.Helper()
	lo, hi := d.Support()
	xs := []float64{lo - 1, lo, hi}
	for _, p := range probs {
		x := d.Quantile(p)
		xs = append(xs, x)
		c := d.CDF(x)
		if c < p-tol {
			t.Errorf("CDF(Quantile(%v)) = %v < p", p, c)
		}
		below := x - 1e-9*math.Max(math.Abs(x), 1e-300)
		if cb := d.CDF(below); cb >= p {
			t.Errorf("CDF(%v) = %v ≥ p = %v just below Quantile(%v) = %v: not the smallest x", below, cb, p, p, x)
		}
		if atoms {
			continue
		}
		if math.Abs(c-p) > tol {
			t.Errorf("CDF(Quantile(%v)) = %v, want p within %v", p, c, tol)
		}
		if q := d.Quantile(c); math.Abs(q-x) > tol*math.Abs(x) {
			t.Errorf("Quantile(CDF(%v)) = %v, want x within %v relative", x, q, tol)
		}
	}
	for _, x := range xs {
		if math.IsInf(x, 0) {
			continue
		}
		c, s := d.CDF(x), d.Survival(x)
		if math.Abs(c+s-1) > tol {
			t.Errorf("CDF(%v) + Survival(%v) = %v + %v, want 1", x, x, c, s)
		}
		if c < 0 || c > 1 || s < 0 || s > 1 {
			t.Errorf("CDF(%v) = %v, Survival = %v outside [0, 1]", x, c, s)
		}
	}
	if c := d.CDF(lo - 1); c != 0 {
		t.Errorf("CDF below support = %v, want 0", c)
	}
	if !math.IsInf(hi, 1) {
		if c := d.CDF(hi); c != 1 {
			t.Errorf("CDF(Support hi) = %v, want 1", c)
		}
	}
}

// checkSupport checks that every draw lies inside Support.
func checkSupport(t *testing.T, d Dist, x []float64) {
	t.Helper()
	lo, hi := d.Support()
	for i, v := range x {
		if !(v >= lo && v <= hi) {
			t.Fatalf("draw %d = %v outside support [%v, %v]", i, v, lo, hi)
		}
	}
}

// checkMean checks that the sample mean is within 5 standard errors of
// Mean(), the standard error being s/√n with s the sample standard
// deviation (n = 10^5). A correct implementation fails with probability
// about 6e-7; the seed is fixed, so the outcome is reproducible anyway.
func checkMean(t *testing.T, d Dist, x []float64) {
	t.Helper()
	var sum, sum2 float64
	for _, v := range x {
		sum += v
	}
	n := float64(len(x))
	m := sum / n
	for _, v := range x {
		sum2 += (v - m) * (v - m)
	}
	se := math.Sqrt(sum2 / (n - 1) / n)
	want := d.Mean()
	if math.Abs(m-want) > 5*se+1e-12*math.Abs(want) {
		t.Errorf("sample mean %v, Mean() %v: differ by %.1f standard errors (se %v)", m, want, math.Abs(m-want)/se, se)
	}
}

// checkSampleQuantiles checks, for every p in probs, that the fraction of
// the (sorted) draws ≤ x = Quantile(p) matches CDF(x) (= p without atoms)
// within 5·√(c(1−c)/n), five binomial standard errors of a fraction of n
// draws.
func checkSampleQuantiles(t *testing.T, d Continuous, sorted []float64) {
	t.Helper()
	n := float64(len(sorted))
	for _, p := range probs {
		x := d.Quantile(p)
		c := d.CDF(x)
		k, _ := slices.BinarySearchFunc(sorted, x, func(v, x float64) int {
			if v <= x {
				return -1
			}
			return 1
		})
		frac := float64(k) / n
		if tol := 5*math.Sqrt(c*(1-c)/n) + 1e-12; math.Abs(frac-c) > tol {
			t.Errorf("fraction of draws ≤ Quantile(%v) = %v: %v, want CDF %v within %v", p, x, frac, c, tol)
		}
	}
}

// BenchmarkRand measures one draw of every kind; all are expected to run
// without allocating.
func BenchmarkRand(b *testing.B) {
	for _, tc := range testCases() {
		b.Run(tc.name, func(b *testing.B) {
			src := rand.NewPCG(1, 2)
			b.ReportAllocs()
			var s float64
			for b.Loop() {
				s += tc.d.Rand(src)
			}
			sink = s
		})
	}
}

var sink float64

// TestRandNoAlloc pins the allocation-free sampling path that BenchmarkRand
// reports, so a regression fails the tests rather than only the benchmark.
func TestRandNoAlloc(t *testing.T) {
	for _, tc := range testCases() {
		src := rand.NewPCG(1, 2)
		var s float64
		if a := testing.AllocsPerRun(1000, func() { s += tc.d.Rand(src) }); a != 0 {
			t.Errorf("%s: Rand allocates %v times per call", tc.name, a)
		}
		sink = s
	}
}

// TestRandReproducible checks that two sources with the same seed give the
// same draws, for every kind.
func TestRandReproducible(t *testing.T) {
	for _, tc := range testCases() {
		a, b := rand.NewPCG(7, 8), rand.NewPCG(7, 8)
		for i := range 100 {
			if x, y := tc.d.Rand(a), tc.d.Rand(b); x != y {
				t.Fatalf("%s: draw %d differs: %v vs %v", tc.name, i, x, y)
			}
		}
	}
}

// TestFromNormal: the normal-score shortcut agrees with Quantile(Φ(z)).
func TestFromNormal(t *testing.T) {
	qt, err := NewQuantileTable([]float64{0.5, 0.9, 0.99}, []float64{1, 2, 7})
	if err != nil {
		t.Fatal(err)
	}
	for _, d := range []Continuous{LogNormal{Mu: 0.3, Sigma: 0.8}, qt, Uniform{Min: 1, Max: 3}} {
		for _, z := range []float64{-3, -1, 0, 0.5, 1.6448536269514722, 3} {
			p := 0.5 * math.Erfc(-z/math.Sqrt2)
			want := d.Quantile(p)
			if got := FromNormal(d, z); math.Abs(got-want) > 1e-9*math.Max(1, want) {
				t.Errorf("%T at z=%v: FromNormal %v, Quantile(Φ(z)) %v", d, z, got, want)
			}
		}
	}
}
