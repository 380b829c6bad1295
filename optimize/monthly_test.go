package optimize

import (
	"strings"
	"testing"

	"github.com/hedgesim/hedgesim/sim"
)

// TestMonthlyClosedLoopIsHedgingsOwn: a user's closed-loop class (10
// clients, 1 s think time) read "+17.70% cost: +$2,995 a month at 5.21
// req/s", but 17.7 % more per request at 5.21 req/s is ≈ $2,390: $2,995 was
// the bill at the hedged throughput less the bill at no hedging's own,
// 4.975 req/s, so it held ≈ $605 of extra requests served. Now the verdict
// gives hedging's own figure, 15 890 − 12 895 × 5.21 ÷ 4.975 = 2 385.9, and
// the bill's change apart; with open arrivals (one rate) it is as before.
func TestMonthlyClosedLoopIsHedgingsOwn(t *testing.T) {
	cr := func(s sim.Spend) *ClassReport {
		return &ClassReport{CostBasis: CostUSD, Spend: s,
			Candidates: []Candidate{{Hedging: true, AddedCallsPct: 17.7, AddedCostPct: 17.7}}}
	}
	closed := cr(sim.Spend{RequestsPerSecond: 5.21, NoHedgingRequestsPerSecond: 4.975, PerMonth: 15890, NoHedgingPerMonth: 12895})
	want := "+17.7% calls, +17.70% cost: +$2,386 a month at 5.21 req/s (the clients send 4.97 → 5.21 req/s with it, so the bill changes +$2,995 a month)"
	if got := monthly(closed); got != want {
		t.Errorf("closed loop: %q, want %q", got, want)
	}
	open := cr(sim.Spend{RequestsPerSecond: 20, NoHedgingRequestsPerSecond: 20, PerMonth: 7300, NoHedgingPerMonth: 4173})
	if got, want := monthly(open), "+17.7% calls, +17.70% cost: +$3,127 a month at 20 req/s"; got != want {
		t.Errorf("open arrivals: %q, want %q", got, want)
	}
	if !strings.Contains(sim.ThroughputSpendNote, "added per month holds the spend of the extra requests") {
		t.Errorf("the spend tables' note %q", sim.ThroughputSpendNote)
	}
}
