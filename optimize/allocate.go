package optimize

import (
	"fmt"
	"math"
	"slices"
	"strings"
)

// The search of a pipeline class is a budget allocation: each step's grid
// is a set of options, each with a cost and an effect on the end-to-end
// objective, and the search looks for the combination — one option per
// step — that the objective prefers. It runs in three phases, every
// combination it simulates kept as a candidate:
//
//  1. Alone: every option of every step with the other steps unhedged,
//     Σ(gᵢ − 1) simulations for steps with grids of gᵢ options (no
//     hedging included). They give each option's added cost and effect.
//  2. Predicted frontier: a model of every combination from those effects
//     — costs add; the objective's percentile adds its per-step changes (a
//     miss stays a miss); the answered share and the share answered
//     within the target multiply their per-step ratios (a request must
//     get through every step) — and the frontier of predicted cost versus
//     predicted objective, built step by step (dynamic programming over
//     the steps, keeping at most MaxPredictedFrontier partial combinations
//     on the predicted frontier at each step, so its cost is
//     O(steps · MaxPredictedFrontier · g · log) arithmetic, for grids of
//     at most g options, not a simulation).
//     Up to PredictedSimulations of its points, spread along it, and the
//     points nearest the objective's cost cap are simulated.
//  3. Exchange: every single-step change of the pick (and of the
//     objective's pick when the verdict rule moved it) is simulated —
//     Σ(gᵢ − 1) simulations at most per pick — and, when a cost cap binds
//     there, every reallocation of it (see reallocations): one step to a
//     cheaper option, another to the costliest its own options alone put
//     on their frontier that the budget freed and the cap's room pay for —
//     at most (n − 1) · Σ(gᵢ − 1) more per pick for n steps. A single-step
//     change cannot move budget from one step to another when the cap
//     binds: every costlier change is over it. The pick is chosen again
//     among every candidate, until a round adds no candidate or
//     MaxExchangeRounds have run.
//
// When the grids give at most MaxExhaustive combinations, every one is
// simulated instead (method "exhaustive"), which is exact on the grid.
//
// The pick is chosen among every candidate simulated by the class's
// objective (Pick, via decide), as for a one-call class; with the
// exchange phase converged, no single-step change of the pick is preferred
// to it, and no simulated candidate is cheaper and no worse (tests check
// both, and the search against brute force on three-step grids whose cost
// cap binds). The model only chooses which combinations to simulate:
// every figure of the report is simulated.

// MaxExhaustive is the most combinations of a pipeline's step grids that
// are all simulated rather than searched.
const MaxExhaustive = 64

// MaxPredictedFrontier bounds the partial combinations kept at each step
// of the predicted frontier's dynamic programming.
const MaxPredictedFrontier = 256

// PredictedSimulations is how many points of the predicted frontier, spread
// along it by cost, are simulated (besides those nearest the cost cap).
const PredictedSimulations = 12

// MaxExchangeRounds bounds the rounds of the exchange phase.
const MaxExchangeRounds = 8

// Origins of a pipeline candidate: the phase that first simulated it.
const (
	OriginBaseline   = "baseline"
	OriginExhaustive = "exhaustive"
	OriginAlone      = "alone"
	OriginPredicted  = "predicted"
	OriginExchange   = "exchange"
	// OriginReallocation: a two-step change of a pick that moves budget
	// from one step to another under the cost cap (exchange phase).
	OriginReallocation = "reallocation"
	OriginFigure       = "figure"
)

// PipelineSearch says how the pick of a pipeline class was found.
type PipelineSearch struct {
	// Method is "allocation", or "exhaustive" when every combination was
	// simulated (at most MaxExhaustive of them).
	Method string `json:"method"`
	// Combinations is the number of combinations of the steps' grids: the
	// product of their sizes, no hedging included.
	Combinations float64 `json:"combinations"`
	// Simulated is how many combinations were simulated (the class's
	// candidates, no hedging included); Alone, Predicted and Exchange how
	// many of them each phase added (Exchange: single-step changes of
	// picks), Reallocation how many budget moves between two steps the
	// exchange phase added under a finite cost cap (omitted from JSON
	// when 0), and Figure how many the report's per-step figures added
	// after the search.
	Simulated    int `json:"simulated"`
	Alone        int `json:"alone"`
	Predicted    int `json:"predicted"`
	Exchange     int `json:"exchange"`
	Reallocation int `json:"reallocation,omitempty"`
	Figure       int `json:"figure"`
	// ExchangeRounds is how many rounds the exchange phase ran; Converged
	// whether its last round added no candidate (false: MaxExchangeRounds
	// reached).
	ExchangeRounds int  `json:"exchange_rounds"`
	Converged      bool `json:"converged"`
	// PickFoundBy is the phase that first simulated the pick: "baseline"
	// (no hedging), "alone", "predicted", "exchange", "reallocation" or
	// "exhaustive".
	PickFoundBy string `json:"pick_found_by"`
	// Found says it in words.
	Found string `json:"found"`
}

