package sim_test

import (
	"bytes"
	"math"
	"testing"

	"github.com/hedgesim/hedgesim/dist"
	"github.com/hedgesim/hedgesim/sim"
)

// TestPipelineRepeatZeroSkips: a repeated step whose draw is 0 is skipped —
// no call, no cost, no time — and the request goes on to the next stage.
// With repeat drawn from {0, 0, 0, 2} a request makes N ∈ {0, 2} agent
// calls, 0.5 a request on average (variance 4·¼·¾ = 0.75: checked within
// five standard errors of n requests). Every call takes 0.1 s, so a
// request's end-to-end time is exactly 0.1 s per call made: the class's
// mean is 0.1·(calls)/n, up to the float32 in which end-to-end times are
// kept; the median requests (N = 0) spent no time in the skipped step.
// The lane, the one-at-a-time handlers and the global event loop give the
// same report byte for byte; with a shared queue (no lane) the FIFOs of
// events and the heap alone agree. A step skipped in the last stage, or a
// pipeline whose only step is always skipped, ends the request through it.
// A skipped visible step shows no first token: the request's time to first
// visible token is a miss.
func TestPipelineRepeatZeroSkips(t *testing.T) {
	t.Parallel()
	iters, err := dist.NewEmpirical([]float64{0, 0, 0, 2})
	if err != nil {
		t.Fatal(err)
	}
	models := []sim.Model{{Name: "m", Provider: "m", Latency: dist.Constant{Value: 0.1}, PriceInputPerMTok: 1}}
	agent := sim.Step{Name: "agent", Call: call(0, sim.FailClosed), FanOut: 1, Repeat: iters, MaxRepeat: 4, InputGrowth: 100}
	guard := sim.Step{Name: "guard", Call: call(0, sim.FailClosed), FanOut: 1}
	visible := agent
	visible.Visible = true
	answer := sim.Step{Name: "answer", Call: call(0, sim.FailClosed), FanOut: 1, InputFrom: []sim.TokenRef{{Step: 1, Output: true}}}
	stages := func(n int) []sim.Stage {
		var out []sim.Stage
		for s := range n {
			out = append(out, sim.Stage{Steps: []int{s}})
		}
		return out
	}
	const n = 20_000
	for _, tc := range []struct {
		name   string
		steps  []sim.Step
		agent  int     // the repeated step's index
		others float64 // calls a request makes besides the agent's
		queue  bool    // the calls share a provider of 4 slots
	}{
		{"middle", []sim.Step{guard, agent, answer}, 1, 2, false},
		{"last, visible", []sim.Step{guard, visible}, 1, 1, false},
		{"first", []sim.Step{agent, answer}, 0, 1, false},
		{"middle, shared queue", []sim.Step{guard, agent, answer}, 1, 2, true},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			steps := append([]sim.Step(nil), tc.steps...)
			if tc.agent == 0 {
				steps[1].InputFrom = []sim.TokenRef{{Step: 0, Output: true}}
			}
			cfg := pipelineConfig(n, models, &sim.Pipeline{Steps: steps, Stages: stages(len(steps))})
			if tc.queue {
				cfg.Providers = []sim.Provider{{Name: "m", Concurrency: 4}}
			}
			res := mustRun(t, cfg)
			checkAttempts(t, res)
			c := &res.Classes[0]
			calls := float64(c.Pipeline.Steps[tc.agent].Requests)
			if got, se := calls/n, math.Sqrt(0.75/n); math.Abs(got-0.5) > 5*se {
				t.Errorf("%.4f agent calls per request, want 0.5 ± %.4f", got, 5*se)
			}
			if ttfv := c.Pipeline.TTFV(); c.Pipeline.HasTTFV() && ttfv.Answered != int64(calls)/2 {
				t.Errorf("%d requests showed a first visible token, want those that made the visible step's 2 calls, %d", ttfv.Answered, int64(calls)/2)
			}
			if c.Answered != n || c.Pipeline.Checked != n {
				t.Errorf("answered %d, checked %d of %d requests; want all", c.Answered, c.Pipeline.Checked, n)
			}
			if !tc.queue {
				want := 0.1 * (tc.others + calls/n)
				if got := c.Mean(); math.Abs(got-want) > 1e-6 {
					t.Errorf("mean end-to-end %.7f s, want 0.1 s a call = %.7f", got, want)
				}
				_, median, _, _ := c.Pipeline.Breakdown()
				if median[tc.agent] != 0 {
					t.Errorf("the median requests spent %g s in the skipped step, want 0", median[tc.agent])
				}
				if !sim.PipelineLane(cfg) {
					t.Fatal("the pipeline does not take the lane")
				}
				lane := reportJSON(t, cfg, res, mustRun(t, sim.WithoutHedging(cfg)))
				direct := reportJSON(t, cfg, sim.RunDirect(cfg), sim.RunDirect(sim.WithoutHedging(cfg)))
				global := reportJSON(t, cfg, sim.RunGlobal(cfg, nil), sim.RunGlobal(sim.WithoutHedging(cfg), nil))
				if !bytes.Equal(lane, direct) {
					t.Errorf("the lane's report differs from the event loop's:\n%s", firstDiff(lane, direct))
				}
				if !bytes.Equal(lane, global) {
					t.Errorf("the lane's report differs from the global event loop's:\n%s", firstDiff(lane, global))
				}
			} else {
				sameOrder(t, tc.name, cfg)
			}
		})
	}
	t.Run("always skipped", func(t *testing.T) {
		t.Parallel()
		only := agent
		only.Repeat = dist.Constant{Value: 0.4} // rounds to 0
		cfg := pipelineConfig(1000, models, &sim.Pipeline{Steps: []sim.Step{only}, Stages: stages(1)})
		for _, res := range []*sim.Result{mustRun(t, cfg), sim.RunDirect(cfg), sim.RunGlobal(cfg, nil)} {
			c := &res.Classes[0]
			if c.Answered != 1000 || c.Pipeline.Steps[0].Requests != 0 || c.Mean() != 0 || res.Overall.Attempts.Sent != 0 {
				t.Errorf("answered %d of 1000, %d calls, %d attempts, mean %g s; want every request answered at once without a call",
					c.Answered, c.Pipeline.Steps[0].Requests, res.Overall.Attempts.Sent, c.Mean())
			}
		}
	})
}
