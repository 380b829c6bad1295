package sim_test

import (
	"math"
	"testing"
	"time"

	"github.com/hedgesim/hedgesim/dist"
	"github.com/hedgesim/hedgesim/sim"
)

// coverSeeds runs the M/M/1 queue (Poisson λ/s, exponential service at
// μ/s, one slot) of n requests for seeds 1…40 and counts the seeds whose
// batched intervals of the p95 and of the mean cover want95 and wantMean,
// and those whose order-statistic interval of the p95, which assumes
// independent requests, covers it.
// A 95 % interval covers in 38 of 40 seeds on average; 36 is about two
// binomial standard errors (√(40·0.05·0.95) = 1.4) below, so a nominal
// interval fails the bar with probability about 4 % while one that covers
// 80 % of the time (as an interval assuming independence, or an unremoved
// warm-up bias, would do at best) passes it with probability under 2 %.
func coverSeeds(t *testing.T, n int, lambda, mu, want95, wantMean float64) (p95, mean, order int) {
	t.Helper()
	for seed := uint64(1); seed <= 40; seed++ {
		cfg := queueConfig(n, lambda, mu, 1)
		cfg.Seed = seed
		c := &mustRun(t, cfg).Classes[0]
		if lo, hi, ok := c.QuantileCI(0.95, 0.95); ok && lo <= want95 && want95 <= hi {
			order++
		}
		l := sim.SummarizeLatency(c)
		if l.CIs == nil {
			t.Fatalf("seed %d: a queue's summary is not batched", seed)
		}
		if l.P95CIOK && l.P95CI95[0] <= want95 && want95 <= l.P95CI95[1] {
			p95++
		}
		if m := l.CIs.Mean; m[0] <= wantMean && wantMean <= m[1] {
			mean++
		}
	}
	return p95, mean, order
}

// TestBatchedIntervalsCoverMM1: at ρ = 0.9 the sojourn time of an M/M/1
// queue is exponential with rate μ − λ = 0.1/s: p95 = ln 20 / 0.1 s, mean
// 10 s. The order-statistic interval, blind to the queue's correlation,
// covers the p95 in at most a quarter of the seeds.
func TestBatchedIntervalsCoverMM1(t *testing.T) {
	if testing.Short() {
		t.Skip("40 runs of 2·10⁵ requests")
	}
	p95, mean, order := coverSeeds(t, 200_000, 0.9, 1, math.Log(20)/0.1, 10)
	t.Logf("p95 covered in %d/40 seeds, mean in %d/40; the order-statistic interval covers the p95 in %d/40", p95, mean, order)
	if p95 < 36 || mean < 36 {
		t.Errorf("p95 interval covers %.3f s in %d/40 seeds, mean's covers 10 s in %d/40; want ≥ 36 each", math.Log(20)/0.1, p95, mean)
	}
	if order > 10 {
		t.Errorf("the order-statistic interval covers the p95 in %d/40 seeds: the queue's correlation should make it far too narrow", order)
	}
}

// TestWarmUpCutMM1: an M/M/1 queue at ρ = 0.95 (λ = 0.95/s, μ = 1/s)
// started empty: its mean time in system is 1/(μ − λ) = 20 s, and the
// mean of the requests kept after the warm-up cut lies within its batched
// interval of 20 s in at least 36 of 40 seeds (see coverSeeds for the
// bar). The cut is reported in requests and seconds.
func TestWarmUpCutMM1(t *testing.T) {
	if testing.Short() {
		t.Skip("40 runs of 10⁶ requests")
	}
	const n = 1_000_000
	covered, cut := 0, 0
	for seed := uint64(1); seed <= 40; seed++ {
		cfg := queueConfig(n, 0.95, 1, 1)
		cfg.Seed = seed
		h := mustRun(t, cfg)
		r := sim.NewReport(cfg, h, h) // no hedging: the run is its own baseline
		c := r.Classes[0]
		if c.WarmUp == nil || c.Latency.CIs == nil {
			t.Fatalf("seed %d: no warm-up cut or batches in a queue's report", seed)
		}
		if m := c.Latency.CIs.Mean; m[0] <= 20 && 20 <= m[1] {
			covered++
		}
		if w := c.WarmUp; w.Requests > 0 {
			cut++
			if w.Seconds <= 0 || w.Requests >= n/2 {
				t.Errorf("seed %d: cut of %d requests over %v s", seed, w.Requests, w.Seconds)
			}
		}
	}
	t.Logf("mean covers 20 s in %d/40 seeds; a warm-up was cut in %d", covered, cut)
	if covered < 36 {
		t.Errorf("the mean after the warm-up cut covers 20 s in %d/40 seeds, want ≥ 36", covered)
	}
}

