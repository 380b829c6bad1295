package optimize

import (
	"encoding/json"
	"math"
	"strings"
	"testing"
	"time"
)

// reasonOf returns c's reason with the code, or nil.
func reasonOf(c *Candidate, code string) *Reason {
	for i := range c.Reasons {
		if c.Reasons[i].Code == code {
			return &c.Reasons[i]
		}
	}
	return nil
}

// TestFates decides hand-made candidates and checks every candidate's
// status and reasons, with their figures: under objective p95 (cost ≤
// +10 %, hedged ≤ 50 %), the fastest feasible candidate passes the rule
// and is picked; a faster one over the cost cap, one over the hedged cap
// and one that answers fewer requests are rejected with the limit each
// breaks; a slower feasible one is eligible, marked as not significantly
// different when its interval overlaps the pick's.
func TestFates(t *testing.T) {
	rule := DefaultSettings().Rule
	o := DefaultSettings().Search.Objective
	// The lowest p95 within the caps: marginal thresholds of 0.
	o.MaxHedgedPct, o.MaxAddedCostPct, o.MinGainPerCost, o.MinUnansweredCutPerCost = 50, 10, 0, 0
	cr := ClassReport{Class: "c", Objective: o, Candidates: []Candidate{
		altCand("none", 3, 100, 0, 0.99),
		altCand("0s", 1, 150, 1, 0.99),         // 1: over both caps
		altCand("1s", 2, 108, 0.3, 0.99),       // 2: the pick
		altCand("1.5s", 2.005, 105, 0.2, 0.99), // 3: slower, interval overlaps
		altCand("2s", 2.5, 103, 0.1, 0.99),     // 4: slower, significantly
		altCand("0.5s", 1.5, 109, 0.4, 0.9),    // 5: fewer answers
	}}
	cr.Candidates[1].AddedCostPct = 50
	decide(&cr, rule, 0.95)
	cs := cr.Candidates
	if cr.Pick != 2 || cs[2].Status != StatusPicked || len(cs[2].Reasons) != 0 {
		t.Fatalf("pick %d (%s, %v); want 1s, picked, no reasons", cr.Pick, cs[2].Status, cs[2].Reasons)
	}
	if r := reasonOf(&cs[1], ReasonCostCap); cs[1].Status != StatusRejected || r == nil || r.Value != 50 || r.Limit != 10 || r.Unit != UnitPct {
		t.Errorf("0s: %s %+v; want rejected over the cost cap, 50 vs 10 pct", cs[1].Status, cs[1].Reasons)
	}
	if r := reasonOf(&cs[1], ReasonHedgedCap); r == nil || r.Value != 100 || r.Limit != 50 {
		t.Errorf("0s: %+v; want over the hedged cap too, 100 vs 50 pct", cs[1].Reasons)
	}
	if r := reasonOf(&cs[5], ReasonFewerAnswers); cs[5].Status != StatusRejected || r == nil || r.Value != 0.9 || r.Limit != 0.99 || r.Unit != UnitShare {
		t.Errorf("0.5s: %s %+v; want rejected for fewer answers, 0.9 vs 0.99", cs[5].Status, cs[5].Reasons)
	}
	if r := reasonOf(&cs[3], ReasonSlower); cs[3].Status != StatusEligible || r == nil || r.Value != 2.005 || r.Limit != 2 || reasonOf(&cs[3], ReasonCIOverlap) == nil {
		t.Errorf("1.5s: %s %+v; want eligible, slower (2.005 vs 2 s), interval overlapping the pick's", cs[3].Status, cs[3].Reasons)
	}
	if cs[4].Status != StatusEligible || reasonOf(&cs[4], ReasonSlower) == nil || reasonOf(&cs[4], ReasonCIOverlap) != nil {
		t.Errorf("2s: %s %+v; want eligible, significantly slower", cs[4].Status, cs[4].Reasons)
	}
	if cs[0].Status != StatusEligible || reasonOf(&cs[0], ReasonSlower) == nil {
		t.Errorf("none: %s %+v; want eligible, slower", cs[0].Status, cs[0].Reasons)
	}
	// JSON: codes with figures; a miss is null.
	b, err := json.Marshal(Reason{Code: ReasonSlower, Value: math.Inf(1), Limit: 2, Unit: UnitSeconds, Text: "x"})
	if err != nil || string(b) != `{"code":"slower_than_pick","value":null,"limit":2,"unit":"s","text":"x"}` {
		t.Errorf("JSON %s, %v", b, err)
	}
}

