package sim_test

import (
	"context"
	"math/rand/v2"
	"reflect"
	"testing"
	"time"

	"github.com/hedgesim/hedgesim/dist"
	"github.com/hedgesim/hedgesim/scenario"
	"github.com/hedgesim/hedgesim/scenarios"
	"github.com/hedgesim/hedgesim/sim"
)

// variants returns policies a delay sweep of class c of cfg would try: its
// own, none, and its delays, copies and targets changed.
func variants(cfg *sim.Config, c int) []sim.Policy {
	p := cfg.Classes[c].Policy
	var out []sim.Policy
	add := func(f func(q *sim.Policy)) {
		q := p
		q.Delays = append([]time.Duration(nil), p.Delays...)
		q.Targets = append([]int(nil), p.Targets...)
		f(&q)
		out = append(out, q)
	}
	add(func(q *sim.Policy) {})
	add(sim.NoHedging)
	for _, d := range []time.Duration{0, 7 * time.Millisecond, 150 * time.Millisecond, 400 * time.Millisecond, time.Second, 2500 * time.Millisecond} {
		add(func(q *sim.Policy) {
			q.Copies = max(q.Copies, 1)
			q.Delays = []time.Duration{d}
		})
	}
	add(func(q *sim.Policy) {
		q.Copies = 2
		q.Delays = []time.Duration{300 * time.Millisecond}
	})
	add(func(q *sim.Policy) {
		q.Copies = 1
		q.Delays = []time.Duration{200 * time.Millisecond}
		q.Targets = []int{q.Primary}
	})
	return out
}

// TestRunPoliciesMatchesRun: on every shipped scenario and every class,
// each result of RunPolicies over a sweep of policies equals, field for
// field, the result of running that policy alone — whether the runs share
// their draws on the lane or are made one after another.
func TestRunPoliciesMatchesRun(t *testing.T) {
	t.Parallel()
	shared := 0
	cfgs := shippedConfigs(t)
	for _, cp := range cfgs {
		if sim.LaneOK(cp) {
			shared++
		}
	}
	if shared < 2 {
		t.Fatalf("only %d shipped scenarios take the lane; the shared draws are checked too little", shared)
	}
	for _, cp := range cfgs {
		t.Run(cp.Name, func(t *testing.T) {
			t.Parallel() // each scenario on its own copy of the configuration
			cfg, name := *cp, cp.Name
			for c := range cfg.Classes {
				pols := variants(&cfg, c)
				var valid []sim.Policy
				for _, p := range pols {
					one := cfg
					one.Classes = append([]sim.Class(nil), cfg.Classes...)
					one.Classes[c].Policy = p
					if one.Validate() == nil {
						valid = append(valid, p)
					}
				}
				got, err := sim.RunPolicies(context.Background(), &cfg, c, valid)
				if err != nil {
					t.Fatalf("%s class %d: %v", name, c, err)
				}
				for i, p := range valid {
					one := cfg
					one.Classes = append([]sim.Class(nil), cfg.Classes...)
					one.Classes[c].Policy = p
					if want := mustRun(t, &one); !reflect.DeepEqual(got[i], want) {
						t.Errorf("%s class %d policy %d (%+v): RunPolicies and Run differ:\n%+v\n%+v", name, c, i, p, got[i].Overall, want.Overall)
					}
				}
			}
		})
	}
}