// combinations returns the product of the grids' sizes.
func (ps *pipelineSearch) combinations() float64 {
	n := 1.0
	for _, g := range ps.grids {
		n *= float64(len(g.pols))
	}
	return n
}

// aloneAssignments returns every assignment with one step at one of its
// options and the others unhedged, and for each (step, option) its
// position among them (−1 for option 0).
func (ps *pipelineSearch) aloneAssignments() ([][]int, [][]int) {
	var as [][]int
	pos := make([][]int, len(ps.grids))
	for s, g := range ps.grids {
		pos[s] = make([]int, len(g.pols))
		pos[s][0] = -1
		for k := 1; k < len(g.pols); k++ {
			a := make([]int, len(ps.grids))
			a[s] = k
			pos[s][k] = len(as)
			as = append(as, a)
		}
	}
	return as, pos
}

// searchFaster returns the order on the objective's axis that decide's
// frontier uses: more requests answered within the target for objective
// answered, a lower percentile otherwise (better).
func searchFaster(o Objective) func(a, b *Candidate) bool {
	p := o.Percentile
	if o.Goal == MostAnswered {
		return func(a, b *Candidate) bool { return moreWithin(a, b, p) }
	}
	return func(a, b *Candidate) bool { return better(a, b, p) }
}

// predicted is a combination of step options and its model's sums.
type predicted struct {
	a                 []int
	dUSD, dCalls, dQ  float64
	miss              bool
	logAns, logWithin float64
	logUnhedged       float64
}

// shareLog is log(x) with x floored at half a request in n.
func shareLog(x float64, n int64) float64 {
	return math.Log(max(x, 0.5/float64(max(n, 1))))
}

// candidate returns the model's candidate for x against the baseline base,
// its added cost set on the class's cost basis.
func (x *predicted) candidate(base *Candidate, p float64, basis string) Candidate {
	c := Candidate{
		Hedging:             slices.ContainsFunc(x.a, func(g int) bool { return g > 0 }),
		Requests:            base.Requests,
		CostPer1kUSD:        base.CostPer1kUSD + x.dUSD,
		AttemptsPerRequest:  base.AttemptsPerRequest + x.dCalls,
		AnsweredShare:       min(1, base.AnsweredShare*math.Exp(x.logAns)),
		AnsweredWithinShare: min(1, base.AnsweredWithinShare*math.Exp(x.logWithin)),
		HedgedShare:         1 - math.Exp(x.logUnhedged),
	}
	q := math.Inf(1)
	if bq := base.Q(p); !x.miss && isFinite(bq) {
		q = max(0, bq+x.dQ)
	}
	c.Latency.P95, c.Latency.P99 = q, q
	compare(&c, base, basis)
	return c
}

// predictFrontier returns the assignments on the predicted frontier (see
// the phases above), by increasing predicted cost, with their model
// candidates; alone[s][k] is the index in ps.cands of step s's option k
// simulated alone.
func (ps *pipelineSearch) predictFrontier(alone [][]int, basis string) ([][]int, []Candidate) {
	base := &ps.cands[0]
	o := ps.search.Objective
	p := o.Percentile
	faster := searchFaster(o)
	n := base.Requests
	part := []predicted{{a: nil}}
	var cands []Candidate
	for s, g := range ps.grids {
		var next []predicted
		for _, x := range part {
			for k := range g.pols {
				y := x
				y.a = append(slices.Clone(x.a), k)
				if k > 0 {
					c := &ps.cands[alone[s][k]]
					y.dUSD += c.CostPer1kUSD - base.CostPer1kUSD
					y.dCalls += c.AttemptsPerRequest - base.AttemptsPerRequest
					if cq, bq := c.Q(p), base.Q(p); isFinite(cq) && isFinite(bq) {
						y.dQ += cq - bq
					} else if isFinite(bq) {
						y.miss = true
					}
					y.logAns += shareLog(c.AnsweredShare, n) - shareLog(base.AnsweredShare, n)
					y.logWithin += shareLog(c.AnsweredWithinShare, n) - shareLog(base.AnsweredWithinShare, n)
					y.logUnhedged += math.Log(max(1-c.HedgedShare, 1e-12))
				}
				next = append(next, y)
			}
		}
		cands = make([]Candidate, len(next))
		for i := range next {
			cands[i] = next[i].candidate(base, p, basis)
		}
		hedgedOK := func(i int) bool { return 100*cands[i].HedgedShare <= o.MaxHedgedPct+1e-9 }
		f := frontierBy(cands, faster, hedgedOK)
		f = thinIndex(f, MaxPredictedFrontier)
		part = part[:0]
		kept := make([]Candidate, 0, len(f))
		for _, i := range f {
			part = append(part, next[i])
			kept = append(kept, cands[i])
		}
		cands = kept
	}
	as := make([][]int, len(part))
	for i := range part {
		as[i] = part[i].a
	}
	return as, cands
}

