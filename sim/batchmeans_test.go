package sim_test

import (
	"math"
	"testing"

	"github.com/hedgesim/hedgesim/sim"
)

// coverSeeds runs the M/M/1 queue (Poisson λ/s, exponential service at
// μ/s, one slot) of n requests for seeds 1…40 and counts the seeds whose
// batched intervals of the p95 and of the mean cover want95 and wantMean.
// A 95 % interval covers in 38 of 40 seeds on average; 36 is about two
// binomial standard errors (√(40·0.05·0.95) = 1.4) below, so a nominal
// interval fails the bar with probability about 4 % while one that covers
// 80 % of the time (as an interval assuming independence, or an unremoved
// warm-up bias, would do at best) passes it with probability under 2 %.
func coverSeeds(t *testing.T, n int, lambda, mu, want95, wantMean float64) (p95, mean int, lat []sim.Latency) {
	t.Helper()
	for seed := uint64(1); seed <= 40; seed++ {
		cfg := queueConfig(n, lambda, mu, 1)
		cfg.Seed = seed
		l := sim.SummarizeLatency(&mustRun(t, cfg).Classes[0])
		if l.Batched == nil {
			t.Fatalf("seed %d: a queue's summary is not batched", seed)
		}
		if l.P95CIOK && l.P95CI95[0] <= want95 && want95 <= l.P95CI95[1] {
			p95++
		}
		if m := l.Batched.Mean; m[0] <= wantMean && wantMean <= m[1] {
			mean++
		}
		lat = append(lat, l)
	}
	return p95, mean, lat
}

// TestBatchedIntervalsCoverMM1: at ρ = 0.9 the sojourn time of an M/M/1
// queue is exponential with rate μ − λ = 0.1/s: p95 = ln 20 / 0.1 s, mean
// 10 s.
func TestBatchedIntervalsCoverMM1(t *testing.T) {
	if testing.Short() {
		t.Skip("40 runs of 2·10⁵ requests")
	}
	p95, mean, _ := coverSeeds(t, 200_000, 0.9, 1, math.Log(20)/0.1, 10)
	t.Logf("p95 covered in %d/40 seeds, mean in %d/40", p95, mean)
	if p95 < 36 || mean < 36 {
		t.Errorf("p95 interval covers %.3f s in %d/40 seeds, mean's covers 10 s in %d/40; want ≥ 36 each", math.Log(20)/0.1, p95, mean)
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
		r := sim.NewReport(cfg, h, mustRun(t, sim.WithoutHedging(cfg)))
		c := r.Classes[0]
		if c.WarmUp == nil || c.Latency.Batched == nil {
			t.Fatalf("seed %d: no warm-up cut or batches in a queue's report", seed)
		}
		if m := c.Latency.Batched.Mean; m[0] <= 20 && 20 <= m[1] {
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
