package retune

import (
	"math"
	"strings"
	"testing"
	"time"

	"github.com/hedgesim/hedgesim/optimize"
	"github.com/hedgesim/hedgesim/sim"
)

// TestDecideCurrentMustEarnItsCost is a user's report, on its figures:
// class y hedges after 313 ms on a model whose slow path's share tripled
// (hist2.prom); in the check on the live models (8084 of its requests)
// its p95 is 3.98 s [3.970, 3.996] at +30.6 % cost against no hedging's
// 4.11 s [4.107, 4.120], and the optimisation on them says "don't hedge"
// (its pick no hedging, p95 4.111 s [4.107, 4.115] on 20 000 requests).
// The decision was "keep", the new pick being significantly slower,
// though the current policy buys 3.2 % of p95 for 30.6 % of cost: under
// the verdict rule (10 % at least, 1 % per 1 % of cost) it no longer
// earns its cost, so it is not kept and no hedging rolls out. The same
// rule keeps a current policy that still earns its cost (p95 2 s for the
// same cost), saying why beside the "keep"; keeps, saying so, one the
// check cannot judge (no interval without hedging); and, when the
// optimisation's verdict accepts a hedge, changes a policy that does not
// earn its cost to that pick though it is slower.
func TestDecideCurrentMustEarnItsCost(t *testing.T) {
	cfg := &sim.Config{Models: []sim.Model{{Name: "m"}}, Classes: []sim.Class{{Name: "y",
		Policy: sim.Policy{Copies: 1, Delays: []time.Duration{313 * time.Millisecond}, Targets: []int{0}}}}}
	rule := optimize.DefaultSettings().Rule
	cost := 30.55
	lat := func(p95, lo, hi float64) sim.Latency {
		return sim.Latency{P95: p95, P95CI95: [2]float64{lo, hi}, P95CIOK: true, P99: p95, P99CI95: [2]float64{lo, hi}, P99CIOK: true}
	}
	check := func(p95, lo, hi float64, baseOK bool) optimize.RolloutClass {
		nh := lat(4.1132, 4.1069, 4.1202)
		nh.P95CIOK = baseOK
		return optimize.RolloutClass{Class: "y", Checked: lat(p95, lo, hi), NoHedging: nh,
			AnsweredShare: 1, NoHedgingAnswered: 1, AddedCostPct: &cost}
	}
	const note = "no candidate buys enough to move off no hedging"
	o := optimize.Objective{Goal: optimize.LowestLatency, Percentile: 0.95, MaxAddedCostPct: math.Inf(1), MinGainPerCost: 1, MinUnansweredCutPerCost: 0.5}
	none := optimize.Candidate{Label: "none", Requests: 20000, P95CIOK: true, P99CIOK: true, Latency: lat(4.111, 4.1073, 4.1153), AnsweredShare: 1}
	dontHedge := &optimize.ClassReport{Class: "y", Requests: 20000, Objective: o, CostBasis: optimize.CostUSD, PickNote: note,
		Candidates: []optimize.Candidate{none}, Verdict: optimize.Verdict{Label: optimize.LabelNoHedge, Reason: note, Alternative: -1}}

	a := Decide(cfg, &cfg.Classes[0], check(3.9835, 3.9702, 3.9960, true), 8084, nil, dontHedge, rule, 0.95)
	if a.Decision != Change || a.New != "none" || a.Rolled(dontHedge) != dontHedge.Baseline() {
		t.Errorf("313 ms at +30.6%% for 3.2%% of p95: %s to %s (%s), want a change to no hedging", a.Decision, a.New, a.Why)
	}
	if v := a.NowVerdict; v == nil || v.Hedge || v.Undecided || v.Label != optimize.LabelNoHedge {
		t.Errorf("313 ms at +30.6%%: the current policy's verdict %+v, want don't hedge", v)
	}
	for _, w := range []string{"the current policy no longer earns its cost on the live models by the verdict rule",
		"p95 (4.11s → 3.98s) falls 3.2%, less than the 10% minimum", "no hedging rolls out, as the optimisation on the live models says don't hedge"} {
		if !strings.Contains(a.Why, w) {
			t.Errorf("313 ms at +30.6%%: why %q lacks %q", a.Why, w)
		}
	}

	a = Decide(cfg, &cfg.Classes[0], check(2, 1.95, 2.05, true), 8084, nil, dontHedge, rule, 0.95)
	if a.Decision != Keep || a.NowVerdict == nil || !a.NowVerdict.Hedge ||
		!strings.Contains(a.Why, "the optimisation on the live models would not hedge (its note below), but the current policy, against no hedging in the check, still earns its cost by the verdict rule: p95 (4.11s → 2.00s) falls 51.4%") {
		t.Errorf("p95 2 s at +30.6%%: %s (%s), want a keep that says the policy still earns its cost", a.Decision, a.Why)
	}

	a = Decide(cfg, &cfg.Classes[0], check(3.9835, 3.9702, 3.9960, false), 8084, nil, dontHedge, rule, 0.95)
	if a.Decision != Keep || a.NowVerdict == nil || !a.NowVerdict.Undecided ||
		!strings.Contains(a.Why, "but the check cannot tell whether the current policy still earns its cost") {
		t.Errorf("no interval without hedging: %s (%s), want a keep that says the check cannot tell", a.Decision, a.Why)
	}

	hedge := optimize.Candidate{Label: "223ms", Hedging: true, Delay: 223 * time.Millisecond, DelaySeconds: 0.223, Copies: 1,
		Requests: 20000, P95CIOK: true, P99CIOK: true, Latency: lat(3.9816, 3.9716, 3.9901), AnsweredShare: 1, AddedCostPct: 30.7}
	picksHedge := &optimize.ClassReport{Class: "y", Requests: 20000, Objective: o, CostBasis: optimize.CostUSD, Pick: 1,
		Candidates: []optimize.Candidate{none, hedge}, Verdict: optimize.Verdict{Hedge: true, Label: optimize.LabelHedge, Alternative: -1}}
	a = Decide(cfg, &cfg.Classes[0], check(3.9, 3.89, 3.91, true), 8084, nil, picksHedge, rule, 0.95)
	if a.Decision != Change || a.New != "223ms" || a.Rolled(picksHedge) != &picksHedge.Candidates[1] ||
		!strings.Contains(a.Why, "so it is not kept; the new pick, which the optimisation's verdict accepts") {
		t.Errorf("3.9 s at +30.6%% against a pick the verdict accepts: %s to %s (%s), want a change to the pick", a.Decision, a.New, a.Why)
	}
}
