package optimize_test

import (
	"encoding/json"
	"math"
	"reflect"
	"strings"
	"testing"
	"time"

	"github.com/hedgesim/hedgesim/optimize"
	"github.com/hedgesim/hedgesim/sim"
)

// cand is a hand-made candidate: p95 q seconds with interval ±ci, added
// cost cost %, hedged share h, answered share a.
func cand(label string, q, ci, cost, h, a float64) optimize.Candidate {
	return optimize.Candidate{
		Label: label, Hedging: label != "none", Requests: 10000,
		Latency: sim.Latency{
			P95: q, P95CI95: [2]float64{q - ci, q + ci},
			P99: 2 * q, P99CI95: [2]float64{2*q - 2*ci, 2*q + 2*ci},
		},
		P95CIOK: true, P99CIOK: true,
		AddedCostPct: cost, HedgedShare: h, AnsweredShare: a,
	}
}

// set is a convex frontier with dominated points: no hedging at 4 s, then
// cheaper-to-dearer candidates, with "bad" dominated by "b" and "dup" a
// copy of "c".
func set() []optimize.Candidate {
	return []optimize.Candidate{
		cand("none", 4.0, 0.05, 0, 0, 1),
		cand("a", 3.6, 0.05, 1, 0.02, 1),
		cand("b", 3.0, 0.05, 4, 0.10, 1),
		cand("bad", 3.5, 0.05, 6, 0.15, 1),
		cand("c", 2.4, 0.05, 8, 0.20, 1),
		cand("dup", 2.4, 0.05, 8, 0.20, 1),
		cand("d", 2.3, 0.05, 20, 0.50, 1),
		cand("e", 2.25, 0.05, 60, 0.90, 1),
	}
}

func labels(cs []optimize.Candidate, idx []int) []string {
	var out []string
	for _, i := range idx {
		out = append(out, cs[i].Label)
	}
	return out
}

func TestFrontier(t *testing.T) {
	cs := set()
	got := labels(cs, optimize.Frontier(cs, 0.95))
	want := []string{"none", "a", "b", "c", "d", "e"}
	if !reflect.DeepEqual(got, want) {
		t.Errorf("frontier %v; want %v", got, want)
	}
	// A cheaper and faster candidate dominates no hedging.
	cs = append(cs, cand("free", 3.9, 0.05, -1, 0.5, 1))
	got = labels(cs, optimize.Frontier(cs, 0.95))
	want = []string{"free", "a", "b", "c", "d", "e"}
	if !reflect.DeepEqual(got, want) {
		t.Errorf("frontier with a cheaper candidate %v; want %v", got, want)
	}
	// Equal p95 (at a deadline): the answered share breaks the tie.
	ties := []optimize.Candidate{
		cand("none", 3, 0, 0, 0, 0.5),
		cand("x", 3, 0, 50, 0.5, 0.75),
		cand("y", 3, 0, 60, 0.5, 0.70),
		cand("z", 3, 0, 75, 0.5, 0.875),
	}
	got = labels(ties, optimize.Frontier(ties, 0.95))
	if want := []string{"none", "x", "z"}; !reflect.DeepEqual(got, want) {
		t.Errorf("frontier at a deadline %v; want %v", got, want)
	}
	// The p99 frontier uses p99.
	p99 := []optimize.Candidate{cand("none", 4, 0, 0, 0, 1), cand("a", 3, 0, 5, 0.1, 1)}
	p99[1].Latency.P99 = 9
	if got := labels(p99, optimize.Frontier(p99, 0.99)); !reflect.DeepEqual(got, []string{"none"}) {
		t.Errorf("p99 frontier %v; want [none]", got)
	}
}

func objective(name string) optimize.Objective {
	o := optimize.DefaultSettings().Search.Objective
	if err := o.SetName(name); err != nil {
		panic(err)
	}
	return o
}

