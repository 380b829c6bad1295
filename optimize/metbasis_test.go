package optimize_test

import (
	"strings"
	"testing"

	"github.com/hedgesim/hedgesim/optimize"
	"github.com/hedgesim/hedgesim/scenario"
)

// TestMetBasisNamedWhenNotTheTarget: met, rescued and harmed are counted
// against the class's SLO or, without one, answered at all (within the
// deadline) — not against the objective's target. A class with a 10 s
// deadline, no SLO, optimized for the share answered within 2 s: the
// pick's met share is its answered share, not its share within 2 s, and
// the verdict's request-by-request quote says what it is judged on.
func TestMetBasisNamedWhenNotTheTarget(t *testing.T) {
	t.Parallel()
	sc, err := scenario.Parse("within.toml", []byte(`seed = 5
requests = 20000
[arrivals]
rate = 20.0
[models.m]
latency = { kind = "lognormal", median = 1.0, p95 = 4.0 }
price_per_request = 0.001
[[classes]]
name = "c"
deadline = "10s"
[classes.hedge]
primary = "m"
delay = "2s"
max_copies = 1
[optimize]
objective = "answered"
target = "2s"
`))
	if err != nil {
		t.Fatal(err)
	}
	s := sc.Optimize
	s.CheckRequests = 0
	rep := mustRun(t, &sc.Config, s, optimize.Options{Workers: 2})
	cr := &rep.Classes[0]
	pick := cr.Picked()
	if !cr.Verdict.Hedge || pick.RescuedShare == nil {
		t.Fatalf("verdict %+v, rescued %v; want hedging, paired with no hedging", cr.Verdict, pick.RescuedShare)
	}
	if pick.MetShare != pick.AnsweredShare || pick.MetShare == pick.AnsweredWithinShare {
		t.Errorf("met share %v; want the answered share %v, not the share within 2 s %v", pick.MetShare, pick.AnsweredShare, pick.AnsweredWithinShare)
	}
	want := "request by request against no hedging, judged on answered at all (within the deadline of 10.0s), not on the objective's target of 2.00s: rescued "
	if !strings.Contains(cr.Verdict.Reason, want) {
		t.Errorf("verdict reason %q; want it to contain %q", cr.Verdict.Reason, want)
	}
}
