package retune

import (
	"context"
	"encoding/json"
	"fmt"
	"math"
	"math/rand/v2"
	"strings"
	"testing"

	"gonum.org/v1/gonum/stat/distuv"

	"github.com/hedgesim/hedgesim/dist"
	"github.com/hedgesim/hedgesim/fit"
	"github.com/hedgesim/hedgesim/scenario"
	"github.com/hedgesim/hedgesim/sim"
)

// mm1Bounds are the bucket bounds of the M/M/1 tests: 0.25 s × 1.5^i up
// to 48 s, past the 99th percentile of the client-side latency at
// utilisation 0.9 (exponential, mean 10 s: 46 s).
var mm1Bounds = expBounds(0.25, 1.5, 14)

// mm1Config is an M/M/1 queue: Poisson arrivals at rho per second, a
// provider of concurrency 1 and exponential service of mean 1 s (rate 1),
// its utilisation rho; requests requests, the scenario's seed seed.
func mm1Config(t *testing.T, rho float64, requests int, seed uint64) *sim.Config {
	t.Helper()
	src := fmt.Sprintf(`name = "mm1"
seed = %d
requests = %d
[arrivals]
rate = %g
[providers.p]
concurrency = 1
[models.m]
provider = "p"
latency = { kind = "exponential", rate = 1.0 }
price_per_request = 0.001
[[classes]]
name = "c"
`, seed, requests, rho)
	sc, err := scenario.Parse("mm1.toml", []byte(src))
	if err != nil {
		t.Fatal(err)
	}
	return &sc.Config
}

// slowerService returns cfg with model m's mean service time k times
// longer.
func slowerService(cfg *sim.Config, k float64) *sim.Config {
	c := *cfg
	c.Models = append([]sim.Model(nil), cfg.Models...)
	c.Models[0].Latency = dist.Exponential{Rate: 1 / k}
	return &c
}

// queueDrift judges, on seeds seeds, model m's client-side histogram of
// live (5000 requests on seed 900 + s) against the latency simulated of
// cfg on the scenario's seed 300 + s, as Assess does (its sample's size,
// judgeObserved), at alpha 0.01 and with no live fit; both seeds vary, so
// the share of seeds read "shifted" estimates the test's rejection rate
// over the simulated sample's noise too. It calls each with the drift.
func queueDrift(t *testing.T, rho, slower float64, seeds int, each func(d *Drift)) (shifted int) {
	t.Helper()
	for s := range uint64(seeds) {
		cfg := mm1Config(t, rho, 5000, 300+s)
		live := cfg
		if slower != 1 {
			live = slowerService(cfg, slower)
		}
		h := clientHistogram(t, live, 900+s, mm1Bounds)
		most := max(ObservedRequests, int(ObservedPerObservation*h.Total()))
		obs, err := observedLatencies(context.Background(), cfg, []string{"m"}, most, false)
		if err != nil {
			t.Fatal(err)
		}
		emp, err := observedDist("m", obs.xs["m"])
		if err != nil {
			t.Fatal(err)
		}
		d := judgeObserved(cfg, h, emp, obs.xs["m"], nil, 0.01)
		if d.Verdict == Shifted {
			shifted++
		}
		each(&d)
	}
	return shifted
}

// binomialBound returns the least c with P(X > c) < 0.001 for X ~
// Binomial(n, p): the count of false alarms a test of size p exceeds only
// with probability below 0.001.
func binomialBound(n int, p float64) int {
	b := distuv.Binomial{N: float64(n), P: p}
	c := 0
	for b.Survival(float64(c)) >= 0.001 {
		c++
	}
	return c
}