// hedgedQueueConfig is two single-slot providers at load λ/μ = 0.7 on the
// first, with a copy to the second after 2 s, a price of $1 per call and
// cancelled calls billed in full: its requests interact through both
// queues.
func hedgedQueueConfig(n int, seed uint64) *sim.Config {
	cfg := queueConfig(n, 0.7, 1, 1)
	cfg.Seed = seed
	cfg.Models[0].PricePerRequest = 1
	cfg.Models = append(cfg.Models, sim.Model{Name: "m2", Provider: "p2", Latency: cfg.Models[0].Latency, PricePerRequest: 1})
	cfg.Providers = append(cfg.Providers, sim.Provider{Name: "p2", Concurrency: 1})
	cfg.Classes[0].Policy = sim.Policy{Targets: []int{1}, Copies: 1, Delays: []time.Duration{2 * time.Second}, CancelBilling: sim.BillFull}
	return cfg
}

// TestBatchedAddedCostCovers: the batched interval of the added cost of a
// hedged queue covers the added cost of one run 16 times longer (whose own
// error is a quarter of a short run's, a small widening of the target) in
// at least 36 of 40 seeds (see coverSeeds for the bar); with no hedging
// the added cost and its interval are exactly 0.
func TestBatchedAddedCostCovers(t *testing.T) {
	if testing.Short() {
		t.Skip("40 runs of 10⁵ requests and one of 1.6·10⁶")
	}
	report := func(cfg *sim.Config) sim.ClassReport {
		return sim.NewReport(cfg, mustRun(t, cfg), mustRun(t, sim.WithoutHedging(cfg))).Classes[0]
	}
	long := report(hedgedQueueConfig(1_600_000, 99))
	want := *long.AddedCostPct
	covered := 0
	for seed := uint64(1); seed <= 40; seed++ {
		c := report(hedgedQueueConfig(100_000, seed))
		if c.AddedCostPctCI95 == nil || c.AddedCostPctCI95[0] == nil || c.AddedCostPctCI95[1] == nil {
			t.Fatalf("seed %d: no interval for the added cost", seed)
		}
		if *c.AddedCostPctCI95[0] <= want && want <= *c.AddedCostPctCI95[1] {
			covered++
		}
	}
	t.Logf("added cost %.3f%% covered in %d/40 seeds", want, covered)
	if covered < 36 {
		t.Errorf("the added cost's interval covers %.3f%% in %d/40 seeds, want ≥ 36", want, covered)
	}
	cfg := hedgedQueueConfig(20_000, 1)
	cfg.Classes[0].Policy = sim.Policy{}
	c := report(cfg)
	if ci := c.AddedCostPctCI95; c.AddedCostPct == nil || *c.AddedCostPct != 0 || ci == nil || *ci[0] != 0 || *ci[1] != 0 {
		t.Errorf("no hedging: added cost %v, interval %v; want 0 and [0, 0]", c.AddedCostPct, ci)
	}
}

// TestIndependentIntervalsStay: independent requests (field report 1:
// bimodal latency, copies at 1 s and 2 s, a 3 s deadline: answered with
// probability 1 − 0.5³ = 0.875) keep the order-statistic p95 interval —
// no wider than QuantileCI's — and are not batched; the Wilson interval of
// the answered share covers 0.875 in at least 36 of 40 seeds (see
// coverSeeds for the bar).
func TestIndependentIntervalsStay(t *testing.T) {
	t.Parallel()
	const n = 20_000
	covered := 0
	for seed := uint64(1); seed <= 40; seed++ {
		cfg := oneModel(n, bimodal(t), 2, time.Second)
		cfg.Classes[0].Deadline = 3 * time.Second
		cfg.Seed = seed
		h := mustRun(t, cfg)
		c := sim.NewReport(cfg, h, mustRun(t, sim.WithoutHedging(cfg))).Classes[0]
		if c.WarmUp != nil || c.Batches != nil || c.Latency.CIs == nil || c.Latency.CIs.Method != sim.CIMethodOrder {
			t.Fatalf("seed %d: independent requests batched or without the order-statistic method: %+v", seed, c.Latency.CIs)
		}
		lo, hi, ok := h.Classes[0].QuantileCI(0.95, 0.95)
		if got := c.Latency.P95CI95; !ok || !c.Latency.P95CIOK || got[1]-got[0] > 1.1*(hi-lo) {
			t.Errorf("seed %d: p95 interval %v, order statistics give [%v, %v]", seed, got, lo, hi)
		}
		if ci := c.AnsweredShareCI95; *ci[0] <= 0.875 && 0.875 <= *ci[1] {
			covered++
		}
	}
	t.Logf("answered share 0.875 covered in %d/40 seeds", covered)
	if covered < 36 {
		t.Errorf("the answered share's interval covers 0.875 in %d/40 seeds, want ≥ 36", covered)
	}
}

