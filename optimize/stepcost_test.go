package optimize_test

import (
	"math"
	"testing"
	"time"

	"github.com/hedgesim/hedgesim/dist"
	"github.com/hedgesim/hedgesim/optimize"
	"github.com/hedgesim/hedgesim/sim"
)

// guardThenChat is a pipeline of independent requests: a guard call
// (constant 10 ms; 100 input tokens at $1/MTok, 10 output at $2/MTok:
// $120/M) then a chat call (exponential at 1/s; 100 input, 50 output:
// $200/M), a loser billed its input only. A copy of the chat call after
// 1 s is sent with probability e⁻¹ and adds half a chat call's cost, so
// it adds 50·e⁻¹ % of $200/M to $320/M: 50·e⁻¹·200/320 = 11.496 %.
func guardThenChat(n int, seed uint64) *sim.Config {
	call := func(m int, out float64) sim.Class {
		return sim.Class{
			InputTokens: dist.Constant{Value: 100}, OutputTokens: dist.Constant{Value: out},
			Policy: sim.Policy{Primary: m, OnInvalid: sim.NonFatal, CancelBilling: sim.BillInput},
		}
	}
	return &sim.Config{
		Name: "guard-chat", Seed: seed, Requests: n,
		Arrivals: sim.Arrivals{Process: sim.Poisson, Rate: 50},
		Models: []sim.Model{
			{Name: "g", Provider: "pg", Latency: dist.Constant{Value: 0.01}, PriceInputPerMTok: 1, PriceOutputPerMTok: 2},
			{Name: "m", Provider: "pm", Latency: dist.Exponential{Rate: 1}, PriceInputPerMTok: 1, PriceOutputPerMTok: 2},
		},
		Classes: []sim.Class{{Name: "turn", Share: 1, Pipeline: &sim.Pipeline{
			Steps:  []sim.Step{{Name: "guard", Call: call(0, 10), FanOut: 1}, {Name: "chat", Call: call(1, 50), FanOut: 1}},
			Stages: []sim.Stage{{Steps: []int{0}}, {Steps: []int{1}}},
		}}},
	}
}

// TestPipelineCandidateAddedCostInterval: a pipeline's candidates (one
// policy per step) of independent requests carry their added cost's
// interval, the paired ratio estimate over the arrival sections with no
// hedging's, as one-call candidates do. The candidate hedging the chat
// call after 1 s covers 11.496 % in ≥ 36 of 40 seeds at 4000 requests a
// candidate (a 95 % interval covers in 38 on average; 36 is two binomial
// standard deviations, √(40·0.05·0.95) ≈ 1.4, below); no hedging's is
// [0, 0]. Under -short, 10 seeds, ≥ 9 covering.
func TestPipelineCandidateAddedCostInterval(t *testing.T) {
	t.Parallel()
	want := 50 / math.E * 200 / 320
	s := optimize.DefaultSettings()
	s.Requests, s.CheckRequests = 4000, 0
	s.Search.Delays = []time.Duration{time.Second}
	seeds := uint64(40)
	if testing.Short() {
		seeds = 10
	}
	covered, half := 0, 0.0
	for seed := uint64(1); seed <= seeds; seed++ {
		rep, err := optimize.Run(guardThenChat(s.Requests, seed), s, optimize.Options{Workers: 1})
		if err != nil {
			t.Fatal(err)
		}
		cr := rep.Classes[0]
		var c *optimize.Candidate
		for i := range cr.Candidates {
			if st := cr.Candidates[i].Steps; len(st) == 2 && !st[0].Hedging && st[1].Hedging && st[1].DelaySeconds == 1 {
				c = &cr.Candidates[i]
			}
		}
		if c == nil {
			t.Fatalf("seed %d: no candidate hedging the chat call at 1 s among %d", seed, len(cr.Candidates))
		}
		ci := c.AddedCostPctCI95
		if ci == nil || ci[0] == nil || ci[1] == nil || c.AddedCostPctCIMethod != sim.CIMethodAddedCostPaired {
			t.Fatalf("seed %d: added cost %.3f%%, interval %v, method %q; want the paired one", seed, c.AddedCostPct, ci, c.AddedCostPctCIMethod)
		}
		if *ci[0] > c.AddedCostPct || *ci[1] < c.AddedCostPct {
			t.Errorf("seed %d: interval [%v, %v] leaves out its estimate %v", seed, *ci[0], *ci[1], c.AddedCostPct)
		}
		if *ci[0] <= want && want <= *ci[1] {
			covered++
		}
		half += (*ci[1] - *ci[0]) / 2 / float64(seeds)
		if b := cr.Baseline(); b.AddedCostPctCI95 == nil || *b.AddedCostPctCI95[0] != 0 || *b.AddedCostPctCI95[1] != 0 {
			t.Errorf("seed %d: no hedging's added cost interval %v, want [0, 0]", seed, b.AddedCostPctCI95)
		}
	}
	t.Logf("added cost %.3f%% covered in %d/%d seeds, mean half-width %.3f points", want, covered, seeds, half)
	if need := int(seeds) - int(seeds)/10; covered < need {
		t.Errorf("the added cost's interval covers %.3f%% in %d/%d seeds, want ≥ %d", want, covered, seeds, need)
	}
}
