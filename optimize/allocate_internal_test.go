package optimize

import (
	"fmt"
	"math"
	"slices"
	"testing"
	"time"

	"github.com/hedgesim/hedgesim/dist"
	"github.com/hedgesim/hedgesim/sim"
)

// threeStepPipeline is a guard → chat → guard turn: two cheap guards whose
// calls are slow (2–6 s) one time in five, around an expensive model with a
// lognormal latency (median 1 s, σ 0.8). Hedging the chat is what a search
// that spends its budget on the first steps it meets finds first; the
// guards are where a small budget buys most.
func threeStepPipeline(t *testing.T) *sim.Config {
	cfg := twoStepPipeline(t)
	pl := cfg.Classes[0].Pipeline
	guard := pl.Steps[0]
	guard.Name = "guard-out"
	pl.Steps = append(pl.Steps, guard)
	pl.Stages = append(pl.Stages, sim.Stage{Steps: []int{2}})
	cfg.Name = "three-step"
	return cfg
}

// guardedTurn is the shape of the guarded-chat reproduction (issue 30):
// two guards whose calls answer in 0.1–0.3 s half the time and take 3–19 s
// otherwise, each with a 3 s deadline that lets the turn through unchecked
// (fail open) and up to two copies, around a chat call (lognormal, median
// 1 s, σ 0.8) that costs about 55 guard calls. A copy of a guard at 0 s
// answers a few more turns in time than one at 300 ms for more cost, and a
// late chat copy a few more still, for about 6 % cost: a search that takes
// every gain in the order it meets the steps spends the cap before the
// second guard, which brings the most.
func guardedTurn(t *testing.T) *sim.Config {
	cfg := threeStepPipeline(t)
	bimodal, err := dist.NewMixture([]float64{0.5, 0.5}, []dist.Continuous{
		dist.Uniform{Min: 0.1, Max: 0.3}, dist.Uniform{Min: 3, Max: 19}})
	if err != nil {
		t.Fatal(err)
	}
	cfg.Models[0].Latency = bimodal
	cfg.Classes[0].Deadline = 60 * time.Second
	cfg.Classes[0].OnTimeout = sim.FailClosed
	pl := cfg.Classes[0].Pipeline
	for _, i := range []int{0, 2} {
		c := &pl.Steps[i].Call
		c.Deadline, c.OnTimeout = 3*time.Second, sim.FailOpen
		c.Policy.Copies = 2
	}
	pl.Steps[1].Call.OutputTokens = dist.Constant{Value: 300}
	return cfg
}

// bruteForce simulates every combination of the grids of c's pipeline
// class under settings s, with the pipeline search's grids, and returns
// the candidates (no hedging first) with their assignments and the
// grids.
func bruteForce(t *testing.T, c *sim.Config, s Settings) ([]Candidate, [][]int, []stepGrid) {
	t.Helper()
	pl := c.Classes[0].Pipeline
	none := make([]sim.Policy, len(pl.Steps))
	for i := range pl.Steps {
		none[i] = pl.Steps[i].Call.Policy
		sim.NoHedging(&none[i])
	}
	res, err := sim.Run(withStepPolicies(c, none))
	if err != nil {
		t.Fatal(err)
	}
	grids := pipelineGrids(c, s.Search, res)
	var cands []Candidate
	var assigns [][]int
	a := make([]int, len(grids))
	var walk func(s int)
	walk = func(st int) {
		if st == len(grids) {
			pols := make([]sim.Policy, len(a))
			for i, g := range a {
				pols[i] = grids[i].pols[g]
			}
			r, err := sim.Run(withStepPolicies(c, pols))
			if err != nil {
				t.Fatal(err)
			}
			var x Candidate
			summarize(&x, &r.Classes[0], s.Level, s.Search.Objective.Target)
			x.Hedging = slices.ContainsFunc(a, func(g int) bool { return g > 0 })
			cands = append(cands, x)
			assigns = append(assigns, slices.Clone(a))
			return
		}
		for g := range grids[st].pols {
			a[st] = g
			walk(st + 1)
		}
	}
	walk(0)
	basis := CostCalls
	if cands[0].CostPer1kUSD > 0 {
		basis = CostUSD
	}
	for i := range cands {
		compare(&cands[i], &cands[0], basis)
	}
	return cands, assigns, grids
}

