package sim_test

import (
	"bytes"
	"math"
	"strings"
	"testing"
	"time"

	"github.com/hedgesim/hedgesim/dist"
	"github.com/hedgesim/hedgesim/sim"
)

// replayed returns arrivals every gap, request i in class classOf(i), for
// n requests.
func replayed(n int, gap time.Duration, classOf func(i int) int) sim.Arrivals {
	tr := &sim.Trace{}
	for i := range n {
		tr.Arrivals = append(tr.Arrivals, time.Duration(i)*gap)
		tr.Class = append(tr.Class, classOf(i))
	}
	return sim.Arrivals{Process: sim.Replay, Trace: tr}
}

// TestBreakerFailureRatioWindows: a provider breaker over two models —
// "bad" fails every call after 0.5 s, "good" answers in 0.5 s — and
// requests 1 s apart: request 0 goes to bad, 1–9 to good, 10–19 to bad.
// Outcomes land at i + 0.5 s, and the breaker (60 s cool-down) opens on
// the outcome of some request k; requests k+1 … 19 then fail at once:
// 19 − k calls. With a failure ratio of 0.5:
//
//   - a 5 s time window holds, at 12.5 s, the successes at 8.5 and 9.5 and
//     the failures at 10.5, 11.5, 12.5: 3 of 5, so k = 12 (7 rejected);
//   - a count window of 10 calls reaches 5 of 10 at 14.5 s: k = 14 (5);
//   - a 100 s time window holds everything: 1 + m failures of 10 + m
//     calls reach half at m = 8, k = 17 (2);
//   - min_calls 30 over 100 s: never 30 calls, never opens.
//
// Consecutive failures alone (3) open at the third of 10, 11, 12: k = 12.
func TestBreakerFailureRatioWindows(t *testing.T) {
	for _, tc := range []struct {
		name     string
		b        sim.Breaker
		rejected int64
	}{
		{"time window 5s", sim.Breaker{FailureRatio: 0.5, WindowTime: 5 * time.Second, MinCalls: 2}, 7},
		{"count window 10", sim.Breaker{FailureRatio: 0.5, Window: 10, MinCalls: 10}, 5},
		{"time window 100s", sim.Breaker{FailureRatio: 0.5, WindowTime: 100 * time.Second, MinCalls: 2}, 2},
		{"min calls not reached", sim.Breaker{FailureRatio: 0.5, WindowTime: 100 * time.Second, MinCalls: 30}, 0},
		{"consecutive 3", sim.Breaker{Failures: 3}, 7},
		{"consecutive 3 or ratio", sim.Breaker{Failures: 3, FailureRatio: 0.5, Window: 10, MinCalls: 10}, 7},
	} {
		t.Run(tc.name, func(t *testing.T) {
			b := tc.b
			b.Cooldown, b.Probes = time.Minute, 1
			cfg := &sim.Config{
				Name: "ratio", Seed: 1, Requests: 20,
				Arrivals: replayed(20, time.Second, func(i int) int {
					if i == 0 || i >= 10 {
						return 0
					}
					return 1
				}),
				Models: []sim.Model{
					{Name: "bad", Provider: "p", Latency: dist.Constant{Value: 0.5}, ErrorRate: 1},
					{Name: "good", Provider: "p", Latency: dist.Constant{Value: 0.5}},
				},
				Providers: []sim.Provider{{Name: "p", Breaker: &b}},
				Classes: []sim.Class{
					{Name: "to-bad", Share: 0.5, InputTokens: dist.Constant{}, OutputTokens: dist.Constant{}, Policy: sim.Policy{Primary: 0}},
					{Name: "to-good", Share: 0.5, InputTokens: dist.Constant{}, OutputTokens: dist.Constant{}, Policy: sim.Policy{Primary: 1}},
				},
			}
			res := mustRun(t, cfg)
			checkAttempts(t, res)
			if len(res.Breakers) != 1 || res.Breakers[0].Provider != "p" || res.Breakers[0].Model != "" {
				t.Fatalf("breaker results %+v; want provider p's", res.Breakers)
			}
			br := res.Breakers[0]
			opens := int64(0)
			if tc.rejected > 0 {
				opens = 1
			}
			if br.Opens != opens || br.Rejected != tc.rejected {
				t.Errorf("opened %d times, failed %d calls at once; want %d, %d", br.Opens, br.Rejected, opens, tc.rejected)
			}
			if got := res.Classes[0].Rejected; got != tc.rejected {
				t.Errorf("%d requests to bad ended rejected; want %d", got, tc.rejected)
			}
		})
	}
}

