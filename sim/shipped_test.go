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

// TestOverloadedPoolSpillsOver: in the shipped overloaded-pool scenario,
// every request the pool rejects goes to the hosted API at once and is
// answered there; without the fallback exactly those requests end with an
// error (the pool's behaviour does not depend on the policy, which only
// reacts to its 503s).
func TestOverloadedPoolSpillsOver(t *testing.T) {
	s, err := scenario.LoadFS(scenarios.FS, "overloaded-pool.toml")
	if err != nil {
		t.Fatal(err)
	}
	cfg := s.Config
	cfg.Requests = 50_000
	res, base := mustRun(t, &cfg), mustRun(t, sim.WithoutHedging(&cfg))
	checkAttempts(t, res)
	pool, hosted := provider(t, res, "gpu-pool"), provider(t, res, "hosted")
	if pool.Rejected == 0 {
		t.Fatal("the pool rejected nothing: the scenario does not overload it")
	}
	c, b := res.Classes[0], base.Classes[0]
	if hosted.Sent != pool.Rejected || c.Hedged != pool.Rejected || c.Answered != c.Requests {
		t.Errorf("pool rejected %d, hosted got %d, hedged %d, answered %d of %d; want every rejection spilled over and answered",
			pool.Rejected, hosted.Sent, c.Hedged, c.Answered, c.Requests)
	}
	if b.Rejected != pool.Rejected || b.Errors != pool.Rejected || b.Answered != b.Requests-pool.Rejected {
		t.Errorf("without the fallback: %d rejected, %d errors, %d answered; want the pool's %d rejections as errors",
			b.Rejected, b.Errors, b.Answered, pool.Rejected)
	}
}
