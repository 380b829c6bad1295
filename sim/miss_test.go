package sim_test

import (
	"math"
	"strings"
	"testing"
	"time"

	"github.com/hedgesim/hedgesim/dist"
	"github.com/hedgesim/hedgesim/sim"
)

// report runs cfg and its no-hedging baseline and compares them.
func report(t *testing.T, cfg *sim.Config) *sim.Report {
	t.Helper()
	return sim.NewReport(cfg, mustRun(t, cfg), mustRun(t, sim.WithoutHedging(cfg)))
}

func hasWarning(c *sim.ClassReport, part string) bool {
	for _, w := range c.Warnings {
		if strings.Contains(w, part) {
			return true
		}
	}
	return false
}

// TestRateLimitedCopyWarns: a copy sent at once to a model whose rate
// limit admits almost nothing gets a 429 in 5 ms, which ends the request
// (fatal). Every request then ends fast, yet none is answered: p95 to a
// usable answer is a miss, and the run warns that the answered share fell
// and that requests only end sooner because they fail faster.
func TestRateLimitedCopyWarns(t *testing.T) {
	cfg := twoModels(sim.Fatal)
	cfg.Models[0].ErrorRate = 0
	cfg.Models[1].RateLimit = sim.RateLimit{RequestsPerMinute: 1e-9, Burst: time.Nanosecond, RejectLatency: 5 * time.Millisecond}
	cfg.Classes[0].Policy.Delays = []time.Duration{0}
	c := report(t, cfg).Classes[0]
	if c.AnsweredShare != 0 || c.NoHedging.AnsweredShare != 1 {
		t.Fatalf("answered %v, without hedging %v: want 0 and 1", c.AnsweredShare, c.NoHedging.AnsweredShare)
	}
	if !math.IsInf(c.Latency.P95, 1) || c.NoHedging.Latency.P95 != 1 {
		t.Errorf("p95 %v, without hedging %v: want a miss and 1s", c.Latency.P95, c.NoHedging.Latency.P95)
	}
	if math.Abs(c.EndLatency.P95-0.005) > 1e-9 {
		t.Errorf("end-latency p95 %v, want the 429's 5ms", c.EndLatency.P95)
	}
	for _, w := range []string{"lowers the answered share", "only because they fail faster"} {
		if !hasWarning(&c, w) {
			t.Errorf("no warning %q in %q", w, c.Warnings)
		}
	}
	var b strings.Builder
	r := report(t, cfg)
	if err := r.WriteText(&b); err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(b.String(), "miss") {
		t.Errorf("text report prints no miss:\n%s", b.String())
	}
}

// TestDelayPastDeadlineWarns: a hedge delay at the deadline never fires.
func TestDelayPastDeadlineWarns(t *testing.T) {
	cfg := twoModels(sim.Ignore)
	cfg.Models[0].ErrorRate = 0
	cfg.Classes[0].Policy.Delays = []time.Duration{10 * time.Second}
	c := report(t, cfg).Classes[0]
	if c.HedgedShare != 0 || !hasWarning(&c, "at or past the deadline") {
		t.Errorf("hedged %v, warnings %q: want 0 and a warning", c.HedgedShare, c.Warnings)
	}
	cfg.Classes[0].Policy.Delays = []time.Duration{500 * time.Millisecond}
	if c := report(t, cfg).Classes[0]; hasWarning(&c, "deadline") {
		t.Errorf("a useful hedge warns %q", c.Warnings)
	}
}

// TestBaselineHasNoAttemptTimeout: a primary that stalls for 60 s, cut at
// 5 s by a per-attempt timeout that sends a copy (non-fatal). The
// baseline is the class with neither copies nor the per-attempt timeout:
// its p99 is the 60 s stall, not 5 s; with hedging the stall costs 5 s
// plus the copy's 0.5 s.
func TestBaselineHasNoAttemptTimeout(t *testing.T) {
	cfg := &sim.Config{
		Name: "stall", Seed: 1, Requests: 1000,
		Arrivals: sim.Arrivals{Process: sim.Constant, Rate: 1},
		Models: []sim.Model{
			// 10 % of calls stall for 60 s.
			{Name: "a", Latency: &dist.Mixture{Weights: []float64{0.9, 0.1}, Components: []dist.Continuous{dist.Constant{Value: 0.2}, dist.Constant{Value: 60}}}},
			{Name: "b", Latency: dist.Constant{Value: 0.5}},
		},
		Classes: []sim.Class{{
			Name: "c", Share: 1, Deadline: 120 * time.Second,
			InputTokens: dist.Constant{Value: 10}, OutputTokens: dist.Constant{Value: 10},
			Policy: sim.Policy{Primary: 0, Targets: []int{1}, Copies: 1, Delays: []time.Duration{-1},
				AttemptTimeout: 5 * time.Second, OnAttemptTimeout: sim.NonFatal},
		}},
	}
	c := report(t, cfg).Classes[0]
	if c.NoHedging.Latency.P99 != 60 {
		t.Errorf("no-hedging p99 %v, want the 60 s stall", c.NoHedging.Latency.P99)
	}
	if c.Latency.P99 != 5.5 {
		t.Errorf("hedged p99 %v, want 5 s + 0.5 s", c.Latency.P99)
	}
}