func TestPickLowestLatency(t *testing.T) {
	cs := set()
	o := objective("p95")
	// Marginal thresholds of 0 and a cap: the lowest p95 within the caps.
	o.MaxAddedCostPct, o.MinGainPerCost, o.MinUnansweredCutPerCost = 10, 0, 0
	i, note := optimize.Pick(cs, o) // "dup" ties with "c" in everything: the first wins
	if cs[i].Label != "c" || !strings.Contains(note, "lowest p95 with added cost ≤ +10%") {
		t.Errorf("pick %s (%s); want c, the fastest within +10%%", cs[i].Label, note)
	}
	for _, c := range cs {
		if want := c.AddedCostPct <= 10; c.Feasible != want {
			t.Errorf("%s: feasible %v; want %v", c.Label, c.Feasible, want)
		}
	}
	o.MaxHedgedPct = 15
	if i, note := optimize.Pick(cs, o); cs[i].Label != "b" || !strings.Contains(note, "hedged share ≤ 15%") {
		t.Errorf("with hedged share ≤ 15%%: pick %s (%s); want b", cs[i].Label, note)
	}
	o.MaxHedgedPct = 100
	o.MaxAddedCostPct = math.Inf(1)
	if i, _ := optimize.Pick(cs, o); cs[i].Label != "e" {
		t.Errorf("without a cost cap: pick %s; want e", cs[i].Label)
	}
	o.MaxAddedCostPct = 0.5
	i, note = optimize.Pick(cs, o)
	if cs[i].Label != "none" || !strings.Contains(note, "the fastest, e, has p95 2.25s for +60.0% cost") {
		t.Errorf("with a 0.5%% cap: pick %s (%s); want none, naming the fastest", cs[i].Label, note)
	}
	// p99 objective ranks by p99.
	cs = set()
	cs[1].Latency.P99 = 1 // "a" has by far the best p99
	if i, _ := optimize.Pick(cs, objective("p99")); cs[i].Label != "a" {
		t.Errorf("p99: pick %s; want a", cs[i].Label)
	}
}

func TestPickLowestCost(t *testing.T) {
	cs := set()
	o := objective("cost")
	o.SLA = 3 * time.Second
	i, note := optimize.Pick(cs, o)
	if cs[i].Label != "b" || !strings.Contains(note, "cheapest candidate with p95 ≤ 3.00s") {
		t.Errorf("SLA 3s: pick %s (%s); want b", cs[i].Label, note)
	}
	o.SLA = 5 * time.Second
	if i, note := optimize.Pick(cs, o); cs[i].Label != "none" || !strings.Contains(note, "already meets") {
		t.Errorf("SLA 5s: pick %s (%s); want none", cs[i].Label, note)
	}
	o.SLA = time.Second
	i, note = optimize.Pick(cs, o)
	if cs[i].Label != "e" || !strings.Contains(note, "no candidate has p95 ≤ 1.00s") {
		t.Errorf("SLA 1s: pick %s (%s); want e, the fastest, with a note", cs[i].Label, note)
	}
	if cs[i].Feasible {
		t.Error("SLA 1s: the fastest is marked feasible")
	}
}

