package sim_test

import (
	"math"
	"testing"
	"time"

	"github.com/hedgesim/hedgesim/dist"
	"github.com/hedgesim/hedgesim/sim"
)

// TestBreakerStopsPayingErrorLatency: one closed-loop client (no think
// time) calls model "a", which fails every call after 2 s; under a
// nonfatal rule the copy goes at once to "b", which answers in 500 ms.
// Without a breaker every request pays the error latency: 2.5 s each. A
// breaker on a (3 consecutive failures, 10 s cool-down, 1 probe) opens at
// t = 7 s after requests 1–3 (2.5 s each); while open, a's calls fail at
// once and requests take 0.5 s: 19 of them fit in 7.5 … 17 s; the 20th
// call, at 17 s, is the half-open probe, fails at 19 s and opens it again.
// So after the first 3, every cycle of 20 requests has 19 fast and one
// slow: of 403 requests, 23 pay 2.5 s, 380 take 0.5 s; the breaker opens
// 21 times and fails 380 calls at once.
func TestBreakerStopsPayingErrorLatency(t *testing.T) {
	cfg := &sim.Config{
		Name: "breaker", Seed: 1, Requests: 403,
		Models: []sim.Model{
			{Name: "a", Provider: "pa", Latency: dist.Constant{Value: 1}, ErrorRate: 1, ErrorLatency: dist.Constant{Value: 2}},
			{Name: "b", Provider: "pb", Latency: dist.Constant{Value: 0.5}},
		},
		Classes: []sim.Class{{Name: "c", Clients: 1, InputTokens: dist.Constant{}, OutputTokens: dist.Constant{},
			Policy: sim.Policy{Primary: 0, Targets: []int{1}, Copies: 1, Delays: []time.Duration{-1}, OnError: sim.NonFatal}}},
	}
	count := func(res *sim.Result) (slow, fast int) {
		for _, x := range res.Classes[0].Latencies() {
			switch {
			case math.Abs(x-2.5) < 1e-9:
				slow++
			case math.Abs(x-0.5) < 1e-9:
				fast++
			}
		}
		return slow, fast
	}
	res := mustRun(t, cfg)
	checkLittle(t, res, 0)
	if slow, fast := count(res); slow != 403 || fast != 0 {
		t.Errorf("without a breaker: %d requests at 2.5 s, %d at 0.5 s; want 403, 0", slow, fast)
	}
	cfg.Models[0].Breaker = &sim.Breaker{Failures: 3, Cooldown: 10 * time.Second, Probes: 1}
	res = mustRun(t, cfg)
	checkLittle(t, res, 0)
	if slow, fast := count(res); slow != 23 || fast != 380 {
		t.Errorf("with a breaker: %d requests at 2.5 s, %d at 0.5 s; want 23, 380", slow, fast)
	}
	if len(res.Breakers) != 1 {
		t.Fatalf("breaker results %+v; want one", res.Breakers)
	}
	b := res.Breakers[0]
	// The last open starts when the last request's probe fails, 500 ms
	// before the run ends: 20 full cool-downs and 0.5 s of the last.
	if b.Opens != 21 || b.Rejected != 380 || math.Abs(b.OpenSeconds-200.5) > 1e-9 {
		t.Errorf("breaker: %+v; want 21 opens, 380 calls failed at once, 200.5 s open", b)
	}
}

// TestBreakerHalfOpenProbeCancelled: a probe whose request is answered
// by another attempt and cancelled frees its place, so the breaker does
// not stay half-open for ever.
func TestBreakerHalfOpenProbeCancelled(t *testing.T) {
	cfg := &sim.Config{
		Name: "probe", Seed: 1, Requests: 2000,
		Arrivals: sim.Arrivals{Process: sim.Poisson, Rate: 20},
		Models: []sim.Model{
			{Name: "a", Provider: "pa", Latency: dist.Exponential{Rate: 1}, ErrorRate: 0.5, ErrorLatency: dist.Constant{Value: 0.05}},
			{Name: "b", Provider: "pb", Latency: dist.Constant{Value: 0.2}},
		},
		Classes: []sim.Class{{Name: "c", Share: 1, InputTokens: dist.Constant{}, OutputTokens: dist.Constant{},
			Policy: sim.Policy{Primary: 0, Targets: []int{1}, Copies: 1, Delays: []time.Duration{100 * time.Millisecond}, OnError: sim.NonFatal}}},
	}
	cfg.Models[0].Breaker = &sim.Breaker{Failures: 2, Cooldown: time.Second, Probes: 1}
	res := mustRun(t, cfg)
	b := res.Breakers[0]
	// Half the calls fail: the breaker opens often, and keeps closing
	// again (a failure needs a call that got through): more than one
	// open shows it left half-open.
	if b.Opens < 10 || b.Rejected == 0 || b.Rejected >= res.Providers[0].Sent {
		t.Errorf("breaker %+v over %d calls: want it to open, reject and close again", b, res.Providers[0].Sent)
	}
}
