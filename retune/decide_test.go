package retune

import (
	"math"
	"strings"
	"testing"
	"time"

	"github.com/hedgesim/hedgesim/optimize"
	"github.com/hedgesim/hedgesim/sim"
)

// TestDecide checks each branch of the keep-or-change rule on figures
// made up for it (z = 1.96, 10⁴ requests each).
func TestDecide(t *testing.T) {
	cfg := &sim.Config{Models: []sim.Model{{Name: "m"}}, Classes: []sim.Class{{Name: "c",
		Policy: sim.Policy{Copies: 1, Delays: []time.Duration{time.Second}, Targets: []int{0}}}}}
	cost := func(x float64) *float64 { return &x }
	now := optimize.RolloutClass{Class: "c",
		Checked:       sim.Latency{P95: 2, P95CI95: [2]float64{1.9, 2.1}},
		AnsweredShare: 0.9, AddedCostPct: cost(10)}
	cand := func(delay time.Duration, p95, lo, hi, answered, added float64) *optimize.ClassReport {
		c := optimize.Candidate{Label: delay.String(), Hedging: true, Delay: delay, DelaySeconds: delay.Seconds(), Copies: 1,
			Requests: 10000, P95CIOK: true, Latency: sim.Latency{P95: p95, P95CI95: [2]float64{lo, hi}},
			AnsweredShare: answered, AddedCostPct: added}
		return &optimize.ClassReport{Class: "c", Objective: optimize.Objective{Percentile: 0.95}, Candidates: []optimize.Candidate{c}}
	}
	z := 1.96
	for _, c := range []struct {
		name string
		cr   *optimize.ClassReport
		want string
	}{
		{"the current policy", cand(time.Second, 1.5, 1.4, 1.6, 0.95, 5), Keep},
		{"significantly faster", cand(500*time.Millisecond, 1.5, 1.4, 1.6, 0.9, 20), Change},
		{"faster but fewer answers", cand(500*time.Millisecond, 1.5, 1.4, 1.6, 0.8, 20), Keep},
		{"as good, 5 points cheaper", cand(2*time.Second, 2, 1.95, 2.05, 0.9, 5), Change},
		{"as good, half a point cheaper", cand(2*time.Second, 2, 1.95, 2.05, 0.9, 9.5), Keep},
		{"more answers, same p95", cand(500*time.Millisecond, 2, 1.9, 2.1, 0.95, 30), Change},
	} {
		a := Decide(cfg, &cfg.Classes[0], now, 10000, nil, c.cr, z)
		if a.Decision != c.want {
			t.Errorf("%s: %s (%s), want %s", c.name, a.Decision, a.Why, c.want)
		}
	}
	// Requests that interact: each run's answered share has the interval
	// its batches give, far wider than Wilson's of 10⁴ requests (±0.6
	// points at 0.9): more answers, 0.90 → 0.95, are no longer
	// significant when the two intervals are ±3 points wide, and the new
	// pick, dearer, is not taken.
	ci := func(lo, hi float64) *[2]*float64 { return &[2]*float64{&lo, &hi} }
	more := cand(500*time.Millisecond, 2, 1.9, 2.1, 0.95, 30)
	more.Candidates[0].AnsweredShareCI95, more.Candidates[0].CIMethod = ci(0.92, 0.98), optimize.CIMethodGrid
	if a := Decide(cfg, &cfg.Classes[0], now, 10000, ci(0.87, 0.93), more, z); a.Decision != Keep {
		t.Errorf("more answers within batched intervals: %s (%s), want keep", a.Decision, a.Why)
	}
	if lo, hi := wilson(0.5, 100, 1.96); math.Abs(lo-0.4038) > 1e-4 || math.Abs(hi-0.5962) > 1e-4 {
		t.Errorf("Wilson interval of 50/100: [%.4f, %.4f], want [0.4038, 0.5962]", lo, hi)
	}
}