// TestDriftQueueFalseAlarms: an M/M/1 model at utilisation 0.8 and 0.9,
// the live histogram its own simulated traffic on another seed (5000
// calls; the simulated sample 50 000, so 10 batches of 5000). Its calls
// are strongly correlated: the design effect must be above 5, and the
// uncorrected test (X² on χ²) must reject in more than half the seeds. At
// alpha 0.01 the count of "shifted" in S seeds is Binomial(S, 0.01) when
// the test has its size; the test requires at most the count that
// binomial exceeds with probability < 0.001 (4 of 60; 3 of 20 under
// -short). A percentile moves beyond its interval in a seed at most
// 3 × 0.01 of the time (three intervals at level 0.99), bounded the same
// way (7 of 60; 4 of 20).
func TestDriftQueueFalseAlarms(t *testing.T) {
	seeds := 60
	if testing.Short() {
		seeds = 20
	}
	for _, rho := range []float64{0.8, 0.9} {
		t.Run(fmt.Sprint(rho), func(t *testing.T) {
			moved, uncorrected, least := 0, 0, math.Inf(1)
			shifted := queueDrift(t, rho, 1, seeds, func(d *Drift) {
				if (distuv.ChiSquared{K: float64(d.DF)}).Survival(d.ChiSquare) < d.Alpha {
					uncorrected++
				}
				if d.Verdict == Shifted {
					t.Logf("%s: %s", d.Verdict, d.Why)
				}
				for _, s := range d.Percentiles {
					if s.Moved {
						moved++
						break
					}
				}
				if d.Dependence == nil {
					t.Fatalf("no design effect measured of a queue: %s", d.Why)
				}
				least = math.Min(least, d.Dependence.DesignEffect)
			})
			t.Logf("utilisation %g: shifted in %d of %d seeds (uncorrected %d), a percentile moved in %d, least design effect %.3g", rho, shifted, seeds, uncorrected, moved, least)
			if uncorrected <= seeds/2 {
				t.Errorf("the uncorrected test rejected in %d of %d seeds; want more than half (the calls are not independent)", uncorrected, seeds)
			}
			if least <= 5 {
				t.Errorf("least design effect %.3g of an M/M/1 queue at %g; want > 5", least, rho)
			}
			if c := binomialBound(seeds, 0.01); shifted > c {
				t.Errorf("shifted in %d of %d seeds of the model's own traffic; want at most %d (alpha 0.01)", shifted, seeds, c)
			}
			if c := binomialBound(seeds, 0.03); moved > c {
				t.Errorf("a percentile moved in %d of %d seeds of the model's own traffic; want at most %d", moved, seeds, c)
			}
		})
	}
}

// TestDriftQueuePower: the same queues with the service 10 % slower (the
// utilisation 0.88 and 0.99; the client-side mean 5 → 9.2 s and 10 →
// 110 s) are still read "shifted". Over 200 other seeds the test read
// them shifted in 154 (77 %) and 190 (95 %); the test requires at least
// the count Binomial(S, 0.7) falls below with probability < 0.001 (31 of
// 60, more than half; 7 of 20 under -short).
func TestDriftQueuePower(t *testing.T) {
	seeds := 60
	if testing.Short() {
		seeds = 20
	}
	b := distuv.Binomial{N: float64(seeds), P: 0.7}
	least := 0
	for b.CDF(float64(least)) < 0.001 {
		least++
	}
	for _, rho := range []float64{0.8, 0.9} {
		t.Run(fmt.Sprint(rho), func(t *testing.T) {
			shifted := queueDrift(t, rho, 1.1, seeds, func(*Drift) {})
			t.Logf("utilisation %g, service +10%%: shifted in %d of %d seeds", rho, shifted, seeds)
			if shifted < least {
				t.Errorf("shifted in %d of %d seeds of a 10%% slower service; want at least %d", shifted, seeds, least)
			}
		})
	}
}

