package fit

import (
	"math"
	"math/rand/v2"
	"slices"
	"testing"

	"gonum.org/v1/gonum/stat"
	"gonum.org/v1/gonum/stat/distuv"

	"github.com/hedgesim/hedgesim/dist"
)

// draw returns n draws of d from PCG (seed, 0).
func draw(d dist.Dist, n int, seed uint64) []float64 {
	src := rand.NewPCG(seed, 0)
	x := make([]float64, n)
	for i := range x {
		x[i] = d.Rand(src)
	}
	return x
}

// synthetic is the acceptance mixture: weight 0.9 at median 0.5 s
// (sigma 0.3) and weight 0.1 at median 3 s (sigma 0.4).
func synthetic() dist.Continuous {
	m, err := dist.NewMixture([]float64{0.9, 0.1}, []dist.Continuous{
		dist.LogNormal{Mu: math.Log(0.5), Sigma: 0.3},
		dist.LogNormal{Mu: math.Log(3), Sigma: 0.4},
	})
	if err != nil {
		panic(err)
	}
	return m
}

// TestEMRecoversMixture is the acceptance test: from 5000 draws
// (seed 1) EM recovers the weights within ±0.02 and the medians within
// ±5 %, and BIC prefers 2 components to 1 and 3. The tolerances are the
// issue's; for n = 5000 they are wide: the standard error of a weight is
// about √(0.9·0.1/5000) = 0.0042 (so ±0.02 ≈ 4.7 SE), and of the slow
// median about 0.4/√500 = 1.8 % (±5 % ≈ 2.8 SE).
func TestEMRecoversMixture(t *testing.T) {
	x := draw(synthetic(), 5000, 1)
	m, err := FitValues("latency", "s", x, Options{Seed: 1})
	if err != nil {
		t.Fatal(err)
	}
	bic := map[string]float64{}
	for _, c := range m.Candidates {
		bic[c.Name] = c.BIC
	}
	t.Logf("BIC: lognormal %.1f, mixture-2 %.1f, mixture-3 %.1f", bic[ModelLogNormal], bic[ModelMixture2], bic[ModelMixture3])
	if m.Best().Name != ModelMixture2 {
		t.Fatalf("BIC chose %s, want mixture-2", m.Best().Name)
	}
	if !(bic[ModelMixture2] < bic[ModelLogNormal] && bic[ModelMixture2] < bic[ModelMixture3]) {
		t.Errorf("BIC does not prefer 2 components: %v", bic)
	}
	mix := m.Best().Mixture
	wantW, wantMed := []float64{0.9, 0.1}, []float64{0.5, 3}
	for j := range 2 {
		med := math.Exp(mix.Mu[j])
		t.Logf("component %d: weight %.4f, median %.4f s, sigma %.4f", j, mix.Weights[j], med, mix.Sigma[j])
		if math.Abs(mix.Weights[j]-wantW[j]) > 0.02 {
			t.Errorf("component %d: weight %.4f, want %.2f ± 0.02", j, mix.Weights[j], wantW[j])
		}
		if math.Abs(med/wantMed[j]-1) > 0.05 {
			t.Errorf("component %d: median %.4f, want %.2f ± 5%%", j, med, wantMed[j])
		}
	}
	if g := m.Best().Goodness; g.Poor {
		t.Errorf("the true model family is judged poor: %v", g.Reasons)
	}
}

// TestEMDeterministic: the same seed gives the same fit.
func TestEMDeterministic(t *testing.T) {
	x := draw(synthetic(), 2000, 7)
	a, lla, err := FitMixture(x, 3, EMOptions{Seed: 3})
	if err != nil {
		t.Fatal(err)
	}
	b, llb, _ := FitMixture(x, 3, EMOptions{Seed: 3})
	if lla != llb || !slices.Equal(a.Mu, b.Mu) || !slices.Equal(a.Weights, b.Weights) {
		t.Errorf("two runs differ: %v %v / %v %v", a, lla, b, llb)
	}
	// The log-likelihood returned is the mixture's, in x's units.
	if got := a.LogLik(x); math.Abs(got-lla) > 1e-9*math.Abs(lla) {
		t.Errorf("LogLik %v, FitMixture says %v", got, lla)
	}
	if !slices.IsSorted(a.Mu) {
		t.Errorf("components not ordered by Mu: %v", a.Mu)
	}
}