// TestDecideOverCostCap: a current policy whose added cost on the live
// models is over the objective's cap is flagged, with the figures, and the
// report asks for action (exit 3) even with no model shifted and a keep;
// a no-hedging pick carries the optimisation's note, printed with it.
// Regression: guard-check's live slow share of 80% put its policy at
// +143.7% against max_added_cost_pct = 80 and the report said only
// "keep", with an unexplained new pick of none.
func TestDecideOverCostCap(t *testing.T) {
	cfg := &sim.Config{Models: []sim.Model{{Name: "m"}}, Classes: []sim.Class{{Name: "c",
		Policy: sim.Policy{Copies: 1, Delays: []time.Duration{time.Second}, Targets: []int{0}}}}}
	cost := func(x float64) *float64 { return &x }
	now := optimize.RolloutClass{Class: "c",
		Checked:       sim.Latency{P95: math.Inf(1), P95CI95: [2]float64{math.Inf(1), math.Inf(1)}},
		AnsweredShare: 0.495, AddedCostPct: cost(143.7)}
	const note = "no candidate with added cost ≤ +80% buys enough to move off no hedging"
	none := func(o optimize.Objective) *optimize.ClassReport {
		c := optimize.Candidate{Label: "none", Requests: 10000, Latency: sim.Latency{P95: math.Inf(1)}, AnsweredShare: 0.209}
		return &optimize.ClassReport{Class: "c", Objective: o, Candidates: []optimize.Candidate{c}, PickNote: note}
	}
	for _, c := range []struct {
		name string
		o    optimize.Objective
		want bool
	}{
		{"answered, cap 80", optimize.Objective{Goal: optimize.MostAnswered, Percentile: 0.95, MaxAddedCostPct: 80}, true},
		{"p95, cap 80", optimize.Objective{Goal: optimize.LowestLatency, Percentile: 0.95, MaxAddedCostPct: 80}, true},
		{"answered, cap 143.7 (at the cap)", optimize.Objective{Goal: optimize.MostAnswered, Percentile: 0.95, MaxAddedCostPct: 143.7}, false},
		{"answered, no cap", optimize.Objective{Goal: optimize.MostAnswered, Percentile: 0.95, MaxAddedCostPct: math.Inf(1)}, false},
		{"cost objective (no cap applies)", optimize.Objective{Goal: optimize.LowestCost, Percentile: 0.95, MaxAddedCostPct: 80}, false},
	} {
		a := Decide(cfg, &cfg.Classes[0], now, 10000, nil, none(c.o), 1.96)
		if a.OverCostCap != c.want {
			t.Errorf("%s: over the cap %v (%q), want %v", c.name, a.OverCostCap, a.OverCostCapWhy, c.want)
		}
		if c.want && !strings.Contains(a.OverCostCapWhy, "+143.7%, is over the objective's cap of +80%") {
			t.Errorf("%s: %q does not give the figures", c.name, a.OverCostCapWhy)
		}
		if a.NewPickNote != note {
			t.Errorf("%s: pick note %q, want %q", c.name, a.NewPickNote, note)
		}
		if a.Decision != Keep {
			t.Errorf("%s: %s, want keep (the decision rule is unchanged)", c.name, a.Decision)
		}
		r := &Report{Recheck: &Recheck{Check: &optimize.RolloutCheck{}, New: &optimize.Report{}, Classes: []ClassAdvice{a}}}
		r.Finish()
		if r.Action != c.want {
			t.Errorf("%s: action %v, want %v", c.name, r.Action, c.want)
		}
		var b strings.Builder
		if err := r.WriteText(&b); err != nil {
			t.Fatal(err)
		}
		if got := strings.Contains(b.String(), "c: the current policy's added cost on the live models, +143.7%, is over"); got != c.want {
			t.Errorf("%s: report flags the cap: %v, want %v:\n%s", c.name, got, c.want, b.String())
		}
		if !strings.Contains(b.String(), "c: new pick none (no hedging): "+note) {
			t.Errorf("%s: report does not say why the new pick is none:\n%s", c.name, b.String())
		}
	}
}