// TestIndependentMeanAndWilson: the normal interval of the mean of
// independent exponential latencies (mean 1 s) covers 1 s in at least 36
// of 40 seeds (see coverSeeds for the bar); the Wilson interval of 0 in 10
// is [0, 0.2775] (z²/(n + z²) at z = 1.96).
func TestIndependentMeanAndWilson(t *testing.T) {
	covered := 0
	for seed := uint64(1); seed <= 40; seed++ {
		cfg := oneModel(20_000, dist.Exponential{Rate: 1}, 0)
		cfg.Seed = seed
		l := sim.SummarizeLatency(&mustRun(t, cfg).Classes[0])
		if m := l.CIs.Mean; m[0] <= 1 && 1 <= m[1] {
			covered++
		}
	}
	t.Logf("mean 1 s covered in %d/40 seeds", covered)
	if covered < 36 {
		t.Errorf("the mean's interval covers 1 s in %d/40 seeds, want ≥ 36", covered)
	}
	z2 := 1.959963984540054 * 1.959963984540054
	if ci := sim.WilsonCI(0, 10); ci[0] != 0 || math.Abs(ci[1]-z2/(10+z2)) > 1e-12 {
		t.Errorf("Wilson 0 of 10: %v, want [0, %.4f]", ci, z2/(10+z2))
	}
}

// TestPairedDifferenceOfTwinClasses: two classes of identical traffic
// and no hedging, half the arrivals each, share one M/M/1 queue at
// ρ = 0.9: their p95s are equal by symmetry. The paired difference of their
// p95s, batched over the same spans of time, contains 0 in at least 36 of
// 40 seeds (see coverSeeds for the bar), and its interval is at least 3
// times narrower than the unpaired one, √(h_A² + h_B²) from the two
// classes' own batched half-widths: the queue they share moves both.
func TestPairedDifferenceOfTwinClasses(t *testing.T) {
	if testing.Short() {
		t.Skip("40 runs of 2·10⁵ requests")
	}
	contains := 0
	var paired, unpaired float64
	for seed := uint64(1); seed <= 40; seed++ {
		cfg := queueConfig(200_000, 0.9, 1, 1)
		cfg.Seed = seed
		twin := cfg.Classes[0]
		twin.Name = "twin"
		cfg.Classes[0].Share, twin.Share = 0.5, 0.5
		cfg.Classes = append(cfg.Classes, twin)
		res := mustRun(t, cfg)
		a, b := &res.Classes[0], &res.Classes[1]
		d, ok := sim.PairedQuantileDiff(a, b, 0.95, 0.95)
		if !ok {
			t.Fatal("twin classes under a queue are not batched")
		}
		if d.CI[0] <= 0 && 0 <= d.CI[1] {
			contains++
		}
		la, lb := sim.SummarizeLatency(a), sim.SummarizeLatency(b)
		ha, hb := (la.P95CI95[1]-la.P95CI95[0])/2, (lb.P95CI95[1]-lb.P95CI95[0])/2
		paired += d.HalfWidth()
		unpaired += math.Hypot(ha, hb)
	}
	t.Logf("paired interval contains 0 in %d/40 seeds; mean half-widths: paired %.3f s, unpaired %.3f s (%.1f×)", contains, paired/40, unpaired/40, unpaired/paired)
	if contains < 36 {
		t.Errorf("the paired difference's interval contains 0 in %d/40 seeds, want ≥ 36", contains)
	}
	if unpaired < 3*paired {
		t.Errorf("paired half-width %.3f s is not 3× narrower than the unpaired %.3f s", paired/40, unpaired/40)
	}
}

// TestBatchQuantilesEachSelectsTheSame: each batch's quantiles asked of
// BatchQuantilesEach are those BatchQuantiles selects among more, value
// for value, and the pooled ones are the same — on an M/M/1 queue at
// ρ = 0.9 (a batched run) of 5·10⁴ requests, whose batches hold about
// 1 700 requests each.
func TestBatchQuantilesEachSelectsTheSame(t *testing.T) {
	c := &mustRun(t, queueConfig(50_000, 0.9, 1, 1)).Classes[0]
	ps := []float64{0.50, 0.90, 0.95, 0.99, 0.999}
	pooled, per, kept, ok := c.BatchQuantiles(ps...)
	pooled2, per2, kept2, ok2 := c.BatchQuantilesEach(ps, []float64{0.95, 0.99})
	if !ok || !ok2 || len(per) < 2 {
		t.Fatalf("ok %v %v, %d batches: want a batched run", ok, ok2, len(per))
	}
	if kept != kept2 || len(per) != len(per2) {
		t.Fatalf("kept %d and %d, batches %d and %d", kept, kept2, len(per), len(per2))
	}
	for i := range ps {
		if math.Float64bits(pooled[i]) != math.Float64bits(pooled2[i]) {
			t.Errorf("pooled p%g: %v and %v", 100*ps[i], pooled[i], pooled2[i])
		}
	}
	for b := range per {
		if len(per2[b]) != 2 || per2[b][0] != per[b][2] || per2[b][1] != per[b][3] {
			t.Errorf("batch %d: p95, p99 %v, want %v", b, per2[b], per[b][2:4])
		}
	}
}