// TestAllocationMatchesBruteForceUnderBindingCap: on three-step pipelines
// with a grid of four delays per step (125 combinations) and a +10 % cost
// cap that binds (the objective's best combination without it costs more),
// the search reaches the value of the best of all combinations, chosen by
// the same rule (Pick) from the same simulations, within noise: for p95,
// the search's pick is at most the upper end of the brute-force optimum's
// 95 % order-statistic interval (a width set by the 20 000 requests); for
// answered within 10 s on guardedTurn, at most three standard errors of a
// difference of two independent shares of 20 000 requests below it. The
// search's pick stays within the cap. The marginal test is off (thresholds
// 0), so the objective is the best value within the cap: the budget
// allocation the search must solve.
func TestAllocationMatchesBruteForceUnderBindingCap(t *testing.T) {
	if testing.Short() {
		t.Skip("brute force over every combination of two pipelines at 20 000 requests: not in -short")
	}
	for _, tc := range []struct {
		name   string
		cfg    func(*testing.T) *sim.Config
		delays []time.Duration
		obj    func(*Objective)
	}{
		{"p95", threeStepPipeline, []time.Duration{200 * time.Millisecond, 500 * time.Millisecond, 1 * time.Second, 2 * time.Second},
			func(o *Objective) { o.MaxAddedCostPct = 10 }},
		{"answered", guardedTurn, []time.Duration{0, 300 * time.Millisecond, 1 * time.Second, 3500 * time.Millisecond},
			func(o *Objective) { o.Goal, o.Target, o.MaxAddedCostPct = MostAnswered, 10*time.Second, 3 }},
	} {
		t.Run(tc.name, func(t *testing.T) {
			cfg := tc.cfg(t)
			s := DefaultSettings()
			s.Requests, s.CheckRequests = 20_000, 0
			s.Search.Delays = tc.delays
			// The budget allocation itself: the best value within the cap,
			// with no marginal test to stop short of it (thresholds 0). Run
			// sets the objective's marginal test from the verdict rule's, so
			// the rule's thresholds are the ones to set.
			s.Rule.MinGainPerCost, s.Rule.MinUnansweredCutPerCost = 0, 0
			tc.obj(&s.Search.Objective)
			o := s.Search.Objective
			o.setMarginal(s.Rule)
			rep, err := Run(cfg, s, Options{Workers: 2})
			if err != nil {
				t.Fatal(err)
			}
			cr := &rep.Classes[0]
			got := &cr.Candidates[cr.ObjectivePick]
			if m := cr.PipelineSearch.Method; m != "allocation" {
				t.Fatalf("search method %q, want allocation: the test checks too little", m)
			}

			c, _, err := classConfig(cfg, 0, s.Requests)
			if err != nil {
				t.Fatal(err)
			}
			cands, assigns, grids := bruteForce(t, c, s)
			want := 1
			for _, g := range grids {
				want *= len(g.pols)
			}
			if len(cands) != want || want < 64 {
				t.Fatalf("%d combinations of %d, want at least 64", len(cands), want)
			}
			best, _ := Pick(cands, o)
			opt := &cands[best]
			// The cap binds: the objective's best combination without it
			// costs more than the cap allows.
			free := o
			free.MaxAddedCostPct = math.Inf(1)
			if u, _ := Pick(slices.Clone(cands), free); cands[u].AddedCostPct <= o.MaxAddedCostPct {
				t.Fatalf("the cap does not bind: the best combination without it costs %+.1f%%", cands[u].AddedCostPct)
			}
			if !opt.Hedging {
				t.Fatal("brute force picks no hedging: the test checks too little")
			}
			label := func(a []int) string {
				var out string
				for s, g := range a {
					out += grids[s].picks[g].Label + " "
				}
				return out
			}
			t.Logf("brute force: %s(p95 %.3f s, within %.4f, %+.2f%%); search: %s (p95 %.3f s, within %.4f, %+.2f%%), %d of %d simulated",
				label(assigns[best]), opt.Latency.P95, opt.AnsweredWithinShare, opt.AddedCostPct,
				got.Label, got.Latency.P95, got.AnsweredWithinShare, got.AddedCostPct, len(cr.Candidates), len(cands))
			if got.AddedCostPct > o.MaxAddedCostPct+1e-9 {
				t.Errorf("search's pick costs %+.2f%%, over the cap", got.AddedCostPct)
			}
			switch o.Goal {
			case MostAnswered:
				n := float64(s.Requests)
				p := opt.AnsweredWithinShare
				tol := 3 * math.Sqrt(2*p*(1-p)/n)
				if got.AnsweredWithinShare < p-tol {
					t.Errorf("search answers %.4f within the target, brute force %.4f (tolerance %.4f)", got.AnsweredWithinShare, p, tol)
				}
			default:
				if !opt.Latency.P95CIOK {
					t.Fatal("no interval for the brute-force optimum")
				}
				if hi := opt.Latency.P95CI95[1]; got.Latency.P95 > hi {
					t.Errorf("search's p95 %.3f s, above the brute-force optimum's interval [%.3f, %.3f]", got.Latency.P95, opt.Latency.P95CI95[0], hi)
				}
			}
		})
	}
}

