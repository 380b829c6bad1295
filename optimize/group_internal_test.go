package optimize

import (
	"math"
	"slices"
	"testing"
	"time"

	"github.com/hedgesim/hedgesim/dist"
	"github.com/hedgesim/hedgesim/sim"
)

// sharedRateLimit is scenarios/shared-rate-limit.toml as a config: two
// classes of 5 requests/s each on model a (lognormal, median 1 s, p95
// 6 s, $0.01 a request) hedging after 2 s to model b (the same), whose
// rate limit admits 90 requests a minute; 30 s deadlines; a 429 ends its
// request.
func sharedRateLimit() *sim.Config {
	lat := dist.LogNormal{Mu: 0, Sigma: math.Log(6) / 1.6448536269514722}
	class := func(name string) sim.Class {
		return sim.Class{Name: name, Share: 0.5, Deadline: 30 * time.Second, InputTokens: dist.Constant{}, OutputTokens: dist.Constant{},
			Policy: sim.Policy{Primary: 0, Targets: []int{1}, Copies: 1, Delays: []time.Duration{2 * time.Second}}}
	}
	return &sim.Config{
		Name: "shared-rate-limit", Seed: 3, Requests: 100_000,
		Arrivals: sim.Arrivals{Process: sim.Poisson, Rate: 10},
		Models: []sim.Model{
			{Name: "a", Provider: "a", Latency: lat, PricePerRequest: 0.01},
			{Name: "b", Provider: "b", Latency: lat, PricePerRequest: 0.01, RateLimit: sim.RateLimit{RequestsPerMinute: 90}},
		},
		Classes: []sim.Class{class("interactive"), class("batch")},
	}
}

// TestGroupOptimumBruteForce: shared-rate-limit's two classes hedge into
// one rate-limited model; each tries no hedging and copies after 2.5 s,
// 3.5 s and 6 s — 16 combinations. Brute force simulates every one on the
// group's traffic and takes the group's choice among the admissible ones
// (groupSelect: the best value, or one not significantly worse that
// answers more) under each group objective; the search must reach it: the
// same pick for both classes, and the same value. (The log shows what the classes' own objectives,
// "each", leave the group with.)
func TestGroupOptimumBruteForce(t *testing.T) {
	if testing.Short() {
		t.Skip("brute force over every pair of picks of a group at 20 000 requests: not in -short")
	}
	s := DefaultSettings()
	s.Search.Objective.MaxAddedCostPct = 30
	s.Requests = 20_000
	s.CheckRequests = 0
	delays := []time.Duration{2500 * time.Millisecond, 3500 * time.Millisecond, 6 * time.Second}
	s.Search.Delays = delays
	cfg := sharedRateLimit()

	// Brute force, on the group's config as the sweep builds it.
	gc := groupConfig(cfg, []int{0, 1}, 2*s.Requests)
	pol := func(k, i int) sim.Policy {
		p := gc.Classes[k].Policy
		if i == 0 {
			sim.NoHedging(&p)
			return p
		}
		c := Candidate{Hedging: true, Copies: max(p.Copies, 1), Delay: delays[i-1]}
		return c.Policy(p)
	}
	runWith := func(i0, i1 int) ([]GroupFigure, []Load) {
		c := *gc
		c.Classes = slices.Clone(gc.Classes)
		c.Classes[0].Policy, c.Classes[1].Policy = pol(0, i0), pol(1, i1)
		res, err := sim.Run(&c)
		if err != nil {
			t.Fatal(err)
		}
		return groupFigures(res, &c, &s), loadsOf(res, &c)
	}
	base, baseLoads := runWith(0, 0)
	for _, mode := range []string{GroupWeighted, GroupWorst} {
		s.GroupObjective = mode
		var evs []groupEval
		for i0 := range 4 {
			for i1 := range 4 {
				figs, loads := runWith(i0, i1)
				if (i0 > 0 || i1 > 0) && !groupAdmissible(figs, base, loads, baseLoads, []bool{i0 > 0, i1 > 0}, true, &s) {
					continue
				}
				evs = append(evs, evalGroup(4*i0+i1, mode, figs, base, &s))
			}
		}
		sel := evs[groupSelect(evs, -1, s.Level, materialCut(base, &s))]
		best, bv := [2]int{sel.i / 4, sel.i % 4}, sel.v
		if math.IsInf(bv, 1) {
			t.Fatalf("%s: no admissible combination", mode)
		}
		rep, err := Run(cfg, s, Options{})
		if err != nil {
			t.Fatal(err)
		}
		for k, cr := range rep.Classes {
			want := "none"
			if best[k] > 0 {
				want = fdelay(delays[best[k]-1])
			}
			got := "none"
			if p := cr.Picked(); p.Hedging {
				got = p.Label
			}
			if got != want || cr.Group == nil || math.Abs(cr.Group.Value-bv) > 1e-12*bv {
				t.Errorf("%s: class %s picks %s (group value %v); brute force: %s (%v)", mode, cr.Class, got, cr.Group, want, bv)
			}
		}
		if mode == GroupWeighted {
			s.GroupObjective = GroupEach
			each, err := Run(cfg, s, Options{})
			if err != nil {
				t.Fatal(err)
			}
			var sum, sw float64
			for _, cr := range each.Classes {
				w := float64(cr.Requests)
				sum += w * cr.Picked().Q(0.95)
				sw += w
			}
			if each.Joint[0].Objective != GroupEach || each.Classes[0].Group != nil {
				t.Errorf("each: objective %q, group choice %+v; want the classes' own objectives", each.Joint[0].Objective, each.Classes[0].Group)
			}
			t.Logf("weighted p95: group optimum %.3fs at %v; each class for itself %.3fs", bv, best, sum/sw)
		}
	}
}

