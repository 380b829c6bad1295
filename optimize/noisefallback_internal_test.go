package optimize

import (
	"strings"
	"testing"
	"time"
)

// TestNoiseFallbackUndecidedP95 is TestNoiseFallbackUndecided under
// objective p95, where the fallback is accepted on the unanswered share
// alone: at 800 requests, the trade-off's pick a (p95 −12.5 % for +5 %,
// its interval overlapping no hedging's; unanswered 5 % → 2.5 %, Wilson
// intervals overlapping) is refused as not significant, and b (+60 %)
// cuts the unanswered share to 2.375 % — one request of 800 more than a,
// which parts the Wilson intervals from no hedging's — and passes the rule
// on that share alone (0.875 % per 1 %). From a it buys 0.05 % of the
// share per 1 % of cost: it is not recommended, and the verdict is
// undecided. The figures are exact: no tolerance is involved.
func TestNoiseFallbackUndecidedP95(t *testing.T) {
	rule := DefaultSettings().Rule
	o := DefaultSettings().Search.Objective
	cand := func(label string, q, cost, a float64) Candidate {
		c := altCand(label, q, cost, 0.1, a)
		c.Requests, c.AddedCostPct = 800, cost-100
		return c
	}
	cr := ClassReport{Class: "c", Objective: o, Candidates: []Candidate{
		cand("none", 4, 100, 0.95),
		cand("a", 3.5, 105, 0.975),
		cand("b", 3.45, 160, 0.97625),
	}}
	cr.Candidates[0].HedgedShare, cr.Candidates[0].AttemptsPerRequest = 0, 1
	cr.Candidates[1].Latency.P95CI95 = [2]float64{2.9, 4.1}
	if v := Judge(&cr.Candidates[0], &cr.Candidates[2], 0.95, 0.95, rule, CostUSD); !v.Hedge || v.DecidedBy != DecidedByUnanswered {
		t.Fatalf("b against no hedging: %+v; the case needs it accepted on the unanswered share", v)
	}
	decide(&cr, rule, 0.95)
	if cr.ObjectivePick != 1 {
		t.Fatalf("objective's pick %s; the case needs a", cr.Candidates[cr.ObjectivePick].Label)
	}
	if !cr.Verdict.Undecided || cr.Verdict.Hedge || cr.Candidates[2].Pick {
		t.Errorf("verdict %+v, b picked %v; want undecided", cr.Verdict, cr.Candidates[2].Pick)
	}
	if !strings.Contains(cr.Verdict.Reason, "b, the cheapest candidate the rule accepts, is not recommended: beyond the trade-off pick it does not earn its added cost") {
		t.Errorf("reason %q", cr.Verdict.Reason)
	}
}

// TestEarnsWantsSignificantWithinCut: under objective answered, a move
// from the refused pick a to b that passes the marginal test (the share
// not within the target 2.5 % → 2.0 %: 10 % of no hedging's 5 % for
// +1 pt, 10 % per 1 %) earns b's cost only when the cut is significant:
// not at 800 requests a candidate (the Wilson intervals of 2.5 % and
// 2.0 % overlap), and at 200 000 (they part); with the rule not asking
// for significance, the marginal test alone decides.
func TestEarnsWantsSignificantWithinCut(t *testing.T) {
	rule := DefaultSettings().Rule
	o := DefaultSettings().Search.Objective
	if err := o.SetName("answered"); err != nil {
		t.Fatal(err)
	}
	o.Target = 2 * time.Second
	for _, tc := range []struct {
		n      int64
		sig    bool
		earned bool
	}{{800, true, false}, {200_000, true, true}, {800, false, true}} {
		cs := []Candidate{altCand("none", 4, 100, 0, 1), altCand("a", 3.5, 110, 0.1, 1), altCand("b", 3.4, 111, 0.11, 1)}
		for i, w := range []float64{0.95, 0.975, 0.98} {
			cs[i].Requests, cs[i].AnsweredWithinShare, cs[i].AddedCostPct = tc.n, w, cs[i].CostPer1kUSD-100
		}
		r := rule
		r.RequireSignificant = tc.sig
		tr := newTradeOff(cs, 0, o, []int{0, 1, 2})
		if !tr.move(&cs[1], &cs[2]).passes() {
			t.Fatalf("n %d: the move a → b fails the marginal test; the case needs it to pass", tc.n)
		}
		ok, why := tr.earns(&cs[1], &cs[2], 0.95, r, "cost")
		if ok != tc.earned {
			t.Errorf("n %d, significance asked %v: earns %v (%s); want %v", tc.n, tc.sig, ok, why, tc.earned)
		}
		if !ok && !strings.Contains(why, "the cut not significant at 95%") {
			t.Errorf("n %d: why %q does not say the cut is not significant", tc.n, why)
		}
	}
}
