package optimize_test

import (
	"math"
	"testing"
	"time"

	"github.com/hedgesim/hedgesim/optimize"
	"github.com/hedgesim/hedgesim/sim"
)

// TestOptimizeWithRetries: the hedge delay is swept with the class's
// retries in place. Calls fail with probability p = 0.5 and the client
// library retries each attempt up to 3 tries: without hedging a request
// fails with probability p³ and makes (1 − p³)/(1 − p) = 1.75 calls on
// average (tolerance: 5 standard errors from the sample size), and every
// candidate is exactly the simulation of its policy with the retries.
func TestOptimizeWithRetries(t *testing.T) {
	t.Parallel()
	const p, n = 0.5, 40_000
	cfg := lognormalConfig()
	cfg.Requests = n
	cfg.Models[0].ErrorRate = p
	cfg.Classes[0].AttemptRetry = &sim.Retry{MaxAttempts: 3, InitialBackoff: 100 * time.Millisecond, MaxBackoff: time.Second,
		Multiplier: 2, Jitter: sim.JitterFull, On: sim.DefaultRetryOn}
	s := optimize.DefaultSettings()
	s.Requests = n
	s.Search.Delays = []time.Duration{time.Second, 3 * time.Second}
	s.Search.Objective.MaxAddedCostPct = math.Inf(1)
	rep := mustRun(t, cfg, s, optimize.Options{})
	cr := rep.Classes[0]
	base := cr.Candidates[0]
	if base.Label != "none" {
		t.Fatalf("first candidate %q; want none", base.Label)
	}
	pf := p * p * p
	if got := 1 - base.AnsweredShare; math.Abs(got-pf) > 5*math.Sqrt(pf*(1-pf)/n) {
		t.Errorf("no hedging: %v of requests fail; want p³ = %v", got, pf)
	}
	if mean, sd := (1-pf)/(1-p), math.Sqrt(p)/(1-p); math.Abs(base.AttemptsPerRequest-mean) > 5*sd/math.Sqrt(n) {
		t.Errorf("no hedging: %v calls per request; want (1 − p³)/(1 − p) = %v", base.AttemptsPerRequest, mean)
	}
	for _, c := range cr.Candidates[1:] {
		run := *cfg
		run.Classes = append([]sim.Class(nil), cfg.Classes...)
		run.Classes[0].Policy.Copies, run.Classes[0].Policy.Delays = c.Copies, []time.Duration{c.Delay}
		res, err := sim.Run(&run)
		if err != nil {
			t.Fatal(err)
		}
		want := float64(res.Overall.Attempts.Sent) / float64(res.Overall.Requests)
		if c.AttemptsPerRequest != want || res.Overall.Retries == nil || res.Overall.Retries.Calls == 0 {
			t.Errorf("%s: %v calls per request; the simulation with retries gives %v (retries %+v)", c.Label, c.AttemptsPerRequest, want, res.Overall.Retries)
		}
	}
}