// TestGroupSelectPairsBatches: two runs of the same requests whose
// classes were batched are "near" only when the paired difference of the
// group's value over their batches holds 0, not whenever their intervals
// overlap. Here the value's intervals overlap, but one run is faster in
// every batch by 0.1 s ± 0.01 s: the faster run is the choice even though
// the other costs less. Without batches (intervals alone) the two are
// alike, and the cheaper one wins.
func TestGroupSelectPairsBatches(t *testing.T) {
	const nb = 30
	slow, fast := make([]float64, nb), make([]float64, nb)
	for b := range nb {
		slow[b] = 4 + 0.5*math.Sin(float64(b)) // batches that vary a lot
		fast[b] = slow[b] - 0.1 + 0.01*math.Cos(float64(3*b))
	}
	mk := func(i int, v, cost float64, batches []float64) groupEval {
		return groupEval{i: i, v: v, lo: v - 0.3, hi: v + 0.3, cost: cost, n: 10_000, batches: batches}
	}
	evs := []groupEval{mk(0, 4.0, 10, slow), mk(1, 3.9, 12, fast)}
	if sel := groupSelect(evs, 0, 0.95, 0); evs[sel].i != 1 {
		t.Errorf("paired: the choice is run %d; want the faster run 1 (its batches are all faster)", evs[sel].i)
	}
	evs[0].batches, evs[1].batches = nil, nil
	if sel := groupSelect(evs, 0, 0.95, 0); evs[sel].i != 0 {
		t.Errorf("unpaired: the choice is run %d; want the kept run 0 (the intervals overlap)", evs[sel].i)
	}
}

// TestGroupSelectWorstTie: under GroupWorst a class pinned at its own
// percentile without hedging (ratio 1) ties every run; the run in which
// another class is faster at no cost to it wins on the tie-break (the
// mean ratio), even against the kept current choice and a lower cost.
func TestGroupSelectWorstTie(t *testing.T) {
	base := []GroupFigure{{Class: "a", Q: 2, CI: [2]float64{1.9, 2.1}, Requests: 1000, Answered: 1},
		{Class: "b", Q: 10, CI: [2]float64{9, 11}, Requests: 1000, Answered: 1}}
	faster := slices.Clone(base)
	faster[0].Q, faster[0].CI, faster[0].CostPer1k = 1, [2]float64{0.9, 1.1}, 5
	var s Settings
	s.Level = 0.95
	evs := []groupEval{evalGroup(0, GroupWorst, base, base, &s), evalGroup(1, GroupWorst, faster, base, &s)}
	if evs[0].v != 1 || evs[1].v != 1 {
		t.Fatalf("values %v and %v; want the tie 1 and 1", evs[0].v, evs[1].v)
	}
	for _, keep := range []int{-1, 0} {
		if sel := groupSelect(evs, keep, s.Level, 0); evs[sel].i != 1 {
			t.Errorf("keep %d: the choice is run %d; want run 1, a faster at no cost to b", keep, evs[sel].i)
		}
	}
}
