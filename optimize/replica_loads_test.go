package optimize_test

import (
	"bytes"
	"math"
	"strings"
	"testing"
	"time"

	"github.com/hedgesim/hedgesim/dist"
	"github.com/hedgesim/hedgesim/optimize"
	"github.com/hedgesim/hedgesim/sim"
)

// roundRobinStraggler is one class on one model with exponential service of mean
// 1 s, served by a pool of 4 replicas of 4 slots under round robin whose
// replica 1 is 6× slower, at a provider that ignores cancels (a loser
// runs to completion), under Poisson arrivals at rate per second. Round
// robin sends each replica a quarter of the attempts whatever its queue,
// so without hedging the straggler is offered ρ₁ = (rate/4)·6/4 of its
// capacity and each other replica a sixth of that: the pool as a whole is
// offered (ρ₁ + 3ρ₁/6)/4 = 0.375·ρ₁.
func roundRobinStraggler(rate float64) *sim.Config {
	return &sim.Config{
		Name: "straggler", Seed: 5, Requests: 1000,
		Arrivals: sim.Arrivals{Process: sim.Poisson, Rate: rate},
		Models:   []sim.Model{{Name: "m", Provider: "p", Latency: dist.Exponential{Rate: 1}, PricePerRequest: 0.01}},
		Providers: []sim.Provider{{Name: "p", IgnoresCancel: true, Pool: &sim.Pool{Replicas: 4, Concurrency: 4, Balancer: sim.RoundRobin,
			Overrides: []sim.ReplicaOverride{{Replica: 1, Slowdown: 6}}}}},
		Classes: []sim.Class{{Name: "c", Share: 1, InputTokens: dist.Constant{}, OutputTokens: dist.Constant{},
			Policy: sim.Policy{CancelBilling: sim.BillFull}}},
	}
}

// TestUnstableReplicaBaselineUpFront: at 3 requests/s the straggler is
// offered ρ₁ = 1.125 while the pool as a whole is offered 42 %: the
// baseline's load names the replica, with its offered load within 8 % of
// ρ₁ (between the middle and last arrival it is sent exactly a quarter of
// 10 000 attempts and serves about 2 000 exponential calls, whose count
// and the half-run's Poisson span each vary by about 1/√2000 and 1/√10000:
// 8 % is over four standard deviations), and the report says so first,
// before the summary table.
func TestUnstableReplicaBaselineUpFront(t *testing.T) {
	s := optimize.DefaultSettings()
	s.Requests = 20_000
	s.CheckRequests = 0
	s.Search.Delays = []time.Duration{10 * time.Second}
	rep := mustRun(t, roundRobinStraggler(3), s, optimize.Options{})
	cr := &rep.Classes[0]
	l := cr.Baseline().Loads
	if len(l) != 1 || l[0].Kind != optimize.LoadQueue || l[0].Name != "provider p replica 1" || math.Abs(l[0].Offered/1.125-1) > 0.08 {
		t.Fatalf("baseline loads %+v; want provider p replica 1 offered about 112.5%%", l)
	}
	var b bytes.Buffer
	if err := rep.WriteText(&b, false); err != nil {
		t.Fatal(err)
	}
	text := b.String()
	w := strings.Index(text, "warning: c: unstable baseline: without hedging, provider p replica 1 is offered")
	if w < 0 || w > strings.Index(text, "class  ") || strings.Count(text, "unstable baseline") != 1 {
		t.Errorf("want the unstable replica once, before the summary table:\n%s", text)
	}
}

// TestUnstableReplicaCandidateNeverPicked: at 1.6 requests/s the
// straggler is offered ρ₁ = 0.6 without hedging; a copy sent at once goes
// to another replica and, cancels ignored, runs on, so round robin sends
// every replica twice the attempts: the straggler is offered 1.2 and its
// queue grows without bound while the pool as a whole is offered 45 %.
// That candidate is marked unstable on the replica and never picked; a
// copy after 30 s adds little load and stays stable.
func TestUnstableReplicaCandidateNeverPicked(t *testing.T) {
	s := optimize.DefaultSettings()
	s.Requests = 20_000
	s.CheckRequests = 0
	s.Search.Delays = []time.Duration{0, 30 * time.Second}
	s.Search.Objective.MaxAddedCostPct = 1000
	cr := &mustRun(t, roundRobinStraggler(1.6), s, optimize.Options{}).Classes[0]
	at0 := candidate(t, cr, 0, 1)
	if !at0.Unstable || len(at0.Loads) != 1 || at0.Loads[0].Name != "provider p replica 1" || at0.Loads[0].Offered < 1 || at0.Feasible || at0.Pick {
		t.Errorf("copy at once: unstable %v, loads %+v, feasible %v, pick %v; want unstable on replica 1, infeasible, not picked", at0.Unstable, at0.Loads, at0.Feasible, at0.Pick)
	}
	if late := candidate(t, cr, 30*time.Second, 1); late.Unstable || cr.Baseline().Unstable || len(cr.Baseline().Loads) != 0 {
		t.Errorf("late copy unstable %v, baseline loads %+v; want both stable", late.Unstable, cr.Baseline().Loads)
	}
	if w := strings.Join(cr.Warnings, "\n"); !strings.Contains(w, "make the queue of provider p replica 1 grow without bound") {
		t.Errorf("warnings %q; want one counting the unstable candidate", cr.Warnings)
	}
}
