package fit

import (
	"math"
	"slices"
	"strings"
	"testing"
)

// TestEMSubsampleLargeSample: above EMSample observations, EM runs on the
// evenly spaced order statistics and says so; the fit still recovers the
// generating mixture, and BIC uses every observation. From 50 000 draws
// (seed 3) of the acceptance mixture, the tolerances are those of
// TestEMRecoversMixture for n = 5000 (±0.02 on a weight, ±5 % on a
// median): the 10⁴-point subsample carries no more error than a sample of
// 10⁴ observations, whose standard errors (0.003 on a weight, 1.3 % on the
// slow median) they exceed by 4 to 7 times.
func TestEMSubsampleLargeSample(t *testing.T) {
	if testing.Short() {
		t.Skip("fits 50 000 observations: not in -short")
	}
	const n = 50_000
	x := draw(synthetic(), n, 3)
	m, err := FitValues("latency", "s", x, Options{Seed: 1})
	if err != nil {
		t.Fatal(err)
	}
	if len(m.Notes) != 1 || !strings.Contains(m.Notes[0], "EM on 10000 evenly spaced order statistics of the 50000 observations") {
		t.Errorf("notes %q; want the subsample stated", m.Notes)
	}
	if m.Best().Name != ModelMixture2 {
		t.Fatalf("BIC chose %s, want mixture-2", m.Best().Name)
	}
	c := m.Best()
	// Summed over the sorted sample (the order FitValues sums in).
	if want := c.Mixture.LogLik(slices.Sorted(slices.Values(x))); c.LogLik != want {
		t.Errorf("log-likelihood %v is not the full sample's %v", c.LogLik, want)
	}
	if c.Goodness.N != n {
		t.Errorf("goodness of fit on %d observations, want %d", c.Goodness.N, n)
	}
	wantW, wantMed := []float64{0.9, 0.1}, []float64{0.5, 3}
	for j := range 2 {
		w, med := c.Mixture.Weights[j], math.Exp(c.Mixture.Mu[j])
		if math.Abs(w-wantW[j]) > 0.02 || math.Abs(med/wantMed[j]-1) > 0.05 {
			t.Errorf("component %d: weight %.4f, median %.4f; want %.2f ± 0.02, %.2f ± 5%%", j, w, med, wantW[j], wantMed[j])
		}
	}
	// At or below EMSample, EM sees every observation.
	small, err := FitValues("latency", "s", x[:EMSample], Options{Seed: 1})
	if err != nil {
		t.Fatal(err)
	}
	if len(small.Notes) != 0 {
		t.Errorf("n = %d: notes %q", EMSample, small.Notes)
	}
}

func TestEMSubsampleRanks(t *testing.T) {
	s := make([]float64, 3*EMSample)
	for i := range s {
		s[i] = float64(i)
	}
	sub := emSubsample(s)
	// Ranks ⌈(i − ½)·n/m⌉ (1-based) for n = 3m: 2, 5, 8, …: indices 1, 4, 7, …
	if len(sub) != EMSample || sub[0] != 1 || sub[1] != 4 || sub[EMSample-1] != float64(3*EMSample-2) {
		t.Errorf("subsample starts %v, ends %v; want 1, 4, … %d", sub[:2], sub[EMSample-1], 3*EMSample-2)
	}
	if got := emSubsample(s[:10]); len(got) != 10 {
		t.Errorf("a small sample is not kept whole: %d", len(got))
	}
}

// TestFitConstant: data without spread fits as a constant when the
// empirical model is asked for, and otherwise says why no lognormal fits
// and what to do (it once gave only the lognormal's message, even to
// --model empirical).
func TestFitConstant(t *testing.T) {
	x := []float64{0.1, 0.1, 0.1, 0.1}
	m, err := FitValues("latency", "s", x, Options{Model: ModelEmpirical})
	if err != nil {
		t.Fatal(err)
	}
	if m.Best().Name != ModelEmpirical || m.Best().Dist.Quantile(0.5) != 0.1 {
		t.Errorf("chose %s with median %v", m.Best().Name, m.Best().Dist.Quantile(0.5))
	}
	for _, model := range []string{ModelAuto, ModelLogNormal, ModelMixture2} {
		_, err := FitValues("latency", "s", x, Options{Model: model})
		if err == nil || !strings.Contains(err.Error(), `all 4 observations are 0.1 s`) || !strings.Contains(err.Error(), `fit model "empirical"`) {
			t.Errorf("model %s: %v", model, err)
		}
	}
}
