package retune

import (
	"context"
	"math"
	"strings"
	"testing"

	"github.com/hedgesim/hedgesim/optimize"
	"github.com/hedgesim/hedgesim/sim"
)

// TestAdaptiveOverCostCapNotRecommended is a user's report: `hedgesim
// retune guard-check --from guard.prom --requests 10000 --check-requests
// 10000` changed the current policy for costing +80.3 %, over the
// objective's max_added_cost_pct = 80, then said "adapt: … let the client
// adapt" for an adaptive delay at +82.5 % on the live models. The
// figures below are that run's (answered share, hedged share, added
// cost; every p95 a miss, so the answered shares decide): the adaptive
// delay answers more on the live models and through the shift, but over
// the cap on the live models it is not recommended, as optimize rejects a
// candidate over the cap (over_cost_cap), and Why gives the figure.
// Within the cap (a cap of 85 %) the same figures are "adapt"; a cap the
// adaptive delay breaks only through the shift, or the hedged-share cap,
// is held the same way; an objective without a cost cap (cost) ignores
// max_added_cost_pct, as optimize does.
func TestAdaptiveOverCostCapNotRecommended(t *testing.T) {
	fig := func(answered, hedged, cost float64) PolicyFigures {
		miss := math.Inf(1)
		return PolicyFigures{Requests: 10000, Latency: sim.Latency{P95: miss, P99: miss, P95CI95: [2]float64{miss, miss}, P99CI95: [2]float64{miss, miss}},
			AnsweredShare: answered, HedgedShare: hedged, AddedCostPct: jnum(cost), capCostPct: cost}
	}
	compare := func(o optimize.Objective, live, shift [2]PolicyFigures) AdaptiveClass {
		c := AdaptiveClass{Class: "check", Percentile: 0.95}
		envs := []*EnvComparison{{Static: live[0], Adaptive: live[1]}, {Static: shift[0], Adaptive: shift[1]}}
		for _, e := range envs {
			e.Better, e.Test, e.Note, e.BetterOn = betterOn(&e.Static, &e.Adaptive, 0.95, nil, defaultRule)
			if e.Better != "adaptive" {
				t.Fatalf("not the case: without caps the adaptive delay is not better (%q, %q, %q)", e.Better, e.Note, e.BetterOn)
			}
			e.capAdaptive(o)
		}
		c.Live, c.Shift = *envs[0], envs[1]
		verdict(&c)
		return c
	}
	live := [2]PolicyFigures{fig(0.721, 0.524, 52.4), fig(0.846, 0.538, 82.5)}
	shift := [2]PolicyFigures{fig(0.753, 0.493, 49.3), fig(0.870, 0.509, 76.4)}
	answered := optimize.Objective{Goal: optimize.MostAnswered, Percentile: 0.95, MaxAddedCostPct: 80, MaxHedgedPct: 100, Target: 3e9}

	c := compare(answered, live, shift)
	if c.Verdict == "adapt" || c.Verdict != "retune on a schedule" {
		t.Errorf("adaptive delay at +82.5%% over a cap of +80%% on the live models: verdict %q, want retune on a schedule (%s)", c.Verdict, c.Why)
	}
	if r := c.Live.AdaptiveOverCaps; len(r) != 1 || r[0].Code != optimize.ReasonCostCap || r[0].Value != 82.5 || r[0].Limit != 80 {
		t.Errorf("live over caps %+v, want over_cost_cap 82.5 against 80", r)
	}
	if c.Live.Better != "" || len(c.Shift.AdaptiveOverCaps) != 0 || c.Shift.Better != "adaptive" {
		t.Errorf("live better %q, shift better %q over %+v: want the live comparison without a better, the shift's untouched", c.Live.Better, c.Shift.Better, c.Shift.AdaptiveOverCaps)
	}
	for _, want := range []string{"added cost +82.50% is over the cap of +80% by 2.50 pt (max_added_cost_pct)"} {
		if !strings.Contains(c.Why, want) {
			t.Errorf("why %q does not say %q", c.Why, want)
		}
	}
	if txt := verdictText(&c); !strings.Contains(txt, "over the objective's cap on the live models") || strings.Contains(txt, "let the client adapt") {
		t.Errorf("verdict text %q, want it over the cap on the live models, not adapt", txt)
	}

	// Within a cap of 85 %: adapt.
	within := answered
	within.MaxAddedCostPct = 85
	if c := compare(within, live, shift); c.Verdict != "adapt" || len(c.Live.AdaptiveOverCaps) != 0 {
		t.Errorf("adaptive delay at +82.5%% within a cap of +85%%: verdict %q over %+v, want adapt", c.Verdict, c.Live.AdaptiveOverCaps)
	}
	// Over the cap through the shift only.
	shiftOver := shift
	shiftOver[1].AddedCostPct, shiftOver[1].capCostPct = 86, 86
	if c := compare(within, live, shiftOver); c.Verdict != "retune on a schedule" || len(c.Shift.AdaptiveOverCaps) != 1 ||
		!strings.Contains(verdictText(&c), "through the shift") {
		t.Errorf("adaptive delay at +86%% through the shift over a cap of +85%%: verdict %q (%s), want retune on a schedule through the shift", c.Verdict, verdictText(&c))
	}
	// The hedged-share cap, every goal's.
	hedgedCap := within
	hedgedCap.MaxHedgedPct = 53
	if c := compare(hedgedCap, live, shift); c.Verdict != "retune on a schedule" || len(c.Live.AdaptiveOverCaps) != 1 ||
		c.Live.AdaptiveOverCaps[0].Code != optimize.ReasonHedgedCap || !strings.Contains(c.Why, "hedged share 53.8% is over the cap of 53% by 0.8 pt (max_hedged_pct)") {
		t.Errorf("adaptive delay hedging 53.8%% over a cap of 53%%: verdict %q over %+v (%s), want retune on a schedule", c.Verdict, c.Live.AdaptiveOverCaps, c.Why)
	}
	// Objective cost has no cost cap.
	cost := answered
	cost.Goal, cost.SLA = optimize.LowestCost, 3e9
	if c := compare(cost, live, shift); c.Verdict != "adapt" {
		t.Errorf("objective cost, max_added_cost_pct 80: verdict %q (%s), want adapt: the cap is not this objective's", c.Verdict, c.Why)
	}
}

