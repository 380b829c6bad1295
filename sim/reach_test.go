package sim_test

import (
	"testing"
	"time"

	"github.com/hedgesim/hedgesim/dist"
	"github.com/hedgesim/hedgesim/sim"
)

// TestUnreachedPoolLeavesRequestsIndependent: a replica pool that no class
// sends to does not make the class's requests interact — the run is not
// batched, cuts no warm-up and keeps the order-statistic p95 interval, as
// the same scenario without the pool does (same figures); the class sent
// to the pool instead is batched.
func TestUnreachedPoolLeavesRequestsIndependent(t *testing.T) {
	t.Parallel()
	lat := dist.Uniform{Min: 0.5, Max: 2}
	withPool := func() *sim.Config {
		cfg := oneModel(4000, lat, 1, time.Second)
		cfg.Providers = []sim.Provider{{Name: "p"}, {Name: "pool", Pool: &sim.Pool{Replicas: 2, Concurrency: 1, Balancer: sim.PowerOfTwo}}}
		cfg.Models = append(cfg.Models, sim.Model{Name: "g", Provider: "pool", Latency: lat})
		return cfg
	}
	cfg := withPool()
	if cfg.Batched() {
		t.Fatal("a class on an unlimited provider is batched because a pool it never reaches exists")
	}
	h := mustRun(t, cfg)
	c := sim.NewReport(cfg, h, mustRun(t, sim.WithoutHedging(cfg))).Classes[0]
	if c.WarmUp != nil || c.Batches != nil || c.Latency.CIs == nil || c.Latency.CIs.Method != sim.CIMethodOrder {
		t.Fatalf("unreached pool: warm-up %+v, intervals %+v; want no cut and the order-statistic method", c.WarmUp, c.Latency.CIs)
	}
	plain := oneModel(4000, lat, 1, time.Second)
	p := sim.NewReport(plain, mustRun(t, plain), mustRun(t, sim.WithoutHedging(plain))).Classes[0]
	if c.Requests != p.Requests || c.Latency.P95 != p.Latency.P95 || c.Latency.P95CI95 != p.Latency.P95CI95 {
		t.Errorf("with an unreached pool: %d requests, p95 %v %v; without the pool: %d, %v %v",
			c.Requests, c.Latency.P95, c.Latency.P95CI95, p.Requests, p.Latency.P95, p.Latency.P95CI95)
	}

	reached := withPool()
	reached.Classes[0].Policy.Primary = 1
	if !reached.Batched() {
		t.Error("a class whose primary is on the pool is not batched")
	}
}

// TestViewUnderRandomChangesNothing: a pool under the random balancer
// simulates the same with a view (refreshed every 2 s) as without one —
// random reads no replica load — and each class sending to it is warned.
func TestViewUnderRandomChangesNothing(t *testing.T) {
	t.Parallel()
	plain := poolConfig(3000, 3, 1, 4, sim.RandomBalancer)
	viewed := poolConfig(3000, 3, 1, 4, sim.RandomBalancer)
	viewed.Providers[0].Pool.View = &sim.View{Refresh: 2 * time.Second, Scrape: true, Jitter: 0.25}
	a, b := mustRun(t, plain), mustRun(t, viewed)
	la, lb := a.Classes[0].Latencies(), b.Classes[0].Latencies()
	if len(la) != len(lb) {
		t.Fatalf("%d latencies with a view, %d without", len(lb), len(la))
	}
	for i := range la {
		if la[i] != lb[i] {
			t.Fatalf("latency %d: %v with a view, %v without", i, lb[i], la[i])
		}
	}
	ws := sim.ConfigWarnings(viewed)
	if len(ws) != 1 || ws[0].Field != "view_refresh" || ws[0].Provider != 1 {
		t.Errorf("warnings %+v; want one at the pool's view_refresh", ws)
	}
	if ws := sim.ConfigWarnings(plain); len(ws) != 0 {
		t.Errorf("without a view: warnings %+v", ws)
	}
}
