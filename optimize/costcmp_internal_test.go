package optimize

import (
	"math"
	"strings"
	"testing"
)

// TestCostTiesByRounding: two candidates whose costs differ only by float
// rounding (2.37002 and 2.3700200000000002 dollars per 1000 requests, as
// two sums over the same calls in a different order give) are one cost.
// The frontier keeps the faster of them only (b, p95 3.85 s, not a,
// 3.88 s), the move between them costs 0 pt, and a's reason is that it is
// slower than the pick, not "cheaper but slower" with a gain per cost of
// 10¹³ %. The figures are exact: no tolerance is involved beyond
// costTol's own.
func TestCostTiesByRounding(t *testing.T) {
	if 2.37002 == 2.3700200000000002 {
		t.Fatal("the costs are equal as floats; the case needs them 1 ulp apart")
	}
	rule := DefaultSettings().Rule
	o := DefaultSettings().Search.Objective
	o.MaxAddedCostPct = 3
	cs := []Candidate{
		altCand("none", 4.59, 2.3498, 0, 1),
		altCand("a", 3.88, 2.37002, 0.2, 1),
		altCand("b", 3.85, 2.3700200000000002, 0.2, 1),
		altCand("c", 3.82, 2.4139, 0.6, 1),
	}
	cs[0].HedgedShare, cs[0].AttemptsPerRequest = 0, 1
	cr := ClassReport{Class: "c", Objective: o, Candidates: cs}
	decide(&cr, rule, 0.95)
	a, b := &cr.Candidates[1], &cr.Candidates[2]
	if a.AddedCostPct == b.AddedCostPct {
		t.Fatalf("added costs %v and %v are equal; the case needs them apart by rounding", a.AddedCostPct, b.AddedCostPct)
	}
	if a.OnFrontier || !b.OnFrontier {
		t.Errorf("frontier %v: a on it %v, b %v; want b alone (the same cost, b faster)", cr.Frontier, a.OnFrontier, b.OnFrontier)
	}
	if got := cr.Candidates[cr.Pick].Label; got != "b" {
		t.Fatalf("pick %s; the case needs b", got)
	}
	tr, _ := cr.tradeOff()
	if m := tr.move(a, b); m.Cost != 0 {
		t.Errorf("move a → b costs %v pt; want 0", m.Cost)
	}
	if len(a.Reasons) == 0 || a.Reasons[0].Code != ReasonSlower {
		t.Fatalf("a's reasons %+v; want %s first", a.Reasons, ReasonSlower)
	}
	if txt := a.Reasons[0].Text; strings.Contains(txt, "cheaper") || strings.Contains(txt, "per 1% of cost") {
		t.Errorf("a's reason %q; a costs what the pick costs", txt)
	}
	// The same holds with the costs the other way round: the faster
	// candidate a hair cheaper.
	cs2 := []Candidate{altCand("none", 4.59, 2.3498, 0, 1), altCand("a", 3.88, 2.3700200000000002, 0.2, 1), altCand("b", 3.85, 2.37002, 0.2, 1)}
	cs2[0].HedgedShare, cs2[0].AttemptsPerRequest = 0, 1
	cr2 := ClassReport{Class: "c", Objective: o, Candidates: cs2}
	decide(&cr2, rule, 0.95)
	if cr2.Candidates[1].OnFrontier {
		t.Errorf("costs swapped: a on the frontier %v", cr2.Frontier)
	}
}

// TestSameCost: costs the same within costTol of the larger cost (100 +
// the added cost, in percent of no hedging's), apart beyond it; NaN is
// the same as nothing and within nothing.
func TestSameCost(t *testing.T) {
	for _, tc := range []struct {
		a, b float64
		same bool
	}{
		{0.8605, 0.8605 + 1e-12, true},
		{0, 1e-8, true},
		{0, 1e-6, false},
		{0.86, 0.87, false},
		{-50, -50 + 1e-12, true},
		{math.NaN(), math.NaN(), false},
		{math.Inf(1), math.Inf(1), true},
	} {
		if got := sameCost(tc.a, tc.b); got != tc.same {
			t.Errorf("sameCost(%v, %v) = %v; want %v", tc.a, tc.b, got, tc.same)
		}
		if tc.same && (costLess(tc.a, tc.b) || costLess(tc.b, tc.a) || costCmp(tc.a, tc.b) != 0) {
			t.Errorf("%v and %v: the same cost, yet one is less", tc.a, tc.b)
		}
	}
	if !costLess(0.86, 0.87) || costLess(0.87, 0.86) || costCmp(0.86, 0.87) != -1 {
		t.Error("0.86 is below 0.87")
	}
	// A cap: a cost a rounding over it is within it; NaN is within
	// nothing (costs that overflowed, TestPickCostNotANumber).
	if !costWithin(3+1e-12, 3) || costWithin(3.01, 3) || costWithin(math.NaN(), 3) {
		t.Error("costWithin: want 3+1e-12 within a cap of 3, 3.01 and NaN not")
	}
}
