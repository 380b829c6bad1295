package optimize

import (
	"math"
	"strings"
	"testing"
	"time"

	"github.com/hedgesim/hedgesim/dist"
	"github.com/hedgesim/hedgesim/sim"
)

// slowSharedProvider: two classes, 80 % and 20 % of 10 requests/s, on one
// provider slowed 4× for 20 s in every 80 (a coupled group: its slow
// periods are shared) — model a (lognormal, median 1 s, p95 3 s, $0.01 a
// request) hedging after 2 s to itself. Nothing limits service, so the
// requests are independent and order statistics bound their percentiles.
func slowSharedProvider() *sim.Config {
	lat := dist.LogNormal{Mu: 0, Sigma: math.Log(3) / 1.6448536269514722}
	class := func(name string, share float64) sim.Class {
		return sim.Class{Name: name, Share: share, Deadline: 60 * time.Second, InputTokens: dist.Constant{}, OutputTokens: dist.Constant{},
			Policy: sim.Policy{Primary: 0, Targets: []int{0}, Copies: 1, Delays: []time.Duration{2 * time.Second}}}
	}
	return &sim.Config{
		Name: "slow-shared", Seed: 5, Requests: 100,
		Arrivals:  sim.Arrivals{Process: sim.Poisson, Rate: 10},
		Providers: []sim.Provider{{Name: "p", Degraded: &sim.Degraded{MeanNormal: 60 * time.Second, MeanDegraded: 20 * time.Second, Slowdown: 4}}},
		Models:    []sim.Model{{Name: "a", Provider: "p", Latency: lat, PricePerRequest: 0.01}},
		Classes:   []sim.Class{class("big", 0.8), class("small", 0.2)},
	}
}

// TestRegroupNoHedgingJudgedAsDecide: a group objective that chooses no
// hedging for a class is judged as decide judges a pick of no hedging.
// The class, big, has about 96 requests in a 60-request sweep of the group (run at twice the requests): too few
// for a two-sided 95 % interval on p95 (110), enough for a one-sided
// upper bound (59). Under the cost objective, with an SLA above that bound
// the verdict is "don't hedge", decided on the bound, as
// TestCostSLAOneSidedBound's is for a class alone; with an SLA below it
// (no hedging may miss it) and under objective p95, it is undecided,
// saying how many requests an interval needs. Before, regroup said
// "don't hedge" in all three, on no interval and no bound.
func TestRegroupNoHedgingJudgedAsDecide(t *testing.T) {
	for _, tc := range []struct {
		name      string
		goal      Goal
		sla       time.Duration
		undecided bool
		reason    string
	}{
		{"cost, SLA above the bound", LowestCost, 60 * time.Second, false, "meets the SLA of 60.0s: its one-sided upper bound (order statistic"},
		{"cost, SLA below the bound", LowestCost, 1500 * time.Millisecond, true, "cannot tell at"},
		{"p95", LowestLatency, 0, true, "cannot tell at"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			s := DefaultSettings()
			s.Requests, s.CheckRequests = 60, 0
			s.Search.Objective.Goal, s.Search.Objective.SLA = tc.goal, tc.sla
			rep, err := Run(slowSharedProvider(), s, Options{Workers: 1})
			if err != nil {
				t.Fatal(err)
			}
			cr := &rep.Classes[0]
			// Swept alone, it would have 60 requests; in the group's
			// runs, its share of them.
			if cr.Class != "big" || cr.Requests == int64(s.Requests) || cr.Candidates[0].CIOK(0.95) || cr.Candidates[0].upperRank[0] == 0 {
				t.Fatalf("premise: class %s, %d requests, no hedging's p95 interval %v, one-sided rank %d; want big, swept with small, without an interval, with a bound",
					cr.Class, cr.Requests, cr.Candidates[0].CIOK(0.95), cr.Candidates[0].upperRank[0])
			}
			// The class's own choice hedges; the group chooses no hedging.
			h := -1
			for i := range cr.Candidates {
				if cr.Candidates[i].Hedging {
					h = i
					break
				}
			}
			cr.Pick = h
			g := &GroupChoice{Objective: GroupWeighted, Classes: []string{"big", "small"}, Weights: []float64{0.8, 0.2}}
			regroup(cr, 0, g, Verdict{}, s.Rule, s.Level)
			v := cr.Verdict
			if cr.Pick != 0 || v.Hedge || v.Undecided != tc.undecided || !strings.Contains(v.Reason, "is best with no hedging for this class") || !strings.Contains(v.Reason, tc.reason) {
				t.Errorf("pick %d, verdict %s (undecided %v): %q; want no hedging, undecided %v, saying %q", cr.Pick, v.Label, v.Undecided, v.Reason, tc.undecided, tc.reason)
			}
		})
	}
}