// TestBreakerFailureRatioCycle: one model (1 s per call) and requests 2 s
// apart, alternately failing (an attempt timeout at 0.5 s) and
// succeeding (at 1 s): never two failures in a row, so a breaker on 2
// consecutive failures never opens. A breaker on a failure ratio of 0.5
// over the last 4 calls, at least 4, 5 s cool-down, one probe, opens on
// request 4's failure (at 8.5 s: S F S F); requests 5 and 6 fail at once;
// request 7 (14 s, after the cool-down) is the probe and succeeds at 15 s,
// which closes it with an empty window; requests 8–11 refill it and
// request 12's failure (24.5 s) opens it again: a cycle of 8 requests.
// Over 85 requests it opens 11 times (on requests 4, 12, …, 84), fails
// 2 × 10 calls at once, and 42 − 10 = 32 successful requests are answered,
// each in 1 s. The last open starts with the run's last event, so 10 full
// cool-downs count: 50 s open. With min_calls 3, it opens on request 2's
// failure (F S F) and again every 6 requests (2 rejected, a probe, F S F):
// on requests 2, 8, …, 80, 14 times, failing 28 calls at once, each
// cool-down over before the run ends (70 s).
func TestBreakerFailureRatioCycle(t *testing.T) {
	cfg := &sim.Config{
		Name: "cycle", Seed: 1, Requests: 85,
		Arrivals: replayed(85, 2*time.Second, func(i int) int { return i % 2 }),
		Models:   []sim.Model{{Name: "a", Provider: "pa", Latency: dist.Constant{Value: 1}}},
		Classes: []sim.Class{
			{Name: "times-out", Share: 0.5, InputTokens: dist.Constant{}, OutputTokens: dist.Constant{},
				Policy: sim.Policy{AttemptTimeout: 500 * time.Millisecond, OnAttemptTimeout: sim.NonFatal}},
			{Name: "answered", Share: 0.5, InputTokens: dist.Constant{}, OutputTokens: dist.Constant{}},
		},
	}
	cfg.Models[0].Breaker = &sim.Breaker{Failures: 2, Cooldown: 5 * time.Second, Probes: 1}
	res := mustRun(t, cfg)
	checkAttempts(t, res)
	if b := res.Breakers[0]; b.Opens != 0 || res.Classes[1].Answered != 42 {
		t.Errorf("2 consecutive failures over alternating calls: %+v, %d answered; want no opens, 42", b, res.Classes[1].Answered)
	}
	cfg.Models[0].Breaker = &sim.Breaker{FailureRatio: 0.5, Window: 4, MinCalls: 4, Cooldown: 5 * time.Second, Probes: 1}
	res = mustRun(t, cfg)
	checkAttempts(t, res)
	b := res.Breakers[0]
	if b.Opens != 11 || b.Rejected != 20 || math.Abs(b.OpenSeconds-50) > 1e-9 {
		t.Errorf("breaker %+v; want 11 opens, 20 calls failed at once, 50 s open", b)
	}
	ok := res.Classes[1]
	if ok.Answered != 32 || ok.Rejected != 10 || res.Classes[0].Rejected != 10 {
		t.Errorf("answered %d, rejected %d and %d; want 32 answered, 10 and 10 rejected", ok.Answered, ok.Rejected, res.Classes[0].Rejected)
	}
	for _, x := range ok.Latencies()[:ok.Answered] {
		if x != 1 {
			t.Fatalf("an answered request took %v s; want 1", x)
		}
	}
	cfg.Models[0].Breaker.MinCalls = 3
	res = mustRun(t, cfg)
	checkAttempts(t, res)
	if b := res.Breakers[0]; b.Opens != 14 || b.Rejected != 28 || math.Abs(b.OpenSeconds-70) > 1e-9 {
		t.Errorf("min calls 3: breaker %+v; want 14 opens, 28 calls failed at once, 70 s open", b)
	}
}

