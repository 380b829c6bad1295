package sim

import (
	"github.com/hedgesim/hedgesim/dist"
	"strings"
	"testing"
	"time"
)

// TestBreakerStarvedWindowWarns: a failure-ratio breaker over a 30 s
// window with min_calls 100, at 1 request/s, never holds 100 calls, so it
// can never open; the report says so. With a 300 s window it holds enough
// and says nothing.
func TestBreakerStarvedWindowWarns(t *testing.T) {
	for _, tt := range []struct {
		window time.Duration
		warn   bool
	}{{30 * time.Second, true}, {300 * time.Second, false}} {
		cfg := breakerRatioConfig(tt.window)
		h, err := Run(cfg)
		if err != nil {
			t.Fatal(err)
		}
		b, err := Run(WithoutHedging(cfg))
		if err != nil {
			t.Fatal(err)
		}
		r := NewReport(cfg, h, b)
		got := strings.Contains(strings.Join(r.Warnings, "\n"), "fewer than min_calls = 100, so its failure_ratio never applied")
		if got != tt.warn {
			t.Errorf("window %v: warned %v, want %v: %q", tt.window, got, tt.warn, r.Warnings)
		}
	}
}

// breakerRatioConfig is 1000 requests at 1/s to one model behind a
// failure-ratio breaker (ratio 0.5, min_calls 100) over a time window.
func breakerRatioConfig(window time.Duration) *Config {
	return &Config{
		Name: "starved", Seed: 1, Requests: 1000,
		Arrivals: Arrivals{Process: Poisson, Rate: 1},
		Models: []Model{{Name: "m", Provider: "p", Latency: dist.Exponential{Rate: 5}, ErrorRate: 0.2,
			Breaker: &Breaker{FailureRatio: 0.5, WindowTime: window, MinCalls: 100, Cooldown: time.Second, Probes: 1}}},
		Classes: []Class{{Name: "c", Share: 1, InputTokens: dist.Constant{}, OutputTokens: dist.Constant{}}},
	}
}
