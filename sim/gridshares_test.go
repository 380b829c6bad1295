package sim_test

import (
	"math"
	"testing"

	"github.com/hedgesim/hedgesim/sim"
)

// TestGridSharesUnderLoad: in an M/M/1 queue at ρ = 0.9 (2·10⁵ requests)
// the share of requests answered within 20 s is P(sojourn ≤ 20 s) = 1 −
// e^{−0.1·20} = 0.8647. Over 40 seeds: its batched interval from the fixed
// grid (sim.ClassResult.GridShares, sim.BatchInterval) covers 0.8647 in
// ≥ 36 (a 95 % interval covers in 38 on average; 36 is two binomial
// standard deviations below), where Wilson's interval, which assumes
// independent requests, covers it far less often; and for two identical
// classes sharing the queue, the paired difference of their shares over
// the batches holds 0 in ≥ 36 and is at least 3× narrower than the
// unpaired √(h₁² + h₂²) of their batched intervals.
func TestGridSharesUnderLoad(t *testing.T) {
	if testing.Short() {
		t.Skip("80 runs of 2·10⁵ requests")
	}
	const target = 20.0
	want := 1 - math.Exp(-0.1*target)
	batched, wilson, holds := 0, 0, 0
	var pw, uw float64
	for seed := uint64(1); seed <= 40; seed++ {
		cfg := queueConfig(200_000, 0.9, 1, 1)
		cfg.Seed = seed
		c := &mustRun(t, cfg).Classes[0]
		_, per, _, ok := c.GridShares(target)
		if !ok || len(per) != 30 {
			t.Fatalf("seed %d: a queue's run has no grid shares (%d batches)", seed, len(per))
		}
		k, n := c.AnsweredWithin(target), c.Requests
		est := float64(k) / float64(n)
		if ci := sim.BatchInterval(est, per, 0.95); ci[0] <= want && want <= ci[1] {
			batched++
		}
		if ci := sim.WilsonCI(k, n); ci[0] <= want && want <= ci[1] {
			wilson++
		}

		twin := cfg.Classes[0]
		twin.Name = "twin"
		cfg.Classes[0].Share, twin.Share = 0.5, 0.5
		cfg.Classes = append(cfg.Classes, twin)
		res := mustRun(t, cfg)
		var ests [2]float64
		var pers [2][]float64
		for i := range 2 {
			c := &res.Classes[i]
			_, pers[i], _, _ = c.GridShares(target)
			ests[i] = float64(c.AnsweredWithin(target)) / float64(c.Requests)
		}
		d := sim.PairDiff(ests[0], pers[0], ests[1], pers[1], 0.95)
		if !d.Significant() {
			holds++
		}
		h := func(i int) float64 { ci := sim.BatchInterval(ests[i], pers[i], 0.95); return (ci[1] - ci[0]) / 2 }
		pw += d.HalfWidth()
		uw += math.Hypot(h(0), h(1))
	}
	t.Logf("share within %g s (%.4f): batched interval covers in %d/40 seeds, Wilson's in %d; twins: paired interval holds 0 in %d/40, mean half-widths paired %.4f, unpaired %.4f (%.1f×)",
		target, want, batched, wilson, holds, pw/40, uw/40, uw/pw)
	if wilson >= batched {
		t.Errorf("Wilson's interval covers in %d/40 seeds, the batched one in %d: under load it should cover less", wilson, batched)
	}
	if batched < 36 {
		t.Errorf("the batched interval covers %.4f in %d/40 seeds, want ≥ 36", want, batched)
	}
	if holds < 36 {
		t.Errorf("the twins' paired interval holds 0 in %d/40 seeds, want ≥ 36", holds)
	}
	if uw < 3*pw {
		t.Errorf("paired half-width %.4f is not 3× narrower than the unpaired %.4f", pw/40, uw/40)
	}
}