// TestProviderBreakerShared: one closed-loop client; models a1 and a2 of
// provider pa fail every call after 2 s, and the request falls back to a2,
// then to b (another provider, 0.5 s), at once on each failure. Without a
// breaker every request takes 4.5 s. A breaker on pa (3 consecutive
// failures, 10 s cool-down) counts both models' failures: request 1 fails
// on a1 and a2 (4.5 s), request 2's a1 call is the third failure (at
// 6.5 s), which opens it: a2 fails at once and request 2 takes 2.5 s.
// While open, requests take 0.5 s: 19 of them, 7 … 16.5 s; request 22's a1
// call at 16.5 s is the half-open probe, fails at 18.5 s and opens it
// again (2.5 s). So every 20 requests after the first two, 19 take 0.5 s
// and one 2.5 s: of 202 requests, 1 takes 4.5 s, 11 take 2.5 s, 190 take
// 0.5 s; the breaker opens 11 times and fails 1 + 2·190 + 10 = 391 calls at
// once. A breaker of the same settings on each model instead counts each
// model's failures apart: a1's opens at 11 s, a2's at 13 s (requests 1–3
// take 4.5 s), and after each cool-down a1's probe fails, then a2's, 2 s
// later, which is when a2's cool-down ends: a request of 4.5 s, then 15
// of 0.5 s (12 s). Of 202 requests: 3 + 15 at first, 11 cycles of 16,
// then 1 + 7: 15 take 4.5 s and 187 take 0.5 s — every probe request pays
// both models' timeouts, where the shared breaker pays one.
func TestProviderBreakerShared(t *testing.T) {
	cfg := &sim.Config{
		Name: "provider-breaker", Seed: 1, Requests: 202,
		Models: []sim.Model{
			{Name: "a1", Provider: "pa", Latency: dist.Constant{Value: 1}, ErrorRate: 1, ErrorLatency: dist.Constant{Value: 2}},
			{Name: "a2", Provider: "pa", Latency: dist.Constant{Value: 1}, ErrorRate: 1, ErrorLatency: dist.Constant{Value: 2}},
			{Name: "b", Provider: "pb", Latency: dist.Constant{Value: 0.5}},
		},
		Providers: []sim.Provider{{Name: "pa"}, {Name: "pb"}},
		Classes: []sim.Class{{Name: "c", Clients: 1, InputTokens: dist.Constant{}, OutputTokens: dist.Constant{},
			Policy: sim.Policy{Primary: 0, Targets: []int{1, 2}, Copies: 2, Delays: []time.Duration{-1}, OnError: sim.NonFatal}}},
	}
	count := func(res *sim.Result) map[float64]int {
		n := map[float64]int{}
		for _, x := range res.Classes[0].Latencies() {
			n[math.Round(x*1e6)/1e6]++
		}
		return n
	}
	res := mustRun(t, cfg)
	checkAttempts(t, res)
	if n := count(res); n[4.5] != 202 {
		t.Errorf("without a breaker: latencies %v; want 202 at 4.5 s", n)
	}
	br := &sim.Breaker{Failures: 3, Cooldown: 10 * time.Second, Probes: 1}
	cfg.Providers[0].Breaker = br
	res = mustRun(t, cfg)
	checkAttempts(t, res)
	checkLittle(t, res, 0)
	if n := count(res); n[4.5] != 1 || n[2.5] != 11 || n[0.5] != 190 {
		t.Errorf("provider breaker: latencies %v; want 1 at 4.5 s, 11 at 2.5 s, 190 at 0.5 s", n)
	}
	if len(res.Breakers) != 1 || res.Breakers[0].Provider != "pa" {
		t.Fatalf("breakers %+v; want pa's", res.Breakers)
	}
	// The last open starts when the last request's probe fails, 0.5 s
	// before the run ends: 10 full cool-downs and 0.5 s of the last.
	if b := res.Breakers[0]; b.Opens != 11 || b.Rejected != 391 || math.Abs(b.OpenSeconds-100.5) > 1e-9 {
		t.Errorf("provider breaker %+v; want 11 opens, 391 calls failed at once, 100.5 s open", b)
	}
	var text, js bytes.Buffer
	rep := sim.NewReport(cfg, res, mustRun(t, sim.WithoutHedging(cfg)))
	if err := rep.WriteText(&text); err != nil {
		t.Fatal(err)
	}
	if err := rep.WriteJSON(&js); err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(text.String(), "provider pa: circuit breaker opened 11 times") ||
		!strings.Contains(js.String(), `"provider": "pa"`) || strings.Contains(js.String(), `"model": ""`) {
		t.Errorf("the report does not name the provider's breaker:\n%s\n%s", text.String(), js.String())
	}
	// Per model: a1 sees only its own failures, one per request.
	cfg.Providers[0].Breaker = nil
	cfg.Models[0].Breaker, cfg.Models[1].Breaker = br, br
	res = mustRun(t, cfg)
	checkAttempts(t, res)
	if n := count(res); n[4.5] != 15 || n[0.5] != 187 {
		t.Errorf("per-model breakers: latencies %v; want 15 at 4.5 s, 187 at 0.5 s", n)
	}
	// Both a model's breaker and its provider's: the model's is asked
	// first, and a call its provider's fails is not seen by it.
	cfg.Providers[0].Breaker = br
	res = mustRun(t, cfg)
	checkAttempts(t, res)
	if len(res.Breakers) != 3 || res.Breakers[2].Provider != "pa" {
		t.Fatalf("breakers %+v; want a1's, a2's, then pa's", res.Breakers)
	}
	// a2's calls are failed at once by pa's breaker while it is open and
	// never reach a2's own: were they counted there, a2 would open too.
	if n := count(res); n[4.5] != 1 || n[2.5] != 11 || n[0.5] != 190 {
		t.Errorf("both breakers: latencies %v; want 1 at 4.5 s, 11 at 2.5 s, 190 at 0.5 s", n)
	}
	a1, a2, pa := res.Breakers[0], res.Breakers[1], res.Breakers[2]
	if a1.Opens != 10 || a1.Rejected != 171 || a2.Opens != 0 || a2.Rejected != 0 || pa.Opens != 11 || pa.Rejected != 220 {
		t.Errorf("both breakers: a1 %+v, a2 %+v, pa %+v; want a1 10 opens and 171 calls failed at once, a2 none, pa 11 and 220", a1, a2, pa)
	}
}
