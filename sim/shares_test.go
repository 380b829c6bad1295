package sim_test

import (
	"testing"

	"github.com/hedgesim/hedgesim/sim"
)

// TestPipelineShareBelowOneDrawsNoStep: class shares may sum to 1 within
// 10⁻³, so the one pipeline class of share 0.9995 takes about 0.05 % of
// the draws past the cumulative shares (the last user class's by rule).
// Its steps' classes, appended after the users' with share 0, must never
// be drawn: every request is the pipeline's, and each runs both steps
// once. At 40 000 requests about 20 draws fall past 0.9995, so a step
// drawn for them fails the counts. Both the lane (independent calls) and
// the event loop (a provider queue the calls share) are checked.
func TestPipelineShareBelowOneDrawsNoStep(t *testing.T) {
	for _, queued := range []bool{false, true} {
		models, pl := uniformThenExp()
		n := 40_000
		cfg := pipelineConfig(n, models, pl)
		cfg.Classes[0].Share = 0.9995
		if queued {
			cfg.Providers = []sim.Provider{{Name: "u", Concurrency: 1000}}
		}
		if got := sim.PipelineLane(cfg); got == queued {
			t.Fatalf("queued %v: the run takes the lane: %v", queued, got)
		}
		res := mustRun(t, cfg)
		c := &res.Classes[0]
		if c.Answered != int64(n) {
			t.Fatalf("queued %v: the pipeline class answered %d of %d requests", queued, c.Answered, n)
		}
		for _, s := range c.Pipeline.Steps {
			if s.Requests != int64(n) {
				t.Errorf("queued %v: step %s: %d calls, want %d (one per request)", queued, s.Name, s.Requests, n)
			}
		}
	}
}