// thinIndex keeps n of xs, evenly spread by position, first and last
// included.
func thinIndex(xs []int, n int) []int {
	if len(xs) <= n {
		return xs
	}
	out := make([]int, 0, n)
	for i := range n {
		out = append(out, xs[i*(len(xs)-1)/(n-1)])
	}
	return slices.Compact(out)
}

// toSimulate chooses the points of the predicted frontier (by increasing
// predicted cost) to simulate: PredictedSimulations spread along it and,
// under a finite cost cap, the three last within it and the first beyond.
func toSimulate(pred []Candidate, capPct float64) []int {
	all := make([]int, len(pred))
	for i := range all {
		all[i] = i
	}
	pick := thinIndex(all, PredictedSimulations)
	if isFinite(capPct) {
		last := -1
		for i := range pred {
			if costWithin(pred[i].AddedCostPct, capPct) {
				last = i
			}
		}
		for i := max(0, last-2); i <= min(len(pred)-1, last+1); i++ {
			pick = append(pick, i)
		}
	}
	slices.Sort(pick)
	return slices.Compact(pick)
}

// allocate runs the first two phases of the search: every step's options
// alone, then the predicted frontier's points; or, for at most
// MaxExhaustive combinations, every combination.
func (ps *pipelineSearch) allocate() error {
	if ps.combinations() <= MaxExhaustive {
		var as [][]int
		a := make([]int, len(ps.grids))
		var walk func(s int)
		walk = func(s int) {
			if s == len(a) {
				as = append(as, slices.Clone(a))
				return
			}
			for k := range ps.grids[s].pols {
				a[s] = k
				walk(s + 1)
			}
		}
		walk(0)
		_, err := ps.eval(as, OriginExhaustive)
		return err
	}
	as, pos := ps.aloneAssignments()
	idx, err := ps.eval(as, OriginAlone)
	if err != nil {
		return err
	}
	alone := make([][]int, len(pos))
	for s := range pos {
		alone[s] = make([]int, len(pos[s]))
		for k, j := range pos[s] {
			if j >= 0 {
				alone[s][k] = idx[j]
			}
		}
	}
	basis := CostCalls
	if ps.cands[0].CostPer1kUSD > 0 {
		basis = CostUSD
	}
	ps.alone = alone
	pas, pred := ps.predictFrontier(alone, basis)
	var todo [][]int
	for _, i := range toSimulate(pred, ps.search.Objective.MaxAddedCostPct) {
		todo = append(todo, pas[i])
	}
	_, err = ps.eval(todo, OriginPredicted)
	return err
}

// exchange simulates every single-step change of cr's pick and, when the
// verdict rule moved it, of the objective's pick, then their reallocations
// under a finite cost cap; it reports whether any was new. cr's candidates
// are ps.cands as decide marked them (added costs set).
func (ps *pipelineSearch) exchange(cr *ClassReport) (bool, error) {
	n := len(ps.cands)
	var as, moves [][]int
	around := []int{cr.Pick}
	if cr.ObjectivePick != cr.Pick {
		around = append(around, cr.ObjectivePick)
	}
	for _, i := range around {
		a := ps.assignment(&ps.cands[i])
		for s, g := range ps.grids {
			for k := range g.pols {
				if k != a[s] {
					b := slices.Clone(a)
					b[s] = k
					as = append(as, b)
				}
			}
		}
		moves = append(moves, ps.reallocations(cr, i)...)
	}
	if _, err := ps.eval(as, OriginExchange); err != nil {
		return false, err
	}
	if _, err := ps.eval(moves, OriginReallocation); err != nil {
		return false, err
	}
	return len(ps.cands) > n, nil
}

