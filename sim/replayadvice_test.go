package sim_test

import (
	"math"
	"strings"
	"testing"
	"time"

	"github.com/hedgesim/hedgesim/dist"
	"github.com/hedgesim/hedgesim/sim"
)

// TestReplayAdviceAsksForLongerTrace pins the run's advice to "simulate
// more requests" (or "at least N") when the arrivals replay a trace, which
// --requests cannot replay past: the batched intervals' warning and the
// slow-period warning now say a longer trace is needed, with how many
// requests the trace holds; the same run on Poisson arrivals still asks
// for more requests. 300 requests at 10 per second behind a provider of 4
// slots (requests interact: batched intervals) make batches too short for
// a batched p95 interval, and 30 s is under one slow-period cycle of 2 min.
func TestReplayAdviceAsksForLongerTrace(t *testing.T) {
	const n = 300
	cfg := oneModel(n, dist.LogNormal{Mu: math.Log(0.5), Sigma: 0.8}, 1, time.Second)
	cfg.Providers = []sim.Provider{{Name: "p", Concurrency: 4,
		Degraded: &sim.Degraded{MeanNormal: time.Minute, MeanDegraded: time.Minute, Slowdown: 2}}}
	warnings := func(cfg *sim.Config) string {
		rep := sim.NewReport(cfg, mustRun(t, cfg), mustRun(t, sim.WithoutHedging(cfg)))
		return strings.Join(append(rep.Warnings, rep.Classes[0].Warnings...), "\n")
	}
	poisson := warnings(cfg)
	for _, want := range []string{"too short for a batched p95 interval (200 needed per batch); simulate at least", "slow-period cycles of provider p"} {
		if !strings.Contains(poisson, want) {
			t.Fatalf("Poisson arrivals: warnings lack %q; the test needs both warnings:\n%s", want, poisson)
		}
	}

	arr := make([]time.Duration, n)
	for i := range arr {
		arr[i] = time.Duration(i) * 100 * time.Millisecond
	}
	cfg.Arrivals = sim.Arrivals{Process: sim.Replay, Trace: &sim.Trace{Arrivals: arr}}
	replay := warnings(cfg)
	if strings.Contains(replay, "simulate") {
		t.Errorf("a replayed trace is advised to simulate more requests, which --requests cannot replay:\n%s", replay)
	}
	for _, want := range []string{
		"too short for a batched p95 interval (200 needed per batch); the trace holds 300 requests and --requests cannot replay past its end: a longer trace is needed, with at least",
		"intervals are too optimistic; the trace holds 300 requests and --requests cannot replay past its end: a longer trace is needed (at least",
	} {
		if !strings.Contains(replay, want) {
			t.Errorf("replayed trace: warnings lack %q:\n%s", want, replay)
		}
	}
}
