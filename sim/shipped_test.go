package sim_test

import (
	"testing"

	"github.com/hedgesim/hedgesim/scenario"
	"github.com/hedgesim/hedgesim/scenarios"
	"github.com/hedgesim/hedgesim/sim"
)

// TestShippedScenariosBalance runs every shipped scenario, hedged and
// without hedging, on 20 000 requests (or its trace's length, if shorter):
// each run audits its own accounting (this package's tests turn the audit
// on), and checkAttempts checks the result's counts.
func TestShippedScenariosBalance(t *testing.T) {
	for _, name := range scenarios.Names() {
		t.Run(name, func(t *testing.T) {
			s, err := scenario.LoadFS(scenarios.FS, name)
			if err != nil {
				t.Fatal(err)
			}
			cfg := s.Config
			cfg.Requests = min(cfg.Requests, 20_000)
			checkAttempts(t, mustRun(t, &cfg))
			checkAttempts(t, mustRun(t, sim.WithoutHedging(&cfg)))
		})
	}
}