// TestAdaptiveOverCallsCap: a class that costs nothing is held to the
// cost cap in calls per request, as optimize holds its candidates
// (optimize.CostCalls). oneModel's class (no prices), hedged statically
// at 1.898 s (its p90: about 10 % of requests send a copy) against an
// adaptive p80 of the primaries, which fires earlier, on 20 000 requests:
// the adaptive delay adds about 24 % calls (each added call is a copy;
// its hedged share, a binomial share of 20 000, has a standard error of
// 0.3 points), far over a cap of 15 %; the static policy's about 10 % is
// far within it. With a rule that asks nothing per cost, it is better on
// p95 without the cap, and not better with it.
func TestAdaptiveOverCallsCap(t *testing.T) {
	cfg := oneModelConfig(t)
	adaptive, _ := AdaptivePolicy(&cfg.Classes[0], cfg.Classes[0].Policy)
	adaptive.Adaptive.Percentile = 0.80
	free := defaultRule
	free.MinGainPerCost = 0
	o := optimize.Objective{Goal: optimize.LowestLatency, Percentile: 0.95, MaxAddedCostPct: 15, MaxHedgedPct: 100}
	run := func(objs []optimize.Objective) *EnvComparison {
		envs, err := CompareAdaptive(context.Background(), cfg, nil, []sim.Policy{adaptive}, []bool{false}, []float64{0.95}, objs, free, 20000, 2)
		if err != nil {
			t.Fatal(err)
		}
		return envs[0][0]
	}
	e := run([]optimize.Objective{o})
	s, a := e.Static, e.Adaptive
	if !math.IsNaN(float64(a.AddedCostPct)) || !(a.capCostPct > 17) || !(s.capCostPct < 13) {
		t.Fatalf("not the case: added cost in USD %v, in calls static %+.1f%%, adaptive %+.1f%%", a.AddedCostPct, s.capCostPct, a.capCostPct)
	}
	t.Logf("calls added: static %+.2f%% (hedged %.2f%%), adaptive %+.2f%% (hedged %.2f%%); p95 %.3f s → %.3f s",
		s.capCostPct, 100*s.HedgedShare, a.capCostPct, 100*a.HedgedShare, s.Latency.P95, a.Latency.P95)
	if r := e.AdaptiveOverCaps; len(r) != 1 || r[0].Code != optimize.ReasonCostCap || r[0].Value != a.capCostPct {
		t.Errorf("over caps %+v, want over_cost_cap at %+.2f%% calls", r, a.capCostPct)
	}
	if e.Better == "adaptive" || !strings.Contains(e.BetterOn, "over the cap of +15%") {
		t.Errorf("better %q on %q, want not adaptive, saying it is over the cap", e.Better, e.BetterOn)
	}
	if e := run(nil); e.Better != "adaptive" || len(e.AdaptiveOverCaps) != 0 {
		t.Errorf("without caps: better %q over %+v, want adaptive: the cap alone decides", e.Better, e.AdaptiveOverCaps)
	}
}