// dominates reports whether c is no costlier than x and no worse on the
// objective's axis (faster), and cheaper or strictly better.
func dominates(c, x *Candidate, faster func(a, b *Candidate) bool) bool {
	return c.AddedCostPct <= x.AddedCostPct && !faster(x, c) && (c.AddedCostPct < x.AddedCostPct || faster(c, x))
}

// TestAllocationPickIsNotDominated: on the three-step pipeline with the
// default grids (each step's 10 default delays and no hedging: 1 331
// combinations), every single-step change of the pick (and of the
// objective's pick) was simulated, and no candidate within the objective's
// limits is cheaper and no worse than the pick, for objective p95 and for
// objective answered; the report says how many combinations were
// simulated, by which phase, and how the pick was found.
func TestAllocationPickIsNotDominated(t *testing.T) {
	if testing.Short() {
		t.Skip("every single-step change of the pick of a three-step pipeline, twice: not in -short")
	}
	cfg := threeStepPipeline(t)
	for _, tc := range []struct {
		name string
		obj  func(*Objective)
	}{
		{"p95", func(*Objective) {}},
		{"answered", func(o *Objective) { o.Goal, o.Target = MostAnswered, 3*time.Second }},
	} {
		t.Run(tc.name, func(t *testing.T) {
			s := DefaultSettings()
			s.Requests, s.CheckRequests = 10_000, 0
			tc.obj(&s.Search.Objective)
			rep, err := Run(cfg, s, Options{Workers: 2})
			if err != nil {
				t.Fatal(err)
			}
			cr := &rep.Classes[0]
			c, _, err := classConfig(cfg, 0, s.Requests)
			if err != nil {
				t.Fatal(err)
			}
			res, err := sim.Run(withStepPolicies(c, noHedgingSteps(c)))
			if err != nil {
				t.Fatal(err)
			}
			grids := pipelineGrids(c, s.Search, res)
			ps := &pipelineSearch{grids: grids}
			have := map[string]bool{}
			for i := range cr.Candidates {
				have[assignKey(ps.assignment(&cr.Candidates[i]))] = true
			}
			faster := searchFaster(cr.Objective)
			for _, k := range []int{cr.Pick, cr.ObjectivePick} {
				x := &cr.Candidates[k]
				a := ps.assignment(x)
				for st, g := range grids {
					for o := range g.pols {
						b := slices.Clone(a)
						b[st] = o
						if !have[assignKey(b)] {
							t.Errorf("pick %s: its change of step %s to %s was not simulated", x.Label, g.name, g.picks[o].Label)
						}
					}
				}
				for i := range cr.Candidates {
					if c := &cr.Candidates[i]; (c.Feasible || i == 0) && dominates(c, x, faster) {
						t.Errorf("pick %s (%+.2f%%, p95 %.3f s, within %.4f) is dominated by %s (%+.2f%%, p95 %.3f s, within %.4f)",
							x.Label, x.AddedCostPct, x.Latency.P95, x.AnsweredWithinShare, c.Label, c.AddedCostPct, c.Latency.P95, c.AnsweredWithinShare)
					}
				}
			}
			if !cr.Picked().Hedging {
				t.Fatal("the pick is no hedging: the test checks too little")
			}
			ps2 := cr.PipelineSearch
			if ps2 == nil {
				t.Fatal("no pipeline_search in the report")
			}
			if ps2.Combinations != 1331 || ps2.Simulated != len(cr.Candidates) ||
				1+ps2.Alone+ps2.Predicted+ps2.Exchange+ps2.Reallocation+ps2.Figure != ps2.Simulated || ps2.Alone != 30 || !ps2.Converged {
				t.Errorf("pipeline_search %+v: want 1331 combinations, %d simulated, 30 alone, the phases adding up, converged", ps2, len(cr.Candidates))
			}
			t.Logf("%s", ps2.Found)
		})
	}
}

