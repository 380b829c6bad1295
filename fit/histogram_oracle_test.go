package fit

import (
	"math"
	"math/rand/v2"
	"os"
	"sort"
	"strings"
	"testing"

	"gonum.org/v1/gonum/stat/distuv"

	"github.com/hedgesim/hedgesim/readers"
)

// typicalBuckets are the upper bounds of a common Prometheus latency
// histogram, in seconds.
var typicalBuckets = []float64{0.1, 0.25, 0.5, 1, 2.5, 5, 10, math.Inf(1)}

// binValues counts the values x (seconds) into buckets with upper bounds ub.
func binValues(file string, x []float64, ub []float64) *readers.Histogram {
	h := &readers.Histogram{File: file, Format: "test", Unit: readers.Seconds, Whole: true}
	lo := 0.0
	for _, u := range ub {
		n := 0.0
		for _, v := range x {
			if v > lo && v <= u {
				n++
			}
		}
		h.Lower, h.Upper, h.Counts = append(h.Lower, lo), append(h.Upper, u), append(h.Counts, n)
		lo = u
	}
	return h
}

func llmperfLog(t *testing.T, name string) *readers.Log {
	t.Helper()
	f, err := os.Open("../scenarios/data/llmperf-leaderboard/individual/" + name)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	l, err := readers.ReadLLMPerf(f, name)
	if err != nil {
		t.Fatal(err)
	}
	return l
}

// TestHistogramFitLLMPerfOracle bins shipped llmperf logs into typical
// Prometheus buckets (0.1, 0.25, 0.5, 1, 2.5, 5, 10, +Inf s) and checks
// that the histogram fit's p95 lies within the 95 % order-statistic
// interval of the raw log's p95 (what `hedgesim fit` reports for the raw
// log). The cases are those whose p95 the buckets can place: where nearly
// every request falls in one bucket, or the p95 lies in the +Inf bucket,
// no histogram fit can find it, and TestHistogramFitWarnsCoarse checks
// that the fit says so.
func TestHistogramFitLLMPerfOracle(t *testing.T) {
	for _, tt := range []struct {
		file, metric string
	}{
		{"together_13b.json", "latency"},
		{"together_13b.json", "ttft"},
		{"anyscale_13b.json", "ttft"},
		{"together_70b.json", "latency"},
	} {
		t.Run(tt.file+"/"+tt.metric, func(t *testing.T) {
			l := llmperfLog(t, tt.file)
			x := l.Latencies()
			if tt.metric == "ttft" {
				x = l.TTFTs()
			}
			sort.Float64s(x)
			raw := observedQuantile(x, 0.95)
			hf, err := FitHistogram(binValues(tt.file, x, typicalBuckets), Options{})
			if err != nil {
				t.Fatal(err)
			}
			if got := hf.Best().Dist.Quantile(0.95); !(got >= raw.Lo && got <= raw.Hi) {
				t.Errorf("histogram fit (%s) p95 %.4g s; want within the raw log's p95 interval [%.4g, %.4g] s (observed %.4g)",
					hf.Best().Name, got, raw.Lo, raw.Hi, raw.Observed)
			}
		})
	}
}

// TestHistogramFitWarnsCoarse: when the buckets cannot place p95 (148 of
// 150 requests in one bucket, or p95 beyond the last finite bound), the
// fit warns.
func TestHistogramFitWarnsCoarse(t *testing.T) {
	for _, tt := range []struct{ file, want string }{
		{"anyscale_13b.json", "too coarse to resolve p95: the data place it only in (1, 2.5] s"},
		{"replicate_70b.json", "the observed p95 lies above the last finite bucket bound (10 s)"},
	} {
		hf, err := FitHistogram(binValues(tt.file, llmperfLog(t, tt.file).Latencies(), typicalBuckets), Options{})
		if err != nil {
			t.Fatal(err)
		}
		if !strings.Contains(strings.Join(hf.Warnings, "\n"), tt.want) {
			t.Errorf("%s: warnings %q; want …%s…", tt.file, hf.Warnings, tt.want)
		}
	}
	// Fine buckets (ratio 1.25) around p95 and p99 resolve them: no warning.
	var ub []float64
	for b := 0.05; b < 200; b *= 1.25 {
		ub = append(ub, b)
	}
	ub = append(ub, math.Inf(1))
	hf, err := FitHistogram(binValues("fine", lognormalSample(1, 0, 0.5, 5000), ub), Options{Model: ModelLogNormal})
	if err != nil {
		t.Fatal(err)
	}
	if len(hf.Warnings) != 0 {
		t.Errorf("fine buckets: warnings %q; want none", hf.Warnings)
	}
}

