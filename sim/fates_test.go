package sim_test

import (
	"math"
	"testing"
	"time"

	"github.com/hedgesim/hedgesim/sim"
)

// pairedRuns runs cfg without hedging recording met bits, then cfg
// compared with them, and returns the hedged run's class 0.
func pairedRuns(t *testing.T, cfg *sim.Config) *sim.ClassResult {
	t.Helper()
	b := sim.WithoutHedging(cfg)
	b.Pair = &sim.Pair{Record: true}
	base := mustRun(t, b)
	h := *cfg
	h.Pair = &sim.Pair{Base: base.Met}
	return &mustRun(t, &h).Classes[0]
}

// fateCIs returns the shares that met the target, were rescued and were
// harmed of c and their batched 95 % intervals over the fixed grid.
func fateCIs(t *testing.T, c *sim.ClassResult) (share [3]float64, ci [3][2]float64) {
	t.Helper()
	m, r, h, ok := c.GridFates()
	if !ok || c.Paired == nil {
		t.Fatal("a queue's paired run has no per-batch fates")
	}
	n := float64(c.Requests)
	share = [3]float64{float64(c.Paired.Met) / n, float64(c.Paired.Rescued) / n, float64(c.Paired.Harmed) / n}
	for i, per := range [3][]float64{m, r, h} {
		ci[i] = sim.BatchInterval(share[i], per, 0.95)
	}
	return share, ci
}

// TestMetShareIntervalMM1: an M/M/1 queue at ρ = 0.8 (λ = 0.8/s, μ = 1/s)
// has exponential sojourn times of rate μ − λ = 0.2/s, so the share that
// meets an SLO of 10 s is 1 − e⁻² = 0.8647. The batched interval of the
// met share covers it in at least 36 of 40 seeds (38 on average for a 95 %
// interval; 36 is two binomial standard deviations, √(40·0.05·0.95) ≈ 1.4,
// below); without hedging nothing is rescued or harmed, and those
// intervals are exactly [0, 0].
func TestMetShareIntervalMM1(t *testing.T) {
	t.Parallel()
	want := 1 - math.Exp(-2)
	covered := 0
	for seed := uint64(1); seed <= 40; seed++ {
		cfg := queueConfig(50_000, 0.8, 1, 1)
		cfg.Seed = seed
		cfg.Classes[0].SLO = 10 * time.Second
		share, ci := fateCIs(t, pairedRuns(t, cfg))
		if ci[0][0] <= want && want <= ci[0][1] {
			covered++
		}
		if share[1] != 0 || share[2] != 0 || ci[1] != [2]float64{0, 0} || ci[2] != [2]float64{0, 0} {
			t.Fatalf("seed %d: no hedging rescued %v %v, harmed %v %v", seed, share[1], ci[1], share[2], ci[2])
		}
	}
	t.Logf("met share %.4f covered in %d/40 seeds", want, covered)
	if covered < 36 {
		t.Errorf("the met share's interval covers %.4f in %d/40 seeds, want ≥ 36", want, covered)
	}
}

// TestRescuedShareIntervalCovers: a queue of two slots at ρ = 0.6 whose
// requests send a copy to the same queue after 3 s (an SLO of 4 s) — copies
// that rescue some requests and, by loading the queue, harm others — has
// no closed form for the shares hedging rescued and harmed;
// their batched intervals at 2·10⁴ requests cover those of one run 16
// times longer (whose own error is a quarter of a short run's, a small
// widening of the target) in at least 36 of 40 seeds, as above.
func TestRescuedShareIntervalCovers(t *testing.T) {
	if testing.Short() {
		t.Skip("80 runs of 2·10⁴ requests and two of 3.2·10⁵")
	}
	t.Parallel()
	cfgOf := func(n int, seed uint64) *sim.Config {
		cfg := queueConfig(n, 1.2, 1, 2)
		cfg.Seed = seed
		cfg.Classes[0].Policy = sim.Policy{Targets: []int{0}, Copies: 1, Delays: []time.Duration{3 * time.Second}}
		cfg.Classes[0].SLO = 4 * time.Second
		return cfg
	}
	want, _ := fateCIs(t, pairedRuns(t, cfgOf(320_000, 99)))
	var covered [3]int
	for seed := uint64(1); seed <= 40; seed++ {
		_, ci := fateCIs(t, pairedRuns(t, cfgOf(20_000, seed)))
		for i := range ci {
			if ci[i][0] <= want[i] && want[i] <= ci[i][1] {
				covered[i]++
			}
		}
	}
	t.Logf("met %.4f, rescued %.4f, harmed %.4f covered in %v of 40 seeds", want[0], want[1], want[2], covered)
	if want[1] == 0 || want[2] == 0 {
		t.Fatal("the hedged queue rescued or harmed nothing: the test proves nothing")
	}
	for i, name := range []string{"met", "rescued", "harmed"} {
		if covered[i] < 36 {
			t.Errorf("the %s share's interval covers %.4f in %d/40 seeds, want ≥ 36", name, want[i], covered[i])
		}
	}
}