// reallocations returns, when the cost cap binds at candidate i of cr —
// a simulated candidate beyond the cap, within the objective's other
// limits, is faster than it and passes the marginal test from it (with
// thresholds 0, any faster one) — the two-step changes of i that move
// budget from one step to another: step s to each cheaper option on its
// alone frontier (the frontier of cost versus the objective among its
// options simulated with the other steps unhedged, no hedging included),
// and each other step t to the costliest option on its alone frontier
// that the budget freed and the cap's room pay for — costs predicted by
// adding the options' costs alone to the candidate's, as the predicted
// frontier does. Without a cap, when it does not bind (the trade-off
// ended below it: single-step changes suffice), or for an exhaustive
// search, none.
func (ps *pipelineSearch) reallocations(cr *ClassReport, i int) [][]int {
	o := cr.Objective
	capPct := o.MaxAddedCostPct
	if ps.alone == nil || !isFinite(capPct) {
		return nil
	}
	cs := cr.Candidates
	faster := searchFaster(o)
	t, _ := cr.tradeOff()
	if !slices.ContainsFunc(cs, func(x Candidate) bool {
		return costLess(capPct, x.AddedCostPct) && o.withinLimits(&x) && faster(&x, &cs[i]) && t.move(&cs[i], &x).passes()
	}) {
		return nil
	}
	cost := func(s, k int) float64 {
		if k == 0 {
			return 0
		}
		return cs[ps.alone[s][k]].AddedCostPct
	}
	front := make([][]int, len(ps.grids))
	for s := range ps.grids {
		opt := map[int]int{0: 0}
		for k := 1; k < len(ps.alone[s]); k++ {
			opt[ps.alone[s][k]] = k
		}
		for _, j := range frontierBy(cs, faster, func(j int) bool { _, ok := opt[j]; return ok }) {
			front[s] = append(front[s], opt[j])
		}
	}
	a := ps.assignment(&cs[i])
	var out [][]int
	for s := range ps.grids {
		for _, k := range front[s] {
			if costWithin(cost(s, a[s]), cost(s, k)) {
				continue
			}
			for t := range ps.grids {
				if t == s {
					continue
				}
				room := capPct - (cs[i].AddedCostPct - cost(s, a[s]) + cost(s, k) - cost(t, a[t]))
				m := -1
				for _, o := range front[t] {
					if c := cost(t, o); costLess(cost(t, a[t]), c) && costWithin(c, room) {
						m = o // front[t] is by increasing cost: the last that fits
					}
				}
				if m >= 0 {
					b := slices.Clone(a)
					b[s], b[t] = k, m
					out = append(out, b)
				}
			}
		}
	}
	return out
}

// summary returns the search's account for cr, whose candidates are
// ps.cands.
func (ps *pipelineSearch) summary(cr *ClassReport, rounds int, converged bool) *PipelineSearch {
	sum := &PipelineSearch{Method: "allocation", Combinations: ps.combinations(), Simulated: len(ps.cands),
		ExchangeRounds: rounds, Converged: converged}
	sum.PickFoundBy = ps.origin[cr.Pick]
	steps := fmt.Sprintf("%d steps", len(ps.grids))
	if len(ps.grids) == 1 {
		steps = "1 step"
	}
	if slices.Contains(ps.origin, OriginExhaustive) {
		sum.Method = "exhaustive"
		grids := "steps' grids"
		if len(ps.grids) == 1 {
			grids = "step's grid"
		}
		sum.Found = fmt.Sprintf("exhaustive over %s: all %s combinations of the %s simulated (up to %d are), exact on the grid", steps, fcombos(sum.Combinations), grids, MaxExhaustive)
		return sum
	}
	for _, o := range ps.origin {
		switch o {
		case OriginAlone:
			sum.Alone++
		case OriginPredicted:
			sum.Predicted++
		case OriginExchange:
			sum.Exchange++
		case OriginReallocation:
			sum.Reallocation++
		case OriginFigure:
			sum.Figure++
		}
	}
	var how string
	switch sum.PickFoundBy {
	case OriginBaseline:
		how = "the pick is no hedging"
	case OriginAlone:
		how = "the pick hedges one step, found with the others unhedged"
	case OriginPredicted:
		how = "the pick was on the predicted frontier"
	case OriginExchange:
		how = "the pick was found by changing one step of an earlier pick"
	case OriginReallocation:
		how = "the pick was found by moving budget between two steps of an earlier pick"
	}
	end := fmt.Sprintf("; none of its single-step changes is preferred to it (%d exchange round(s))", rounds)
	if !converged {
		end = fmt.Sprintf("; the exchange stopped at its limit of %d rounds: a single-step change may still be preferred", MaxExchangeRounds)
	}
	sum.Found = fmt.Sprintf("allocation over %s (%s combinations), %d simulated: no hedging, %d with one step hedged alone, %d on the frontier predicted from those, %d single-step changes of picks",
		steps, fcombos(sum.Combinations), sum.Simulated, sum.Alone, sum.Predicted, sum.Exchange)
	if sum.Reallocation > 0 {
		sum.Found += fmt.Sprintf(", %d moves of budget between two steps of picks", sum.Reallocation)
	}
	if sum.Figure > 0 {
		sum.Found += fmt.Sprintf(", %d for the per-step figures", sum.Figure)
	}
	sum.Found += "; " + how + end
	return sum
}

// fcombos formats a number of combinations: the grid sizes' product.
func fcombos(n float64) string {
	if n < 1e15 {
		return fmt.Sprintf("%.0f", n)
	}
	return strings.Replace(fmt.Sprintf("%.2g", n), "e+", "e", 1)
}
