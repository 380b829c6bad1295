package optimize_test

import (
	"strings"
	"testing"
	"time"

	"github.com/hedgesim/hedgesim/dist"
	"github.com/hedgesim/hedgesim/optimize"
	"github.com/hedgesim/hedgesim/sim"
)

// TestPickBreakerHiddenWarning: model a fails every call after 3 s (an
// outage) and has a breaker that opens after 5 consecutive failures; a
// copy to b answers in 100 ms. The only hedge tried, at 1 s, is picked
// (every request answered at 1.1 s, where without hedging every one
// fails), and in its run every one of the 1000 primaries is cancelled at
// 1.1 s before its failure comes back: the class's warnings say so for
// the pick. Without the breaker there is no such warning.
func TestPickBreakerHiddenWarning(t *testing.T) {
	s := optimize.DefaultSettings()
	s.Requests, s.CheckRequests = 1000, 0
	s.Search.Delays = []time.Duration{time.Second}
	for _, breaker := range []bool{true, false} {
		cfg := &sim.Config{
			Name: "outage", Seed: 1, Requests: 1000,
			Arrivals: sim.Arrivals{Process: sim.Poisson, Rate: 10},
			Models: []sim.Model{
				{Name: "a", Provider: "pa", Latency: dist.Constant{Value: 1}, ErrorRate: 1, ErrorLatency: dist.Constant{Value: 3}},
				{Name: "b", Provider: "pb", Latency: dist.Constant{Value: 0.1}},
			},
			Classes: []sim.Class{{Name: "c", Share: 1, InputTokens: dist.Constant{}, OutputTokens: dist.Constant{},
				Policy: sim.Policy{Primary: 0, Targets: []int{1}, Copies: 1, Delays: []time.Duration{time.Second}, OnError: sim.NonFatal}}},
		}
		if breaker {
			cfg.Models[0].Breaker = &sim.Breaker{Failures: 5, Cooldown: 10 * time.Second, Probes: 1}
		}
		rep, err := optimize.Run(cfg, s, optimize.Options{Workers: 1})
		if err != nil {
			t.Fatal(err)
		}
		cr := rep.Classes[0]
		if p := cr.Candidates[cr.Pick]; !p.Hedging || p.DelaySeconds != 1 {
			t.Fatalf("breaker %v: pick %+v; want the hedge at 1s", breaker, p)
		}
		var got []string
		for _, w := range cr.Warnings {
			if strings.Contains(w, "were cancelled before their failure came back") {
				got = append(got, w)
			}
		}
		want := "with the pick (" + cr.Candidates[cr.Pick].Label + "), the breaker on model a: 1000 calls that were going to fail were cancelled before their failure came back"
		switch {
		case breaker && (len(got) != 1 || !strings.HasPrefix(got[0], want)):
			t.Errorf("with a breaker: warnings %q; want one starting %q", got, want)
		case !breaker && len(got) != 0:
			t.Errorf("without a breaker: warnings %q; want none", got)
		}
	}
}

// TestPipelinePickBreakerHiddenWarning: a pipeline class's pick carries
// its run's breaker warning too. After a first step that calls b (100
// ms), the second calls model a, which fails every call after 3 s and has
// a breaker (5 consecutive failures open it), with a copy to b at 1 s,
// the only delay tried: the pick hedges that step, and in its run every
// one of the 1000 calls to a is cancelled at 1.1 s before its failure
// comes back.
func TestPipelinePickBreakerHiddenWarning(t *testing.T) {
	s := optimize.DefaultSettings()
	s.Requests, s.CheckRequests = 1000, 0
	s.Search.Delays = []time.Duration{time.Second}
	call := sim.Class{InputTokens: dist.Constant{}, OutputTokens: dist.Constant{},
		Policy: sim.Policy{Primary: 0, Targets: []int{1}, Copies: 1, Delays: []time.Duration{time.Second}, OnError: sim.NonFatal}}
	first := sim.Class{InputTokens: dist.Constant{}, OutputTokens: dist.Constant{}, Policy: sim.Policy{Primary: 1}}
	cfg := &sim.Config{
		Name: "outage", Seed: 1, Requests: 1000,
		Arrivals: sim.Arrivals{Process: sim.Poisson, Rate: 10},
		Models: []sim.Model{
			{Name: "a", Provider: "pa", Latency: dist.Constant{Value: 1}, ErrorRate: 1, ErrorLatency: dist.Constant{Value: 3},
				Breaker: &sim.Breaker{Failures: 5, Cooldown: 10 * time.Second, Probes: 1}},
			{Name: "b", Provider: "pb", Latency: dist.Constant{Value: 0.1}},
		},
		Classes: []sim.Class{{Name: "p", Share: 1, Pipeline: &sim.Pipeline{
			Steps:  []sim.Step{{Name: "one", Call: first, FanOut: 1}, {Name: "two", Call: call, FanOut: 1}},
			Stages: []sim.Stage{{Steps: []int{0}}, {Steps: []int{1}}},
		}}},
	}
	rep, err := optimize.Run(cfg, s, optimize.Options{Workers: 1})
	if err != nil {
		t.Fatal(err)
	}
	cr := rep.Classes[0]
	p := cr.Picked()
	if !p.Hedging {
		t.Fatalf("pick %s; want it to hedge", p.Label)
	}
	want := "with the pick (" + p.Label + "), the breaker on model a: 1000 calls that were going to fail were cancelled before their failure came back (another call answered first)"
	n := 0
	for _, w := range cr.Warnings {
		if strings.Contains(w, "were cancelled before their failure came back") {
			n++
			if !strings.HasPrefix(w, want) {
				t.Errorf("warning %q; want it to start %q", w, want)
			}
		}
	}
	if n != 1 {
		t.Errorf("%d breaker warnings in %q; want 1", n, cr.Warnings)
	}
}
