package optimize_test

import (
	"strings"
	"testing"
	"time"

	"github.com/hedgesim/hedgesim/dist"
	"github.com/hedgesim/hedgesim/optimize"
	"github.com/hedgesim/hedgesim/sim"
)

// TestClassBesidePoolSweptIndependent: a class on an unlimited provider,
// swept alone beside a class on a replica pool it never reaches, gets the
// independent requests' intervals (Wilson's for its answered share), no
// warm-up cut in its quantile rule, and the same candidates' figures as
// in the scenario without the pool; at 500 requests — enough for an
// order-statistic p95 interval, far from the 6000 a batched one needs —
// its verdict is decided, where the pool made it undecided.
func TestClassBesidePoolSweptIndependent(t *testing.T) {
	t.Parallel()
	mk := func(pool bool) *sim.Config {
		cfg := independentCopyAfter1s(500, 3)
		cfg.Arrivals.Rate = 25 // the class's rate either way: 50 × its share 0.5 beside the pool
		if pool {
			cfg.Arrivals.Rate = 50
			cfg.Classes[0].Share = 0.5
			cfg.Providers = []sim.Provider{{Name: "p"}, {Name: "gpu", Pool: &sim.Pool{Replicas: 2, Concurrency: 1, Balancer: sim.PowerOfTwo}}}
			cfg.Models = append(cfg.Models, sim.Model{Name: "g", Provider: "gpu", Latency: dist.Exponential{Rate: 10}})
			cfg.Classes = append(cfg.Classes, sim.Class{Name: "pooled", Share: 0.5, InputTokens: dist.Constant{Value: 100}, OutputTokens: dist.Constant{Value: 50},
				Policy: sim.Policy{Primary: 1}})
		}
		return cfg
	}
	s := optimize.DefaultSettings()
	s.Requests, s.CheckRequests = 500, 0
	s.Only = []string{"c"}
	s.Search.Delays = []time.Duration{500 * time.Millisecond, time.Second}
	with, err := optimize.Run(mk(true), s, optimize.Options{Workers: 1})
	if err != nil {
		t.Fatal(err)
	}
	without, err := optimize.Run(mk(false), s, optimize.Options{Workers: 1})
	if err != nil {
		t.Fatal(err)
	}
	if strings.Contains(with.QuantileRule, "warm-up cut") {
		t.Errorf("quantile rule %q speaks of a warm-up cut", with.QuantileRule)
	}
	a, b := with.Classes[0], without.Classes[0]
	if a.Verdict.Undecided || a.Verdict.Label != b.Verdict.Label {
		t.Errorf("verdict beside the pool %+v; without it %+v", a.Verdict, b.Verdict)
	}
	if len(a.Candidates) != len(b.Candidates) {
		t.Fatalf("%d candidates beside the pool, %d without", len(a.Candidates), len(b.Candidates))
	}
	for i := range a.Candidates {
		x, y := a.Candidates[i], b.Candidates[i]
		if x.CIMethod != y.CIMethod || x.Latency.P95 != y.Latency.P95 || x.Latency.P95CI95 != y.Latency.P95CI95 || !strings.Contains(x.CIMethod, "Wilson") {
			t.Errorf("candidate %d: beside the pool %s p95 %v %v; without %s p95 %v %v", i, x.CIMethod, x.Latency.P95, x.Latency.P95CI95, y.CIMethod, y.Latency.P95, y.Latency.P95CI95)
		}
	}
}