func lognormalSample(seed uint64, mu, sigma float64, n int) []float64 {
	d := distuv.LogNormal{Mu: mu, Sigma: sigma, Src: rand.NewPCG(seed, 7)}
	x := make([]float64, n)
	for i := range x {
		x[i] = d.Rand()
	}
	return x
}

// TestHistogramFitRecoversLogNormal: 20 000 draws of a lognormal(μ = −0.4,
// σ = 0.6) binned into the typical buckets. The censored MLE of μ has a
// standard error of about σ/√n ≈ 0.004 with exact values and somewhat more
// with 8 buckets; the tolerance, 0.03 on μ and σ, is several of those.
// The chi-square test must not reject the true model family (p > 0.001),
// and the CDF gap at the bounds stays within 3/√n.
func TestHistogramFitRecoversLogNormal(t *testing.T) {
	const mu, sigma, n = -0.4, 0.6, 20000
	hf, err := FitHistogram(binValues("ln", lognormalSample(3, mu, sigma, n), typicalBuckets), Options{Model: ModelLogNormal})
	if err != nil {
		t.Fatal(err)
	}
	c := hf.Best()
	if math.Abs(c.Mixture.Mu[0]-mu) > 0.03 || math.Abs(c.Mixture.Sigma[0]-sigma) > 0.03 {
		t.Errorf("fitted μ %.4f σ %.4f; want %g, %g ± 0.03", c.Mixture.Mu[0], c.Mixture.Sigma[0], mu, sigma)
	}
	if !(c.PValue > 0.001) || c.MaxCDFGap > 3/math.Sqrt(n) {
		t.Errorf("chi-square %.3g (df %d, p %.3g), max CDF gap %.4f; want p > 0.001 and gap ≤ %.4f", c.ChiSquare, c.DF, c.PValue, c.MaxCDFGap, 3/math.Sqrt(n))
	}
	// The model's p95 is e^(μ + 1.645σ) of the fitted parameters.
	want := math.Exp(c.Mixture.Mu[0] + 1.6448536269514722*c.Mixture.Sigma[0])
	if p := hf.Percentiles[2]; p.P != 0.95 || math.Abs(p.Model-want) > 1e-6*want {
		t.Errorf("p95 %+v; want model %g", p, want)
	}
}

// TestHistogramFitMixtureEM: field report 1's bimodal latency as two
// lognormals (half near 0.2 s, half near 8 s) binned into fine buckets:
// EM over the bins recovers the weights within 0.02 (the binomial standard
// error of a weight at n = 20 000 is 0.0035) and the medians within 5 %,
// and BIC prefers the mixture to one lognormal.
func TestHistogramFitMixtureEM(t *testing.T) {
	x := append(lognormalSample(5, math.Log(0.2), 0.3, 10000), lognormalSample(6, math.Log(8), 0.4, 10000)...)
	var ub []float64
	for b := 0.05; b < 100; b *= 1.5 {
		ub = append(ub, b)
	}
	ub = append(ub, math.Inf(1))
	hf, err := FitHistogram(binValues("bimodal", x, ub), Options{MaxComponents: 2})
	if err != nil {
		t.Fatal(err)
	}
	c := hf.Best()
	if c.Name != "mixture-2" {
		t.Fatalf("chose %s; want mixture-2 (BICs %v)", c.Name, hf.Candidates)
	}
	m := c.Mixture
	if math.Abs(m.Weights[0]-0.5) > 0.02 || math.Abs(math.Exp(m.Mu[0])/0.2-1) > 0.05 || math.Abs(math.Exp(m.Mu[1])/8-1) > 0.05 {
		t.Errorf("fitted %+v; want weights 0.5/0.5, medians 0.2 s and 8 s", m)
	}
}

// TestPooledChiSquare checks Pearson's statistic by hand: cells expecting
// 2 and 4 are pooled (6), the last cell expecting 3 joins the one before.
func TestPooledChiSquare(t *testing.T) {
	o := []float64{3, 5, 10, 12, 2}
	e := []float64{2, 4, 12, 10, 3}
	// Pooled: (8 vs 6), (10 vs 12), (14 vs 13).
	want := 4.0/6 + 4.0/12 + 1.0/13
	x2, df := PooledChiSquare(o, e, 1)
	if math.Abs(x2-want) > 1e-12 || df != 1 {
		t.Errorf("X² %g df %d; want %g, 1", x2, df, want)
	}
}

// BenchmarkFitHistogramFine fits every model to 40 fine buckets.
func BenchmarkFitHistogramFine(b *testing.B) {
	var ub []float64
	for x := 0.05; x < 200; x *= 1.25 {
		ub = append(ub, x)
	}
	ub = append(ub, math.Inf(1))
	h := binValues("fine", lognormalSample(1, 0, 0.5, 5000), ub)
	for b.Loop() {
		if _, err := FitHistogram(h, Options{}); err != nil {
			b.Fatal(err)
		}
	}
}