// TestFatesRule: when the fastest feasible candidate fails the verdict
// rule and a slower one passes it, the slower one is picked, and the
// faster one — the objective's own pick — is rejected by the rule, with
// the test that failed and the text of the verdict. When none passes,
// every hedged candidate within the limits is rejected by the rule; with
// objective cost, a candidate above the SLA is rejected for it.
func TestFatesRule(t *testing.T) {
	rule := DefaultSettings().Rule
	o := DefaultSettings().Search.Objective
	// The lowest p95 (marginal thresholds of 0), which the rule then judges.
	o.MaxAddedCostPct, o.MinGainPerCost, o.MinUnansweredCutPerCost = math.Inf(1), 0, 0
	cr := ClassReport{Class: "c", Objective: o, Candidates: []Candidate{
		altCand("none", 3, 100, 0, 0.99),
		altCand("0s", 2.5, 200, 1, 0.99),   // fastest: −17 % for +100 %, fails per cost
		altCand("1s", 2.6, 110, 0.1, 0.99), // −13 % for +10 %: passes
	}}
	decide(&cr, rule, 0.95)
	cs := cr.Candidates
	if cr.Pick != 2 || cr.ObjectivePick != 1 {
		t.Fatalf("pick %d, objective's %d; want 1s picked over 0s", cr.Pick, cr.ObjectivePick)
	}
	if r := reasonOf(&cs[1], ReasonFailsRule); cs[1].Status != StatusRejected || r == nil || r.Detail != DetailGainPerCost ||
		!strings.Contains(r.Text, "per 1% of cost, less than 1") || math.Abs(r.Value-100.0/6) > 1e-9 {
		t.Errorf("0s: %s %+v; want rejected by the rule's per-cost test", cs[1].Status, cs[1].Reasons)
	}

	cr = ClassReport{Class: "c", Objective: o, Candidates: []Candidate{
		altCand("none", 3, 100, 0, 0.99),
		altCand("1s", 2.9, 101, 0.1, 0.99), // −3 %: below the 10 % minimum
	}}
	decide(&cr, rule, 0.95)
	if c := &cr.Candidates[1]; cr.Pick != 0 || c.Status != StatusRejected || reasonOf(c, ReasonFailsRule) == nil || reasonOf(c, ReasonFailsRule).Detail != DetailGainBelowMin {
		t.Errorf("don't hedge: pick %d, 1s %s %+v; want rejected by the rule's minimum gain", cr.Pick, c.Status, c.Reasons)
	}
	if c := &cr.Candidates[0]; c.Status != StatusPicked {
		t.Errorf("don't hedge: no hedging is %s; want picked", c.Status)
	}

	o.Goal, o.SLA = LowestCost, 2700*time.Millisecond
	cr = ClassReport{Class: "c", Objective: o, Candidates: []Candidate{
		altCand("none", 3, 100, 0, 0.99),
		altCand("1s", 2.6, 105, 0.1, 0.99),
		altCand("2s", 2.8, 102, 0.05, 0.99),
	}}
	decide(&cr, rule, 0.95)
	if r := reasonOf(&cr.Candidates[2], ReasonAboveSLA); cr.Pick != 1 || r == nil || r.Value != 2.8 || r.Limit != 2.7 {
		t.Errorf("cost objective: pick %d, 2s %+v; want 1s picked, 2s above the SLA (2.8 vs 2.7 s)", cr.Pick, cr.Candidates[2].Reasons)
	}
	if r := reasonOf(&cr.Candidates[0], ReasonAboveSLA); r == nil || cr.Candidates[0].Status != StatusRejected {
		t.Errorf("cost objective: none %+v; want above the SLA", cr.Candidates[0].Reasons)
	}
}