// noHedgingSteps returns the policies of c's pipeline steps without
// hedging.
func noHedgingSteps(c *sim.Config) []sim.Policy {
	pl := c.Classes[0].Pipeline
	none := make([]sim.Policy, len(pl.Steps))
	for i := range pl.Steps {
		none[i] = pl.Steps[i].Call.Policy
		sim.NoHedging(&none[i])
	}
	return none
}

// TestPredictFrontierModel: the predicted frontier's model adds the
// options' costs and percentile changes and multiplies their answered
// shares' ratios: two steps that each lift the share answered within the
// target from 0.25 to 0.5 are predicted to lift it to 1 together, and two
// that each cut p95 by 1 s to cut it by 2 s; the frontier holds no
// combination that another predicted one beats on cost and objective.
func TestPredictFrontierModel(t *testing.T) {
	base := Candidate{Requests: 1000, CostPer1kUSD: 10, AttemptsPerRequest: 2, AnsweredShare: 0.5, AnsweredWithinShare: 0.25}
	base.Latency.P95, base.Latency.P99 = 5, 8
	opt := func(usd, p95, within float64) Candidate {
		c := base
		c.Hedging, c.CostPer1kUSD, c.AnsweredWithinShare, c.HedgedShare = true, usd, within, 0.5
		c.Latency.P95 = p95
		return c
	}
	for _, tc := range []struct {
		goal   Goal
		within float64
		p95    float64
	}{{MostAnswered, 1, 3}, {LowestLatency, 1, 3}} {
		ps := &pipelineSearch{
			grids:  []stepGrid{{pols: make([]sim.Policy, 2)}, {pols: make([]sim.Policy, 2)}},
			cands:  []Candidate{base, opt(11, 4, 0.5), opt(11, 4, 0.5)},
			search: Search{Objective: Objective{Goal: tc.goal, Percentile: 0.95, MaxHedgedPct: 100, MaxAddedCostPct: 10, Target: time.Second}},
		}
		as, pred := ps.predictFrontier([][]int{{0, 1}, {0, 2}}, CostUSD)
		last := len(pred) - 1
		if !slices.Equal(as[last], []int{1, 1}) {
			t.Fatalf("%v: predicted frontier %v, want both steps hedged last", tc.goal, as)
		}
		if c := pred[last]; math.Abs(c.AnsweredWithinShare-tc.within) > 1e-12 || math.Abs(c.Latency.P95-tc.p95) > 1e-12 ||
			math.Abs(c.AddedCostPct-20) > 1e-9 || math.Abs(c.HedgedShare-0.75) > 1e-12 {
			t.Errorf("%v: predicted %+v", tc.goal, c)
		}
		faster := searchFaster(ps.search.Objective)
		for i := range pred {
			for j := range pred {
				if i != j && dominates(&pred[j], &pred[i], faster) {
					t.Errorf("%v: predicted frontier point %v dominated by %v", tc.goal, as[i], as[j])
				}
			}
		}
	}
}

