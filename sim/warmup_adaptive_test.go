package sim_test

import (
	"testing"
	"time"

	"github.com/hedgesim/hedgesim/dist"
	"github.com/hedgesim/hedgesim/sim"
)

// TestAdaptiveAloneCutsNoWarmUp: an adaptive delay is the only thing that
// makes requests interact (no queue, limit, breaker, budget or client
// loop), so the run starts in no state its steady state is not in, and no
// warm-up is cut; its intervals are still batched (the delays follow the
// latencies before them). The provider has rare, long slow periods (10×
// for 4 % of the time, 20 minutes on average): MSER, which took such a
// period early in a run for a transient and cut up to half of it, must
// not run. The same scenario with a concurrency limit that never binds
// starts empty, and is cut as before (the rule runs; a cut of 0 is
// allowed).
func TestAdaptiveAloneCutsNoWarmUp(t *testing.T) {
	t.Parallel()
	cfg := &sim.Config{
		Name: "adaptive", Seed: 1, Requests: 200_000,
		Arrivals: sim.Arrivals{Process: sim.Poisson, Rate: 10},
		Models:   []sim.Model{{Name: "m", Provider: "p", Latency: dist.LogNormal{Mu: -1, Sigma: 0.5}}},
		Providers: []sim.Provider{{Name: "p",
			Degraded: &sim.Degraded{MeanNormal: 480 * time.Minute, MeanDegraded: 20 * time.Minute, Slowdown: 10}}},
		Classes: []sim.Class{{Name: "c", Share: 1, InputTokens: dist.Constant{}, OutputTokens: dist.Constant{}, Policy: sim.Policy{Copies: 1, Delays: []time.Duration{time.Second},
			Adaptive: &sim.Adaptive{Percentile: 0.95, Window: 1000, WarmUp: 100, Source: sim.FromPrimaries}}}},
	}
	cut := 0
	for seed := uint64(1); seed <= 2; seed++ {
		cfg.Seed = seed
		res, err := sim.Run(cfg)
		if err != nil {
			t.Fatal(err)
		}
		c := &res.Classes[0]
		if !c.Batched() {
			t.Fatalf("seed %d: an adaptive delay's run is not batched", seed)
		}
		rep := sim.NewReport(cfg, res, res)
		if w := rep.Classes[0].WarmUp; w != nil && w.Requests != 0 {
			t.Errorf("seed %d: warm-up cut of %d requests in a run that starts in its steady state", seed, w.Requests)
		}
		// The rule says what was done: no cut, and why. Regression: it
		// named MSER, which was never applied.
		const why = "none: the requests interact only through an adaptive delay, whose start is part of the policy"
		if w := rep.Classes[0].WarmUp; w == nil || w.Rule != why {
			t.Errorf("seed %d: warm-up %+v, want rule %q", seed, w, why)
		}
		limited := *cfg
		limited.Providers = []sim.Provider{cfg.Providers[0]}
		limited.Providers[0].Concurrency = 1 << 20
		lres, err := sim.Run(&limited)
		if err != nil {
			t.Fatal(err)
		}
		if w := sim.NewReport(&limited, lres, lres).Classes[0].WarmUp; w != nil {
			cut += int(w.Requests)
		}
	}
	t.Logf("with a concurrency limit (a run that starts empty), MSER cut %d requests over 2 seeds", cut)
}
