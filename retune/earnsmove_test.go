package retune

import (
	"context"
	"strings"
	"testing"

	"github.com/hedgesim/hedgesim/optimize"
	"github.com/hedgesim/hedgesim/scenario"
	"github.com/hedgesim/hedgesim/sim"
)

// defaultRule is optimize's default verdict rule: 10 % gain, 1 % of the
// percentile (0.5 % of the unanswered share) per 1 % of added cost,
// significantly.
var defaultRule = optimize.DefaultSettings().Rule

// TestAdaptiveMustEarnItsCost: the adaptive delay faster on p95 but
// dearer is better only when its gain earns the added cost by the
// class's verdict rule, as a move from the static policy to it. The case
// reported: p95 950 ms → 942 ms, added cost +12 % → +24.9 % (+11.5 % over
// the static policy's cost): 0.84 % of p95 for 11.5 % of cost, 0.07 per
// 1 %, where the rule needs 1 — was "adapt", doubling the hedging spend
// for 8 ms. The intervals are disjoint so that only the cost can decide.
// A dearer adaptive delay that earns it (950 ms → 700 ms, 26 % for the
// same 11.5 %, 2.3 per 1 %) is still better, and a static policy faster
// but dearer is held to the same rule.
func TestAdaptiveMustEarnItsCost(t *testing.T) {
	fig := func(p95, lo, hi, cost float64) PolicyFigures {
		return PolicyFigures{Requests: 200000, Latency: sim.Latency{P95: p95, P95CI95: [2]float64{lo, hi}, P95CIOK: true}, AnsweredShare: 0.999, AddedCostPct: jnum(cost)}
	}
	static := fig(0.950, 0.946, 0.954, 12)
	slight := fig(0.942, 0.938, 0.945, 24.9)
	who, _, note, on := betterOn(&static, &slight, 0.95, nil, defaultRule)
	if who != "" || note != "" || !strings.HasPrefix(on, "does not earn its added cost, +11.5% over the static policy's (+12.0% → +24.9% over no hedging): the adaptive delay's p95 950ms → 942ms, 0.07 % of p95 per 1 % of cost, rule needs 1") {
		t.Errorf("8 ms faster for +11.5 %% cost: %q (%q, %q), want \"\" saying it does not earn its cost", who, note, on)
	}
	earns := fig(0.700, 0.690, 0.710, 24.9)
	if who, _, _, on := betterOn(&static, &earns, 0.95, nil, defaultRule); who != "adaptive" || on != "p95" {
		t.Errorf("250 ms faster for +11.5 %% cost: %q on %q, want adaptive on p95", who, on)
	}
	// The reverse: the static policy the dearer and faster.
	if who, _, _, on := betterOn(&slight, &static, 0.95, nil, defaultRule); who != "" || !strings.Contains(on, "the static policy's p95 950ms → 942ms") {
		t.Errorf("static 8 ms faster for +11.5 %% cost: %q (%q), want \"\"", who, on)
	}
	if who, _, _, _ := betterOn(&earns, &static, 0.95, nil, defaultRule); who != "static" {
		t.Errorf("static 250 ms faster for +11.5 %% cost: %q, want static", who)
	}
	// A rule asking nothing per cost takes the 8 ms.
	free := defaultRule
	free.MinGainPerCost = 0
	if who, _, _, _ := betterOn(&static, &slight, 0.95, nil, free); who != "adaptive" {
		t.Errorf("8 ms faster, rule asking 0 per cost: %q, want adaptive", who)
	}

	// The verdict: through the shift 8 ms for +11.5 % is no case to adapt.
	live := EnvComparison{Static: static, Adaptive: static}
	live.Better, live.Test, live.Note, live.BetterOn = betterOn(&live.Static, &live.Adaptive, 0.95, nil, defaultRule)
	shift := EnvComparison{Static: static, Adaptive: slight}
	shift.Better, shift.Test, shift.Note, shift.BetterOn = betterOn(&shift.Static, &shift.Adaptive, 0.95, nil, defaultRule)
	c := AdaptiveClass{Class: "chat", Percentile: 0.95, Live: live, Shift: &shift}
	verdict(&c)
	if c.Verdict != "retune on a schedule" || !strings.Contains(c.Why, "does not earn its added cost") {
		t.Errorf("8 ms faster through the shift for +11.5 %% cost: %s (%s), want retune on a schedule saying why", c.Verdict, c.Why)
	}
	if txt := verdictText(&c); !strings.Contains(txt, "does not earn its added cost") {
		t.Errorf("verdict text %q does not say the adaptive delay does not earn its cost", txt)
	}
	shift.Adaptive = earns
	shift.Better, shift.Test, shift.Note, shift.BetterOn = betterOn(&shift.Static, &shift.Adaptive, 0.95, nil, defaultRule)
	verdict(&c)
	if c.Verdict != "adapt" {
		t.Errorf("250 ms faster through the shift for +11.5 %% cost: %s (%s), want adapt", c.Verdict, c.Why)
	}
}