// TestDesignEffectIndependent: for independent draws the design effects
// are 1 within their noise. 200 000 exponential draws against a histogram
// of 1000 give B = 200 batches of 1000; each cell's estimate
// V_cc/(p(1−p)) is then χ²₁₉₉/199, standard deviation √(2/199) = 0.10,
// and their weighted mean tr(Δ)/(cells − 1), unclamped, no farther from 1
// than one of them: the test allows 4 of those (0.40), and as much for
// each percentile's. The independent path keeps Judge's figures: a model
// whose calls do not interact is judged with no Dependence, as Judge
// judges it, and its JSON has no "dependence".
func TestDesignEffectIndependent(t *testing.T) {
	e := dist.Exponential{Rate: 1}
	src := rand.NewPCG(7, 11)
	xs := make([]float64, 200_000)
	for i := range xs {
		xs[i] = e.Rand(src)
	}
	h := histogramOf(e, 1000, expBounds(0.05, 1.5, 12), 3)
	emp, err := dist.NewEmpirical(xs)
	if err != nil {
		t.Fatal(err)
	}
	expected := make([]float64, len(h.Counts))
	for i := range expected {
		expected[i] = h.Total() * mass(emp, h.Lower[i], h.Upper[i])
	}
	_, k := fit.PooledCells(expected)
	dep := dependence(xs, h, expected, []float64{emp.Quantile(0.5), emp.Quantile(0.95), emp.Quantile(0.99)})
	if dep.Batches != 200 || dep.BatchSize != 1000 {
		t.Fatalf("%d batches of %d; want 200 of 1000", dep.Batches, dep.BatchSize)
	}
	tol := 4 * math.Sqrt(2.0/199)
	raw := dep.trace / float64(k-1)
	t.Logf("design effect %.3f (unclamped %.3f, %d cells), percentiles %.3f (unclamped %.3f)", dep.DesignEffect, raw, k, dep.Percentiles, dep.rawPercentiles)
	if math.Abs(raw-1) > tol || dep.DesignEffect > 1+tol {
		t.Errorf("design effect of independent draws %.3f (unclamped %.3f); want 1 ± %.2f", dep.DesignEffect, raw, tol)
	}
	found := dep.IndependenceP < dependenceFound
	for i, d := range dep.Percentiles {
		want := 1.0
		if found {
			want = math.Max(1, dep.rawPercentiles[i])
		}
		if raw := dep.rawPercentiles[i]; d != want || math.Abs(raw-1) > tol {
			t.Errorf("percentile %d's design effect %.3f (unclamped %.3f); want 1 ± %.2f, at least 1, and 1 when the batches show no dependence", i, d, raw, tol)
		}
	}

	// An unqueued model (no interaction: its answered calls cut by a
	// hedge, say) is judged as Judge judges it.
	cfg := mm1Config(t, 0.8, 5000, 1)
	cfg.Providers[0].Concurrency = 0
	if cfg.Batched() {
		t.Fatal("a provider without a limit batches its runs")
	}
	got := judgeObserved(cfg, h, emp, xs, nil, 0.01)
	want := judge(h, emp, nil, 0.01, float64(len(xs)), nil, "the client-side latency simulated")
	gj, _ := json.Marshal(got)
	wj, _ := json.Marshal(want)
	if got.Dependence != nil || string(gj) != string(wj) || strings.Contains(string(gj), "dependence") {
		t.Errorf("independent calls judged\n%s\nwant\n%s", gj, wj)
	}
}

// TestAssessQueueSaysDependence: Assess of an M/M/1 model at utilisation
// 0.9 (its own traffic, another seed) reports the design effect in the
// drift's JSON and says in Why how the test counted the calls.
func TestAssessQueueSaysDependence(t *testing.T) {
	cfg := mm1Config(t, 0.9, 5000, 1)
	h := clientHistogram(t, cfg, 2, mm1Bounds)
	live := []Live{{Model: "m", Index: 0, Key: "latency", Query: "q", Hist: h}}
	ms, err := Assess(context.Background(), cfg, live, fit.Options{Model: fit.ModelAuto, Seed: 1}, 0.01)
	if err != nil {
		t.Fatal(err)
	}
	d := ms[0].Drift
	if d.Dependence == nil || d.Dependence.DesignEffect <= 5 || d.Dependence.Batches != 10 {
		t.Fatalf("dependence %+v; want a design effect above 5 from 10 batches", d.Dependence)
	}
	js, _ := json.Marshal(d)
	if !strings.Contains(string(js), `"design_effect":`) {
		t.Errorf("JSON has no design_effect: %s", js)
	}
	if !strings.Contains(d.Why, "the simulated calls are correlated (queueing), design effect") || !strings.Contains(d.Why, "independent ones") {
		t.Errorf("Why does not say the calls are correlated: %s", d.Why)
	}
	t.Log(d.Why)
}

