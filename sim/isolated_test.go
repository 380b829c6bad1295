package sim

import (
	"reflect"
	"testing"
	"time"

	"github.com/hedgesim/hedgesim/dist"
)

// TestIsolatedMatchesGlobalOrder: running independent requests one at a
// time gives exactly the result of one global event order.
func TestIsolatedMatchesGlobalOrder(t *testing.T) {
	mix, err := dist.NewMixture([]float64{0.7, 0.3}, []dist.Continuous{
		dist.LogNormal{Mu: -1, Sigma: 0.5}, dist.Uniform{Min: 2, Max: 9},
	})
	if err != nil {
		t.Fatal(err)
	}
	cfg := &Config{
		Name: "iso", Seed: 3, Requests: 20_000,
		Arrivals: Arrivals{Process: Poisson, Rate: 40},
		Models: []Model{
			{Name: "a", Latency: mix, ErrorRate: 0.05, InvalidRate: 0.05, PriceOutputPerMTok: 1},
			{Name: "b", TTFT: dist.Exponential{Rate: 3}, TokensPerSecond: dist.Uniform{Min: 20, Max: 80},
				ErrorRate: 0.1, ErrorLatency: dist.Constant{Value: 0.01}, PriceInputPerMTok: 1},
		},
		Classes: []Class{
			{Name: "x", Share: 0.6, InputTokens: dist.Constant{Value: 100}, OutputTokens: dist.Uniform{Min: 10, Max: 300},
				Deadline: 4 * time.Second,
				Policy: Policy{Targets: []int{1, 0}, Copies: 3, Delays: []time.Duration{300 * time.Millisecond, 0, time.Second},
					OnError: NonFatal, OnInvalid: Ignore, CancelLatency: 50 * time.Millisecond, CancelBilling: BillGenerated}},
			{Name: "z", Share: 0.1, InputTokens: dist.Constant{Value: 10}, OutputTokens: dist.Constant{Value: 20},
				Deadline: 2 * time.Second,
				Policy:   Policy{Targets: []int{1}, Copies: 2, Delays: []time.Duration{150 * time.Millisecond}, Winner: FirstResponse, OnError: Ignore}},
			{Name: "y", Share: 0.3, InputTokens: dist.Constant{Value: 10}, OutputTokens: dist.Constant{Value: 20},
				Deadline: time.Second, OnTimeout: FailClosed,
				Policy: Policy{Primary: 1, Copies: 1, Delays: []time.Duration{200 * time.Millisecond}, Winner: FirstToken}},
		},
	}
	run := func(isolated bool) *Result {
		e := newEngine(cfg)
		e.isolated = isolated
		e.run()
		return e.result()
	}
	a, b := run(true), run(false)
	if !reflect.DeepEqual(Canonical(a), Canonical(b)) {
		t.Errorf("isolated and global runs differ:\n%+v\n%+v", a.Overall.Attempts, b.Overall.Attempts)
	}
	// Losers that outlive their request: a provider that ignores cancels.
	cfg.Providers = []Provider{{Name: "a", IgnoresCancel: true}}
	if !cfg.independent() {
		t.Fatal("a provider that only ignores cancels made requests interact")
	}
	a, b = run(true), run(false)
	if !reflect.DeepEqual(Canonical(a), Canonical(b)) {
		t.Errorf("isolated and global runs differ when cancels are ignored:\n%+v\n%+v", a.Overall.Attempts, b.Overall.Attempts)
	}
}

// TestSkippedTimersChangeNothing: leaving out hedge timers of requests
// certain to end first (endsBy) gives exactly the same result, here with a
// queue, a rate limit, a budget and degraded periods in a global run.
func TestSkippedTimersChangeNothing(t *testing.T) {
	lat := dist.LogNormal{Mu: -1, Sigma: 0.7}
	cfg := &Config{
		Name: "skip", Seed: 4, Requests: 20_000,
		Arrivals: Arrivals{Process: Poisson, Rate: 30},
		Models: []Model{
			{Name: "a", Provider: "pa", Latency: lat, ErrorRate: 0.05, InvalidRate: 0.05},
			{Name: "b", Provider: "pb", TTFT: lat, TokensPerSecond: dist.Uniform{Min: 30, Max: 90}},
		},
		Providers: []Provider{
			{Name: "pa", Concurrency: 12, Degraded: &Degraded{MeanNormal: 20 * time.Second, MeanDegraded: 2 * time.Second, Slowdown: 4}},
			{Name: "pb", RateLimit: RateLimit{RequestsPerMinute: 600, Burst: 5 * time.Second, RejectLatency: 10 * time.Millisecond}},
		},
		Classes: []Class{
			{Name: "x", Share: 0.5, InputTokens: dist.Constant{Value: 100}, OutputTokens: dist.Uniform{Min: 10, Max: 200},
				Deadline: 3 * time.Second,
				Policy: Policy{Targets: []int{1, 0}, Copies: 2, Delays: []time.Duration{300 * time.Millisecond},
					OnError: NonFatal, OnRateLimited: Ignore, CancelLatency: 50 * time.Millisecond,
					Budget: Budget{MaxInFlightRatio: 0.3, MinInFlight: 2}}},
			{Name: "y", Share: 0.5, InputTokens: dist.Constant{Value: 10}, OutputTokens: dist.Constant{Value: 50},
				Deadline: 2 * time.Second, OnTimeout: FailClosed,
				Policy: Policy{Primary: 1, Targets: []int{0}, Copies: 1, Delays: []time.Duration{250 * time.Millisecond}, Winner: FirstToken}},
		},
	}
	run := func(all bool) *Result {
		e := newEngine(cfg)
		e.queueAllTimers = all
		e.run()
		return e.result()
	}
	a, b := run(false), run(true)
	if !reflect.DeepEqual(Canonical(a), Canonical(b)) {
		t.Errorf("skipping timers changed the result:\n%+v\n%+v", a.Overall.Attempts, b.Overall.Attempts)
	}
	// The same with a bounded queue that rejects when full, queued losers
	// waiting for a slow cancel, a provider that ignores cancels and a
	// rate limit whose rejections cost quota.
	cfg.Providers[0].RejectWhenFull, cfg.Providers[0].QueueLimit = true, 6
	cfg.Providers[1].IgnoresCancel = true
	cfg.Providers[1].RateLimit.CountRejected = true
	cfg.Classes[0].Policy.CancelLatency = 400 * time.Millisecond
	a, b = run(false), run(true)
	if a.Overall.Attempts.Rejected == 0 || a.Overall.Attempts.RateLimited == 0 {
		t.Fatalf("no rejections or 429s to check: %+v", a.Overall.Attempts)
	}
	if !reflect.DeepEqual(Canonical(a), Canonical(b)) {
		t.Errorf("skipping timers changed the result with rejections:\n%+v\n%+v", a.Overall.Attempts, b.Overall.Attempts)
	}
}
