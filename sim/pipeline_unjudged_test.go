package sim_test

import (
	"math"
	"testing"
	"time"

	"github.com/hedgesim/hedgesim/dist"
	"github.com/hedgesim/hedgesim/sim"
)

// TestCutGuardIsNotChecked: a fail-open guard x shares a stage with a
// fail-closed step y, the stage done with any call (or k of n), then an
// answer step z. A call of x that the stage lets go of gave no verdict:
// the turn is degraded by x, not checked (such turns once counted as
// checked). With constant latencies x is always cut (y faster: no turn
// checked) or never (x faster: every turn checked), also when the stage
// needs 2 of y's two calls and x's. In a tie, y's answer seen first closes
// the stage: x answering at that instant gave its verdict (checked), x
// failing open at its 1 s deadline as y answers did not (degraded). With x ~ Exp(1/s) failing open at its
// 1 s deadline and y ~ Exp(2/s), a turn is checked when x answers before
// both its deadline and y, with probability ∫₀¹ e^{−x}·e^{−2x} dx =
// (1 − e^{−3})/3 ≈ 0.3167, within five binomial standard errors of 20 000
// independent turns (no queue or limit couples them). Every turn is
// answered, checked or degraded.
func TestCutGuardIsNotChecked(t *testing.T) {
	t.Parallel()
	constant := func(x, y float64) []sim.Model {
		return []sim.Model{
			{Name: "x", Provider: "px", Latency: dist.Constant{Value: x}},
			{Name: "y", Provider: "py", Latency: dist.Constant{Value: y}},
			{Name: "z", Provider: "py", Latency: dist.Constant{Value: 0.1}},
		}
	}
	exp := []sim.Model{
		{Name: "x", Provider: "px", Latency: dist.Exponential{Rate: 1}},
		{Name: "y", Provider: "py", Latency: dist.Exponential{Rate: 2}},
		{Name: "z", Provider: "py", Latency: dist.Constant{Value: 0.1}},
	}
	for _, tc := range []struct {
		name    string
		models  []sim.Model
		yFan    int
		need    int
		yFirst  bool    // y is the stage's first step, seen first in a tie
		checked float64 // the share of turns checked
	}{
		{"x always cut", constant(0.5, 0.2), 1, 1, false, 0},
		{"x always first", constant(0.2, 0.5), 1, 1, false, 1},
		{"2 of 3, x always cut", constant(0.5, 0.2), 2, 2, false, 0},
		{"2 of 3, x first", constant(0.1, 0.2), 2, 2, false, 1},
		{"tie, x answered", constant(0.5, 0.5), 1, 1, true, 1},
		{"tie, x failed open", constant(1.5, 1), 1, 1, true, 0},
		{"exponential", exp, 1, 1, false, (1 - math.Exp(-3)) / 3},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			x := call(time.Second, sim.FailOpen)
			y := call(0, sim.FailClosed)
			y.Policy.Primary = 1
			z := call(0, sim.FailClosed)
			z.Policy.Primary = 2
			steps := []sim.Step{{Name: "x", Call: x, FanOut: 1}, {Name: "y", Call: y, FanOut: tc.yFan}}
			gx := 0 // x's index
			if tc.yFirst {
				steps[0], steps[1], gx = steps[1], steps[0], 1
			}
			pl := &sim.Pipeline{
				Steps:  append(steps, sim.Step{Name: "z", Call: z, FanOut: 1}),
				Stages: []sim.Stage{{Steps: []int{0, 1}, Need: tc.need}, {Steps: []int{2}}},
			}
			n := 20_000
			res := mustRun(t, pipelineConfig(n, tc.models, pl))
			c := &res.Classes[0]
			if c.Answered != int64(n) {
				t.Fatalf("answered %d of %d turns; every turn goes through", c.Answered, n)
			}
			pr := c.Pipeline
			if pr.Checked+pr.DegradedAny != c.Answered {
				t.Errorf("checked %d + degraded %d ≠ answered %d", pr.Checked, pr.DegradedAny, c.Answered)
			}
			if pr.Steps[gx].Degraded != pr.DegradedAny {
				t.Errorf("degraded by x %d, in all %d; only x can degrade a turn", pr.Steps[gx].Degraded, pr.DegradedAny)
			}
			checkShare(t, "checked", pr.Checked, int64(n), tc.checked)
		})
	}
}