func TestPickKnee(t *testing.T) {
	cs := set()
	// Scaled: x = cost/60, y = (4 − q)/1.75. y − x: a 0.212, b 0.505,
	// c 0.781, d 0.638, e 0. The knee is c.
	i, note := optimize.Pick(cs, objective("knee"))
	if cs[i].Label != "c" || !strings.Contains(note, "knee") {
		t.Errorf("knee: pick %s (%s); want c", cs[i].Label, note)
	}
	// The hedged-share cap applies before the frontier is drawn.
	o := objective("knee")
	o.MaxHedgedPct = 60
	if i, _ := optimize.Pick(cs, o); cs[i].Label != "c" {
		t.Errorf("knee with hedged ≤ 60%%: pick %s; want c", cs[i].Label)
	}
	// A straight frontier shows no diminishing returns: the fastest point.
	line := []optimize.Candidate{
		cand("none", 4, 0, 0, 0, 1), cand("a", 3, 0, 10, 0.1, 1), cand("b", 2, 0, 20, 0.2, 1),
	}
	if i, note := optimize.Pick(line, objective("knee")); line[i].Label != "b" || !strings.Contains(note, "no diminishing returns") {
		t.Errorf("straight frontier: pick %s (%s); want b", line[i].Label, note)
	}
	two := line[:2]
	if i, note := optimize.Pick(two, objective("knee")); two[i].Label != "a" || !strings.Contains(note, "fewer than 3") {
		t.Errorf("two-point frontier: pick %s (%s); want a", two[i].Label, note)
	}
	// Rising returns (flat, then falling fast): no knee, the fastest point.
	rising := []optimize.Candidate{
		cand("none", 4, 0, 0, 0, 1), cand("a", 3.95, 0, 5, 0.1, 1), cand("b", 3.5, 0, 8, 0.2, 1), cand("c", 2, 0, 10, 0.3, 1),
	}
	if i, _ := optimize.Pick(rising, objective("knee")); rising[i].Label != "c" {
		t.Errorf("rising returns: pick %s; want c", rising[i].Label)
	}
	// Only no hedging on the frontier.
	alone := []optimize.Candidate{cand("none", 4, 0, 0, 0, 1), cand("a", 4.5, 0, 5, 0.1, 1)}
	if i, note := optimize.Pick(alone, objective("knee")); alone[i].Label != "none" || !strings.Contains(note, "no candidate") {
		t.Errorf("no faster candidate: pick %s (%s)", alone[i].Label, note)
	}
}

