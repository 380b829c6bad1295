package sim_test

import (
	"testing"

	"github.com/hedgesim/hedgesim/dist"
	"github.com/hedgesim/hedgesim/sim"
)

// TestPipelineSharesWilson: the help-chat turn of TestHelpChatTurnChecksBoth
// (independent requests) is checked with probability 0.875² = 0.765625 and
// degraded otherwise (every turn goes through). At 2000 requests, over 40
// seeds, the report's Wilson intervals of the checked and the degraded
// share each cover the true share in ≥ 36 (a 95 % interval covers in 38 on
// average; 36 is two binomial standard deviations below), and say their
// method.
func TestPipelineSharesWilson(t *testing.T) {
	models, g := guardCheck(t)
	chat := call(0, sim.FailClosed)
	chat.Policy.Primary = 1
	models = append(models, sim.Model{Name: "chat", Provider: "chat", Latency: dist.Uniform{Min: 1, Max: 2}})
	pl := &sim.Pipeline{
		Steps: []sim.Step{
			{Name: "guard-question", Call: g, FanOut: 1},
			{Name: "chat", Call: chat, FanOut: 1, InputFrom: []sim.TokenRef{{Step: 0}}},
			{Name: "guard-answer", Call: g, FanOut: 1, InputFrom: []sim.TokenRef{{Step: 0}, {Step: 1, Output: true}}},
		},
		Stages: []sim.Stage{{Steps: []int{0}}, {Steps: []int{1}}, {Steps: []int{2}}},
	}
	const checked = 0.875 * 0.875
	covC, covD := 0, 0
	for seed := uint64(1); seed <= 40; seed++ {
		cfg := pipelineConfig(2000, models, pl)
		cfg.Seed = seed
		r := sim.NewReport(cfg, mustRun(t, cfg), mustRun(t, sim.WithoutHedging(cfg)))
		p := r.Classes[0].Pipeline
		if p == nil || p.CheckedShareCI95 == nil || p.DegradedShareCI95 == nil || p.SharesCIMethod == "" {
			t.Fatalf("seed %d: no intervals of the checked and degraded shares: %+v", seed, p)
		}
		if c := p.CheckedShareCI95; *c[0] <= checked && checked <= *c[1] {
			covC++
		}
		if d := p.DegradedShareCI95; *d[0] <= 1-checked && 1-checked <= *d[1] {
			covD++
		}
	}
	t.Logf("checked share %.4f covered in %d/40 seeds, degraded %.4f in %d/40", checked, covC, 1-checked, covD)
	if covC < 36 || covD < 36 {
		t.Errorf("coverage: checked %d/40, degraded %d/40; want ≥ 36 each", covC, covD)
	}
}
