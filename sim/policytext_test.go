package sim_test

import (
	"testing"
	"time"

	"github.com/hedgesim/hedgesim/dist"
	"github.com/hedgesim/hedgesim/sim"
)

func TestPolicyText(t *testing.T) {
	cfg := &sim.Config{Models: []sim.Model{{Name: "a"}, {Name: "b"}, {Name: "c"}}}
	for _, tc := range []struct {
		p    sim.Policy
		want string
	}{
		{sim.Policy{}, "no hedging"},
		{sim.Policy{AttemptTimeout: 2 * time.Second}, "no hedging, attempt timeout 2.00s"},
		{sim.Policy{Copies: 1, Targets: []int{1}, Delays: []time.Duration{1860 * time.Millisecond}}, "1.86s ×1 → b"},
		{sim.Policy{Copies: 2, Delays: []time.Duration{time.Second}}, "1.00s ×2 → a"},
		{sim.Policy{Copies: 3, Targets: []int{1, 2}, Delays: []time.Duration{500 * time.Millisecond, time.Second}}, "500ms,1.00s ×3 → b,c"},
		{sim.Policy{Copies: 1, Targets: []int{2}, Delays: []time.Duration{-1}}, "fallback ×1 → c"},
		{sim.Policy{Copies: 2, Targets: []int{1}, Delays: []time.Duration{0, -1}}, "0s,fallback ×2 → b"},
		{sim.Policy{Copies: 1, Targets: []int{1}, Delays: []time.Duration{time.Second}, Adaptive: &sim.Adaptive{Percentile: 0.95}}, "adaptive p95 ×1 → b"},
		{sim.Policy{Copies: 2, Targets: []int{1, 2}, NewProvider: true, Delays: []time.Duration{time.Second}}, "1.00s ×2 → a new provider (else b,c)"},
	} {
		cl := sim.Class{Name: "x", Share: 1, InputTokens: dist.Constant{}, Policy: tc.p}
		if got := sim.PolicyText(cfg, &cl); got != tc.want {
			t.Errorf("%+v: %q; want %q", tc.p, got, tc.want)
		}
	}
}
