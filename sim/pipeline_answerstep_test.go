package sim_test

import (
	"bytes"
	"strings"
	"testing"
	"time"

	"github.com/hedgesim/hedgesim/dist"
	"github.com/hedgesim/hedgesim/sim"
)

// TestFailOpenAnswerStepIsAMiss: the step that gives the answer (the
// visible step, or the last) fails open, its call U(0, 2 s) against a 1 s
// deadline, so half its calls end without an answer. Alone, after a 50 ms
// step, or visible before a fail-open guard of the same latency, the class
// answers exactly the turns whose answer call answered — a turn without
// an answer is a timeout open, not a degraded answer (it once counted
// 100 % answered with the extra step, 50 % without) — about half (five
// binomial standard errors of 20 000 turns); only the guard's misses
// degrade answered turns, a quarter of all (0.5 · 0.5). The lane and the
// event loop agree byte for byte, and a pipeline of several steps warns,
// naming the answer step (one plain step is its call's class, which may
// fail open).
func TestFailOpenAnswerStepIsAMiss(t *testing.T) {
	t.Parallel()
	models := []sim.Model{
		{Name: "chat", Provider: "p", Latency: dist.Uniform{Min: 0, Max: 2}},
		{Name: "fast", Provider: "p", Latency: dist.Constant{Value: 0.05}},
	}
	answer := call(time.Second, sim.FailOpen)
	prep := call(0, sim.FailClosed)
	prep.Policy.Primary = 1
	guard := call(time.Second, sim.FailOpen)
	one := []sim.Stage{{Steps: []int{0}}}
	two := []sim.Stage{{Steps: []int{0}}, {Steps: []int{1}}}
	for _, tc := range []struct {
		name     string
		pl       *sim.Pipeline
		answer   int     // the answer step's index
		degraded float64 // the share of turns answered degraded
		why      string  // the warning's reason
	}{
		{"one step", &sim.Pipeline{Steps: []sim.Step{{Name: "answer", Call: answer, FanOut: 1}}, Stages: one}, 0, 0, "the only step"},
		{"after prep", &sim.Pipeline{Steps: []sim.Step{{Name: "prep", Call: prep, FanOut: 1}, {Name: "answer", Call: answer, FanOut: 1}}, Stages: two}, 1, 0, "the last step, with no step visible; mark the step that gives it visible = true if it is another"},
		{"visible, then a guard", &sim.Pipeline{Steps: []sim.Step{{Name: "answer", Call: answer, FanOut: 1, Visible: true}, {Name: "guard", Call: guard, FanOut: 1}}, Stages: two}, 0, 0.25, "the visible step"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			n := 20_000
			cfg := pipelineConfig(n, models, tc.pl)
			if !sim.PipelineLane(cfg) {
				t.Fatal("the pipeline does not take the lane")
			}
			lane, events := mustRun(t, cfg), sim.RunDirect(cfg)
			c := &lane.Classes[0]
			step := &c.Pipeline.Steps[tc.answer]
			if c.Answered != step.Answered || c.TimeoutsOpen != int64(n)-step.Answered {
				t.Errorf("answered %d, timeouts open %d; want the %d turns whose answer step answered, the other %d timeouts open", c.Answered, c.TimeoutsOpen, step.Answered, int64(n)-step.Answered)
			}
			checkShare(t, "answered", c.Answered, int64(n), 0.5)
			if c.Pipeline.Checked+c.Pipeline.DegradedAny != c.Answered {
				t.Errorf("checked %d + degraded %d ≠ answered %d", c.Pipeline.Checked, c.Pipeline.DegradedAny, c.Answered)
			}
			checkShare(t, "degraded", c.Pipeline.DegradedAny, int64(n), tc.degraded)
			if tc.degraded > 0 && c.Pipeline.Steps[tc.answer].Degraded != 0 {
				t.Errorf("answer step degraded %d answered turns; a turn without its answer is not answered", c.Pipeline.Steps[tc.answer].Degraded)
			}
			base := sim.WithoutHedging(cfg)
			if a, b := reportJSON(t, cfg, lane, mustRun(t, base)), reportJSON(t, cfg, events, sim.RunDirect(base)); !bytes.Equal(a, b) {
				t.Errorf("the lane's report differs from the event loop's:\n%s", firstDiff(a, b))
			}
			var warned bool
			for _, w := range sim.ConfigWarnings(cfg) {
				if w.Field == "on_timeout" {
					warned = true
					if w.Step != tc.answer || !strings.Contains(w.Text, "step answer fails open") || !strings.Contains(w.Text, tc.why) {
						t.Errorf("warning %+v: want step %d, named answer, %q", w, tc.answer, tc.why)
					}
				}
			}
			if tc.pl.OneCall() {
				if warned {
					t.Error("a pipeline of one plain step warned; it is its call's class, which may fail open")
				}
				return
			}
			if !warned {
				t.Errorf("no warning that the answer step fails open: %+v", sim.ConfigWarnings(cfg))
			}
		})
	}
}
