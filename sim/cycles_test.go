package sim_test

import (
	"strings"
	"testing"
	"time"

	"github.com/hedgesim/hedgesim/dist"
	"github.com/hedgesim/hedgesim/sim"
)

// TestFewSlowCyclesWarn: a run of 2000 requests at 10/s covers about
// 200 s, so a provider whose slow periods recur every 110 s on average
// (100 s normal, 10 s degraded) is seen for under 2 cycles, and the
// report says so; with cycles of 1.1 s the same run covers about 180 and
// it does not.
func TestFewSlowCyclesWarn(t *testing.T) {
	run := func(normal, degraded time.Duration) *sim.Report {
		cfg := &sim.Config{
			Name: "cycles", Seed: 1, Requests: 2000,
			Arrivals:  sim.Arrivals{Process: sim.Constant, Rate: 10},
			Models:    []sim.Model{{Name: "m", Provider: "p", Latency: dist.Constant{Value: 0.1}}},
			Providers: []sim.Provider{{Name: "p", Degraded: &sim.Degraded{MeanNormal: normal, MeanDegraded: degraded, Slowdown: 2}}},
			Classes: []sim.Class{{Name: "c", Share: 1, InputTokens: dist.Constant{Value: 1}, OutputTokens: dist.Constant{Value: 1},
				Policy: sim.Policy{Copies: 1, Delays: []time.Duration{time.Second}}}},
		}
		return report(t, cfg)
	}
	const part = "slow-period cycles of provider p"
	has := func(r *sim.Report) bool {
		for _, w := range r.Warnings {
			if strings.Contains(w, part) {
				return true
			}
		}
		return false
	}
	if r := run(100*time.Second, 10*time.Second); !has(r) {
		t.Errorf("no warning about few slow-period cycles: %q", r.Warnings)
	}
	if r := run(time.Second, 100*time.Millisecond); has(r) {
		t.Errorf("warning about few cycles on a run covering about 180: %q", r.Warnings)
	}
}