func TestJudge(t *testing.T) {
	rule := optimize.DefaultSettings().Rule
	base := cand("none", 4, 0.05, 0, 0, 1)
	tests := []struct {
		name   string
		pick   optimize.Candidate
		hedge  bool
		reason string
	}{
		{"-25% for +8% (rule of thumb: worth it)", cand("x", 3, 0.05, 8, 0.1, 1), true, "p95 (4.00s → 3.00s) falls 25.0% for +8.0% cost (3.1% per 1% of cost)"},
		{"-10% for +20% (rule of thumb: not worth it)", cand("x", 3.59, 0.05, 20, 0.1, 1), false, "falls 10.3% for +20.0% cost: 0.51% per 1% of cost, less than 1"},
		{"-9% for +1%: under the minimum gain", cand("x", 3.64, 0.05, 1, 0.1, 1), false, "less than the 10% minimum"},
		{"faster and cheaper", cand("x", 3.5, 0.05, -2, 0.9, 1), true, "faster and cheaper"},
		{"faster at no added cost", cand("x", 3.5, 0.05, -0.01, 0.9, 1), true, "p95 (4.00s → 3.50s) falls 12.5% at no added cost"},
		{"not significant", cand("x", 3.5, 0.5, 2, 0.1, 1), false, "not significantly at 95%"},
		{"slower", cand("x", 4.2, 0.05, 2, 0.1, 1), false, "p95 (4.00s → 4.20s) does not fall"},
	}
	for _, tc := range tests {
		v := optimize.Judge(&base, &tc.pick, 0.95, 0.95, rule, optimize.CostUSD)
		if v.Hedge != tc.hedge || !strings.Contains(v.Reason, tc.reason) {
			t.Errorf("%s: verdict %v %q; want %v and %q", tc.name, v.Hedge, v.Reason, tc.hedge, tc.reason)
		}
	}
	loose := rule
	loose.RequireSignificant = false
	if v := optimize.Judge(&base, &tests[4].pick, 0.95, 0.95, loose, optimize.CostUSD); !v.Hedge {
		t.Errorf("without the significance test: %q; want hedge", v.Reason)
	}
	// Field report 1: p95 stuck at the 3 s deadline, unanswered share
	// 50 % → 12.5 % for +75 % calls.
	b := cand("none", 3, 0, 0, 0, 0.5)
	p := cand("1s", 3, 0, 75, 0.5, 0.875)
	v := optimize.Judge(&b, &p, 0.95, 0.95, rule, optimize.CostCalls)
	if !v.Hedge || !strings.Contains(v.Reason, "the unanswered share (50.0% → 12.5%) falls 75.0% for +75.0% calls") {
		t.Errorf("field report 1: %v %q", v.Hedge, v.Reason)
	}
	if v.UnansweredBefore != 0.5 || v.UnansweredAfter != 0.125 || v.GainPct != 0 {
		t.Errorf("field report 1: %+v", v)
	}
	// The same gain for +200 % calls is not worth it.
	p.AddedCostPct = 200
	if v := optimize.Judge(&b, &p, 0.95, 0.95, rule, optimize.CostCalls); v.Hedge {
		t.Errorf("+200%% calls: %q; want don't hedge", v.Reason)
	}
	// The pick is no hedging.
	if v := optimize.Judge(&base, &base, 0.95, 0.95, rule, optimize.CostUSD); v.Hedge {
		t.Errorf("no hedging: %+v", v)
	}
	// A pick that answers fewer requests in time says so, hedge or not.
	b = cand("none", 4, 0.05, 0, 0, 0.985)
	p = cand("x", 3, 0.05, 8, 0.1, 0.979)
	v = optimize.Judge(&b, &p, 0.95, 0.95, rule, optimize.CostUSD)
	if !v.Hedge || !strings.Contains(v.Reason, "falls 25.0%") || !strings.Contains(v.Reason, "but the answered share falls 98.5% → 97.9%") {
		t.Errorf("fewer answers: %v %q; want hedge, saying the answered share falls", v.Hedge, v.Reason)
	}
	// A fall of 1 in 100 000 on 10 000 requests a side is no evidence of
	// fewer answers: the reason says it moves, not significantly, with
	// enough digits to see the move.
	p = cand("x", 3.9, 0.05, 8, 0.1, 0.98499)
	v = optimize.Judge(&b, &p, 0.95, 0.95, rule, optimize.CostUSD)
	if v.Hedge || !strings.Contains(v.Reason, "the answered share moves 98.500% → 98.499%, not significantly at 95%") || strings.Contains(v.Reason, "more requests go without") {
		t.Errorf("slightly fewer answers: %v %q; want don't hedge, saying the answered share moves not significantly", v.Hedge, v.Reason)
	}
}

