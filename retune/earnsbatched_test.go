package retune

import (
	"context"
	"math"
	"strings"
	"testing"
	"time"

	"github.com/hedgesim/hedgesim/optimize"
	"github.com/hedgesim/hedgesim/scenario"
	"github.com/hedgesim/hedgesim/sim"
)

// TestDecideCheckedShareBatched: under objective checked, a pipeline
// whose requests interact (a queue) has its current policy judged
// against no hedging by the check runs' batches of the share checked
// within the target, not by Wilson's intervals. The
// check's figures: 20 000 turns, checked within 1.3 s 80.0 % without
// hedging and 83.0 % with the current policy at +10 % cost (17 % against
// 20 % not checked in time: 15 % fewer for 10 % of cost, 1.5 per 1 %,
// the rule asks 0.5 and a 10 % minimum). Wilson's intervals (±0.55 and
// ±0.52 points) part, so the rule took the policy to earn its cost and
// it was kept. When the requests interact the rise is judged by the
// paired difference of the two check runs' shares over their batches:
// an interval [−0.5, +6.5] points holds 0, the rise is not significant,
// the policy does not earn its cost, and no hedging rolls out, as the
// optimisation says; [+1, +5] is significant, and the rule accepts it.
// Without a paired difference each run's own interval from its batches
// decides:
// a queue at ρ ≈ 0.9 gives ±6 points (TestCheckCheckedShareBatched
// measures ±6.7 against Wilson's ±0.68), [74 %, 86 %] and [77 %, 89 %],
// which overlap: no hedging rolls out. For independent requests (no
// batches) the same figures keep it, by Wilson's.
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

	paired := check(ci(0.77, 0.89), ci(0.74, 0.86))
	paired.Within.RiseCI = ci(-0.005, 0.065)
	a := Decide(cfg, &cfg.Classes[0], paired, 20000, ci(0.97, 1), dontHedge, rule, 0.95)
	if v := a.NowVerdict; v == nil || v.Hedge || v.Undecided || a.Decision != Change || a.New != "none" ||
		!strings.Contains(a.Why, "the 95% interval of its paired difference over the batches holds 0: [-0.50, +6.50] points") {
		t.Errorf("paired difference holds 0: %s to %s (%s); want a change to no hedging", a.Decision, a.New, a.Why)
	}
	paired.Within.RiseCI = ci(0.01, 0.05)
	// (Keep or change then turns on the later rules: the new pick of no
	// hedging, by Wilson's interval, is within the check's own.)
	if a := Decide(cfg, &cfg.Classes[0], paired, 20000, ci(0.97, 1), dontHedge, rule, 0.95); a.NowVerdict == nil || !a.NowVerdict.Hedge ||
		!strings.Contains(a.NowVerdict.Reason, "paired difference over the batches is [+1.00, +5.00] points") {
		t.Errorf("paired difference above 0: the current policy's verdict %+v, want hedge", a.NowVerdict)
	}

	batched := check(ci(0.77, 0.89), ci(0.74, 0.86))
	a = Decide(cfg, &cfg.Classes[0], batched, 20000, ci(0.97, 1), dontHedge, rule, 0.95)
	if v := a.NowVerdict; v == nil || v.Hedge || v.Undecided || a.Decision != Change || a.New != "none" {
		t.Errorf("batched intervals overlap: %s to %s (%s), verdict %+v; want a change to no hedging", a.Decision, a.New, a.Why, v)
	}
	if w := "is judged from the check runs' batches, not by Wilson's intervals, and each run's own 95% interval, no hedging's [74.00%, 86.00%] and the current policy's [77.00%, 89.00%], overlap"; !strings.Contains(a.Why, w) {
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

// queuedGuard is a pipeline turn whose answer step queues (one server,
// exponential service of mean 0.1 s, Poisson arrivals at 9/s: an M/M/1
// queue at ρ = 0.9) behind a fail-open guard whose lognormal latency
// (median 135 ms, σ 1) passes its 0.3 s deadline a fifth of the time,
// hedged after 0.1 s.
const queuedGuard = `
seed = 5
requests = 10000
[arrivals]
process = "poisson"
rate = 9.0
[providers.pc]
concurrency = 1
[providers.pg]
[models.g]
provider = "pg"
price_per_request = 0.0001
latency = { kind = "lognormal", mu = -2.0, sigma = 1.0 }
[models.chat]
provider = "pc"
price_per_request = 0.01
latency = { kind = "exponential", rate = 10.0 }
[[classes]]
name = "turn"
share = 1.0
deadline = "60s"
[[classes.steps]]
name = "guard"
deadline = "0.3s"
on_timeout = "fail_open"
[classes.steps.hedge]
primary = "g"
targets = ["g"]
delay = "0.1s"
max_copies = 1
[[classes.steps]]
name = "answer"
[classes.steps.hedge]
primary = "chat"
`

// TestRecheckCheckedQueuePaired: simulated, queuedGuard's current policy
// under objective checked within 2 s (10 000 turns a candidate and in
// the check) is judged by the paired difference of the check runs'
// batches, which the check now gives (rollout_check within's
// paired_rise_ci): the queue makes each run's own interval from its
// batches wide (±6.3 and ±7.3 points, seed 5), but the two runs share their
// random numbers, so the paired difference cancels what a batch's turns
// shared and is far narrower (±1.4 points): the guard's hedge, 63.5 % →
// 74.0 % checked in time, is significant, as it is. Both intervals must
// hold what they estimate, and the paired one be under half the width of
// either run's own.
func TestRecheckCheckedQueuePaired(t *testing.T) {
	sc, err := scenario.Parse("queued.toml", []byte(queuedGuard))
	if err != nil {
		t.Fatal(err)
	}
	s := sc.Optimize
	s.Requests, s.CheckRequests = 10000, 10000
	s.Each(func(se *optimize.Search) {
		se.Objective.SetName("checked")
		se.Objective.Target = 2 * time.Second
	})
	cfg := &sc.Config
	rc, err := RecheckPolicy(context.Background(), cfg, cfg, RecheckOptions{Settings: s, NoAdaptive: true})
	if err != nil {
		t.Fatal(err)
	}
	w := rc.Check.Classes[0].Within
	if w == nil || w.ShareCI == nil || w.NoHedgingCI == nil || w.RiseCI == nil || w.RiseCI[0] == nil || w.RiseCI[1] == nil {
		t.Fatalf("the check's within %+v: want both runs' intervals and the paired difference's", w)
	}
	rise, lo, hi := w.Share-w.NoHedging, *w.RiseCI[0], *w.RiseCI[1]
	own := min(*w.ShareCI[1]-*w.ShareCI[0], *w.NoHedgingCI[1]-*w.NoHedgingCI[0])
	if !(lo <= rise && rise <= hi) || !(hi-lo < own/2) {
		t.Errorf("rise %.4f, paired interval [%.4f, %.4f]; want it to hold the rise and be under half of %.4f", rise, lo, hi, own)
	}
	v := rc.Classes[0].NowVerdict
	if v == nil || !v.Hedge || !strings.Contains(v.Reason, "paired difference over the batches is [") {
		t.Errorf("the current policy's verdict %+v: want hedge, judged by the paired difference", v)
	}
}

// TestDecideUnansweredCutPaired: under objective p95, a current policy
// whose p95 is a miss with and without hedging earns its cost only by
// the cut of its unanswered share: 10 % → 8 % of 20 000 requests for
// +10 % cost (20 % for 10 %, 2 per 1 %; the rule asks 0.5) parts
// Wilson's intervals (±0.42 and ±0.38 points). When the requests
// interact the cut must also clear the paired difference of the check
// runs' answered shares over their batches, as optimize asks of a pick:
// [−0.5, +4.5] points holds 0, so the policy no longer earns its cost
// and no hedging rolls out; [+0.5, +3.5] clears it; without a paired
// difference (independent requests) Wilson's stands.
func TestDecideUnansweredCutPaired(t *testing.T) {
	cfg := &sim.Config{Models: []sim.Model{{Name: "m"}}, Classes: []sim.Class{{Name: "c",
		Policy: sim.Policy{Copies: 1, Delays: []time.Duration{time.Second}, Targets: []int{0}}}}}
	rule := optimize.DefaultSettings().Rule
	inf := math.Inf(1)
	miss := sim.Latency{P95: inf, P95CI95: [2]float64{inf, inf}, P95CIOK: true, P99: inf, P99CI95: [2]float64{inf, inf}, P99CIOK: true}
	ci := func(lo, hi float64) *[2]*float64 { return &[2]*float64{&lo, &hi} }
	cost := 10.0
	check := func(rise *[2]*float64) optimize.RolloutClass {
		return optimize.RolloutClass{Class: "c", Checked: miss, NoHedging: miss, AnsweredShare: 0.92, NoHedgingAnswered: 0.90,
			AddedCostPct: &cost, AnsweredRiseCI: rise}
	}
	o := optimize.Objective{Goal: optimize.LowestLatency, Percentile: 0.95, MaxAddedCostPct: inf, MinGainPerCost: 1, MinUnansweredCutPerCost: 0.5}
	none := optimize.Candidate{Label: "none", Requests: 20000, P95CIOK: true, P99CIOK: true, Latency: miss, AnsweredShare: 0.90}
	dontHedge := &optimize.ClassReport{Class: "c", Requests: 20000, Objective: o, CostBasis: optimize.CostUSD,
		Candidates: []optimize.Candidate{none}, Verdict: optimize.Verdict{Label: optimize.LabelNoHedge, Alternative: -1}}

	a := Decide(cfg, &cfg.Classes[0], check(ci(-0.005, 0.045)), 20000, ci(0.90, 0.94), dontHedge, rule, 0.95)
	if v := a.NowVerdict; v == nil || v.Hedge || v.Undecided || a.Decision != Change || a.New != "none" ||
		!strings.Contains(a.Why, "the cut of the unanswered share is not significant: its requests interact, and the 95% interval of the paired difference of the answered shares over the check runs' batches is [-0.50, +4.50] points, which holds 0") {
		t.Errorf("paired difference holds 0: %s to %s (%s); want a change to no hedging", a.Decision, a.New, a.Why)
	}
	a = Decide(cfg, &cfg.Classes[0], check(ci(0.005, 0.035)), 20000, ci(0.90, 0.94), dontHedge, rule, 0.95)
	if v := a.NowVerdict; v == nil || !v.Hedge || v.DecidedBy != optimize.DecidedByUnanswered || !strings.Contains(v.Reason, "is [+0.50, +3.50] points") {
		t.Errorf("paired difference above 0: the current policy's verdict %+v, want hedge by the unanswered share", v)
	}
	a = Decide(cfg, &cfg.Classes[0], check(nil), 20000, nil, dontHedge, rule, 0.95)
	if v := a.NowVerdict; v == nil || !v.Hedge || v.DecidedBy != optimize.DecidedByUnanswered {
		t.Errorf("independent requests: the current policy's verdict %+v, want hedge by Wilson's intervals", v)
	}
}
