package optimize_test

import (
	"bytes"
	"encoding/json"
	"math"
	"strings"
	"testing"
	"time"

	"github.com/hedgesim/hedgesim/dist"
	"github.com/hedgesim/hedgesim/optimize"
	"github.com/hedgesim/hedgesim/sim"
)

// stragglerPool is one class on a pool of 8 replicas with 4 slots each,
// one 5× slower, behind the given balancer, at 4 requests per second.
func stragglerPool(b sim.Balancer) *sim.Config {
	cfg := lognormalConfig()
	cfg.Arrivals.Rate = 4
	cfg.Models[0].Latency = dist.LogNormal{Mu: 0, Sigma: math.Log(2) / 1.6449} // median 1 s, p95 2 s
	cfg.Providers = []sim.Provider{{Name: "p", Pool: &sim.Pool{Replicas: 8, Concurrency: 4, Balancer: b, Decay: 0.9,
		Overrides: []sim.ReplicaOverride{{Replica: 3, Slowdown: 5}}}}}
	cfg.Classes[0].Deadline = 30 * time.Second
	return cfg
}

// TestRoutingComparesBalancers: with a 5× straggler behind random routing,
// the sweep under latency_ewma finds that it needs no copy: without
// hedging its p95 is about the model's 2 s, far below random routing's
// best pick, at no added cost; the report says so, in JSON and in text.
// Without balancers to compare there is no routing section.
func TestRoutingComparesBalancers(t *testing.T) {
	if testing.Short() {
		t.Skip("three 20 000-request sweeps of a pool: not in -short (TestRoutingDoesNotDependOnWorkers compares balancers there)")
	}
	s := optimize.DefaultSettings()
	s.Requests, s.CheckRequests = 20_000, 0
	s.Search.Objective.MaxAddedCostPct = math.Inf(1)
	s.Balancers = []sim.Balancer{sim.LatencyEWMA, sim.RandomBalancer}
	rep, err := optimize.Run(stragglerPool(sim.RandomBalancer), s, optimize.Options{})
	if err != nil {
		t.Fatal(err)
	}
	rt := rep.Routing
	if rt == nil || len(rt.Classes) != 1 {
		t.Fatalf("routing %+v: want one class", rt)
	}
	rc := rt.Classes[0]
	var conf, ewma *optimize.RoutingOption
	for i := range rc.Options {
		o := &rc.Options[i]
		switch {
		case o.Configured && o.Balancer != "random":
			t.Errorf("configured option under %q, want random", o.Balancer)
		case o.Configured:
			conf = o // the pick, after no hedging
		case o.Balancer == "random":
			t.Error("random compared again with itself")
		case o.Balancer == "latency_ewma" && !o.Hedged:
			ewma = o
		}
	}
	if conf == nil || ewma == nil || !conf.Hedged {
		t.Fatalf("options %+v: want random's hedged pick and latency_ewma without hedging", rc.Options)
	}
	if ewma.AddedCostPct != 0 || !(ewma.Latency < 2.2) || !(ewma.CI[1] < conf.CI[0]) {
		t.Errorf("latency_ewma without hedging: p95 %v [%v], %+.1f%% cost; random's pick %v [%v]", ewma.Latency, ewma.CI, ewma.AddedCostPct, conf.Latency, conf.CI)
	}
	if !strings.HasPrefix(rc.Verdict, "latency_ewma without hedging beats random with hedging") {
		t.Errorf("verdict %q", rc.Verdict)
	}
	var text bytes.Buffer
	if err := rep.WriteText(&text, false); err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(text.String(), "routing: every replica pool set to each of latency_ewma, random") || !strings.Contains(text.String(), "random (configured)") {
		t.Errorf("text report:\n%s", text.String())
	}
	var js bytes.Buffer
	if err := rep.WriteJSON(&js); err != nil {
		t.Fatal(err)
	}
	var back struct {
		Routing *optimize.Routing `json:"routing"`
	}
	if err := json.Unmarshal(js.Bytes(), &back); err != nil || back.Routing == nil || back.Routing.Classes[0].Verdict != rc.Verdict {
		t.Errorf("routing in JSON: %v, %+v", err, back.Routing)
	}

	s.Balancers = nil
	rep, err = optimize.Run(stragglerPool(sim.RandomBalancer), s, optimize.Options{})
	if err != nil {
		t.Fatal(err)
	}
	js.Reset()
	if err := rep.WriteJSON(&js); err != nil || rep.Routing != nil || strings.Contains(js.String(), `"routing"`) {
		t.Errorf("routing without balancers to compare: %v %+v", err, rep.Routing)
	}
	s.Balancers = []sim.Balancer{sim.PowerOfTwo}
	if _, err := optimize.Run(lognormalConfig(), s, optimize.Options{}); err == nil || !strings.Contains(err.Error(), "no replica pool") {
		t.Errorf("balancers on a scenario without a pool: %v", err)
	}
}