// TestJudgeTooFewRequests: without an order-statistic interval on either
// side, the percentile is not significant and cannot decide: unless the
// unanswered share falls significantly, the verdict is undecided — not
// "don't hedge" — whatever the gain, the cost or the rule, and says how
// many requests an interval needs.
func TestJudgeTooFewRequests(t *testing.T) {
	rule := optimize.DefaultSettings().Rule
	loose := rule
	loose.RequireSignificant = false
	base := cand("none", 2.67, 0, 0, 0, 0.5)
	pick := cand("x", 1.53, 0, -5, 0.5, 1)
	base.Requests, pick.Requests = 5, 5
	for _, side := range []string{"both", "baseline", "pick"} {
		b, p := base, pick
		b.P95CIOK = side == "pick"
		p.P95CIOK = side == "baseline"
		for _, r := range []optimize.Rule{rule, loose} {
			v := optimize.Judge(&b, &p, 0.95, 0.95, r, optimize.CostUSD)
			if v.Hedge || !v.Undecided || v.Significant || v.UnansweredSignificant ||
				!strings.Contains(v.Reason, "cannot tell at 5 requests: too few for a 95% interval on p95 (5 simulated per candidate, at least 110 needed): rerun with --requests ≥ 110") {
				t.Errorf("no interval (%s), significance required %v: %+v; want undecided, not significant, and how many requests are needed", side, r.RequireSignificant, v)
			}
		}
	}
	// The unanswered share needs no percentile interval: on 5000
	// requests per candidate, no hedging answering 75 % and the pick
	// 100 % (Wilson intervals [73.8 %, 76.2 %] and [99.92 %, 100 %], far
	// apart) decides "hedge" on its own, with or without the rule's
	// significance test.
	for _, r := range []optimize.Rule{rule, loose} {
		b, p := cand("none", 2.67, 0, 0, 0, 0.75), cand("x", 1.53, 0, 50, 0.5, 1)
		b.Requests, p.Requests = 5000, 5000
		b.P95CIOK, p.P95CIOK = false, false
		v := optimize.Judge(&b, &p, 0.95, 0.95, r, optimize.CostCalls)
		if !v.Hedge || v.Undecided || v.DecidedBy != optimize.DecidedByUnanswered || !v.UnansweredSignificant || v.Significant ||
			!strings.Contains(v.Reason, "the unanswered share (25.0% → 0.0%) falls 100.0% for +50.0% calls") {
			t.Errorf("unanswered 25%% → 0%% without a p95 interval, significance required %v: %+v; want hedge, decided by the unanswered share", r.RequireSignificant, v)
		}
	}
	// p99 has its own threshold.
	b, p := base, pick
	b.P99CIOK, p.P99CIOK = false, false
	if v := optimize.Judge(&b, &p, 0.99, 0.95, rule, optimize.CostUSD); v.Hedge || !v.Undecided || !strings.Contains(v.Reason, "at least 563 needed") {
		t.Errorf("p99: %+v", v)
	}
	if v := optimize.Judge(&b, &p, 0.95, 0.95, rule, optimize.CostUSD); !v.Hedge {
		t.Errorf("p95 with a p95 interval: %+v; want hedge (only p99 lacks an interval)", v)
	}
}

func TestObjectiveStrings(t *testing.T) {
	o := objective("p95")
	if got := o.String(); got != "p95 on the trade-off (each move along the frontier buys ≥ 1% of p95 or ≥ 0.5% of the unanswered share per 1% of added cost)" {
		t.Errorf("p95: %q", got)
	}
	o.MaxAddedCostPct = 10
	if got := o.String(); !strings.HasSuffix(got, "per 1% of added cost) with added cost ≤ +10%") {
		t.Errorf("p95 with a cost cap: %q", got)
	}
	o.MinGainPerCost, o.MinUnansweredCutPerCost = 0, 0
	if got := o.String(); got != "lowest p95 with added cost ≤ +10%" {
		t.Errorf("p95, thresholds 0: %q", got)
	}
	o.MaxHedgedPct = 20
	o.MaxAddedCostPct = math.Inf(1)
	if got := o.String(); got != "lowest p95 with hedged share ≤ 20%" {
		t.Errorf("p95 without cost cap: %q", got)
	}
	o = objective("cost")
	o.SLA = 1500 * time.Millisecond
	if got := o.String(); got != "lowest cost with p95 ≤ 1.50s" {
		t.Errorf("cost: %q", got)
	}
	if got := objective("knee").String(); got != "knee of the added-cost versus p95 frontier" {
		t.Errorf("knee: %q", got)
	}
	for _, name := range optimize.ObjectiveNames() {
		if got := objective(name).Name(); got != name {
			t.Errorf("Name() = %q; want %q", got, name)
		}
	}
	rule := optimize.DefaultSettings().Rule
	if got := rule.Describe(0.95, 0.95); !strings.Contains(got, "p95 falls by ≥ 10% and by ≥ 1% per 1% of added cost") {
		t.Errorf("rule: %q", got)
	}
}