// TestRunPoliciesOnRandomPolicies: on random independent configurations
// with latencies on a coarse grid (many ties), errors, invalid answers,
// streamed models with prefill, and random policies for one class — every
// winner and error rule, fallbacks, zero gaps, "a new provider" targets —
// RunPolicies gives each policy exactly its own run's result.
func TestRunPoliciesOnRandomPolicies(t *testing.T) {
	rng := rand.New(rand.NewPCG(5, 6))
	grid := func() dist.Continuous { return tieGrid(t, rng) }
	gaps := []time.Duration{0, 50 * time.Millisecond, 100 * time.Millisecond, -1}
	policy := func() sim.Policy {
		return sim.Policy{
			Primary: rng.IntN(3), Targets: []int{rng.IntN(3), rng.IntN(3)}, NewProvider: rng.IntN(3) == 0,
			Copies: rng.IntN(4), Delays: []time.Duration{gaps[rng.IntN(len(gaps))], gaps[rng.IntN(len(gaps))]},
			Winner:  sim.WinnerRule(rng.IntN(3)),
			OnError: sim.ErrorRule(rng.IntN(3)), OnInvalid: sim.ErrorRule(rng.IntN(3)),
			CancelLatency: []time.Duration{0, 50 * time.Millisecond}[rng.IntN(2)],
			CancelBilling: sim.Billing(rng.IntN(4)),
		}
	}
	n := 60
	if testing.Short() {
		n = 15
	}
	for i := range n {
		cfg := &sim.Config{
			Name: "random", Seed: uint64(i), Requests: 1500,
			Arrivals: sim.Arrivals{Process: sim.Poisson, Rate: 100},
		}
		for m := range 3 {
			md := sim.Model{Name: string(rune('a' + m)), Provider: []string{"pa", "pb", "pc"}[m],
				ErrorRate: []float64{0, 0.1, 0.4}[rng.IntN(3)], InvalidRate: []float64{0, 0.1, 0.3}[rng.IntN(3)],
				PriceInputPerMTok: 1, PriceOutputPerMTok: 3}
			if rng.IntN(2) == 0 {
				md.Latency = grid()
			} else {
				md.TTFT = grid()
				md.TokensPerSecond = dist.Constant{Value: []float64{100, 500}[rng.IntN(2)]}
				if rng.IntN(2) == 0 {
					md.PrefillTokensPerSecond = dist.Constant{Value: 2000}
				}
			}
			if rng.IntN(2) == 0 {
				md.ErrorLatency = dist.Uniform{Min: 0, Max: 0.1}
			}
			cfg.Models = append(cfg.Models, md)
		}
		for c := range 2 {
			cfg.Classes = append(cfg.Classes, sim.Class{
				Name: string(rune('x' + c)), Share: 0.5, Policy: policy(),
				InputTokens: dist.Constant{Value: 100}, OutputTokens: dist.Uniform{Min: 10, Max: 60},
				Deadline:  []time.Duration{0, 150 * time.Millisecond, 300 * time.Millisecond}[rng.IntN(3)],
				OnTimeout: sim.TimeoutRule(rng.IntN(2)),
			})
		}
		if err := cfg.Validate(); err != nil {
			t.Fatalf("config %d: %v", i, err)
		}
		if !sim.LaneOK(cfg) {
			t.Fatalf("config %d does not take the lane", i)
		}
		c := rng.IntN(2)
		pols := []sim.Policy{policy(), policy(), policy(), policy()}
		got, err := sim.RunPolicies(context.Background(), cfg, c, pols)
		if err != nil {
			t.Fatalf("config %d: %v", i, err)
		}
		for j, p := range pols {
			one := *cfg
			one.Classes = append([]sim.Class(nil), cfg.Classes...)
			one.Classes[c].Policy = p
			if want := mustRun(t, &one); !reflect.DeepEqual(got[j], want) {
				t.Fatalf("config %d policy %d (%+v): RunPolicies and Run differ:\n%+v\n%+v", i, j, p, got[j].Overall, want.Overall)
			}
		}
	}
}

// TestRunPoliciesErrors: an invalid policy is refused with the
// configuration error and no result, and a cancelled context stops the run.
func TestRunPoliciesErrors(t *testing.T) {
	s, err := scenario.LoadFS(scenarios.FS, "guard-check.toml")
	if err != nil {
		t.Fatal(err)
	}
	bad := s.Config.Classes[0].Policy
	bad.Copies = sim.MaxCopies + 1
	if res, err := sim.RunPolicies(context.Background(), &s.Config, 0, []sim.Policy{s.Config.Classes[0].Policy, bad}); err == nil || res != nil {
		t.Errorf("an invalid policy gave %v, %v; want an error and no result", res, err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	if res, err := sim.RunPolicies(ctx, &s.Config, 0, []sim.Policy{s.Config.Classes[0].Policy}); err != context.Canceled || res != nil {
		t.Errorf("a cancelled context gave %v, %v; want context.Canceled", res, err)
	}
}