// TestFallbackNeverSentWarns: fallback copies go out only after a
// non-fatal failure; with every rule fatal they never do, and run says so.
func TestFallbackNeverSentWarns(t *testing.T) {
	cfg := twoModels(sim.Fatal)
	cfg.Classes[0].Policy.Delays = []time.Duration{-1}
	c := report(t, cfg).Classes[0]
	if c.HedgedShare != 0 || !hasWarning(&c, "no copy is ever sent") {
		t.Errorf("hedged %v, warnings %q", c.HedgedShare, c.Warnings)
	}
	cfg.Classes[0].Policy.OnError = sim.NonFatal
	if c := report(t, cfg).Classes[0]; hasWarning(&c, "no copy is ever sent") {
		t.Errorf("a working fallback warns %q", c.Warnings)
	}
}

// TestOverloadHiddenByBurst: 100 requests at 2/s into a model limited to
// 60 a minute with a 60 s burst: the full bucket admits all of them (no
// 429 in this 50 s run), yet the offered 2/s is twice what the limit
// admits in the long run; Overloads says so and the report warns.
func TestOverloadHiddenByBurst(t *testing.T) {
	cfg := twoModels(sim.Fatal)
	cfg.Arrivals.Rate = 2
	cfg.Models[0].ErrorRate = 0
	cfg.Models[0].RateLimit = sim.RateLimit{RequestsPerMinute: 60, Burst: time.Minute}
	res := mustRun(t, cfg)
	if res.Classes[0].Attempts.RateLimited != 0 {
		t.Fatalf("%d 429s: the burst should admit every request", res.Classes[0].Attempts.RateLimited)
	}
	o := res.Overloads(cfg)
	if len(o) != 1 || o[0].Name != "a" || math.Abs(o[0].Offered-2) > 0.05 || o[0].Limit != 1 {
		t.Fatalf("overloads %+v: want model a offered ≈ 2/s against 1/s", o)
	}
	r := report(t, cfg)
	if len(r.Warnings) == 0 || !strings.Contains(r.Warnings[0], "model a is offered") {
		t.Errorf("warnings %q", r.Warnings)
	}
	cfg.Arrivals.Rate = 0.5
	if o := mustRun(t, cfg).Overloads(cfg); len(o) != 0 {
		t.Errorf("0.5/s into 1/s: overloads %+v", o)
	}
}

// TestCutsWithoutCopiesNameTheCause: a class without copies whose stream
// cuts end half its requests (the rs scenario: 50 % of streams stall
// 100 s mid-stream, a 2 s inter-token timeout, fatal) answers fewer
// requests than no hedging, which runs without cuts. No copy was sent, so
// the warning names the stream cuts, not the copies.
func TestCutsWithoutCopiesNameTheCause(t *testing.T) {
	m := streamedModel("a", dist.Constant{Value: 0.5}, 10)
	m.Stalls = sim.Stalls{Rate: 0.5, Duration: dist.Constant{Value: 100}, At: sim.MidStream}
	cfg := &sim.Config{
		Name: "cuts", Seed: 3, Requests: 2000,
		Arrivals: sim.Arrivals{Process: sim.Poisson, Rate: 10},
		Models:   []sim.Model{m},
		Classes: []sim.Class{{
			Name: "c", Share: 1, Deadline: 300 * time.Second,
			InputTokens: dist.Constant{Value: 100}, OutputTokens: dist.Constant{Value: 20},
			Policy: sim.Policy{StreamCuts: sim.StreamCuts{InterTokenTimeout: 2 * time.Second, OnStall: sim.Fatal}},
		}},
	}
	c := report(t, cfg).Classes[0]
	if c.HedgedShare != 0 || !(c.AnsweredShare < c.NoHedging.AnsweredShare) {
		t.Fatalf("hedged %v, answered %v (no hedging %v): want no copies and fewer answers", c.HedgedShare, c.AnsweredShare, c.NoHedging.AnsweredShare)
	}
	if hasWarning(&c, "copies fail") || !hasWarning(&c, "though no copy was sent: stream cuts") {
		t.Errorf("warnings %q: want the stream cuts named, not the copies", c.Warnings)
	}
}