// TestPickNotesGrammar pins the note "no candidate and hedged share ≤ 5%
// is faster" (knee under --max-hedged 5): every note of every objective
// reads as English under every combination of limits.
func TestPickNotesGrammar(t *testing.T) {
	sets := map[string][]optimize.Candidate{
		"convex": set(),
		"line":   {cand("none", 4, 0, 0, 0, 1), cand("a", 3, 0, 10, 0.01, 1), cand("b", 2, 0, 20, 0.02, 1)},
		"slower": {cand("none", 4, 0, 0, 0, 1), cand("a", 4.5, 0, 5, 0.01, 1)},
		"pricey": {cand("none", 4, 0, 0, 0, 1), cand("a", 3, 0, 50, 0.01, 1)},
	}
	bad := []string{"candidate and", "frontier and", " and hedged share ≤ 5% with", "with with", "  "}
	want := map[string]string{ // how each limit reads, when it applies
		"cost":   "added cost ≤ +10%",
		"hedged": "hedged share ≤ 5%",
	}
	for _, name := range []string{"p95", "p99", "cost", "knee"} {
		for _, caps := range [][2]float64{{10, 100}, {math.Inf(1), 5}, {10, 5}, {math.Inf(1), 100}} {
			for sname, cs := range sets {
				o := objective(name)
				o.MaxAddedCostPct, o.MaxHedgedPct = caps[0], caps[1]
				for _, sla := range []time.Duration{time.Second, 3 * time.Second, 5 * time.Second} {
					o.SLA = sla
					_, note := optimize.Pick(cs, o)
					for _, b := range bad {
						if strings.Contains(note, b) {
							t.Errorf("%s, caps %v, %s, SLA %v: note %q contains %q", name, caps, sname, sla, note, b)
						}
					}
					if strings.Contains(note, "≤ 5%") && !strings.Contains(note, want["hedged"]) ||
						strings.Contains(note, "+10%") && !strings.Contains(note, want["cost"]) {
						t.Errorf("%s, caps %v, %s: note %q", name, caps, sname, note)
					}
					if name != "p95" && name != "p99" {
						break // the SLA only matters to cost; the cost cap to p95/p99
					}
				}
			}
		}
	}
	o := objective("knee")
	o.MaxHedgedPct = 5
	if _, note := optimize.Pick(sets["slower"], o); note != "no candidate with hedged share ≤ 5% is faster than no hedging" {
		t.Errorf("knee, hedged ≤ 5%%: note %q", note)
	}
	o = objective("cost")
	o.MaxHedgedPct, o.SLA = 5, 3*time.Second
	if _, note := optimize.Pick(sets["line"], o); note != "cheapest candidate with p95 ≤ 3.00s and hedged share ≤ 5%" {
		t.Errorf("cost, hedged ≤ 5%%: note %q", note)
	}
	o.SLA = time.Second
	if _, note := optimize.Pick(sets["line"], o); !strings.HasPrefix(note, "no candidate with hedged share ≤ 5% has p95 ≤ 1.00s") {
		t.Errorf("cost, hedged ≤ 5%%, SLA unmet: note %q", note)
	}
}

// TestJudgeDecidedBy pins the bug where JSON said "hedge: true,
// significant: false" for a verdict that passed on the unanswered share,
// which requires significance: the verdict says which test decided and
// whether the unanswered share fell significantly.
func TestJudgeDecidedBy(t *testing.T) {
	rule := optimize.DefaultSettings().Rule
	base := cand("none", 4, 0.05, 0, 0, 0.5)
	loose := rule
	loose.RequireSignificant, loose.MinGainPct = false, 0
	tests := []struct {
		name            string
		base, pick      optimize.Candidate
		rule            optimize.Rule
		hedge, sig, uns bool
		by              string
	}{
		{"percentile", base, cand("x", 3, 0.05, 8, 0.1, 0.875), rule, true, true, true, optimize.DecidedByPercentile},
		// p95 stuck at the deadline: only the unanswered share falls.
		{"unanswered", cand("none", 3, 0, 0, 0, 0.5), cand("1s", 3, 0, 75, 0.5, 0.875), rule, true, false, true, optimize.DecidedByUnanswered},
		{"unanswered, not significantly", cand("none", 3, 0, 0, 0, 0.5), cand("1s", 3, 0, 1, 0.5, 0.505), loose, true, false, false, optimize.DecidedByUnanswered},
		{"don't hedge", base, cand("x", 3.59, 0.05, 20, 0.1, 0.5), rule, false, true, false, ""},
	}
	for _, tc := range tests {
		v := optimize.Judge(&tc.base, &tc.pick, 0.95, 0.95, tc.rule, optimize.CostUSD)
		if v.Hedge != tc.hedge || v.Significant != tc.sig || v.UnansweredSignificant != tc.uns || v.DecidedBy != tc.by {
			t.Errorf("%s: %+v; want hedge %v, significant %v, unanswered_significant %v, decided_by %q", tc.name, v, tc.hedge, tc.sig, tc.uns, tc.by)
		}
	}
	v := optimize.Judge(&tests[1].base, &tests[1].pick, 0.95, 0.95, rule, optimize.CostUSD)
	b, err := json.Marshal(v)
	if err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{`"hedge":true`, `"significant":false`, `"decided_by":"unanswered"`, `"unanswered_significant":true`} {
		if !strings.Contains(string(b), want) {
			t.Errorf("JSON %s lacks %s", b, want)
		}
	}
}

