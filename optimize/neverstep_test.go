package optimize_test

import (
	"testing"

	"github.com/hedgesim/hedgesim/optimize"
	"github.com/hedgesim/hedgesim/scenario"
)

// TestPipelineNeverCalledStepNoCandidates: a step whose repeat always
// draws 0 is skipped by every request (sim's TestPipelineRepeatZeroSkips),
// so a copy of its call can never be sent: its grid has no delay, no
// candidate hedges it, and its advice row says it is never called. The
// other step is swept as usual. Once, the skipped step's default grid was
// swept, every such candidate no hedging under another label.
func TestPipelineNeverCalledStepNoCandidates(t *testing.T) {
	sc, err := scenario.Parse("never.toml", []byte(`requests = 400
[arrivals]
rate = 5
[models.m]
latency = { kind = "lognormal", median = 0.3, p95 = 1.0 }
price_per_request = 0.001
[[classes]]
name = "task"
[[classes.steps]]
name = "tool"
repeat = { kind = "constant", value = 0 }
max_repeat = 3
[classes.steps.hedge]
primary = "m"
delay = "0.5s"
[[classes.steps]]
name = "answer"
[classes.steps.hedge]
primary = "m"
delay = "0.5s"
`))
	if err != nil {
		t.Fatal(err)
	}
	s := sc.Optimize
	s.Requests, s.CheckRequests = 400, 0
	cr := mustRun(t, &sc.Config, s, optimize.Options{Workers: 2}).Classes[0]
	answer := false
	for _, c := range cr.Candidates {
		for _, st := range c.Steps {
			if st.Step == "tool" && st.Hedging {
				t.Errorf("candidate %q hedges the never-called step tool", c.Label)
			}
			answer = answer || st.Step == "answer" && st.Hedging
		}
	}
	if !answer {
		t.Errorf("no candidate hedges step answer")
	}
	for _, adv := range cr.Steps {
		if adv.Step == "tool" && adv.Why != "not hedged: never called: its repeat always draws 0, so no copy could be sent" {
			t.Errorf("tool's advice %q; want it never called", adv.Why)
		}
	}
	if len(cr.Steps) != 2 {
		t.Errorf("%d advice rows; want one per step", len(cr.Steps))
	}
}

// TestPipelineDefaultGridWithinDeadline: a step's default grid stops short
// of the pipeline's end-to-end deadline, where a copy is never sent. The
// step's calls take exactly 1 s, so its grid spreads evenly from 0 to
// 2 s (DefaultDelays of a degenerate spread); with an end-to-end deadline
// of 1.5 s, the delays from 1.5 s on are left out, the others kept. Once,
// they were swept, each such candidate no hedging under another label.
func TestPipelineDefaultGridWithinDeadline(t *testing.T) {
	sc, err := scenario.Parse("e2e.toml", []byte(`requests = 200
[arrivals]
rate = 5
[models.m]
latency = { kind = "constant", value = 1.0 }
price_per_request = 0.001
[[classes]]
name = "task"
deadline = "1.5s"
[[classes.steps]]
name = "call"
[classes.steps.hedge]
primary = "m"
delay = "0.5s"
`))
	if err != nil {
		t.Fatal(err)
	}
	s := sc.Optimize
	s.Requests, s.CheckRequests = 200, 0
	cr := mustRun(t, &sc.Config, s, optimize.Options{Workers: 2}).Classes[0]
	hedged := 0
	for _, c := range cr.Candidates {
		for _, st := range c.Steps {
			if st.Hedging && st.DelaySeconds >= 1.5 {
				t.Errorf("candidate %q: a delay at or past the 1.5s end-to-end deadline", c.Label)
			}
			if st.Hedging {
				hedged++
			}
		}
	}
	if hedged == 0 {
		t.Errorf("no candidate hedges the step; want the delays before 1.5s")
	}
}
