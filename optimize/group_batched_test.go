package optimize_test

import (
	"math"
	"strings"
	"testing"
	"time"

	"github.com/hedgesim/hedgesim/dist"
	"github.com/hedgesim/hedgesim/optimize"
	"github.com/hedgesim/hedgesim/scenario"
	"github.com/hedgesim/hedgesim/scenarios"
	"github.com/hedgesim/hedgesim/sim"
)

// overloadedGroup is a coupled group whose requests interact: classes big
// (share 1) and rare (share 1e-9, so it gets no requests) share provider
// p, 50 attempts at once, at 45 requests/s of lognormal calls (median 1 s,
// p95 3 s): offered about 104 % of p's capacity, so p's queue grows and
// the class's percentiles must come from batches. Both hedge at once to
// model n on provider q.
func overloadedGroup(requests int) *sim.Config {
	lat := dist.LogNormal{Mu: 0, Sigma: math.Log(3) / 1.6448536269514722}
	class := func(name string, share float64) sim.Class {
		return sim.Class{Name: name, Share: share, Deadline: 30 * time.Second, InputTokens: dist.Constant{}, OutputTokens: dist.Constant{},
			Policy: sim.Policy{Primary: 0, Targets: []int{1}, Copies: 1, Delays: []time.Duration{2 * time.Second}}}
	}
	return &sim.Config{
		Name: "overloaded-group", Seed: 1, Requests: requests,
		Arrivals:  sim.Arrivals{Process: sim.Poisson, Rate: 45},
		Providers: []sim.Provider{{Name: "p", Concurrency: 50}, {Name: "q"}},
		Models: []sim.Model{
			{Name: "m", Provider: "p", Latency: lat, PricePerRequest: 0.01},
			{Name: "n", Provider: "q", Latency: lat, PricePerRequest: 0.01},
		},
		Classes: []sim.Class{class("big", 1), class("rare", 1e-9)},
	}
}

// TestGroupVerdictUsesBatchedIntervals: a jointly optimized class whose
// requests interact is judged on batched intervals, as a class optimized
// alone is. At 4000 requests (2000 after the warm-up cut, 67 a batch,
// fewer than the 200 a batch's p95 needs: sim.MinBatchRequests) there is
// no interval, so the verdict is undecided, with the advice to rerun, and
// nothing is significant; order statistics, which assume independent
// requests, had called the hedge significant. Rerun at the advised 6001
// requests, the class is decided.
func TestGroupVerdictUsesBatchedIntervals(t *testing.T) {
	s := optimize.DefaultSettings()
	s.Requests, s.CheckRequests = 2000, 0
	rep := mustRun(t, overloadedGroup(2000), s, optimize.Options{})
	if len(rep.Joint) != 1 {
		t.Fatalf("joint groups %d; want big and rare optimized jointly", len(rep.Joint))
	}
	big := rep.Classes[0]
	if v := big.Verdict; v.Hedge || v.Significant || !v.Undecided {
		t.Errorf("big at 4000 requests: verdict %+v; want undecided, nothing significant", v)
	}
	if r := big.Verdict.Reason; !strings.Contains(r, "too few for a 95% interval on p95") || !strings.Contains(r, "rerun with --requests ≥ 6001") {
		t.Errorf("big's reason %q; want the batched interval's need and the rerun advice", r)
	}
	s.Requests = 6001
	rep = mustRun(t, overloadedGroup(6001), s, optimize.Options{})
	if v := rep.Classes[0].Verdict; v.Undecided || !v.Hedge || !v.Significant {
		t.Errorf("big at the advised 6001 requests: verdict %+v; want a significant hedge", v)
	}
}

// TestGroupObjectiveAnswered: coupled classes whose objective is the share
// answered within a target are held to that objective when the group
// chooses. On shared-rate-limit at 20 000 requests with objective
// answered within 5 s, each class hedges when swept for itself ("each");
// under the weighted group objective both classes must hedge too, not
// fall back to no hedging because the group's runs carried no share
// answered within the target (the verdict then saw 0 % before and after).
func TestGroupObjectiveAnswered(t *testing.T) {
	if testing.Short() {
		t.Skip("two joint sweeps of shared-rate-limit: a long test")
	}
	sc, err := scenario.LoadFS(scenarios.FS, "shared-rate-limit.toml")
	if err != nil {
		t.Fatal(err)
	}
	s := sc.Optimize
	s.Requests, s.CheckRequests = 10_000, 0
	s.Each(func(o *optimize.Search) {
		o.Objective.Goal, o.Objective.Target = optimize.MostAnswered, 5*time.Second
	})
	for _, mode := range []string{optimize.GroupEach, optimize.GroupWeighted} {
		s.GroupObjective = mode
		rep := mustRun(t, &sc.Config, s, optimize.Options{})
		for _, cr := range rep.Classes {
			if !cr.Verdict.Hedge {
				t.Errorf("%s: class %s: verdict %q; want hedge", mode, cr.Class, cr.Verdict.Reason)
			}
		}
	}
}