// TestPickKneeNoise pins the bug where objective knee found a knee 0.0007
// (scaled) above the chord of an almost straight frontier: a knee must lie
// at least MinKneeDistance above it.
func TestPickKneeNoise(t *testing.T) {
	// Scaled: x = cost/20, y = (4 − q)/2; a's distance above the chord is
	// d when its p95 is 3 − 2d.
	for _, tc := range []struct {
		d    float64
		want string
	}{{0.0007, "b"}, {optimize.MinKneeDistance - 0.001, "b"}, {optimize.MinKneeDistance + 0.001, "a"}, {0.1, "a"}} {
		cs := []optimize.Candidate{
			cand("none", 4, 0, 0, 0, 1), cand("a", 3-2*tc.d, 0, 10, 0.1, 1), cand("b", 2, 0, 20, 0.2, 1),
		}
		i, note := optimize.Pick(cs, objective("knee"))
		noKnee := strings.Contains(note, "no diminishing returns")
		if cs[i].Label != tc.want || noKnee != (tc.want == "b") {
			t.Errorf("a %v above the chord: pick %s (%s); want %s", tc.d, cs[i].Label, note, tc.want)
		}
	}
}

// TestObjectiveJSONCostCap pins the bug where JSON max_added_cost_pct
// said 10 for objectives cost and knee, which have no cost cap.
func TestObjectiveJSONCostCap(t *testing.T) {
	for _, tc := range []struct {
		name string
		cap  float64
		want string
	}{
		{"p95", 10, `"max_added_cost_pct":10`},
		{"p99", 25, `"max_added_cost_pct":25`},
		{"p95", math.Inf(1), `"max_added_cost_pct":null`},
		{"cost", 10, `"max_added_cost_pct":null`},
		{"knee", 10, `"max_added_cost_pct":null`},
	} {
		o := objective(tc.name)
		o.MaxAddedCostPct = tc.cap
		if tc.name == "cost" {
			o.SLA = time.Second
		}
		b, err := json.Marshal(o)
		if err != nil {
			t.Fatal(err)
		}
		if !strings.Contains(string(b), tc.want) {
			t.Errorf("%s, cap %v: %s; want %s", tc.name, tc.cap, b, tc.want)
		}
	}
}

// TestPickCostNotANumber: when costs overflowed, every added cost is NaN
// and no candidate is within the cost cap, not even no hedging; Pick keeps
// no hedging instead of indexing candidate −1 (it panicked with "index
// out of range [-1]").
func TestPickCostNotANumber(t *testing.T) {
	cs := set()
	for i := range cs {
		cs[i].AddedCostPct = math.NaN()
	}
	i, note := optimize.Pick(cs, objective("p95"))
	if cs[i].Label != "none" || !strings.Contains(note, "no candidate") {
		t.Errorf("pick %s (%s); want none", cs[i].Label, note)
	}
}
