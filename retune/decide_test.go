package retune

import (
	"math"
	"testing"
	"time"

	"github.com/hedgesim/hedgesim/optimize"
	"github.com/hedgesim/hedgesim/sim"
)

// TestDecide checks each branch of the keep-or-change rule on figures
// made up for it (z = 1.96, 10⁴ requests each).
func TestDecide(t *testing.T) {
	cfg := &sim.Config{Models: []sim.Model{{Name: "m"}}, Classes: []sim.Class{{Name: "c",
		Policy: sim.Policy{Copies: 1, Delays: []time.Duration{time.Second}, Targets: []int{0}}}}}
	cost := func(x float64) *float64 { return &x }
	now := optimize.RolloutClass{Class: "c",
		Checked:       sim.Latency{P95: 2, P95CI95: [2]float64{1.9, 2.1}},
		AnsweredShare: 0.9, AddedCostPct: cost(10)}
	cand := func(delay time.Duration, p95, lo, hi, answered, added float64) *optimize.ClassReport {
		c := optimize.Candidate{Label: delay.String(), Hedging: true, Delay: delay, DelaySeconds: delay.Seconds(), Copies: 1,
			Requests: 10000, P95CIOK: true, Latency: sim.Latency{P95: p95, P95CI95: [2]float64{lo, hi}},
			AnsweredShare: answered, AddedCostPct: added}
		return &optimize.ClassReport{Class: "c", Objective: optimize.Objective{Percentile: 0.95}, Candidates: []optimize.Candidate{c}}
	}
	z := 1.96
	for _, c := range []struct {
		name string
		cr   *optimize.ClassReport
		want string
	}{
		{"the current policy", cand(time.Second, 1.5, 1.4, 1.6, 0.95, 5), Keep},
		{"significantly faster", cand(500*time.Millisecond, 1.5, 1.4, 1.6, 0.9, 20), Change},
		{"faster but fewer answers", cand(500*time.Millisecond, 1.5, 1.4, 1.6, 0.8, 20), Keep},
		{"as good, 5 points cheaper", cand(2*time.Second, 2, 1.95, 2.05, 0.9, 5), Change},
		{"as good, half a point cheaper", cand(2*time.Second, 2, 1.95, 2.05, 0.9, 9.5), Keep},
		{"more answers, same p95", cand(500*time.Millisecond, 2, 1.9, 2.1, 0.95, 30), Change},
	} {
		a := Decide(cfg, &cfg.Classes[0], now, 10000, c.cr, z)
		if a.Decision != c.want {
			t.Errorf("%s: %s (%s), want %s", c.name, a.Decision, a.Why, c.want)
		}
	}
	if lo, hi := wilson(0.5, 100, 1.96); math.Abs(lo-0.4038) > 1e-4 || math.Abs(hi-0.5962) > 1e-4 {
		t.Errorf("Wilson interval of 50/100: [%.4f, %.4f], want [0.4038, 0.5962]", lo, hi)
	}
}