// TestBatchFiguresAreTheSame: BatchFigures gives, value for value, what
// BatchQuantilesEach, GridLinearised, GridShares and Ranks give apart — on
// M/M/1 queues at ρ = 0.5 and 0.9 (batched runs) of 2·10⁴ requests over
// several seeds, among which runs with a warm-up cut and runs without one
// are both met, with shares within a target (2 s) and without one, and
// with many ranks (a survival curve's: the pooled quantiles are then
// found in a sorted copy) and few.
func TestBatchFiguresAreTheSame(t *testing.T) {
	ps, each, lin := []float64{0.50, 0.90, 0.95, 0.99, 0.999}, []float64{0.95, 0.99}, []float64{0.95, 0.99}
	same := func(a, b []float64) bool {
		if len(a) != len(b) {
			return false
		}
		for i := range a {
			if math.Float64bits(a[i]) != math.Float64bits(b[i]) {
				return false
			}
		}
		return true
	}
	cuts, sortedCuts, whole := 0, 0, 0
	for _, rho := range []float64{0.5, 0.9} {
		for seed := range uint64(6) {
			cfg := queueConfig(20_000, rho, 1, 1)
			cfg.Seed = 100 + seed
			c := &mustRun(t, cfg).Classes[0]
			within := 2 * float64(seed%2)
			// Many ranks, in no order, up to the last (a miss when
			// some request missed); or a few.
			ranks := []int{c.NumLatencies() - 1, 0, 7}
			if seed%3 != 2 {
				for k := c.NumLatencies() - 2; k > 0; k -= 1 + k/40 {
					ranks = append(ranks, k)
				}
			}
			f, ok := c.BatchFigures(ps, each, lin, within, ranks)
			if !same(f.Ranks, c.Ranks(ranks)) {
				t.Errorf("ρ %g, seed %d: BatchFigures' ranks %v, Ranks' %v", rho, cfg.Seed, f.Ranks, c.Ranks(ranks))
			}
			pooled, per, kept, ok1 := c.BatchQuantilesEach(ps, each)
			first, l, ok2 := c.GridLinearised(lin...)
			ga, gw, gc, ok3 := c.GridShares(within)
			if !ok || !ok1 || !ok2 || !ok3 {
				t.Fatalf("ρ %g, seed %d: ok %v %v %v %v, want a batched run", rho, cfg.Seed, ok, ok1, ok2, ok3)
			}
			if !same(f.Answered, ga) || !same(f.Within, gw) || !same(f.Cost, gc) || (within > 0) != (gw != nil) {
				t.Errorf("ρ %g, seed %d, within %g s: BatchFigures' shares %v %v %v, GridShares' %v %v %v", rho, cfg.Seed, within, f.Answered, f.Within, f.Cost, ga, gw, gc)
			}
			if !same(f.Pooled, pooled) || f.Kept != kept || len(f.PerBatch) != len(per) || f.FirstKept != first || len(f.Lin) != len(l) {
				t.Fatalf("ρ %g, seed %d: BatchFigures %+v, apart %v %v %d %d %v", rho, cfg.Seed, f, pooled, per, kept, first, l)
			}
			for b := range per {
				if !same(f.PerBatch[b], per[b]) {
					t.Errorf("ρ %g, seed %d, batch %d: %v, want %v", rho, cfg.Seed, b, f.PerBatch[b], per[b])
				}
			}
			for i := range l {
				if !same(f.Lin[i], l[i]) {
					t.Errorf("ρ %g, seed %d, linearised p%g: %v, want %v", rho, cfg.Seed, 100*lin[i], f.Lin[i], l[i])
				}
			}
			if kept < c.Requests {
				cuts++
				if seed%3 != 2 {
					sortedCuts++
				}
			} else {
				whole++
			}
		}
	}
	if cuts == 0 || whole == 0 || sortedCuts == 0 {
		t.Fatalf("%d runs with a warm-up cut (%d with many ranks) and %d without: all must be met", cuts, sortedCuts, whole)
	}
}
