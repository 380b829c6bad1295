package optimize

import (
	"strings"
	"testing"
	"time"
)

// TestShareWalkWantsSignificantCut: under objectives answered and checked
// every gain of the trade-off walk is on a share, so every move must cut
// the share not within the target significantly (withinCut) when the rule
// asks for significance. At 10 000 requests a, +1.88 pt, has 76.90 %
// within the target against no hedging's 25.29 % (the Wilson intervals
// part by far), and b, 0.01 pt costlier, one request more (76.91 %): per
// 1 % of cost that is 1.3 % of the share, over the 0.5 % threshold, but
// the intervals of a and b overlap, and the walk stops at a. A c whose
// share is 80.00 % for the same cost is a real cut, and the walk moves
// to it. The figures are exact: no tolerance is involved.
func TestShareWalkWantsSignificantCut(t *testing.T) {
	rule := DefaultSettings().Rule
	for _, name := range []string{"answered", "checked"} {
		for _, tc := range []struct {
			last float64
			pick string
		}{{0.7691, "a"}, {0.80, "b"}} {
			o := DefaultSettings().Search.Objective
			if err := o.SetName(name); err != nil {
				t.Fatal(err)
			}
			o.Target = 30 * time.Second
			cs := []Candidate{altCand("none", 14.2, 100, 0, 1), altCand("a", 12.1, 101.88, 0.75, 1), altCand("b", 12.1, 101.89, 0.75, 1)}
			for i, w := range []float64{0.2529, 0.7690, tc.last} {
				cs[i].Requests, cs[i].AnsweredWithinShare, cs[i].AddedCostPct = 10_000, w, cs[i].CostPer1kUSD-100
			}
			cr := ClassReport{Class: "c", Objective: o, Candidates: cs}
			decide(&cr, rule, 0.95)
			if got := cr.Candidates[cr.ObjectivePick].Label; got != tc.pick {
				t.Errorf("%s, b at %.2f%%: objective's pick %s; want %s", name, 100*tc.last, got, tc.pick)
			}
			tr, _ := cr.tradeOff()
			m := tr.move(&cr.Candidates[1], &cr.Candidates[2])
			if m.Cut/m.Cost < o.MinUnansweredCutPerCost {
				t.Fatalf("%s: a → b buys %.2f%% per 1%% of cost; the case needs it over the threshold", name, m.Cut/m.Cost)
			}
			if noise := tc.pick == "a"; m.NoiseCut != noise || m.passes() == noise {
				t.Errorf("%s, b at %.2f%%: move a → b %+v; want the cut's significance to decide", name, 100*tc.last, m)
			}
			if d := tr.describe(&cr.Candidates[1], &cr.Candidates[2], "cost"); m.NoiseCut && !strings.Contains(d, "the cut not significant at 95%") {
				t.Errorf("%s: describe %q does not say the cut is not significant", name, d)
			}
		}
	}
	// Without the rule's significance test the marginal test alone
	// decides: one request more carries the walk on.
	o := DefaultSettings().Search.Objective
	if err := o.SetName("answered"); err != nil {
		t.Fatal(err)
	}
	o.Target = 30 * time.Second
	cs := []Candidate{altCand("none", 14.2, 100, 0, 1), altCand("a", 12.1, 101.88, 0.75, 1), altCand("b", 12.1, 101.89, 0.75, 1)}
	for i, w := range []float64{0.2529, 0.7690, 0.7691} {
		cs[i].Requests, cs[i].AnsweredWithinShare, cs[i].AddedCostPct = 10_000, w, cs[i].CostPer1kUSD-100
	}
	r := rule
	r.RequireSignificant = false
	cr := ClassReport{Class: "c", Objective: o, Candidates: cs}
	decide(&cr, r, 0.95)
	if got := cr.Candidates[cr.ObjectivePick].Label; got != "b" {
		t.Errorf("without significance: objective's pick %s; want b", got)
	}
}

// TestNoiseCutDoesNotChooseMove: under objective p95 a move that passes on
// p95 may also cut the unanswered share, and the larger of the two parts
// of its score chooses which move the walk takes; the cut's part counts
// only when the cut is significant. From no hedging (p95 4.59 s, 4 of
// 20 000 requests unanswered), a buys p95 3.85 s for +0.86 pt (18.8 % per
// 1 %, score 18.8) and b p95 3.84 s with no request unanswered for +1.70 pt
// (9.6 % per 1 %; the cut, 100 % of the share, would score 117, but 4
// requests of 20 000 part no Wilson intervals). The walk moves to a, and
// from a b buys 0.3 % per 1 %: a is the pick. The figures are exact: no
// tolerance is involved.
func TestNoiseCutDoesNotChooseMove(t *testing.T) {
	rule := DefaultSettings().Rule
	o := DefaultSettings().Search.Objective
	cs := []Candidate{altCand("none", 4.59, 100, 0, 1-4.0/20_000), altCand("a", 3.85, 100.86, 0.2, 1-4.0/20_000), altCand("b", 3.84, 101.70, 0.28, 1)}
	for i := range cs {
		cs[i].Requests, cs[i].AddedCostPct = 20_000, cs[i].CostPer1kUSD-100
	}
	cs[0].HedgedShare, cs[0].AttemptsPerRequest = 0, 1
	cr := ClassReport{Class: "c", Objective: o, Candidates: cs}
	decide(&cr, rule, 0.95)
	if got := cr.Candidates[cr.ObjectivePick].Label; got != "a" {
		t.Errorf("objective's pick %s; want a", got)
	}
	tr, _ := cr.tradeOff()
	if m := tr.move(&cr.Candidates[0], &cr.Candidates[2]); m.Cut/m.Cost/o.MinUnansweredCutPerCost < 100 || m.Score > 10 {
		t.Errorf("move none → b %+v: want its score the p95's alone (9.6), its cut's (117) not counted", m)
	}
}
