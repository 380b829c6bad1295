package optimize

import (
	"math"
	"strings"
	"testing"
)

// TestUnansweredUnpairedUsesOwnIntervals: no hedging's requests are
// independent (10 000 of them, 1.5 % unanswered), the pick's interact (an
// adaptive delay's: 30 batches) and the two runs cannot be paired. The
// pick's unanswered share, 0.5 %, lies below no hedging's by Wilson's
// intervals ([1.28 %, 1.76 %] against [0.38 %, 0.66 %]), but its own
// interval of the answered share, from batches of which one, in a bad
// period, answered 85 % ([98.48 %, 100 %]), overlaps no hedging's
// ([98.24 %, 98.72 %]): the fall is not significant, and with no interval
// on the pick's p95 the verdict is undecided, saying why. Before,
// Wilson's intervals alone made it "hedge", decided by the unanswered
// share.
func TestUnansweredUnpairedUsesOwnIntervals(t *testing.T) {
	base := Candidate{Label: "none", Requests: 10000, AnsweredShare: 0.985, P95CIOK: true}
	base.Latency.P95, base.Latency.P95CI95 = 4, [2]float64{3.8, 4.2}
	pick := Candidate{Label: "adaptive p50", Hedging: true, Requests: 10000, AnsweredShare: 0.995, AddedCostPct: 10}
	pick.Latency.P95, pick.Latency.P95CI95 = 2, [2]float64{math.NaN(), math.NaN()}
	batches := make([]float64, 30)
	for j := range batches {
		batches[j] = 1
	}
	// 0.995 on average: one batch of 85 %, in a bad period.
	batches[11] = 0.85
	pick.batchS[0] = batches
	ib, ip := ownAnswered(&base, 1.959963984540054, 0.95), ownAnswered(&pick, 1.959963984540054, 0.95)
	if !(ip[0] <= ib[1]) {
		t.Fatalf("premise: own intervals %v and %v part", ib, ip)
	}
	if lo, _ := wilson(base.unanswered(), base.Requests, 1.959963984540054); !(0.005 < lo) {
		t.Fatalf("premise: Wilson's intervals overlap")
	}
	rule := DefaultSettings().Rule
	v := Judge(&base, &pick, 0.95, 0.95, rule, CostUSD)
	if v.Hedge || !v.Undecided || v.UnansweredSignificant ||
		!strings.Contains(v.Reason, "the runs' own intervals of the answered share") || !strings.Contains(v.Reason, "cannot be paired with no hedging's") {
		t.Errorf("verdict hedge %v, undecided %v, unanswered significant %v: %q; want undecided, the fall not significant on the runs' own intervals", v.Hedge, v.Undecided, v.UnansweredSignificant, v.Reason)
	}
}
