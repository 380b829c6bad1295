package sim_test

import (
	"context"
	"reflect"
	"testing"
	"time"

	"github.com/hedgesim/hedgesim/dist"
	"github.com/hedgesim/hedgesim/scenario"
	"github.com/hedgesim/hedgesim/scenarios"
	"github.com/hedgesim/hedgesim/sim"
)

// TestSplitIsIdentical: RunSplit gives exactly Run's result for 1 to 5
// workers — on every shipped scenario (split where the lane applies, on one
// goroutine elsewhere), hedged and without hedging, and on constant
// arrivals and a request count no worker count divides. Under -short the
// shipped scenarios run 5 000 requests instead of up to 20 000 (1 000 for
// one whose pools autoscale: see shippedConfigs).
func TestSplitIsIdentical(t *testing.T) {
	t.Parallel()
	var cfgs []*sim.Config
	for _, name := range scenarios.Names() {
		s, err := scenario.LoadFS(scenarios.FS, name)
		if err != nil {
			t.Fatal(err)
		}
		cfg := s.Config
		cfg.Requests = min(cfg.Requests, 20_000)
		if testing.Short() {
			cfg.Requests = min(cfg.Requests, 5_000)
			if autoscales(&cfg) {
				cfg.Requests = min(cfg.Requests, 1_000)
			}
		}
		cfgs = append(cfgs, &cfg, sim.WithoutHedging(&cfg))
	}
	c := oneModel(10_007, dist.Uniform{Min: 0.1, Max: 0.5}, 2, 200*time.Millisecond)
	c.Arrivals = sim.Arrivals{Process: sim.Constant, Rate: 30}
	cfgs = append(cfgs, c)
	for _, cfg := range cfgs {
		want := mustRun(t, cfg)
		for w := 1; w <= 5; w++ {
			got, err := sim.RunSplit(context.Background(), cfg, w)
			if err != nil {
				t.Fatal(err)
			}
			if !reflect.DeepEqual(sim.Canonical(got), sim.Canonical(want)) {
				t.Fatalf("%s (%d requests), %d workers: result differs from Run:\n%+v\n%+v", cfg.Name, cfg.Requests, w, got.Overall.Attempts, want.Overall.Attempts)
			}
		}
	}
}

// TestRunWithBaselineMatchesRun: on every shipped scenario, a Poisson
// configuration and one with constant arrivals, RunWithBaseline on 1 to 3
// workers gives exactly the results of Run on the configuration and on
// its no-hedging baseline — whether the two share their draws on the lane
// or run apart.
func TestRunWithBaselineMatchesRun(t *testing.T) {
	t.Parallel()
	var cfgs []*sim.Config
	together := 0
	for _, cfg := range shippedConfigs(t) {
		cfgs = append(cfgs, cfg)
		if sim.LaneOK(cfg) {
			together++
		}
	}
	c := oneModel(10_007, dist.Uniform{Min: 0.1, Max: 0.5}, 2, 200*time.Millisecond)
	c.Arrivals = sim.Arrivals{Process: sim.Constant, Rate: 30}
	cfgs = append(cfgs, c, oneModel(10_007, dist.Uniform{Min: 0.1, Max: 0.5}, 2, 200*time.Millisecond))
	if together < 3 {
		t.Fatalf("only %d shipped scenarios take the lane; the shared draws are checked too little", together)
	}
	for _, cfg := range cfgs {
		want, wantBase := mustRun(t, cfg), mustRun(t, sim.WithoutHedging(cfg))
		for w := 1; w <= 3; w++ {
			got, base, err := sim.RunWithBaseline(context.Background(), cfg, w)
			if err != nil {
				t.Fatal(err)
			}
			if !reflect.DeepEqual(sim.Canonical(got), sim.Canonical(want)) {
				t.Errorf("%s, %d workers: hedged result differs from Run:\n%+v\n%+v", cfg.Name, w, got.Overall.Attempts, want.Overall.Attempts)
			}
			if !reflect.DeepEqual(sim.Canonical(base), sim.Canonical(wantBase)) {
				t.Errorf("%s, %d workers: baseline differs from Run:\n%+v\n%+v", cfg.Name, w, base.Overall.Attempts, wantBase.Overall.Attempts)
			}
		}
	}
}
