package sim_test

import (
	"math"
	"testing"
	"time"

	"github.com/hedgesim/hedgesim/dist"
	"github.com/hedgesim/hedgesim/sim"
)

// hedgedStepPipeline is a pipeline of n requests at 50/s: a guard step on
// model g (constant 10 ms, provider pg), then a chat step on model m
// (exponential at 1/s, provider pm) with oneModel's tokens and prices and
// a copy after 1 s, a loser billed its input only. With queue, pg serves
// one call at a time (an M/D/1 queue at ρ = 0.5): the requests interact,
// but the chat step's calls and their costs do not depend on it.
func hedgedStepPipeline(n int, seed uint64, queue bool) *sim.Config {
	chat := sim.Class{
		InputTokens: dist.Constant{Value: 100}, OutputTokens: dist.Constant{Value: 50},
		Policy: sim.Policy{Primary: 1, Copies: 1, Delays: []time.Duration{time.Second}, CancelBilling: sim.BillInput, OnInvalid: sim.NonFatal},
	}
	guard := sim.Class{
		InputTokens: dist.Constant{Value: 100}, OutputTokens: dist.Constant{Value: 10},
		Policy: sim.Policy{CancelBilling: sim.BillInput, OnInvalid: sim.NonFatal},
	}
	pl := &sim.Pipeline{
		Steps:  []sim.Step{{Name: "guard", Call: guard, FanOut: 1}, {Name: "chat", Call: chat, FanOut: 1}},
		Stages: []sim.Stage{{Steps: []int{0}}, {Steps: []int{1}}},
	}
	cfg := &sim.Config{
		Name: "steps", Seed: seed, Requests: n,
		Arrivals: sim.Arrivals{Process: sim.Poisson, Rate: 50},
		Models: []sim.Model{
			{Name: "g", Provider: "pg", Latency: dist.Constant{Value: 0.01}, PriceInputPerMTok: 1, PriceOutputPerMTok: 2},
			{Name: "m", Provider: "pm", Latency: dist.Exponential{Rate: 1}, PriceInputPerMTok: 1, PriceOutputPerMTok: 2},
		},
		Classes: []sim.Class{{Name: "p", Share: 1, Pipeline: pl}},
	}
	if queue {
		cfg.Providers = []sim.Provider{{Name: "pg", Concurrency: 1}, {Name: "pm"}}
	}
	return cfg
}

// TestStepAddedCostInterval: the chat step of hedgedStepPipeline adds
// 50·e⁻¹ = 18.394 % to its own cost (TestAddedCostIntervalIndependent's
// closed form: the copy goes out with probability e⁻¹, and one of the two
// calls is cancelled, billed half a call). Its row's added_cost_pct_ci95
// covers that in ≥ 36 of 40 seeds at 2·10⁴ requests (38 on average for a
// 95 % interval; 36 is two binomial standard deviations, √(40·0.05·0.95)
// ≈ 1.4, below): for independent requests the paired ratio estimate over
// the arrival sections, and behind the guard's queue (requests that
// interact) the paired batch means of the whole run's fixed grid, each
// method named. The guard step, not hedged, costs what it costs without
// hedging: its interval is [0, 0]. Under -short, 10 seeds, ≥ 9 covering.
func TestStepAddedCostInterval(t *testing.T) {
	t.Parallel()
	want := 50 / math.E
	seeds := uint64(40)
	if testing.Short() {
		seeds = 10
	}
	for _, tc := range []struct {
		queue  bool
		method string
	}{{false, sim.CIMethodAddedCostPaired}, {true, sim.CIMethodAddedCostGrid}} {
		covered := 0
		var half float64
		for seed := uint64(1); seed <= seeds; seed++ {
			cfg := hedgedStepPipeline(20_000, seed, tc.queue)
			p := sim.NewReport(cfg, mustRun(t, cfg), mustRun(t, sim.WithoutHedging(cfg))).Classes[0].Pipeline
			if p == nil || len(p.Steps) != 2 {
				t.Fatalf("queue %v: no pipeline section of two steps: %+v", tc.queue, p)
			}
			g, c := p.Steps[0], p.Steps[1]
			if ci := g.AddedCostPctCI95; ci == nil || *ci[0] != 0 || *ci[1] != 0 || g.AddedCostPctCIMethod != tc.method {
				t.Fatalf("queue %v, seed %d: the unhedged guard's interval %v (%q); want [0, 0] by %q", tc.queue, seed, ci, g.AddedCostPctCIMethod, tc.method)
			}
			ci := c.AddedCostPctCI95
			if c.AddedCostPct == nil || ci == nil || ci[0] == nil || ci[1] == nil || c.AddedCostPctCIMethod != tc.method {
				t.Fatalf("queue %v, seed %d: chat's added cost %v, interval %v, method %q; want one by %q", tc.queue, seed, c.AddedCostPct, ci, c.AddedCostPctCIMethod, tc.method)
			}
			if !(*ci[0] < *c.AddedCostPct && *c.AddedCostPct < *ci[1]) {
				t.Fatalf("queue %v, seed %d: added cost %v outside its interval [%v, %v]", tc.queue, seed, *c.AddedCostPct, *ci[0], *ci[1])
			}
			if *ci[0] <= want && want <= *ci[1] {
				covered++
			}
			half += (*ci[1] - *ci[0]) / 2 / float64(seeds)
		}
		t.Logf("queue %v: chat's added cost %.3f%% covered in %d/%d seeds, mean half-width %.3f points", tc.queue, want, covered, seeds, half)
		if need := int(seeds) - int(seeds)/10; covered < need {
			t.Errorf("queue %v: the step's added-cost interval covers %.3f%% in %d/%d seeds, want ≥ %d", tc.queue, want, covered, seeds, need)
		}
	}
}
