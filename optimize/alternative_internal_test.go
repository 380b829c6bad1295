package optimize

import (
	"math"
	"strings"
	"testing"
	"time"

	"github.com/hedgesim/hedgesim/sim"
)

// altCand is a hand-made candidate for decide: p95 q seconds (±0.01),
// cost per 1000 requests cost (no hedging: 100), hedged share h, answered
// share a, 200 000 requests.
func altCand(label string, q, cost, h, a float64) Candidate {
	return Candidate{
		Label: label, Hedging: label != "none", Requests: 200_000,
		Latency: sim.Latency{
			P95: q, P95CI95: [2]float64{q - 0.01, q + 0.01},
			P99: q + 1, P99CI95: [2]float64{q + 0.99, q + 1.01},
		},
		P95CIOK: true, P99CIOK: true,
		AnsweredShare: a, HedgedShare: h, AttemptsPerRequest: 1 + h,
		CostPer1kUSD: cost,
	}
}

// TestAlternativeClosestToLimits pins the bug where the "beyond the
// objective's limits, the rule would accept X" note named the fastest
// acceptable candidate (0s at +76 % cost, 100 % hedged) although one just
// over the limits (1.53s at 20.8 % hedged, +15.2 %) passes too.
func TestAlternativeClosestToLimits(t *testing.T) {
	rule := DefaultSettings().Rule
	o := DefaultSettings().Search.Objective
	o.MaxHedgedPct, o.MaxAddedCostPct = 20, 10 // p95, cost ≤ +10 %
	cr := ClassReport{
		Class: "strict-sla", Objective: o,
		Candidates: []Candidate{
			altCand("none", 2, 100, 0, 0.872),
			altCand("0s", 1.5, 176, 1, 0.99),         // passes; 66 + 80 over
			altCand("1s", 2, 130, 0.5, 0.93),         // passes; 20 + 30 over
			altCand("1.53s", 2, 115.2, 0.208, 0.887), // passes; 5.2 + 0.8 over
			altCand("1.6s", 2, 115, 0.2, 0.873),      // 5 over, but fails the rule
			altCand("2s", 2, 101, 0.05, 0.876),       // feasible, fails the rule
		},
	}
	decide(&cr, rule, 0.95)
	v := cr.Verdict
	if v.Hedge || cr.Pick != 0 || v.Alternative != 3 ||
		!strings.Contains(v.Reason, "beyond the objective's limits, the rule would accept 1.53s: ") {
		t.Fatalf("verdict %+v (pick %d); want don't hedge, alternative 1.53s (3)", v, cr.Pick)
	}

	// Equal excess: the faster.
	o.MaxAddedCostPct = math.Inf(1)
	cr = ClassReport{
		Class: "tie", Objective: o,
		Candidates: []Candidate{
			altCand("none", 2, 100, 0, 0.872),
			altCand("a", 2, 115, 0.25, 0.887),
			altCand("b", 1.99, 115, 0.25, 0.887),
			altCand("c", 2, 115, 0.25, 0.887),
			altCand("far", 1.5, 115, 0.9, 0.99),
		},
	}
	decide(&cr, rule, 0.95)
	if v := cr.Verdict; v.Hedge || v.Alternative != 2 {
		t.Errorf("tie: verdict %+v; want don't hedge, alternative b (2), the faster at equal excess", v)
	}
}

func TestExcess(t *testing.T) {
	c := altCand("x", 2.2, 120, 0.3, 1)
	c.AddedCostPct = 20
	o := DefaultSettings().Search.Objective
	o.MaxHedgedPct, o.MaxAddedCostPct = 25, 10
	if got := Excess(&c, o); math.Abs(got-15) > 1e-9 { // 10 + 5
		t.Errorf("p95 objective: excess %v; want 15", got)
	}
	o.MaxAddedCostPct = math.Inf(1)
	if got := Excess(&c, o); math.Abs(got-5) > 1e-9 {
		t.Errorf("no cost cap: excess %v; want 5", got)
	}
	o.Goal, o.SLA = LowestCost, 2*time.Second // 10 % over the SLA, the cost cap does not apply
	if got := Excess(&c, o); math.Abs(got-15) > 1e-9 {
		t.Errorf("cost objective: excess %v; want 15", got)
	}
	o.Goal, o.MaxHedgedPct = Knee, 100
	if got := Excess(&c, o); got != 0 {
		t.Errorf("knee within the hedged cap: excess %v; want 0", got)
	}
}

// TestVerdictKeepsConfigured: a class whose configured policy answers
// significantly more requests than the pick (0.99 against 0.90 at 2·10⁵
// requests each: Wilson intervals ±0.0013) keeps it, with decided_by
// "configured", even over the cost cap.
func TestVerdictKeepsConfigured(t *testing.T) {
	o := DefaultSettings().Search.Objective
	o.MaxAddedCostPct = 10
	conf := altCand("configured", 2, 300, 1, 0.99)
	conf.Configured = true
	cr := ClassReport{Class: "c", Objective: o, Candidates: []Candidate{altCand("none", 2, 100, 0, 0.90), conf}}
	decide(&cr, DefaultSettings().Rule, 0.95)
	if v := cr.Verdict; cr.Pick != 1 || !v.Hedge || v.DecidedBy != DecidedByConfigured ||
		!strings.Contains(v.Reason, "keep the configured policy") {
		t.Errorf("pick %d, verdict %+v; want the configured policy kept, decided_by %q", cr.Pick, v, DecidedByConfigured)
	}
}