// TestFitLogNormal checks the closed form: Mu and Sigma are the mean and
// the population standard deviation of ln x, and EM with one component
// gives the same.
func TestFitLogNormal(t *testing.T) {
	x := draw(dist.LogNormal{Mu: -0.7, Sigma: 0.25}, 1000, 2)
	m, err := FitLogNormal(x)
	if err != nil {
		t.Fatal(err)
	}
	mu, sd := stat.PopMeanStdDev(logs(x), nil)
	if m.Mu[0] != mu || m.Sigma[0] != sd {
		t.Errorf("FitLogNormal %v, want mu %v sigma %v", m, mu, sd)
	}
	e, _, err := FitMixture(x, 1, EMOptions{})
	if err != nil {
		t.Fatal(err)
	}
	if math.Abs(e.Mu[0]-mu) > 1e-12 || math.Abs(e.Sigma[0]-sd) > 1e-12 {
		t.Errorf("EM with K = 1: %v, want mu %v sigma %v", e, mu, sd)
	}
	// Tolerance: 4 standard errors of the estimates, σ/√n and σ/√(2n).
	if n := float64(len(x)); math.Abs(mu+0.7) > 4*0.25/math.Sqrt(n) || math.Abs(sd-0.25) > 4*0.25/math.Sqrt(2*n) {
		t.Errorf("estimates %v, %v far from -0.7, 0.25", mu, sd)
	}
	for _, bad := range [][]float64{{1}, {1, 1, 1}, {1, -1}, {1, math.NaN()}} {
		if _, err := FitLogNormal(bad); err == nil {
			t.Errorf("FitLogNormal(%v) accepted", bad)
		}
	}
}

// TestQuantileRanks checks the order-statistic interval against the
// binomial sums it is defined by: coverage ≥ level, each tail ≤ (1−level)/2,
// and no narrower pair of ranks satisfies that.
func TestQuantileRanks(t *testing.T) {
	for _, n := range []int{1, 5, 20, 50, 75, 149, 150, 367, 368, 1000} {
		for _, p := range []float64{0.5, 0.9, 0.95, 0.99} {
			l, u := QuantileRanks(n, p, 0.95)
			b := distuv.Binomial{N: float64(n), P: p}
			cdf := func(k int) float64 { return b.CDF(float64(k)) } // P(B ≤ k)
			if l >= 1 && cdf(l-1) > 0.025 {
				t.Errorf("n %d p %v: lower tail P(B ≤ %d) = %v > 0.025", n, p, l-1, cdf(l-1))
			}
			if l < n && cdf(l) <= 0.025 {
				t.Errorf("n %d p %v: rank l = %d is not the largest", n, p, l)
			}
			if u <= n && 1-cdf(u-1) > 0.025 {
				t.Errorf("n %d p %v: upper tail P(B ≥ %d) = %v > 0.025", n, p, u, 1-cdf(u-1))
			}
			if u >= 2 && u <= n+1 && cdf(u-2) >= 0.975 {
				t.Errorf("n %d p %v: rank u = %d is not the smallest", n, p, u)
			}
		}
	}
	// p99 needs n ≥ 368 for an upper bound inside the sample (0.99^367 = 0.025…).
	if boundedAt(367, 0.99) || !boundedAt(368, 0.99) {
		t.Error("p99 bounded at 367 or unbounded at 368")
	}
}

// TestKSMatchesExact: the KS distance from gonum's two-sample statistic on
// the M-point model grid is within 1/(2M) of the exact one-sample
// distance max over i of max(i/n − F(x₍ᵢ₎), F(x₍ᵢ₎) − (i−1)/n).
func TestKSMatchesExact(t *testing.T) {
	d := dist.LogNormal{Mu: 0, Sigma: 0.5}
	for _, x := range [][]float64{
		draw(d, 200, 4),
		draw(dist.LogNormal{Mu: 0.2, Sigma: 0.7}, 300, 5),
	} {
		slices.Sort(x)
		var exact float64
		n := float64(len(x))
		for i, v := range x {
			f := d.CDF(v)
			exact = math.Max(exact, math.Max(float64(i+1)/n-f, f-float64(i)/n))
		}
		got := Assess(x, d).KS
		if math.Abs(got-exact) > 1/(2.0*gridSize)+1e-12 {
			t.Errorf("KS %v, exact %v: differ by more than 1/(2M)", got, exact)
		}
	}
}

// TestModelsAndSmallSamples: forced models, and mixtures not tried when n
// is too small for their parameters.
func TestModelsAndSmallSamples(t *testing.T) {
	x := draw(synthetic(), 40, 9)
	m, err := FitValues("latency", "s", x, Options{})
	if err != nil {
		t.Fatal(err)
	}
	if m.Candidate(ModelMixture2) != nil || len(m.Notes) != 2 || m.Best().Name != ModelLogNormal {
		t.Errorf("n = 40: candidates %d, notes %q, chosen %s", len(m.Candidates), m.Notes, m.Best().Name)
	}
	m, err = FitValues("latency", "s", x, Options{Model: ModelEmpirical})
	if err != nil || m.Best().Name != ModelEmpirical {
		t.Errorf("forced empirical: %v, %v", m, err)
	}
	if _, err := FitValues("latency", "s", x, Options{Model: "gamma"}); err == nil {
		t.Error("unknown model accepted")
	}
	if w := SampleWarnings(150); len(w) != 2 {
		t.Errorf("n = 150 warnings %q, want p99 unbounded and too few above it", w)
	}
	if w := SampleWarnings(2000); len(w) != 0 {
		t.Errorf("n = 2000 warnings %q, want none", w)
	}
}
