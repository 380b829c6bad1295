package sim_test

import (
	"strings"
	"testing"

	"github.com/hedgesim/hedgesim/scenario"
	"github.com/hedgesim/hedgesim/scenarios"
	"github.com/hedgesim/hedgesim/sim"
)

// TestQuantileRuleSaysHowIntervalsAreMade: the rule a report states (run's
// and optimize's, which both take it from QuantileRuleFor) names batch
// means when requests interact and order statistics when they do not, and
// a pipeline scenario whose requests interact keeps the pipeline's rule
// (run dropped it, replacing the whole rule by the batched one).
func TestQuantileRuleSaysHowIntervalsAreMade(t *testing.T) {
	load := func(name string) *sim.Config {
		sc, err := scenario.LoadFS(scenarios.FS, name)
		if err != nil {
			t.Fatal(err)
		}
		return &sc.Config
	}
	if r := sim.QuantileRuleFor(load("replica-pool.toml")); !strings.Contains(r, "batch means") || strings.Contains(r, "order-statistic") {
		t.Errorf("replica-pool: %q", r)
	}
	if r := sim.QuantileRuleFor(load("two-model-gateway.toml")); !strings.Contains(r, "order-statistic") || strings.Contains(r, "batch means") {
		t.Errorf("two-model-gateway: %q", r)
	}
	cfg := load("help-chat-turn.toml")
	cfg.Requests = 2000
	cfg.Models[0].RateLimit = sim.RateLimit{RequestsPerMinute: 1e6} // requests now interact
	want := sim.QuantileRuleBatched + "; " + sim.PipelineRule
	if r := sim.QuantileRuleFor(cfg); r != want {
		t.Errorf("help-chat-turn with a rate limit: QuantileRuleFor %q, want %q", r, want)
	}
	h, err := sim.Run(cfg)
	if err != nil {
		t.Fatal(err)
	}
	b, err := sim.Run(sim.WithoutHedging(cfg))
	if err != nil {
		t.Fatal(err)
	}
	if r := sim.NewReport(cfg, h, b).QuantileRule; r != want {
		t.Errorf("help-chat-turn with a rate limit: the run's rule %q, want %q", r, want)
	}
}
