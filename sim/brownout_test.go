package sim_test

import (
	"testing"

	"github.com/hedgesim/hedgesim/scenario"
	"github.com/hedgesim/hedgesim/scenarios"
	"github.com/hedgesim/hedgesim/sim"
)

// TestBrownoutBreakersOpen runs the shipped brownout-breaker scenario as
// shipped: its failures come back after a 0.8 s gateway timeout (1.6 s in
// a brownout), before the classes' 2 s hedge, so both breakers — the
// provider's on the failure ratio and the model's on consecutive failures
// — see them, open during the brownouts and fail calls at once. With a
// timeout longer than the hedge delay the hedge wins first and cancels the
// failing calls, and neither breaker ever opens (the scenario's header
// says so).
func TestBrownoutBreakersOpen(t *testing.T) {
	s, err := scenario.LoadFS(scenarios.FS, "brownout-breaker.toml")
	if err != nil {
		t.Fatal(err)
	}
	cfg := s.Config
	res, err := sim.Run(&cfg)
	if err != nil {
		t.Fatal(err)
	}
	seen := map[string]sim.BreakerResult{}
	for _, b := range res.Breakers {
		seen[b.Model+b.Provider] = b
	}
	for _, name := range []string{"west", "api-a"} {
		b, ok := seen[name]
		if !ok {
			t.Fatalf("no breaker result for %s in %+v", name, res.Breakers)
		}
		if b.Opens == 0 || b.Rejected == 0 {
			t.Errorf("%s's breaker opened %d times and failed %d calls at once; want both > 0", name, b.Opens, b.Rejected)
		}
	}
}