// TestToSimulate: of a predicted frontier of 40 points at +1 %, +2 %, …
// +40 %, the search simulates PredictedSimulations spread along it, first
// and last included, and under a +10 % cap the three last within it
// (+8, +9, +10 %) and the first beyond (+11 %); without a cap only the
// spread.
func TestToSimulate(t *testing.T) {
	pred := make([]Candidate, 40)
	for i := range pred {
		pred[i].AddedCostPct = float64(i + 1)
	}
	spread := toSimulate(pred, math.Inf(1))
	if len(spread) != PredictedSimulations || spread[0] != 0 || spread[len(spread)-1] != 39 {
		t.Errorf("without a cap: %v", spread)
	}
	capped := toSimulate(pred, 10)
	for _, i := range []int{7, 8, 9, 10} {
		if !slices.Contains(capped, i) {
			t.Errorf("under a +10%% cap: %v lacks +%d%%", capped, i+1)
		}
	}
	if !slices.IsSorted(capped) || len(capped) > PredictedSimulations+4 {
		t.Errorf("under a +10%% cap: %v", capped)
	}
}

// TestReallocations: two steps whose options alone cost +1 % and +2 %
// (step a) and +1.5 %, +3 % and +1.8 % (step b, the last slower than the
// +1.5 % one: off the step's alone frontier). From a pick of a's +2 %
// option under a +3 % cap that binds (a's +2 % with b's +3 % costs +5 %,
// p95 10 s → 6 s: past the cap, faster and passing the marginal test), the
// budget moves are a to no hedging with b at +3 % (all the freed budget
// and the room) and a to +1 % with b at +1.5 % (the costliest on b's alone
// frontier that fits in +2 %, not the dominated +1.8 %). There are none
// without a cap, under a +10 % cap (nothing simulated is past it) and
// under the +3 % cap when the +5 % combination buys too little to pass
// the marginal test (p95 8 s → 7.99 s): the single-step exchange then
// suffices.
func TestReallocations(t *testing.T) {
	type opt struct{ cost, p95 float64 }
	steps := [][]opt{{{0, 10}, {1, 9}, {2, 8}}, {{0, 10}, {1.5, 9}, {3, 7}, {1.8, 9.5}}}
	ps := &pipelineSearch{}
	for s, os := range steps {
		g := stepGrid{name: fmt.Sprint("s", s)}
		for k := range os {
			g.picks = append(g.picks, StepPick{Step: g.name, Hedging: k > 0, Label: fmt.Sprint(k)})
		}
		ps.grids = append(ps.grids, g)
	}
	cand := func(a []int, cost, p95 float64) Candidate {
		c := Candidate{Hedging: slices.ContainsFunc(a, func(k int) bool { return k > 0 }), AddedCostPct: cost, AnsweredShare: 1}
		c.Latency.P95 = p95
		for s, k := range a {
			c.Steps = append(c.Steps, ps.grids[s].picks[k])
		}
		return c
	}
	cs := []Candidate{cand([]int{0, 0}, 0, 10)}
	ps.alone = make([][]int, len(steps))
	for s, os := range steps {
		ps.alone[s] = make([]int, len(os))
		for k := 1; k < len(os); k++ {
			a := make([]int, len(steps))
			a[s] = k
			ps.alone[s][k] = len(cs)
			cs = append(cs, cand(a, os[k].cost, os[k].p95))
		}
	}
	pick := ps.alone[0][2]
	cs = append(cs, cand([]int{2, 2}, 5, 6))
	o := DefaultSettings().Search.Objective
	o.MaxAddedCostPct = 3
	cr := &ClassReport{Candidates: cs, Objective: o}
	got := ps.reallocations(cr, pick)
	if want := [][]int{{0, 2}, {1, 1}}; !slices.EqualFunc(got, want, slices.Equal) {
		t.Errorf("under a +3%% cap: %v, want %v", got, want)
	}
	for _, capPct := range []float64{math.Inf(1), 10} {
		cr.Objective.MaxAddedCostPct = capPct
		if got := ps.reallocations(cr, pick); got != nil {
			t.Errorf("under a cap of %v%%: %v, want none", capPct, got)
		}
	}
	cr.Objective.MaxAddedCostPct = 3
	cs[len(cs)-1].Latency.P95 = 7.99
	if got := ps.reallocations(cr, pick); got != nil {
		t.Errorf("under a +3%% cap that does not bind: %v, want none", got)
	}
}
