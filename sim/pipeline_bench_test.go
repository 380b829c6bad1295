package sim_test

import (
	"testing"
	"time"

	"github.com/hedgesim/hedgesim/dist"
	"github.com/hedgesim/hedgesim/sim"
)

// fourSteps is a pipeline of four calls in a row on four models, each
// hedged once after 0.5 s (guard, retrieval, chat, guard), 2·10⁵ requests.
func fourSteps(b testing.TB) *sim.Config {
	lat, err := dist.NewMixture([]float64{0.8, 0.2}, []dist.Continuous{dist.Uniform{Min: 0.05, Max: 0.3}, dist.Uniform{Min: 1, Max: 4}})
	if err != nil {
		b.Fatal(err)
	}
	var steps []sim.Step
	var stages []sim.Stage
	var models []sim.Model
	for i, name := range []string{"guard-question", "retrieval", "chat", "guard-answer"} {
		models = append(models, sim.Model{Name: name, Provider: name, Latency: lat, PriceInputPerMTok: 1})
		c := sim.Class{
			InputTokens: dist.Constant{Value: 400}, OutputTokens: dist.Constant{Value: 20},
			Deadline: 3 * time.Second, OnTimeout: sim.FailOpen,
			Policy: sim.Policy{Primary: i, Copies: 1, Delays: []time.Duration{500 * time.Millisecond}, OnInvalid: sim.NonFatal, CancelBilling: sim.BillInput},
		}
		steps = append(steps, sim.Step{Name: name, Call: c, FanOut: 1})
		stages = append(stages, sim.Stage{Steps: []int{i}})
	}
	return &sim.Config{
		Name: "four-steps", Seed: 1, Requests: 200_000,
		Arrivals: sim.Arrivals{Process: sim.Poisson, Rate: 20},
		Models:   models,
		Classes:  []sim.Class{{Name: "turn", Share: 1, Pipeline: &sim.Pipeline{Steps: steps, Stages: stages}}},
	}
}

// BenchmarkPipeline simulates a four-step pipeline (fourSteps) on one core:
// on the lane, where its calls cannot affect each other, and through the
// event loop (the same pipeline with a provider concurrency limit that
// never binds, which makes calls interact). It reports pipeline requests
// per second of wall time.
func BenchmarkPipeline(b *testing.B) {
	lane := fourSteps(b)
	events := fourSteps(b)
	events.Providers = []sim.Provider{{Name: "chat", Concurrency: 1 << 20}}
	for _, run := range []struct {
		name string
		cfg  *sim.Config
	}{{"lane", lane}, {"event-loop", events}} {
		b.Run(run.name, func(b *testing.B) {
			b.ReportAllocs()
			for b.Loop() {
				if _, err := sim.Run(run.cfg); err != nil {
					b.Fatal(err)
				}
			}
			perOp := b.Elapsed().Seconds() / float64(b.N)
			b.ReportMetric(float64(run.cfg.Requests)/perOp, "req/s")
			b.ReportMetric(4*float64(run.cfg.Requests)/perOp, "calls/s")
		})
	}
}
