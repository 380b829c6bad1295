package optimize

import (
	"slices"
	"strings"
	"testing"
	"time"
)

// TestCostObjectiveSLAFallback pins the report of objective cost when the
// verdict rule rejects the cheapest candidate within the SLA and falls
// back to no hedging, which is above it: the warning "no candidate meets"
// was given although one did, nothing said that what rolls out misses the
// SLA, the suggestion beyond the limits did not say it misses it too, and
// candidates were rejected as "above the SLA" as the pick itself is. The
// warning stays where no candidate meets the SLA, and a pick within it
// earns none of this. Figures at 200 000 requests, intervals ±0.01 s:
// every difference here is significant, so the rule decides on its gain
// and gain per cost alone.
func TestCostObjectiveSLAFallback(t *testing.T) {
	rule := DefaultSettings().Rule
	o := DefaultSettings().Search.Objective
	o.Goal, o.SLA = LowestCost, 2*time.Second
	cands := func() []Candidate {
		return []Candidate{
			altCand("none", 3.9, 100, 0, 0.998),
			altCand("a", 3.85, 101, 0.01, 0.998), // above the SLA, −1.3 %: fails the rule
			altCand("b", 2.5, 130, 0.3, 0.998),   // above the SLA, −36 % for +30 %: passes
			altCand("c", 1.98, 170, 0.55, 0.998), // within, −49 % for +70 %: fails per cost
		}
	}
	warned := func(cr *ClassReport) bool {
		return slices.ContainsFunc(cr.Warnings, func(w string) bool { return strings.Contains(w, "no candidate meets") })
	}

	cr := ClassReport{Class: "chat", Objective: o, Candidates: cands()}
	decide(&cr, rule, 0.95)
	cs := cr.Candidates
	if cr.Pick != 0 || cr.ObjectivePick != 3 {
		t.Fatalf("pick %d, objective's %d; want no hedging after the rule rejects c", cr.Pick, cr.ObjectivePick)
	}
	if warned(&cr) {
		t.Errorf("warnings %q: c meets the SLA; want no \"no candidate meets\"", cr.Warnings)
	}
	const miss = "the SLA is not met: no hedging's p95 of 3.90s is above 2.00s"
	if !cr.Verdict.SLAMissed || !strings.Contains(cr.PickNote, miss) || !strings.Contains(cr.Verdict.Reason, miss) {
		t.Errorf("sla_missed %v, note %q, reason %q; want both to say %q", cr.Verdict.SLAMissed, cr.PickNote, cr.Verdict.Reason, miss)
	}
	if !strings.Contains(cr.Verdict.Reason, "beyond the objective's limits, the rule would accept b (p95 2.50s, above the SLA of 2.00s): ") {
		t.Errorf("reason %q; want the suggestion b said to be above the SLA", cr.Verdict.Reason)
	}
	if c := &cs[1]; reasonOf(c, ReasonAboveSLA) != nil || reasonOf(c, ReasonFailsRule) == nil || c.Status != StatusRejected {
		t.Errorf("a: %s %+v; want rejected by the rule only, not for the SLA no hedging misses too", c.Status, c.Reasons)
	}
	if r := reasonOf(&cs[2], ReasonAboveSLA); r == nil || len(cs[2].Reasons) != 1 ||
		!strings.Contains(r.Text, "a hedge is recommended only within it; no hedging (p95 3.90s), what the verdict falls back to, is not held to it") {
		t.Errorf("b: %+v; want above the SLA, saying no hedging is not held to it", cs[2].Reasons)
	}
	if cs[0].Status != StatusPicked || len(cs[0].Reasons) != 0 {
		t.Errorf("none: %s %+v; want picked", cs[0].Status, cs[0].Reasons)
	}

	// No candidate within 1.5 s: the warning; the objective's pick (the
	// fastest, c) fails the rule, and what remains rejected for the SLA is
	// b, which the rule accepts, as above.
	o.SLA = 1500 * time.Millisecond
	cr = ClassReport{Class: "chat", Objective: o, Candidates: cands()}
	decide(&cr, rule, 0.95)
	if !warned(&cr) || !cr.Verdict.SLAMissed || cr.Pick != 0 || cr.ObjectivePick != 3 {
		t.Errorf("SLA 1.5s: warnings %q, sla_missed %v, pick %d, objective's %d; want the warning, sla_missed, no hedging for c", cr.Warnings, cr.Verdict.SLAMissed, cr.Pick, cr.ObjectivePick)
	}
	for i, want := range []bool{false, false, true, false} {
		if c := &cr.Candidates[i]; (reasonOf(c, ReasonAboveSLA) != nil) != want {
			t.Errorf("SLA 1.5s: %s %+v; want above_sla %v", c.Label, c.Reasons, want)
		}
	}

	// b within a 2.6 s SLA passes: picked, no warning, the SLA met, no
	// hedging rejected for being above it.
	o.SLA = 2600 * time.Millisecond
	cr = ClassReport{Class: "chat", Objective: o, Candidates: cands()}
	decide(&cr, rule, 0.95)
	if cr.Pick != 2 || warned(&cr) || cr.Verdict.SLAMissed || strings.Contains(cr.PickNote, "not met") {
		t.Errorf("SLA 2.6s: pick %d, warnings %q, sla_missed %v, note %q; want b, no warning, the SLA met", cr.Pick, cr.Warnings, cr.Verdict.SLAMissed, cr.PickNote)
	}
	if reasonOf(&cr.Candidates[0], ReasonAboveSLA) == nil {
		t.Errorf("SLA 2.6s: none %+v; want above the SLA", cr.Candidates[0].Reasons)
	}
}
