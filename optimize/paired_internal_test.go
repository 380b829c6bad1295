package optimize

import (
	"math"
	"testing"
	"time"

	"github.com/hedgesim/hedgesim/dist"
	"github.com/hedgesim/hedgesim/sim"
)

// TestPairedDecisionUnderAQueue: on an M/M/1 queue at ρ = 0.9 (λ = 0.9/s,
// μ = 1/s) the candidates of a class are batched; no hedging against
// itself — the same requests — is a paired difference of exactly 0, "~"
// and not a significant fall, while the paired interval of two runs whose
// p95s truly differ (copies sent after 20 s to a second, idle provider
// lower the p95 by about a third) excludes 0 and is narrower than the
// baseline's own interval.
func TestPairedDecisionUnderAQueue(t *testing.T) {
	cfg := &sim.Config{
		Name: "queue", Seed: 3, Requests: 100_000,
		Arrivals:  sim.Arrivals{Process: sim.Poisson, Rate: 0.9},
		Models:    []sim.Model{{Name: "m", Provider: "p", Latency: dist.Exponential{Rate: 1}}, {Name: "m2", Provider: "p2", Latency: dist.Exponential{Rate: 1}}},
		Providers: []sim.Provider{{Name: "p", Concurrency: 1}, {Name: "p2", Concurrency: 1}},
		Classes: []sim.Class{{Name: "c", Share: 1, InputTokens: dist.Constant{}, OutputTokens: dist.Constant{},
			Policy: sim.Policy{Targets: []int{1}, Copies: 1, Delays: []time.Duration{20 * time.Second}}}},
	}
	cand := func(c *sim.Config) *Candidate {
		res, err := sim.Run(c)
		if err != nil {
			t.Fatal(err)
		}
		var x Candidate
		summarize(&x, &res.Classes[0], 0.95, 0)
		if x.batches(0.95) == nil {
			t.Fatal("a queue's candidate has no batches")
		}
		return &x
	}
	base, pick := cand(sim.WithoutHedging(cfg)), cand(cfg)
	if sig, paired := fallsSignificantly(base, base, 0.95, 0.95); sig || !paired || !likePick(base, base, 0.95, 0.95) {
		t.Errorf("no hedging against itself: significant %v (paired %v), like %v; want a paired 0 that is not significant", sig, paired, likePick(base, base, 0.95, 0.95))
	}
	d, ok := pairedDiff(base, pick, 0.95, 0.95)
	if !ok || !(d.CI[1] < 0) {
		t.Fatalf("hedging to an idle replica: paired difference %+v, want an interval below 0", d)
	}
	if sig, paired := fallsSignificantly(base, pick, 0.95, 0.95); !sig || !paired {
		t.Errorf("the fall is significant %v, paired %v; want both", sig, paired)
	}
	t.Logf("p95 %.2f → %.2f s; paired difference %.2f [%.2f, %.2f]; own half-widths %.2f, %.2f s", base.Q(0.95), pick.Q(0.95), d.Diff, d.CI[0], d.CI[1],
		(base.CI(0.95)[1]-base.CI(0.95)[0])/2, (pick.CI(0.95)[1]-pick.CI(0.95)[0])/2)
	if math.IsNaN(d.HalfWidth()) || d.HalfWidth() >= (base.CI(0.95)[1]-base.CI(0.95)[0])/2 {
		t.Errorf("paired half-width %.3f s is not below the baseline's own %.3f s", d.HalfWidth(), (base.CI(0.95)[1]-base.CI(0.95)[0])/2)
	}
}

// TestNotSignificantSuggestsAPrecision: a fall of 4 % not significant at
// 200000 requests suggests a half-width of half of it, 2 %; 7 % suggests
// 2 % too (3.5 % rounded down to 1, 2 or 5 times a power of ten).
func TestNotSignificantSuggestsAPrecision(t *testing.T) {
	for _, tc := range []struct {
		gain float64
		want string
	}{
		{4, "the paired difference's interval includes 0; not significant at 200000 requests: rerun with --precision 0.02"},
		{7, "the paired difference's interval includes 0; not significant at 200000 requests: rerun with --precision 0.02"},
		{12, "the paired difference's interval includes 0; not significant at 200000 requests: rerun with --precision 0.05"},
	} {
		if got := notSignificantWhy(true, 200000, tc.gain); got != tc.want {
			t.Errorf("gain %v: %q, want %q", tc.gain, got, tc.want)
		}
	}
}
