package optimize

import (
	"testing"
	"time"

	"github.com/hedgesim/hedgesim/sim"
)

// TestAdaptiveCandidatePolicy: an adaptive candidate simulates the class's
// policy with its gaps replaced by the percentile delay, the defaults or
// the class's own adaptive settings, and no candidate for a percentile the
// class's own adaptive delay has, nor for a class that does not hedge.
func TestAdaptiveCandidatePolicy(t *testing.T) {
	cfg := &sim.Config{
		Models: []sim.Model{{Name: "a"}, {Name: "b"}},
		Classes: []sim.Class{{Name: "c", Policy: sim.Policy{
			Primary: 0, Targets: []int{1}, Copies: 2, Delays: []time.Duration{300 * time.Millisecond},
			Budget: sim.Budget{MaxHedgeShare: 0.2},
		}}},
	}
	cs := adaptiveCandidates(cfg, []float64{0.9, 0.995})
	if len(cs) != 2 || cs[0].Label != "adaptive p90" || cs[1].Label != "adaptive p99.5" {
		t.Fatalf("candidates %+v", cs)
	}
	base := cfg.Classes[0].Policy
	pol := cs[1].Policy(base)
	want := AdaptiveDefaults
	want.Percentile = 0.995
	if pol.Adaptive == nil || *pol.Adaptive != want || pol.Copies != 2 || pol.Targets[0] != 1 || pol.Delays[0] != 300*time.Millisecond || pol.Budget.MaxHedgeShare != 0.2 {
		t.Errorf("policy %+v, adaptive %+v; want the class's with %+v", pol, pol.Adaptive, want)
	}
	if cs[1].Target != "b" || cs[1].Copies != 2 || cs[1].Adaptive.Percentile != 0.995 || cs[1].Adaptive.Source != "primaries" {
		t.Errorf("candidate %+v", cs[1])
	}
	if samePolicy(cs[0].Policy(base), cs[1].Policy(base)) {
		t.Error("two percentiles are the same policy")
	}
	if d := describe(&cs[0]); d != "up to 2 copies to b at the p90 of the last 1000 latencies of primaries (after a warm-up of 100)" {
		t.Errorf("describe: %q", d)
	}

	// The class's own adaptive delay: its settings kept, its percentile
	// left to the configured candidate.
	own := sim.Adaptive{Percentile: 0.9, Window: 50, WarmUp: 5, Max: time.Second, Source: sim.FromAttempts}
	cfg.Classes[0].Policy.Adaptive = &own
	cs = adaptiveCandidates(cfg, []float64{0.9, 0.95})
	if len(cs) != 1 || cs[0].Label != "adaptive p95" {
		t.Fatalf("candidates %+v", cs)
	}
	want = own
	want.Percentile = 0.95
	if a := cs[0].Policy(cfg.Classes[0].Policy).Adaptive; *a != want {
		t.Errorf("adaptive %+v; want %+v", a, want)
	}

	cfg.Classes[0].Policy = sim.Policy{}
	if cs := adaptiveCandidates(cfg, []float64{0.95}); len(cs) != 0 {
		t.Errorf("a class that does not hedge: %+v", cs)
	}
}