// TestWhyNotClosestToPick: the "why not" list shows the candidates closest
// to being picked — the frontier's points nearest the pick in added cost
// first, on either side (one just over a cap before a far faster one),
// then the off-frontier ones — not the fastest.
func TestWhyNotClosestToPick(t *testing.T) {
	rule := DefaultSettings().Rule
	o := DefaultSettings().Search.Objective
	o.MaxAddedCostPct = 10
	cr := ClassReport{Class: "c", Objective: o, Candidates: []Candidate{
		altCand("none", 30, 100, 0, 0.89),
		altCand("26.5s", 27.9, 109.79, 0.139, 0.991), // 1: the pick, under the cap
		altCand("11s", 12.5, 110.04, 0.143, 1),       // 2: over the cap by 0.04 pt
		altCand("5.2s", 6.8, 111.2, 0.171, 1),        // 3: over by 1.2 pt
		altCand("0s", 2.3, 158.9, 1, 1),              // 4: the fastest, far over
		altCand("slow", 29, 109.9, 0.2, 0.95),        // 5: off the frontier
	}}
	for i := range cr.Candidates {
		cr.Candidates[i].Latency.P95CI95 = [2]float64{cr.Candidates[i].Latency.P95 - 0.01, cr.Candidates[i].Latency.P95 + 0.01}
	}
	decide(&cr, rule, 0.95)
	if cr.Pick != 1 {
		t.Fatalf("pick %d (%s); want 26.5s", cr.Pick, cr.PickNote)
	}
	idx, total := whyNot(&cr, 4)
	var got []string
	for _, i := range idx {
		got = append(got, cr.Candidates[i].Label)
	}
	if want := []string{"11s", "5.2s", "none", "0s"}; strings.Join(got, ",") != strings.Join(want, ",") || total != 3 {
		t.Errorf("why not %v (%d rejected); want %v (3 rejected)", got, total, want)
	}
	if r := reasonOf(&cr.Candidates[2], ReasonCostCap); r == nil || !strings.Contains(r.Text, "added cost +10.04% is over the cap of +10% by 0.04 pt") {
		t.Errorf("11s: %+v; want over the cap with two decimals", cr.Candidates[2].Reasons)
	}
}

// TestRuleMovesTradeOffToCheapest: when the trade-off's pick fails the
// verdict rule (here: a gain whose interval overlaps no hedging's), the
// pick moves to the cheapest candidate the rule accepts — the least step
// past where the trade-off ended — not to the fastest (d, +25 %).
func TestRuleMovesTradeOffToCheapest(t *testing.T) {
	rule := DefaultSettings().Rule
	o := DefaultSettings().Search.Objective
	cr := ClassReport{Class: "c", Objective: o, Candidates: []Candidate{
		altCand("none", 4, 100, 0, 1),
		altCand("a", 3.5, 105, 0.1, 1), // −12.5 % for +5 %: the trade-off's pick, not significant
		altCand("b", 3.4, 112, 0.2, 1), // −15 % for +12 %: from a, 0.36 % per %
		altCand("d", 3.0, 125, 0.4, 1), // −25 % for +25 %: from a, 0.63 % per %
		altCand("c", 2.0, 200, 1, 1),   // −50 % for +100 %: fails the rule
	}}
	cr.Candidates[1].Latency.P95CI95 = [2]float64{2.9, 4.1}
	decide(&cr, rule, 0.95)
	if cr.ObjectivePick != 1 || cr.Pick != 2 || !cr.Verdict.Hedge ||
		!strings.Contains(cr.Verdict.Reason, "recommend b: the trade-off pick (a) fails the rule") {
		t.Errorf("objective's pick %d, pick %d, verdict %+v; want a, then b, the cheapest the rule accepts", cr.ObjectivePick, cr.Pick, cr.Verdict)
	}
	cs := cr.Candidates
	if !cs[2].Pick || cs[2].ObjectivePick || !cs[1].ObjectivePick || cs[1].Pick || !strings.Contains(cr.PickNote, "instead of the objective's pick (a") {
		t.Errorf("marks: b pick %v objective %v, a pick %v objective %v; note %q", cs[2].Pick, cs[2].ObjectivePick, cs[1].Pick, cs[1].ObjectivePick, cr.PickNote)
	}
	var b strings.Builder
	writeClass(&b, &cr, 0.95, false)
	if !strings.Contains(b.String(), "o the objective's pick") {
		t.Errorf("table:\n%s", b.String())
	}
	if r := reasonOf(&cr.Candidates[3], ReasonCostlier); r == nil || !strings.Contains(r.Text, "the cheapest candidate the verdict rule accepts") {
		t.Errorf("d: %s %+v; want costlier than the pick", cr.Candidates[3].Status, cr.Candidates[3].Reasons)
	}
}

