package sim_test

import (
	"strings"
	"testing"
	"time"

	"github.com/hedgesim/hedgesim/dist"
	"github.com/hedgesim/hedgesim/sim"
)

// outageConfig is 1000 requests, Poisson at 10/s, to model a, which fails
// every call after 3 s (an outage), with a copy to model b, which answers
// in 100 ms, sent after delay (copies 0 for none) and sent at once when a
// fails (nonfatal); a has a breaker that opens after 5 consecutive
// failures, when breaker is set. Constant times make every count exact.
func outageConfig(delay time.Duration, copies int, deadline time.Duration, breaker bool) *sim.Config {
	cfg := &sim.Config{
		Name: "outage", Seed: 1, Requests: 1000,
		Arrivals: sim.Arrivals{Process: sim.Poisson, Rate: 10},
		Models: []sim.Model{
			{Name: "a", Provider: "pa", Latency: dist.Constant{Value: 1}, ErrorRate: 1, ErrorLatency: dist.Constant{Value: 3}},
			{Name: "b", Provider: "pb", Latency: dist.Constant{Value: 0.1}},
		},
		Classes: []sim.Class{{Name: "c", Share: 1, Deadline: deadline, InputTokens: dist.Constant{}, OutputTokens: dist.Constant{},
			Policy: sim.Policy{Primary: 0, Targets: []int{1}, Copies: copies, Delays: []time.Duration{delay}, OnError: sim.NonFatal}}},
	}
	if copies == 0 {
		cfg.Classes[0].Policy = sim.Policy{Primary: 0}
	}
	if breaker {
		cfg.Models[0].Breaker = &sim.Breaker{Failures: 5, Cooldown: 10 * time.Second, Probes: 1}
	}
	return cfg
}

// hiddenWarnings returns the run-wide warnings of cfg's report that say
// cancelled calls hid failures from a breaker.
func hiddenWarnings(t *testing.T, cfg *sim.Config) (*sim.Result, []string) {
	t.Helper()
	h := mustRun(t, cfg)
	r := sim.NewReport(cfg, h, mustRun(t, sim.WithoutHedging(cfg)))
	var out []string
	for _, w := range r.Warnings {
		if strings.Contains(w, "were cancelled before their failure came back") {
			out = append(out, w)
		}
	}
	return h, out
}

// TestBreakerHiddenFailuresWarn: in an outage of model a (every call
// fails after 3 s), a hedge at 1 s to b answers at 1.1 s and cancels every
// primary before its failure comes back: a's breaker sees none of the
// 1000 failures, needs 5 to open and never opens, and the report says so
// with those exact counts, the 1.1 s the calls were out and the 3 s their
// failure takes. A deadline of 2 s without hedging hides them the same
// way (cancelled at 2 s). With the hedge at 4 s every failure comes back
// first: the breaker sees them, opens, and nothing is hidden — no warning;
// without a breaker there is none either.
func TestBreakerHiddenFailuresWarn(t *testing.T) {
	res, ws := hiddenWarnings(t, outageConfig(time.Second, 1, 0, true))
	want := "the breaker on model a: 1000 calls that were going to fail were cancelled before their failure came back (another call answered first), so it never counted them: it saw 0 failures, needs 5 to open, and opened 0 times; they were cancelled 1.10s after they were sent, on average, before their failure came back at 3.00s on average (class c hedges after 1.00s)."
	if len(ws) != 1 || !strings.HasPrefix(ws[0], want) {
		t.Errorf("hedge at 1s: warnings %q; want one starting %q", ws, want)
	}
	if b := res.Breakers[0]; b.Opens != 0 || b.Rejected != 0 {
		t.Errorf("hedge at 1s: breaker %+v; want it never to open", b)
	}

	_, ws = hiddenWarnings(t, outageConfig(0, 0, 2*time.Second, true))
	want = "the breaker on model a: 1000 calls that were going to fail were cancelled before their failure came back (the request's deadline passed), so it never counted them: it saw 0 failures, needs 5 to open, and opened 0 times; they were cancelled 2.00s after they were sent, on average, before their failure came back at 3.00s on average (class c has a deadline of 2.00s)."
	if len(ws) != 1 || !strings.HasPrefix(ws[0], want) {
		t.Errorf("deadline 2s: warnings %q; want one starting %q", ws, want)
	}

	res, ws = hiddenWarnings(t, outageConfig(4*time.Second, 1, 0, true))
	if len(ws) != 0 {
		t.Errorf("hedge at 4s: warnings %q; want none", ws)
	}
	if b := res.Breakers[0]; b.Opens == 0 || b.Rejected == 0 {
		t.Errorf("hedge at 4s: breaker %+v; want it to open and fail calls at once", b)
	}

	res, ws = hiddenWarnings(t, outageConfig(time.Second, 1, 0, false))
	if len(ws) != 0 || len(res.Breakers) != 0 {
		t.Errorf("no breaker: warnings %q, breakers %+v; want none", ws, res.Breakers)
	}
}

