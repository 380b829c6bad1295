package scenario

import (
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	"github.com/hedgesim/hedgesim/sim"
)

func TestParsePolicyExtras(t *testing.T) {
	src := `
[arrivals]
rate = 5
[models.a]
provider = "p"
latency = { kind = "constant", value = 1 }
[models.b]
provider = "q"
latency = { kind = "constant", value = 1 }
[[classes]]
name = "c"
[classes.hedge]
primary = "a"
targets = ["a", "b"]
new_provider = true
delays = ["300ms", "fallback", "fallback"]
on_error = "nonfatal"
attempt_timeout = "2s"
on_attempt_timeout = "fatal"
[classes.hedge.adaptive]
percentile = 0.95
window_time = "30s"
warm_up = 50
min = "100ms"
max = "2s"
source = "attempts"
[classes.hedge.budget]
max_hedge_share = 0.1
retry_throttling = { max_tokens = 10, token_ratio = 0.1 }
max_in_flight_ratio = 0.2
min_in_flight = 3
hedges_per_second = 20
burst = 40
max_parallel = 8
`
	sc, err := Parse("p.toml", []byte(src))
	if err != nil {
		t.Fatal(err)
	}
	got := sc.Config.Classes[0].Policy
	want := sim.Policy{
		Primary: 0, Targets: []int{0, 1}, NewProvider: true, Copies: 3,
		Delays: []time.Duration{300 * time.Millisecond, -1, -1},
		Adaptive: &sim.Adaptive{Percentile: 0.95, Window: defaultAdaptiveWindow, WindowTime: 30 * time.Second,
			WarmUp: 50, Min: 100 * time.Millisecond, Max: 2 * time.Second, Source: sim.FromAttempts},
		OnError: sim.NonFatal, OnRateLimited: sim.NonFatal, OnUpstreamTimeout: sim.NonFatal, OnInvalid: sim.NonFatal,
		AttemptTimeout: 2 * time.Second, OnAttemptTimeout: sim.Fatal,
		CancelBilling: sim.BillInput,
		Budget: sim.Budget{MaxHedgeShare: 0.1, Throttle: &sim.Throttle{MaxTokens: 10, TokenRatio: 0.1},
			MaxInFlightRatio: 0.2, MinInFlight: 3, HedgesPerSecond: 20, Burst: 40, MaxParallel: 8},
	}
	if d := cmp.Diff(want, got); d != "" {
		t.Errorf("policy (-want +got):\n%s", d)
	}
	if _, err := sim.Run(&sc.Config); err != nil {
		t.Errorf("the parsed config does not run: %v", err)
	}
}

// TestParseProviderCapacity: queue_limit, cancel and count_rejected reach
// the simulator's provider and rate limit.
func TestParseProviderCapacity(t *testing.T) {
	src := `
[arrivals]
rate = 5
[providers.p]
concurrency = 4
queue_limit = 0
cancel = "none"
rate_limit = { requests_per_minute = 60, count_rejected = true }
[providers.q]
concurrency = 2
[models.m]
provider = "p"
latency = { kind = "constant", value = 1 }
[models.n]
provider = "q"
latency = { kind = "constant", value = 1 }
[[classes]]
name = "c"
[classes.hedge]
primary = "m"
`
	sc, err := Parse("p.toml", []byte(src))
	if err != nil {
		t.Fatal(err)
	}
	want := []sim.Provider{
		{Name: "p", Concurrency: 4, RejectWhenFull: true, QueueLimit: 0, IgnoresCancel: true,
			RateLimit: sim.RateLimit{RequestsPerMinute: 60, Burst: defaultBurst, RejectLatency: defaultRejectLatency, CountRejected: true}},
		{Name: "q", Concurrency: 2, RateLimit: sim.RateLimit{Burst: defaultBurst, RejectLatency: defaultRejectLatency}},
	}
	if d := cmp.Diff(want, sc.Config.Providers); d != "" {
		t.Errorf("providers (-want +got):\n%s", d)
	}
	if _, err := sim.Run(&sc.Config); err != nil {
		t.Errorf("the parsed config does not run: %v", err)
	}
}
