package retune

import (
	"math"
	"strings"
	"testing"
	"time"

	"github.com/hedgesim/hedgesim/optimize"
	"github.com/hedgesim/hedgesim/sim"
)

// TestDecideCheckedShareBatched: under objective checked, a pipeline
// whose requests interact (a queue) has its current policy judged
// against no hedging by each check run's own interval of the share
// checked within the target from its batches, not by Wilson's. The
// check's figures: 20 000 turns, checked within 1.3 s 80.0 % without
// hedging and 83.0 % with the current policy at +10 % cost (17 % against
// 20 % not checked in time: 15 % fewer for 10 % of cost, 1.5 per 1 %,
// the rule asks 0.5 and a 10 % minimum). Wilson's intervals (±0.55 and
// ±0.52 points) part, so the rule took the policy to earn its cost and
// it was kept; but the batches of a queue at ρ ≈ 0.9 give ±6 points
// (TestCheckCheckedShareBatched measures ±6.7 against Wilson's ±0.68),
// [74 %, 86 %] and [77 %, 89 %], which overlap: the rise is not
// significant, the policy does not earn its cost, and no hedging rolls
// out, as the optimisation says. For independent requests (no batches)
// the same figures keep it, by Wilson's.
func TestDecideCheckedShareBatched(t *testing.T) {
	cfg := &sim.Config{Models: []sim.Model{{Name: "m"}}, Classes: []sim.Class{{Name: "turn",
		Policy: sim.Policy{Copies: 1, Delays: []time.Duration{150 * time.Millisecond}, Targets: []int{0}}}}}
	rule := optimize.DefaultSettings().Rule
	lat := func(p95 float64) sim.Latency {
		return sim.Latency{P95: p95, P95CI95: [2]float64{p95 - 0.1, p95 + 0.1}, P95CIOK: true, P99: p95, P99CI95: [2]float64{p95 - 0.1, p95 + 0.1}, P99CIOK: true}
	}
	ci := func(lo, hi float64) *[2]*float64 { return &[2]*float64{&lo, &hi} }
	cost := 10.0
	check := func(share, noHedging *[2]*float64) optimize.RolloutClass {
		return optimize.RolloutClass{Class: "turn", Checked: lat(1.6), NoHedging: lat(1.7), AnsweredShare: 0.99, NoHedgingAnswered: 0.99, AddedCostPct: &cost,
			Within: &optimize.RolloutWithin{What: "checked", TargetS: 1.3, Share: 0.83, ShareCI: share, NoHedging: 0.80, NoHedgingCI: noHedging}}
	}
	o := optimize.Objective{Goal: optimize.MostAnswered, Checked: true, Target: 1300 * time.Millisecond, MaxAddedCostPct: math.Inf(1), MinGainPerCost: 1, MinUnansweredCutPerCost: 0.5}
	none := optimize.Candidate{Label: "none", Requests: 20000, P95CIOK: true, P99CIOK: true, Latency: lat(1.7), AnsweredShare: 0.99, AnsweredWithinShare: 0.80}
	dontHedge := &optimize.ClassReport{Class: "turn", Requests: 20000, Objective: o, CostBasis: optimize.CostUSD,
		Candidates: []optimize.Candidate{none}, Verdict: optimize.Verdict{Label: optimize.LabelNoHedge, Alternative: -1}}

	batched := check(ci(0.77, 0.89), ci(0.74, 0.86))
	a := Decide(cfg, &cfg.Classes[0], batched, 20000, ci(0.97, 1), dontHedge, rule, 0.95)
	if v := a.NowVerdict; v == nil || v.Hedge || v.Undecided || a.Decision != Change || a.New != "none" {
		t.Errorf("batched intervals overlap: %s to %s (%s), verdict %+v; want a change to no hedging", a.Decision, a.New, a.Why, v)
	}
	if w := "is judged by each run's 95% interval from its batches, not Wilson's, and no hedging's [74.00%, 86.00%] and the current policy's [77.00%, 89.00%] overlap"; !strings.Contains(a.Why, w) {
		t.Errorf("why %q lacks %q", a.Why, w)
	}
	// The batched intervals apart: it still earns its cost.
	apart := check(ci(0.815, 0.845), ci(0.785, 0.815-1e-6))
	if a := Decide(cfg, &cfg.Classes[0], apart, 20000, ci(0.97, 1), dontHedge, rule, 0.95); a.Decision != Keep || a.NowVerdict == nil || !a.NowVerdict.Hedge {
		t.Errorf("batched intervals apart: %s (%s), want keep", a.Decision, a.Why)
	}
	// No interval from batches: the check cannot tell, and it stays.
	if a := Decide(cfg, &cfg.Classes[0], check(nil, ci(0.74, 0.86)), 20000, ci(0.97, 1), dontHedge, rule, 0.95); a.Decision != Keep || a.NowVerdict == nil || !a.NowVerdict.Undecided {
		t.Errorf("no batched interval: %s (%s), want keep, undecided", a.Decision, a.Why)
	}
	// Independent requests: Wilson's intervals part, and it stays.
	z := 1.959963984540054
	wl, wh := wilson(0.83, 20000, z)
	nl, nh := wilson(0.80, 20000, z)
	if a := Decide(cfg, &cfg.Classes[0], check(ci(wl, wh), ci(nl, nh)), 20000, nil, dontHedge, rule, 0.95); a.Decision != Keep || a.NowVerdict == nil || !a.NowVerdict.Hedge {
		t.Errorf("independent requests: %s (%s), want keep by Wilson's intervals", a.Decision, a.Why)
	}
}
