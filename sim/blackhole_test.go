package sim_test

import (
	"math"
	"testing"
	"time"

	"github.com/hedgesim/hedgesim/dist"
	"github.com/hedgesim/hedgesim/sim"
)

// blackHole is n requests from `clients` closed-loop clients (think time
// 200 ms) whose primary goes to a provider that never answers (a constant
// latency of 10⁶ s); copies go to two healthy providers (300 ms and
// 400 ms, constant), each to a provider not tried yet; deadline 10 s.
func blackHole(n, clients int, p sim.Policy) *sim.Config {
	p.Primary, p.Targets, p.NewProvider, p.Copies = 0, []int{1, 2}, true, 2
	return &sim.Config{
		Name: "black-hole", Seed: 5, Requests: n,
		Models: []sim.Model{
			{Name: "hole", Provider: "a", Latency: dist.Constant{Value: 1e6}},
			{Name: "b", Provider: "b", Latency: dist.Constant{Value: 0.3}},
			{Name: "c", Provider: "c", Latency: dist.Constant{Value: 0.4}},
		},
		Classes: []sim.Class{{Name: "eval", Clients: clients, ThinkTime: dist.Constant{Value: 0.2},
			Deadline:    10 * time.Second,
			InputTokens: dist.Constant{}, OutputTokens: dist.Constant{}, Policy: p}},
	}
}

// TestBlackHoleAdaptiveCollapse: an adaptive p99 delay fed with
// whole-request latency, in front of a provider that never answers, learns
// from requests that time out: its p99 is the deadline, no copy is ever
// sent, and every client waits out the deadline on every request —
// throughput collapses to N/(deadline + think). A fixed 500 ms delay keeps
// N/(0.5 + 0.3 + 0.2) = N/1 s; the same adaptive delay capped at max =
// 500 ms pays for its warm-up (100 requests at the deadline) and then
// keeps it too. Every time is constant, so the oracles are exact up to the
// end of the run (a relative N/n).
func TestBlackHoleAdaptiveCollapse(t *testing.T) {
	const n, clients = 20_000, 10
	const deadline, think = 10.0, 0.2
	adaptive := &sim.Adaptive{Percentile: 0.99, Window: 1000, WarmUp: 100, Source: sim.FromRequests}
	capped := *adaptive
	capped.Max = 500 * time.Millisecond
	run := func(p sim.Policy) sim.ClassResult {
		res := mustRun(t, blackHole(n, clients, p))
		checkLittle(t, res, think)
		return res.Classes[0]
	}
	second := []time.Duration{time.Second}
	fixed := run(sim.Policy{Delays: []time.Duration{500 * time.Millisecond}})
	drifting := run(sim.Policy{Delays: second, Adaptive: adaptive})
	kept := run(sim.Policy{Delays: second, Adaptive: &capped})

	tol := float64(clients) / n // the last round may be incomplete
	near := func(what string, got, want, rel float64) {
		t.Helper()
		if math.Abs(got-want) > rel*want {
			t.Errorf("%s: throughput %.4g/s; want %.4g/s (relative tolerance %.2g)", what, got, want, rel)
		}
	}
	near("fixed 500ms", fixed.Throughput.PerSecond, clients/(0.5+0.3+think), tol)
	near("adaptive p99 of requests", drifting.Throughput.PerSecond, clients/(deadline+think), tol)
	if drifting.Answered != 0 || drifting.Hedged != 0 {
		t.Errorf("adaptive p99: %d answered, %d hedged; want none (every request waits out the deadline)", drifting.Answered, drifting.Hedged)
	}
	// Capped: 100 warm-up requests take a deadline cycle each, the rest a
	// 1 s cycle; N clients share the time. Allow one more deadline cycle.
	wantT := (100*(deadline+think) + (n-100)*1.0) / clients
	near("adaptive p99 capped at 500ms", kept.Throughput.PerSecond, n/wantT, (deadline+think)/wantT+tol)
	if kept.Answered < n-100-clients {
		t.Errorf("capped adaptive: %d of %d answered; want all but the warm-up's", kept.Answered, n)
	}
	t.Logf("throughput: fixed 500ms %.3f/s, adaptive p99 %.3f/s, adaptive p99 capped at 500ms %.3f/s",
		fixed.Throughput.PerSecond, drifting.Throughput.PerSecond, kept.Throughput.PerSecond)
}