// TestShareSEDependent: a mixture's shares judged against a sample whose
// calls take the same path in runs of 200 (a sticky path: the component
// drawn once per run) have a design effect above 1, and each share's SE is
// the independent one times √DesignEffect, moved beyond Student's t on
// B − 1 df of them; the live shares themselves do not change.
func TestShareSEDependent(t *testing.T) {
	m := guardModel(t, 0.3)
	src := rand.NewPCG(5, 9)
	rng := rand.New(src)
	seq := make([]float64, 0, 40_000)
	for len(seq) < cap(seq) {
		c := m.Components[0]
		if rng.Float64() < m.Weights[1] {
			c = m.Components[1]
		}
		for range 200 {
			seq = append(seq, c.Rand(src))
		}
	}
	h := histogramOf(guardModel(t, 0.35), 4000, guardBounds, 4)
	ind := judge(h, m, nil, 0.01, float64(len(seq)), nil, "m")
	dep := judge(h, m, nil, 0.01, float64(len(seq)), seq, "m")
	if dep.Dependence == nil || dep.Dependence.DesignEffect <= 1 {
		t.Fatalf("dependence %+v; want a design effect above 1", dep.Dependence)
	}
	k := math.Sqrt(dep.Dependence.DesignEffect)
	tq := distuv.StudentsT{Mu: 0, Sigma: 1, Nu: float64(dep.Dependence.Batches - 1)}.Quantile(1 - 0.01/2)
	for j, s := range dep.Shares {
		i := ind.Shares[j]
		if math.Abs(s.SE-k*i.SE) > 1e-12*s.SE || s.Live != i.Live {
			t.Errorf("share %d: SE %g, live %g; want %g × √%.3g = %g, live %g", j, s.SE, s.Live, i.SE, dep.Dependence.DesignEffect, k*i.SE, i.Live)
		}
		if s.Moved != (math.Abs(s.Live-s.Scenario) > tq*s.SE) {
			t.Errorf("share %d: moved %v at |%g − %g| against t %g × SE %g", j, s.Moved, s.Live, s.Scenario, tq, s.SE)
		}
	}
	t.Logf("design effect %.3g: SE %.3g → %.3g; moved %v → %v", dep.Dependence.DesignEffect, ind.Shares[1].SE, dep.Shares[1].SE, ind.Shares[1].Moved, dep.Shares[1].Moved)
	// Live slow shares from 0.30 to 0.45: some lie between z and t
	// standard errors from the scenario's, where only t keeps them.
	z := distuv.UnitNormal.Quantile(1 - 0.01/2)
	between := 0
	for w := 0.30; w < 0.45; w += 0.005 {
		d := judge(histogramOf(guardModel(t, w), 4000, guardBounds, 4), m, nil, 0.01, float64(len(seq)), seq, "m")
		s := d.Shares[1]
		gap := math.Abs(s.Live - s.Scenario)
		if s.Moved != (gap > tq*s.SE) {
			t.Errorf("live share %g: moved %v at |%g − %g| against t %g × SE %g", w, s.Moved, s.Live, s.Scenario, tq, s.SE)
		}
		if gap > z*s.SE && gap <= tq*s.SE {
			between++
		}
	}
	if between == 0 {
		t.Error("no live share lies between z and t standard errors: the test cannot tell them apart")
	}
}

// TestDriftIndependentBatchesPlainTest: calls whose batches show no
// dependence are judged by the test for independent calls, whatever the
// scenario: over 20 seeds of 50 000 independent exponential draws judged
// as a queued model's sample (seq given) against a histogram of 5000 of
// them 10 % slower, every judgement whose batches' test of independence
// does not reject at dependenceFound has design effect 1 and the χ² test's
// p-value — an F reference on 9 batch df there cost the shift its verdict
// (X² 44.8 on 10 df, p 0.03 against 2·10⁻⁶) — and the batches' test
// rejects in few seeds (at 0.25, the count above 5 + 3·√(20·0.25·0.75) =
// 11 has probability below 0.01).
func TestDriftIndependentBatchesPlainTest(t *testing.T) {
	e := dist.Exponential{Rate: 1}
	slow := dist.Exponential{Rate: 1 / 1.1}
	plain, rejected := 0, 0
	for seed := range uint64(20) {
		src := rand.NewPCG(seed, 3)
		xs := make([]float64, 50_000)
		for i := range xs {
			xs[i] = e.Rand(src)
		}
		emp, err := dist.NewEmpirical(xs)
		if err != nil {
			t.Fatal(err)
		}
		h := histogramOf(slow, 5000, expBounds(0.05, 1.5, 12), seed+100)
		got := judge(h, emp, nil, 0.01, float64(len(xs)), xs, "the client-side latency simulated")
		if got.Dependence == nil {
			t.Fatalf("seed %d: no dependence measured from a sequence", seed)
		}
		if got.Dependence.IndependenceP < dependenceFound {
			rejected++
			continue
		}
		plain++
		want := judge(h, emp, nil, 0.01, float64(len(xs)), nil, "the client-side latency simulated")
		if got.Dependence.DesignEffect != 1 || got.PValue != want.PValue || got.Verdict != want.Verdict {
			t.Errorf("seed %d: design effect %.3f, p %g, %s; want 1 and the independent test's p %g, %s",
				seed, got.Dependence.DesignEffect, got.PValue, got.Verdict, want.PValue, want.Verdict)
		}
	}
	if rejected > 11 {
		t.Errorf("the batches' test of independence rejected independent draws in %d of 20 seeds; want at most 11", rejected)
	}
	t.Logf("%d of 20 seeds judged by the independent test, %d corrected", plain, rejected)
}