// withSum sets h's sum to the exact sum of x.
func withSum(h *readers.Histogram, x []float64) *readers.Histogram {
	h.Sum, h.HasSum = 0, true
	for _, v := range x {
		h.Sum += v
	}
	return h
}

// TestHistogramFitOneBucketWarns: 1000 latencies all in (0.5, 1] s, with
// their sum (mean 0.8 s). The buckets cannot tell the spread: the fit
// must say so (a warning, and SpreadUnresolved with Occupied 1), and its
// mean is the observed one, _sum/_count.
func TestHistogramFitOneBucketWarns(t *testing.T) {
	x := make([]float64, 1000)
	for i := range x {
		x[i] = 0.6 + 0.4*float64(i)/float64(len(x)) // mean 0.7998
	}
	h := withSum(binValues("one", x, typicalBuckets), x)
	hf, err := FitHistogram(h, Options{})
	if err != nil {
		t.Fatal(err)
	}
	if w := strings.Join(hf.Warnings, "\n"); !strings.Contains(w, "only 1 of 8 buckets hold observations ((0.5, 1] s)") {
		t.Errorf("warnings %q; want one saying only 1 bucket holds observations", hf.Warnings)
	}
	if hf.Occupied != 1 || !hf.SpreadUnresolved {
		t.Errorf("occupied %d, spread unresolved %v; want 1, true", hf.Occupied, hf.SpreadUnresolved)
	}
	want := h.Sum / 1000
	if got := hf.Best().Mixture.Mean(); math.Abs(got-want) > 1e-6*want {
		t.Errorf("fitted mean %.6g s; want _sum/_count = %.6g s", got, want)
	}
	if hf.Mean != want {
		t.Errorf("reported observed mean %v; want %v", hf.Mean, want)
	}
}

// TestHistogramFitUsesSum: 20 000 draws of a lognormal(−0.4, 0.6) in the
// typical buckets with their exact sum: every fitted model has the
// observed mean (to 1e-6, the optimiser's precision), the lognormal's
// μ and σ stay within the 0.03 of TestHistogramFitRecoversLogNormal, and
// no warning says the sum disagrees. A sum the buckets cannot hold (below
// every observation at its bucket's lower bound) is ignored with a
// warning; a sum far from the buckets' own fit (1.2× the mean, which the
// buckets allow) is honoured with a warning that it costs the fit.
func TestHistogramFitUsesSum(t *testing.T) {
	const mu, sigma, n = -0.4, 0.6, 20000
	x := lognormalSample(3, mu, sigma, n)
	h := withSum(binValues("ln", x, typicalBuckets), x)
	hf, err := FitHistogram(h, Options{MaxComponents: 2})
	if err != nil {
		t.Fatal(err)
	}
	want := h.Sum / n
	for _, c := range hf.Candidates {
		if got := c.Mixture.Mean(); math.Abs(got-want) > 1e-6*want {
			t.Errorf("%s: mean %.6g s; want %.6g s", c.Name, got, want)
		}
	}
	c := hf.Candidates[0]
	if math.Abs(c.Mixture.Mu[0]-mu) > 0.03 || math.Abs(c.Mixture.Sigma[0]-sigma) > 0.03 {
		t.Errorf("fitted μ %.4f σ %.4f; want %g, %g ± 0.03", c.Mixture.Mu[0], c.Mixture.Sigma[0], mu, sigma)
	}
	if w := strings.Join(hf.Warnings, "\n"); strings.Contains(w, "sum") {
		t.Errorf("warnings %q; want none about the sum", hf.Warnings)
	}

	h.Sum = 0.5 * n * 0.25 // below Σ counts × lower bounds
	hf, err = FitHistogram(h, Options{Model: ModelLogNormal})
	if err != nil {
		t.Fatal(err)
	}
	if w := strings.Join(hf.Warnings, "\n"); !strings.Contains(w, "outside what the buckets allow") || hf.Mean != 0 {
		t.Errorf("impossible sum: warnings %q, mean %v; want it ignored with a warning", hf.Warnings, hf.Mean)
	}

	h.Sum = 1.2 * want * n
	hf, err = FitHistogram(h, Options{Model: ModelLogNormal})
	if err != nil {
		t.Fatal(err)
	}
	if got := hf.Best().Mixture.Mean(); math.Abs(got-1.2*want) > 1e-6*1.2*want {
		t.Errorf("far sum: mean %.6g; want %.6g", got, 1.2*want)
	}
	if w := strings.Join(hf.Warnings, "\n"); !strings.Contains(w, "costs the fit") {
		t.Errorf("far sum: warnings %q; want one that the mean disagrees with the buckets", hf.Warnings)
	}
}