// TestClosingLegendNamesUnpickedClasses: when some classes have a pick and
// others none (Unpicked), the closing legend keeps "~" relative to the
// pick's interval and names the classes where it is relative to what rolls
// out instead.
func TestClosingLegendNamesUnpickedClasses(t *testing.T) {
	picked := ClassReport{Class: "a", Candidates: []Candidate{{Pick: true}}}
	unpicked := ClassReport{Class: "b", RollsOut: RollsOutConfigured, Verdict: Verdict{Undecided: true}, Candidates: []Candidate{{}}}
	if got := closingLegend([]ClassReport{picked}); !strings.Contains(got, "overlaps the pick's") || strings.Contains(got, "rolls out") {
		t.Errorf("every class picked: %q", got)
	}
	got := closingLegend([]ClassReport{picked, unpicked})
	for _, want := range []string{"overlaps the pick's", "; b has no picked candidate", "there ~ = not known to differ from what rolls out"} {
		if !strings.Contains(got, want) {
			t.Errorf("one class unpicked: %q lacks %q", got, want)
		}
	}
}

// TestRuleStepsBackAlongWalk: when the trade-off walk goes one move too
// far — its last move passes the marginal test on a significant cut of
// the unanswered share, but from no hedging its end buys too little per
// cost on either figure, so the rule refuses it — the pick steps back to
// the walk's last point the rule accepts (a, p95 −40 %), not to the
// cheapest candidate the rule accepts (c, p95 −12 %), which the walk
// passed on its way. TestRuleMovesTradeOffToCheapest is the other case:
// a walk that stopped too early.
func TestRuleStepsBackAlongWalk(t *testing.T) {
	rule := DefaultSettings().Rule
	o := DefaultSettings().Search.Objective
	cr := ClassReport{Class: "c", Objective: o, Candidates: []Candidate{
		altCand("none", 4, 100, 0, 0.90),
		altCand("c", 3.52, 105, 0.05, 0.90), // −12 % for +5 %: the walk's first move (2.4 % per %)
		altCand("a", 2.4, 130, 0.3, 0.90),   // −40 % for +30 %; from c 28 % for +25 pt (1.12 % per %)
		altCand("e", 2.38, 131, 0.31, 0.90), // from a 0.5 % for +1 pt: off the walk; the rule accepts it
		altCand("b", 2.3, 210, 1, 0.95),     // from a: unanswered −50 % for +80 pt (0.63 % per %, ≥ 0.5); from none 0.39 and 0.45 % per %
	}}
	decide(&cr, rule, 0.95)
	cs := cr.Candidates
	if cr.ObjectivePick != 4 || cr.Pick != 2 || !cr.Verdict.Hedge ||
		!strings.Contains(cr.Verdict.Reason, "recommend a: the trade-off pick (b) fails the rule") ||
		!strings.Contains(cr.Verdict.Reason, "a, the last point of the walk to it that the rule accepts, passes") {
		t.Errorf("objective's pick %s, pick %s, verdict %+v; want b, then a, the walk's last point the rule accepts", cs[cr.ObjectivePick].Label, cs[cr.Pick].Label, cr.Verdict)
	}
	if !strings.Contains(cr.PickNote, "instead of the objective's pick (b") {
		t.Errorf("note %q", cr.PickNote)
	}
	if r := reasonOf(&cs[4], ReasonFailsRule); r == nil {
		t.Errorf("b: %s %+v; want it failing the rule", cs[4].Status, cs[4].Reasons)
	}
	if r := reasonOf(&cs[3], ReasonCostlier); r == nil || !strings.Contains(r.Text, "the last point of the trade-off walk that the verdict rule accepts (the walk ended at b") {
		t.Errorf("e: %s %+v; want costlier than the pick, off the walk", cs[3].Status, cs[3].Reasons)
	}
	if r := reasonOf(&cs[1], ReasonSlower); r == nil {
		t.Errorf("c: %s %+v; want slower than the pick", cs[1].Status, cs[1].Reasons)
	}
}
