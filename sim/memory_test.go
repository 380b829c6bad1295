package sim_test

import (
	"math"
	"testing"

	"github.com/hedgesim/hedgesim/dist"
	"github.com/hedgesim/hedgesim/sim"
)

// TestMemoryCountsMeanRepeats: EstimateMemory counts 6 bytes per call a
// repeated step makes, at the mean number of its iterations — of the
// draws rounded and capped at max_repeat, a draw of 0 (the step skipped)
// counting 0 — not at the mean of the draw taken as at least 1. Against
// the same pipeline whose step is always skipped (repeat 0), at 10⁶
// requests: draws {0, 0, 0, 2} make 0.5 calls a request (3·10⁶ bytes
// more; a draw of at least 1 would count 1); 0.4, which rounds to 0,
// makes none; 1.5, which rounds to 2, makes 2 (the unrounded mean, 1.5);
// uniform on [0, 100] capped at 3 makes Σₖ₌₁³ P(X ≥ k − ½) = 2.955. A
// float estimate truncated to bytes: within 1 byte.
func TestMemoryCountsMeanRepeats(t *testing.T) {
	const n = 1_000_000
	models := []sim.Model{{Name: "m", Provider: "m", Latency: dist.Constant{Value: 0.1}}}
	estimate := func(r dist.Dist, maxRepeat int) int64 {
		agent := sim.Step{Name: "agent", Call: call(0, sim.FailClosed), FanOut: 1, Repeat: r, MaxRepeat: maxRepeat}
		answer := sim.Step{Name: "answer", Call: call(0, sim.FailClosed), FanOut: 1}
		cfg := pipelineConfig(n, models, &sim.Pipeline{Steps: []sim.Step{agent, answer}, Stages: []sim.Stage{{Steps: []int{0}}, {Steps: []int{1}}}})
		if err := cfg.Validate(); err != nil {
			t.Fatal(err)
		}
		return sim.EstimateMemory(cfg)
	}
	skipped := estimate(dist.Constant{Value: 0}, 3)
	empirical := func(xs ...float64) dist.Dist {
		d, err := dist.NewEmpirical(xs)
		if err != nil {
			t.Fatal(err)
		}
		return d
	}
	for _, tc := range []struct {
		name  string
		r     dist.Dist
		calls float64
	}{
		{"{0, 0, 0, 2}", empirical(0, 0, 0, 2), 0.5},
		{"0.4", dist.Constant{Value: 0.4}, 0},
		{"1.5", empirical(1.5), 2},
		{"uniform [0, 100], max 3", dist.Uniform{Min: 0, Max: 100}, 2.955},
	} {
		d := estimate(tc.r, 3) - skipped
		if want := 6 * tc.calls * n; math.Abs(float64(d)-want) > 1 {
			t.Errorf("repeat %s: %d bytes more than a step always skipped; want %.0f, 6 per call at %g calls a request", tc.name, d, want, tc.calls)
		}
	}
}