// TestBreakerHiddenFailuresCounts checks the counts behind the warning.
// With the hedge at 1 s in the outage, a's breaker sees no failure and
// 1000 are hidden; with it at 4 s, it sees every call it let through (a's
// calls less those it failed at once) and none is hidden; with 3
// requests, 3 are hidden, fewer than the 5 it needs to open: no warning.
// Then a model that answers in 200 ms and fails 20 % of calls, 60 % of
// them after 0.5 s (seen) and 40 % after 3 s (hidden by the hedge at
// 1 s): over 4000 requests about 480 failures are seen and 320 hidden,
// 160 apart where the difference's standard deviation is
// √(4000 × (0.2 − 0.04²)) ≈ 28, so seen > hidden ≥ 5 holds with a wide
// margin at this fixed seed, and the rule (hidden ≥ seen) keeps quiet.
func TestBreakerHiddenFailuresCounts(t *testing.T) {
	res, _ := hiddenWarnings(t, outageConfig(time.Second, 1, 0, true))
	if hid, seen := res.Breakers[0].HiddenCounts(); hid != 1000 || seen != 0 {
		t.Errorf("hedge at 1s: %d hidden, %d seen; want 1000, 0", hid, seen)
	}
	res, _ = hiddenWarnings(t, outageConfig(4*time.Second, 1, 0, true))
	b := res.Breakers[0]
	if hid, seen := b.HiddenCounts(); hid != 0 || seen != res.Providers[0].Sent-b.Rejected || seen == 0 {
		t.Errorf("hedge at 4s: %d hidden, %d seen; want 0, %d (sent %d less %d failed at once)", hid, seen, res.Providers[0].Sent-b.Rejected, res.Providers[0].Sent, b.Rejected)
	}
	cfg := outageConfig(time.Second, 1, 0, true)
	cfg.Requests = 3
	res, ws := hiddenWarnings(t, cfg)
	if hid, _ := res.Breakers[0].HiddenCounts(); hid != 3 || len(ws) != 0 {
		t.Errorf("3 requests: %d hidden, warnings %q; want 3 and none (it needs 5 to open)", hid, ws)
	}

	cfg = outageConfig(time.Second, 1, 0, true)
	cfg.Requests = 4000
	mix, err := dist.NewMixture([]float64{0.6, 0.4}, []dist.Continuous{dist.Constant{Value: 0.5}, dist.Constant{Value: 3}})
	if err != nil {
		t.Fatal(err)
	}
	cfg.Models[0].Latency, cfg.Models[0].ErrorRate, cfg.Models[0].ErrorLatency = dist.Constant{Value: 0.2}, 0.2, mix
	res, ws = hiddenWarnings(t, cfg)
	hid, seen := res.Breakers[0].HiddenCounts()
	if !(seen > hid && hid >= 5) {
		t.Fatalf("mixed failures: %d hidden, %d seen; want seen > hidden ≥ 5", hid, seen)
	}
	if len(ws) != 0 {
		t.Errorf("mixed failures: %d hidden, %d seen: warnings %q; want none", hid, seen, ws)
	}
}