// TestAdaptiveAnswersMustEarnItsCost: better on the answered share alone
// is held to the rule's cut of the unanswered share per 1 % of cost
// (0.5): 10 % → 9.5 % unanswered (a 5 % cut, Wilson's intervals of
// 200 000 requests ±0.13 points apart) for +11.5 % cost is 0.43 per 1 %;
// 10 % → 8 % (a 20 % cut) is 1.7.
func TestAdaptiveAnswersMustEarnItsCost(t *testing.T) {
	fig := func(answered, cost float64) PolicyFigures {
		return PolicyFigures{Requests: 200000, Latency: sim.Latency{P95: 2, P95CI95: [2]float64{1.9, 2.1}, P95CIOK: true}, AnsweredShare: answered, AddedCostPct: jnum(cost)}
	}
	static := fig(0.90, 12)
	if who, _, _, on := betterOn(&static, new(fig(0.905, 24.9)), 0.95, nil, defaultRule); who != "" || !strings.Contains(on, "unanswered share 10.00% → 9.50%, 0.43 % of it per 1 % of cost, rule needs 0.5") {
		t.Errorf("5 %% fewer unanswered for +11.5 %% cost: %q (%q), want \"\"", who, on)
	}
	if who, _, _, on := betterOn(&static, new(fig(0.92, 24.9)), 0.95, nil, defaultRule); who != "adaptive" || on != "answered" {
		t.Errorf("20 %% fewer unanswered for +11.5 %% cost: %q on %q, want adaptive on answered", who, on)
	}
}

// TestAdaptiveEarlierDoesNotEarnItsCost: simulated, the case behind
// TestAdaptiveMustEarnItsCost. oneModel's class, billed per attempt,
// hedged statically at its p90 (1.898 s) against an adaptive p85 of the
// primaries, which fires earlier (about 1.58 s): on 100 000 requests its
// p95 is lower, 2.26 s → 2.18 s with disjoint 95 % intervals (each about
// ±0.014 s), but it hedges more, added cost +9.9 % → +17.9 %: 3.5 % of
// p95 for 7.3 % of cost, about 0.5 per 1 %, half what the rule asks.
// The margin (0.5 against 1) is far beyond the seed's noise in either
// figure at this size.
func TestAdaptiveEarlierDoesNotEarnItsCost(t *testing.T) {
	sc, err := scenario.Parse("one.toml", []byte(strings.Replace(oneModel, "latency = {", "price_per_request = 0.001\nlatency = {", 1)))
	if err != nil {
		t.Fatal(err)
	}
	cfg := &sc.Config
	adaptive, _ := AdaptivePolicy(&cfg.Classes[0], cfg.Classes[0].Policy)
	adaptive.Adaptive.Percentile = 0.85
	envs, err := CompareAdaptive(context.Background(), cfg, nil, []sim.Policy{adaptive}, []bool{false}, []float64{0.95}, nil, defaultRule, 100000, 2)
	if err != nil {
		t.Fatal(err)
	}
	e := envs[0][0]
	s, a := e.Static, e.Adaptive
	if !(a.Latency.P95CI95[1] < s.Latency.P95CI95[0]) || !(float64(a.AddedCostPct) > float64(s.AddedCostPct)+5) {
		t.Fatalf("not the case: static p95 %v cost %v, adaptive p95 %v cost %v", s.Latency.P95CI95, s.AddedCostPct, a.Latency.P95CI95, a.AddedCostPct)
	}
	if e.Better != "" || !strings.HasPrefix(e.BetterOn, "does not earn its added cost") {
		t.Errorf("adaptive p95 %.3f s for %+.1f%%, static %.3f s for %+.1f%%: better %q on %q, want neither: does not earn its added cost",
			a.Latency.P95, float64(a.AddedCostPct), s.Latency.P95, float64(s.AddedCostPct), e.Better, e.BetterOn)
	}
	t.Log(e.BetterOn)
}
