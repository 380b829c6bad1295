package sim_test

import (
	"context"
	"reflect"
	"slices"
	"testing"
	"time"

	"github.com/hedgesim/hedgesim/scenario"
	"github.com/hedgesim/hedgesim/scenarios"
	"github.com/hedgesim/hedgesim/sim"
)

// TestRunPoliciesEachMatchesRun: on every shipped scenario and every
// class, RunPoliciesEach gives each policy of a batch (the configured
// one, no hedging, six hedge delays, two copies, a copy to the primary's
// model) exactly its own run's result, in the batch's order and reversed,
// so that the draws shared on the event loop are kept by one policy and
// taken by another both ways. Every shipped scenario off the lane is
// checked (pools, queues, rate limits, retries, breakers, stalls,
// failures by kind, and, but for -short, closed loops and pipelines,
// where nothing is shared).
func TestRunPoliciesEachMatchesRun(t *testing.T) {
	t.Parallel()
	cfgs := shippedConfigs(t)
	shared := 0
	for _, cp := range cfgs {
		// Exactness does not depend on the sample size: 5 000 requests
		// (1 000 under -short) meet every queue, limit and pool state.
		cp.Requests = min(cp.Requests, 5_000)
		if testing.Short() {
			cp.Requests = min(cp.Requests, 1_000)
		}
		if sim.SharesDraws(cp) {
			shared++
		}
	}
	if shared < 5 {
		t.Fatalf("only %d shipped scenarios share draws on the event loop; the shared draws are checked too little", shared)
	}
	for _, cp := range cfgs {
		if sim.LaneOK(cp) || testing.Short() && !sim.SharesDraws(cp) {
			continue // under -short, only the scenarios that share draws
		}
		t.Run(cp.Name, func(t *testing.T) {
			t.Parallel() // each scenario on its own copy of the configuration
			cfg, name := *cp, cp.Name
			for c := range cfg.Classes {
				pols := variants(&cfg, c)
				want := make([]*sim.Result, len(pols))
				for i, p := range pols {
					one := cfg
					one.Classes = append([]sim.Class(nil), cfg.Classes...)
					one.Classes[c].Policy = p
					if one.Validate() == nil {
						want[i] = mustRun(t, &one)
					}
				}
				for _, reversed := range []bool{false, true} {
					order := slices.Clone(pols)
					if reversed {
						slices.Reverse(order)
					}
					seen := 0
					err := sim.RunPoliciesEach(context.Background(), &cfg, c, order, func(i int, got *sim.Result, err error) error {
						if i != seen {
							t.Fatalf("%s class %d: result %d came as %d", name, c, i, seen)
						}
						seen++
						j := i
						if reversed {
							j = len(pols) - 1 - i
						}
						switch {
						case want[j] == nil && err == nil:
							t.Errorf("%s class %d policy %d: RunPoliciesEach ran a policy Validate refuses", name, c, j)
						case want[j] != nil && err != nil:
							t.Errorf("%s class %d policy %d: %v", name, c, j, err)
						case want[j] != nil && !reflect.DeepEqual(got, want[j]):
							t.Errorf("%s class %d policy %d (%+v, reversed %v): RunPoliciesEach and Run differ:\n%+v\n%+v",
								name, c, j, pols[j], reversed, got.Overall, want[j].Overall)
						}
						return nil
					})
					if err != nil {
						t.Fatalf("%s class %d: %v", name, c, err)
					}
					if seen != len(pols) {
						t.Fatalf("%s class %d: %d results of %d", name, c, seen, len(pols))
					}
				}
			}
		})
	}
}

// BenchmarkRunPoliciesEachPool runs 12 hedge delays (0.5 s to 6 s, one
// copy to another replica) of the class "random" of the shipped
// replica-pool scenario, 2·10⁴ requests each, on the event loop: together
// in one RunPoliciesEach call, which shares their draws, or apart, one
// call per delay, which shares none.
func BenchmarkRunPoliciesEachPool(b *testing.B) {
	s, err := scenario.LoadFS(scenarios.FS, "replica-pool.toml")
	if err != nil {
		b.Fatal(err)
	}
	cfg := s.Config
	cfg.Requests = 20_000
	var pols []sim.Policy
	for i := range 12 {
		p := cfg.Classes[0].Policy
		p.Copies = 1
		p.Delays = []time.Duration{time.Duration(500+500*i) * time.Millisecond}
		pols = append(pols, p)
	}
	count := func(int, *sim.Result, error) error { return nil }
	b.Run("together", func(b *testing.B) {
		for b.Loop() {
			if err := sim.RunPoliciesEach(context.Background(), &cfg, 0, pols, count); err != nil {
				b.Fatal(err)
			}
		}
	})
	b.Run("apart", func(b *testing.B) {
		for b.Loop() {
			for _, p := range pols {
				if err := sim.RunPoliciesEach(context.Background(), &cfg, 0, []sim.Policy{p}, count); err != nil {
					b.Fatal(err)
				}
			}
		}
	})
}
