package optimize

import (
	"cmp"
	"context"
	"encoding/json"
	"fmt"
	"math"
	"slices"
	"strings"
	"time"

	"gonum.org/v1/gonum/stat/distuv"

	"github.com/hedgesim/hedgesim/sim"
)

// Group objectives. Classes optimized jointly (coupled by a shared quota,
// queue or budget) can each make its own objective best given the others
// — a stalemate, where a class that takes most of a shared quota leaves
// the others no room — or aim at the group's best (Settings.GroupObjective):
//
//   - GroupWeighted (the default): the lowest traffic-weighted mean of the
//     classes' objective percentiles (each class's p95, or p99), Σ wᵢ·qᵢ /
//     Σ wᵢ, with wᵢ the class's requests in the group's run or the user's
//     Settings.GroupWeights; a percentile that is a miss makes the mean a
//     miss, and ties go to the lower weighted unanswered share;
//   - GroupWorst: the lowest worst ratio of a class's percentile to its
//     percentile when no class of the group hedges (max qᵢ / bᵢ, with
//     miss/miss = 1, a miss over an answer = +Inf, an answer over a miss
//     = 0);
//   - GroupEach: each class's own objective, the others at their picks.
//
// The search is the joint coordinate descent (runJoint): in each step one
// class's grid is swept with the others at their current picks, every
// candidate a run of the whole group. Under a group objective the step's
// pick is, among the class's candidates within its own limits that the
// verdict rule accepts (or no hedging), the one whose run gives the group
// the best value; a round that changes no pick ends the search. Each
// class's report keeps what its own objective would pick in the last
// step, the others at their group picks (GroupChoice.Alone).

// Group objective names (Settings.GroupObjective).
const (
	GroupWeighted = "weighted"
	GroupWorst    = "worst"
	GroupEach     = "each"
)

// GroupObjectives are the names Settings.GroupObjective takes.
var GroupObjectives = []string{GroupWeighted, GroupWorst, GroupEach}

// GroupFigure is what one run of a coupled group measured of one class:
// its objective's percentile Q in seconds (+Inf for a miss) with its
// confidence interval (CIOK false when the requests are too few for one),
// its answered and hedged shares, its cost per 1000 requests (USD) and
// calls per request, and its requests. When the class's requests interact
// (sim.ClassResult.Batched), Q leaves out the run's warm-up and its
// interval comes from batches of arrival-ordered requests, as a one-class
// candidate's do (paired.go), and Batches holds the linearised percentile
// of each batch of sim's fixed grid from BatchFrom on (nil otherwise), so
// that two runs of the group on the same requests are compared by their
// paired difference.
type GroupFigure struct {
	Class            string
	Q                float64
	CI               [2]float64
	CIOK             bool
	Answered, Hedged float64
	CostPer1k, Calls float64
	Requests         int64
	Batches          []float64
	BatchFrom        int
	// Within is, under an objective with a target (answered, checked),
	// the share of the class's requests answered (checked) within it,
	// and WithinBatches that share in each batch of sim's fixed grid when
	// the requests interact (answered only; nil otherwise).
	Within        float64
	WithinBatches []float64
	// AnsweredBatches is the answered share in each batch of sim's fixed
	// grid when the requests interact; nil otherwise.
	AnsweredBatches []float64
}

// unanswered is the share of the class's requests without a usable answer.
func (f *GroupFigure) unanswered() float64 { return 1 - f.Answered }

// GroupChoice is how a class's pick was chosen under a group objective.
type GroupChoice struct {
	// Objective is GroupWeighted or GroupWorst; Classes the group's
	// classes and Weights their weights (GroupWeighted).
	Objective string    `json:"objective"`
	Classes   []string  `json:"classes"`
	Weights   []float64 `json:"weights"`
	// Value is the group objective at the group search's picks (seconds
	// for GroupWeighted, a ratio for GroupWorst; null for a miss), in the
	// group's run in which every class had the policy Picks names.
	Value float64 `json:"value"`
	// Picks names, by Classes, each class's policy in the run Value is
	// of: its candidate's label ("none" for no hedging), or "configured"
	// for a class of the group that is not optimized. These are the
	// group search's picks, which are not always what rolls out: see
	// RolledOut.
	Picks []string `json:"picks"`
	// RolledOut is set when what rolls out is not Picks — the rollout
	// check rolled out no hedging for a pick that answers fewer, or an
	// undecided class rolls out its configured policy: the group
	// objective there, from the rollout check (see GroupRolledOut). Nil
	// when what rolls out is Picks.
	RolledOut *GroupRolledOut `json:"rolled_out,omitempty"`
	// Alone is the index of the candidate the class's own objective
	// picks, the other classes at their group picks, and AloneValue the
	// group objective had it been picked.
	Alone      int     `json:"alone"`
	AloneValue float64 `json:"alone_value"`
	// AloneWhyNot says, when the class's own pick has a better group
	// value than the group's pick, why the group did not take it (not
	// admissible for the group: which class fails which limit or the
	// verdict rule; or not significantly better); empty otherwise.
	AloneWhyNot string `json:"alone_why_not,omitempty"`

	// at are the policies of Picks, by Classes, each a candidate's on the
	// class's configured policy (Candidate.Policy), as the group's runs
	// have them; at[own] is set by setGroupPicks from candidate ownPick
	// of the class's report, the class's pick.
	at           []sim.Policy
	own, ownPick int
}

// GroupRolledOut is the group objective at what rolls out, when that is
// not the group search's picks (GroupChoice.Picks).
type GroupRolledOut struct {
	// Picks names, by GroupChoice.Classes, what rolls out for each class:
	// its pick's label ("none" for no hedging), or "configured" for a
	// class that keeps its configured policy (undecided, or not
	// optimized).
	Picks []string `json:"picks"`
	// Value is the group objective of the rollout check's run, which has
	// every class at what rolls out (Requests requests of the whole
	// scenario; the weights of GroupWeighted are the classes' requests in
	// it, or Settings.GroupWeights; GroupWorst holds each class against
	// the check's run without hedging). It is null (+Inf) for a miss, and
	// NaN (null) with Requests 0 when there was no rollout check.
	Value    float64 `json:"value"`
	Requests int     `json:"check_requests"`
}

// MarshalJSON writes a value that is a miss or unknown as null.
func (g GroupRolledOut) MarshalJSON() ([]byte, error) {
	type plain GroupRolledOut
	w := struct {
		plain
		Value *float64 `json:"value"`
	}{plain: plain(g)}
	if !math.IsInf(g.Value, 0) && !math.IsNaN(g.Value) {
		w.Value = &g.Value
	}
	return json.Marshal(w)
}

// MarshalJSON writes values that are a miss (+Inf) as null.
func (g GroupChoice) MarshalJSON() ([]byte, error) {
	type plain GroupChoice
	w := struct {
		plain
		Value      *float64 `json:"value"`
		AloneValue *float64 `json:"alone_value"`
	}{plain: plain(g)}
	if !math.IsInf(g.Value, 0) && !math.IsNaN(g.Value) {
		w.Value = &g.Value
	}
	if !math.IsInf(g.AloneValue, 0) && !math.IsNaN(g.AloneValue) {
		w.AloneValue = &g.AloneValue
	}
	return json.Marshal(w)
}

// groupFigures returns the figures of every class of the group run res of
// scenario c, at each class's objective percentile under s.
func groupFigures(res *sim.Result, c *sim.Config, s *Settings) []GroupFigure {
	out := make([]GroupFigure, len(c.Classes))
	for j := range c.Classes {
		r := &res.Classes[j]
		f := GroupFigure{Class: c.Classes[j].Name, Q: math.Inf(1), CI: [2]float64{math.Inf(1), math.Inf(1)}, Requests: r.Requests}
		if n := r.NumLatencies(); n > 0 {
			o := s.For(f.Class).Objective
			p := o.Percentile
			if !batchedFigure(&f, r, p, o.Target, s.Level) {
				// Independent requests: one selection for the percentile
				// and its order-statistic interval.
				l, u, ok := sim.QuantileCIRanks(n, p, s.Level)
				v := r.Ranks([]int{sim.NearestRank(n, p), l - 1, u - 1})
				f.Q = v[0]
				if ok {
					f.CI, f.CIOK = [2]float64{v[1], v[2]}, true
				} else {
					f.CI = [2]float64{0, math.Inf(1)} // no interval: nothing is significant
				}
			}
			n := float64(r.Requests)
			f.Answered, f.Hedged = float64(r.Answered)/n, float64(r.Hedged)/n
			f.CostPer1k = (r.CostCompletedUSD + r.CostCancelledUSD) * 1000 / n
			f.Calls = float64(r.Attempts.Sent) / n
			if o.Target > 0 {
				f.Within = float64(r.AnsweredWithin(o.Target.Seconds())) / n
				if o.Checked && r.Pipeline != nil {
					f.Within = float64(r.Pipeline.CheckedWithin(o.Target.Seconds())) / n
					f.WithinBatches = nil // the batches' shares are of answers, not of checked turns
				}
			}
		}
		out[j] = f
	}
	return out
}

// batchedFigure sets f's p-percentile, its interval at the level and its
// grid's batches (of the share answered within target too, when > 0) from
// r's batches when r's requests interact (as summarizeBatched does for a
// candidate), and reports whether they do. An interval that cannot be
// formed, or whose batches are too short for the percentile, is none:
// CIOK false, and nothing is significant.
func batchedFigure(f *GroupFigure, r *sim.ClassResult, p float64, target time.Duration, level float64) bool {
	ps := []float64{p}
	b, ok := r.BatchFigures(ps, ps, ps, target.Seconds(), nil)
	if !ok {
		return false
	}
	per := make([]float64, len(b.PerBatch))
	for j := range b.PerBatch {
		per[j] = b.PerBatch[j][0]
	}
	f.Q = b.Pooled[0]
	f.CI = [2]float64{0, math.Inf(1)}
	if ci, within := sim.ClipLatency(sim.BatchInterval(f.Q, per, level)); within && !math.IsNaN(ci[0]) && sim.BatchIntervalOK(p, b.Kept, len(per)) {
		f.CI, f.CIOK = ci, true
	}
	if b.Lin != nil {
		f.Batches, f.BatchFrom = b.Lin[0], b.FirstKept
	}
	if target > 0 {
		f.WithinBatches = b.Within
	}
	f.AnsweredBatches = b.Answered
	return true
}

// figureCandidate is class j's figure f as a candidate (hedging or not)
// at percentile p, for the class-level tests (limitReasons, Judge).
func figureCandidate(f *GroupFigure, p float64, hedging bool) Candidate {
	c := Candidate{Hedging: hedging, Requests: f.Requests, AnsweredShare: f.Answered, HedgedShare: f.Hedged,
		CostPer1kUSD: f.CostPer1k, AttemptsPerRequest: f.Calls, AnsweredWithinShare: f.Within}
	c.batchS[0], c.batchS[1] = f.AnsweredBatches, f.WithinBatches
	i := 0
	if p == 0.99 {
		i = 1
		c.Latency.P99, c.Latency.P99CI95, c.P99CIOK = f.Q, f.CI, f.CIOK
	} else {
		c.Latency.P95, c.Latency.P95CI95, c.P95CIOK = f.Q, f.CI, f.CIOK
	}
	c.batchQ[i], c.batchFrom = f.Batches, f.BatchFrom
	return c
}

// figurePair returns the figures base (the group's run without hedging)
// and f of one class as candidates at percentile p (f hedging or not).
// Their batches are compared pairwise (paired.go) only when both runs
// hold the same requests of the class: runs at a different number of
// requests (the coarse combinations at an eighth) fall back to comparing
// the two intervals.
func figurePair(base, f *GroupFigure, p float64, hedging bool) (b, c Candidate) {
	b, c = figureCandidate(base, p, false), figureCandidate(f, p, hedging)
	if b.Requests != c.Requests {
		b.batchQ, c.batchQ = [2][]float64{}, [2][]float64{}
		b.batchS, c.batchS = [3][]float64{}, [3][]float64{}
	}
	return b, c
}

// groupAdmissible reports whether a run of the group, whose figures are
// figs and loads loads, may be the group's choice: for every class j, its
// figures, held against its figures in the group's run without hedging
// (base, baseLoads), stay within its objective's limits and, where it
// hedges (hedging[j]) and judge is set, pass the verdict rule.
func groupAdmissible(figs, base []GroupFigure, loads, baseLoads []Load, hedging []bool, judge bool, s *Settings) bool {
	ok, _ := groupAdmissibleWhy(figs, base, loads, baseLoads, hedging, judge, s)
	return ok
}

// groupAdmissibleWhy is groupAdmissible, with why not: the first class
// that fails, and the limit or the verdict rule's reason.
func groupAdmissibleWhy(figs, base []GroupFigure, loads, baseLoads []Load, hedging []bool, judge bool, s *Settings) (bool, string) {
	z := distuv.UnitNormal.Quantile((1 + s.Level) / 2)
	for j := range figs {
		o := s.For(figs[j].Class).Objective
		o.AllowFewerAnswers = s.Rule.AllowFewerAnswers
		p := o.Percentile
		b, c := figurePair(&base[j], &figs[j], p, hedging[j])
		c.Loads, b.Loads = loads, baseLoads
		basis := CostCalls
		if b.CostPer1kUSD > 0 {
			basis = CostUSD
		}
		compare(&c, &b, basis)
		c.FewerAnswers = fewerAnswers(&b, &c, z)
		for _, l := range newLoads(&c, &b) {
			c.OverLimit = c.OverLimit || l.Kind == LoadRate
			c.Unstable = c.Unstable || l.Kind == LoadQueue
		}
		c.OverloadExcluded = excludeOverload(&c, &b, s.Rule)
		if r := limitReasons(&c, &b, o, s.Rule); len(r) > 0 {
			return false, fmt.Sprintf("class %s: %s", figs[j].Class, r[0].Text)
		}
		if judge && hedging[j] {
			if v := judgeFor(o, &b, &c, s.Level, s.Rule, basis); !v.Hedge {
				return false, fmt.Sprintf("class %s: %s", figs[j].Class, v.Reason)
			}
		}
	}
	return true, ""
}

// groupWeights returns the weights of the group's classes: s.GroupWeights
// by name (0 for a class it does not name), or without them each class's
// requests in figs.
func groupWeights(figs []GroupFigure, s *Settings) []float64 {
	w := make([]float64, len(figs))
	for j, f := range figs {
		if s.GroupWeights != nil {
			w[j] = s.GroupWeights[f.Class]
		} else {
			w[j] = float64(f.Requests)
		}
	}
	return w
}

// groupValue returns the group objective of the figures figs (lower is
// better) and its tie-break, the weighted unanswered share; base are the
// figures of the group's run without hedging (GroupWorst).
func groupValue(mode string, figs, base []GroupFigure, w []float64) (v, tie float64) {
	var sw float64
	for j, f := range figs {
		sw += w[j]
		tie += w[j] * f.unanswered()
	}
	if sw > 0 {
		tie /= sw
	}
	if mode == GroupWorst {
		for j, f := range figs {
			v = math.Max(v, ratio(f.Q, base[j].Q))
		}
		return v, tie
	}
	for j, f := range figs {
		if w[j] > 0 {
			v += w[j] * f.Q
		}
	}
	if sw > 0 {
		v /= sw
	}
	return v, tie
}

// groupEval is one run's standing under a group objective: its value v
// with an interval [lo, hi] (the classes' intervals, weighted or taken
// to the worst as v is), its weighted unanswered share over n requests,
// and its weighted cost per 1000 requests; i names the run.
type groupEval struct {
	i         int
	v, lo, hi float64
	// next breaks a tie of v under GroupWorst: the mean of the classes'
	// ratios, so that a run that makes one class faster at no cost to
	// the worst one wins (0 under GroupWeighted).
	next             float64
	unanswered, cost float64
	n                int64
	// batches holds, when every weighted class's requests interact, the
	// group objective of each batch of sim's fixed grid (from the
	// classes' linearised percentiles, GroupFigure.Batches) from from on;
	// nil otherwise.
	batches []float64
	from    int
}

// evalGroup returns the standing of a run of the group whose figures are
// figs (base: the group's run without hedging).
func evalGroup(i int, mode string, figs, base []GroupFigure, s *Settings) groupEval {
	w := groupWeights(figs, s)
	e := groupEval{i: i}
	e.v, e.unanswered = groupValue(mode, figs, base, w)
	var sw float64
	for j, f := range figs {
		sw += w[j]
		e.n += f.Requests
		e.cost += w[j] * f.CostPer1k
		switch {
		case mode == GroupWorst:
			e.lo = math.Max(e.lo, ratio(f.CI[0], base[j].Q))
			e.hi = math.Max(e.hi, ratio(f.CI[1], base[j].Q))
		case w[j] > 0:
			e.lo += w[j] * f.CI[0]
			e.hi += w[j] * f.CI[1]
		}
	}
	if sw > 0 {
		e.cost /= sw
		if mode != GroupWorst {
			e.lo, e.hi = e.lo/sw, e.hi/sw
		}
	}
	e.batches, e.from = groupBatches(mode, figs, base, w)
	if mode == GroupWorst && len(figs) > 0 {
		for j, f := range figs {
			e.next += ratio(f.Q, base[j].Q) / float64(len(figs))
		}
	}
	return e
}

// groupBatches returns the group objective of each batch of sim's fixed
// grid, as groupValue makes it of the classes' percentiles, from the
// classes' linearised percentiles of those batches, and the first batch
// after every class's warm-up cut; nil when a class that counts (a
// weight > 0, or any under GroupWorst) was not batched or its batches
// are too short for an interval (GroupFigure.CIOK).
func groupBatches(mode string, figs, base []GroupFigure, w []float64) ([]float64, int) {
	nb, from := -1, 0
	for j, f := range figs {
		if mode != GroupWorst && w[j] <= 0 {
			continue
		}
		if f.Batches == nil || !f.CIOK || (nb >= 0 && len(f.Batches) != nb) {
			return nil, 0 // batches too short for the percentile are no basis
		}
		nb, from = len(f.Batches), max(from, f.BatchFrom)
	}
	if nb < 0 {
		return nil, 0
	}
	out := make([]float64, nb)
	at := make([]GroupFigure, len(figs))
	for b := from; b < nb; b++ {
		for j := range figs {
			at[j] = figs[j]
			if figs[j].Batches != nil {
				at[j].Q = figs[j].Batches[b]
			}
		}
		out[b], _ = groupValue(mode, at, base, w)
	}
	return out, from
}

// groupSelect returns the position in evs of the group's choice. The run
// with the best value sets the bar; the runs not significantly worse (the
// intervals overlap, as "~" in the tables; for two runs of the same
// requests with batches, the paired difference of their values over the
// batches holds 0) that answer as many requests as any of them — an
// unanswered share not higher by both a significant (two-proportion test
// at the level) and a material amount (at least material, a share of
// requests) — are the choices, and the best value among them, then the
// tie-break (groupEval.next), then the lowest cost, then the first, wins.
// So a late copy that rescues the few requests a deadline would miss is
// not lost to a percentile that differs by noise alone, and among runs
// that answer alike the faster wins. keep, when ≥ 0, is the position of
// the current choice (a descent's step): it stays while it is among the
// choices — not significantly worse than the best, answering as many —
// unless a choice is as good (a value not higher) and better on the
// tie-break, so that the descent moves only for a significant gain or a
// free one and does not wander between equals.
func groupSelect(evs []groupEval, keep int, level, material float64) int {
	z := distuv.UnitNormal.Quantile((1 + level) / 2)
	if len(evs) == 0 {
		return -1
	}
	best := 0
	for x := range evs {
		a, b := &evs[x], &evs[best]
		if cmp.Or(cmp.Compare(a.v, b.v), cmp.Compare(a.next, b.next), cmp.Compare(a.unanswered, b.unanswered), cmp.Compare(a.cost, b.cost)) < 0 {
			best = x
		}
	}
	iv := func(x int) [2]float64 { return [2]float64{evs[x].lo, evs[x].hi} }
	near := func(x int) bool {
		a, b := &evs[x], &evs[best]
		if from := max(a.from, b.from); a.batches != nil && len(a.batches) == len(b.batches) && a.n == b.n && len(a.batches)-from >= 2 {
			// Runs on the same requests: their paired difference.
			if d := sim.PairDiff(b.v, b.batches[from:], a.v, a.batches[from:], level); !math.IsNaN(d.CI[0]) {
				return !d.Significant()
			}
		}
		return overlap(iv(x), iv(best))
	}
	most := best // of the near runs, the one answering most
	for x := range evs {
		if near(x) && evs[x].unanswered < evs[most].unanswered {
			most = x
		}
	}
	choice := func(x int) bool {
		fewer := evs[x].unanswered-evs[most].unanswered >= material &&
			sim.AnswersFall(1-evs[most].unanswered, evs[most].n, 1-evs[x].unanswered, evs[x].n, z)
		return near(x) && !fewer
	}
	pick := most
	for x := range evs {
		if choice(x) && cmp.Or(cmp.Compare(evs[x].v, evs[pick].v), cmp.Compare(evs[x].next, evs[pick].next), cmp.Compare(evs[x].cost, evs[pick].cost)) < 0 {
			pick = x
		}
	}
	if keep >= 0 && choice(keep) {
		// The current choice stays unless a choice is as good for the
		// group and better on the tie-break (GroupWorst: one class faster
		// at no cost to the worst).
		best := keep
		for x := range evs {
			if choice(x) && evs[x].v <= evs[keep].v && evs[x].next < evs[keep].next &&
				cmp.Or(cmp.Compare(evs[x].v, evs[best].v), cmp.Compare(evs[x].next, evs[best].next), cmp.Compare(evs[x].cost, evs[best].cost)) < 0 {
				best = x
			}
		}
		return best
	}
	return pick
}

// materialCut is the smallest difference of the group's weighted
// unanswered share that counts (groupSelect): the verdict rule's minimum
// gain, MinGainPct percent, of the share the group leaves unanswered
// without hedging (base).
func materialCut(base []GroupFigure, s *Settings) float64 {
	_, u := groupValue(GroupWeighted, base, base, groupWeights(base, s))
	return s.Rule.MinGainPct / 100 * u
}

// ratio is q over its baseline b, with a miss over a miss 1, a miss over
// an answer +Inf and an answer over a miss 0.
func ratio(q, b float64) float64 {
	switch qi, bi := math.IsInf(q, 1), math.IsInf(b, 1); {
	case qi && bi:
		return 1
	case qi:
		return math.Inf(1)
	case bi:
		return 0
	case b == 0:
		if q == 0 {
			return 1
		}
		return math.Inf(1)
	}
	return q / b
}

// groupPick chooses, among the candidates of the step's class report cr
// (class k of the group, the others at their policies current), whose runs
// measured figs and loads (by candidate; nil for one left out), those
// admissible for the group (groupAdmissible: every class against the
// group's run without hedging, gs) — and no hedging for the class in any
// case —, the group's choice (groupSelect), or the class's own pick
// (cr.Pick) when the group's figures cannot tell the two apart. It
// returns its index, and the value at it.
func groupPick(cr *ClassReport, k int, current []sim.Policy, figs [][]GroupFigure, loads [][]Load, gs *groupStart, mode string, s *Settings) (int, float64) {
	var evs []groupEval
	keep := -1 // the position of the class's current policy
	hedging := make([]bool, len(current))
	for i := range cr.Candidates {
		c := &cr.Candidates[i]
		if figs[i] == nil {
			continue
		}
		for j := range current {
			hedging[j] = current[j].Copies > 0
		}
		hedging[k] = c.Hedging
		if !groupAdmissible(figs[i], gs.base, loads[i], gs.baseLoads, hedging, true, s) && i != 0 {
			continue
		}
		if i != 0 && c.Hedging && costLess(ownCost(cr), c.AddedCostPct) {
			continue // past where the class's own trade-off ends
		}
		if keep < 0 && c.Hedging == (current[k].Copies > 0) && samePolicy(c.Policy(current[k]), current[k]) {
			keep = len(evs)
		}
		evs = append(evs, evalGroup(i, mode, figs[i], gs.base, s))
	}
	x := groupSelect(evs, keep, s.Level, materialCut(gs.base, s))
	if x < 0 {
		return 0, math.Inf(1) // no hedging is always admissible; unreachable
	}
	// A run the group cannot tell from the class's own pick (the same
	// value, tie-break, unanswered share and cost) leaves the class its
	// own pick.
	for _, e := range evs {
		if e.i == cr.Pick && e.v == evs[x].v && e.next == evs[x].next && e.unanswered == evs[x].unanswered && e.cost == evs[x].cost {
			return e.i, e.v
		}
	}
	return evs[x].i, evs[x].v
}

// ownCost is the added cost of the pick of the step's class report cr
// under the class's own objective (no hedging's 0 when that is its pick):
// the group objective may have a class hedge less than its own trade-off
// ends, to leave a shared quota or queue to the others, never more.
func ownCost(cr *ClassReport) float64 {
	if p := &cr.Candidates[cr.Pick]; p.Hedging {
		return p.AddedCostPct
	}
	return 0
}

// chooseForGroup makes the pick of the step's class report cr, decided
// under the class's own objective, the group objective's choice (see
// groupPick).
func chooseForGroup(cr *ClassReport, k int, current []sim.Policy, figs [][]GroupFigure, loads [][]Load, gs *groupStart, mode string, s *Settings) {
	base := gs.base
	var i int
	var v float64
	fixed := -1
	if gs.fixed {
		// Every combination was simulated: the group's choice stands,
		// unless it has the class hedge past its own trade-off.
		fixed = slices.IndexFunc(cr.Candidates, func(c Candidate) bool {
			return samePolicy(c.Policy(current[k]), current[k]) && c.Hedging == (current[k].Copies > 0)
		})
		if fixed < 0 || figs[fixed] == nil {
			fixed = 0
		}
		if c := &cr.Candidates[fixed]; c.Hedging && costLess(ownCost(cr), c.AddedCostPct) {
			fixed = -1
		}
	}
	if fixed >= 0 {
		i = fixed
		v, _ = groupValue(mode, figs[i], base, groupWeights(figs[i], s))
	} else {
		i, v = groupPick(cr, k, current, figs, loads, gs, mode, s)
	}
	// The rule, for the group's pick, holds the class against its figures
	// in the group's run without hedging, as the group's search does.
	p := cr.Objective.Percentile
	b, c := figurePair(&base[k], &figs[i][k], p, cr.Candidates[i].Hedging)
	// What the rerun advice needs (adviseRequests): the requests asked per
	// request of the class — its share of the group's traffic — and the
	// warm-up cuts of its runs, as decide gives the class's own baseline.
	b.asked, b.expect, b.batched, b.replay = cr.asked, cr.expect, cr.batched, cr.replay
	if cb := &cr.Candidates[0]; cb.Requests == b.Requests {
		b.cut = cb.cut
	}
	if ci := &cr.Candidates[i]; ci.Requests == c.Requests {
		c.cut = ci.cut
	}
	basis := cr.CostBasis
	compare(&c, &b, basis)
	verdict := judgeFor(cr.Objective, &b, &c, s.Level, s.Rule, basis)
	g := &GroupChoice{Objective: mode, Value: v, AloneValue: math.Inf(1), Weights: []float64{}, at: slices.Clone(current), own: k, ownPick: i}
	for _, f := range figs[i] {
		g.Classes = append(g.Classes, f.Class)
	}
	if mode == GroupWeighted {
		g.Weights = groupWeights(figs[i], s)
	}
	if f := figs[cr.Pick]; f != nil {
		g.AloneValue, _ = groupValue(mode, f, base, groupWeights(f, s))
		if cr.Pick != i && g.AloneValue < g.Value {
			// Why the group passed over a pick it values more.
			hedging := make([]bool, len(current))
			for j := range current {
				hedging[j] = current[j].Copies > 0
			}
			hedging[k] = cr.Candidates[cr.Pick].Hedging
			if ok, why := groupAdmissibleWhy(f, base, loads[cr.Pick], gs.baseLoads, hedging, true, s); !ok {
				g.AloneWhyNot = "not admissible for the group: " + why
			} else {
				g.AloneWhyNot = "not significantly better for the group than the pick, or answering fewer requests"
			}
		}
	}
	regroup(cr, i, g, verdict, s.Rule, s.Level)
}

// regroup makes candidate i the pick of cr, which decide has decided
// under the class's own objective: the group objective chose it, and v is
// the rule's verdict on it against the group's run without hedging. The
// class's own choice is kept in GroupChoice.Alone. No hedging chosen by
// the group is judged as decide judges a pick of no hedging: undecided
// when its percentile has too few requests for an interval, unless the
// class's objective is cost and a one-sided upper bound on its
// percentile is within the SLA (slaMetOneSided), which decides "don't
// hedge".
func regroup(cr *ClassReport, i int, g *GroupChoice, v Verdict, rule Rule, level float64) {
	cs := cr.Candidates
	g.Alone = cr.Pick
	cr.Group = g
	if i == cr.Pick {
		return // the class's own choice is the group's
	}
	for j := range cs {
		cs[j].Pick = false
	}
	name := groupObjectiveText(g)
	alone := "no hedging"
	if a := &cs[cr.Pick]; a.Hedging {
		alone = a.Label
	}
	cr.Pick = i
	pick := &cs[i]
	if pick.Hedging {
		cr.Verdict = v
		cr.Verdict.Reason = "against the group without hedging: " + v.Reason
		if v.Hedge {
			cr.Verdict.DecidedBy = DecidedByGroup
		}
		cr.PickNote = fmt.Sprintf("the group objective, %s, picks %s for this class (its own objective, the others at their group picks, would pick %s)", name, pick.Label, alone)
	} else {
		why := fmt.Sprintf("the group objective, %s, is best with no hedging for this class (its own objective, the others at their group picks, would pick %s)", name, alone)
		cr.Verdict = Verdict{Alternative: -1, UnansweredBefore: cs[0].unansweredShare(), UnansweredAfter: cs[0].unansweredShare(),
			GainPct: noGain(&cs[0], &cs[0], 0), Reason: why}
		cr.PickNote = why
		o := cr.Objective
		if nv := judgeFor(o, &cs[0], &cs[0], level, rule, cr.CostBasis); nv.Undecided {
			// As decide: too few requests for an interval on no
			// hedging's percentile cannot tell, but a cost objective's
			// SLA is a one-sided question.
			if sla, ok := slaMetOneSided(&cs[0], o, level); o.Goal == LowestCost && ok {
				cr.Verdict.Reason = fmt.Sprintf("%s; %s without hedging (%s) meets the SLA of %s: %s", why, pname(o.Percentile), fsec(cs[0].Q(o.Percentile)), fsec(o.SLA.Seconds()), sla)
			} else {
				cr.Verdict = nv
				cr.Verdict.Reason = why + "; " + nv.Reason
			}
		}
	}
	cr.Verdict.Alternative = -1
	finishPick(cr, level)
	fates(cr, rule, level)
}

// groupObjectiveText names the group objective in words: "the
// traffic-weighted p95 of interactive (50%) and batch (50%)".
func groupObjectiveText(g *GroupChoice) string {
	if g.Objective == GroupWorst {
		return fmt.Sprintf("the worst ratio of a class's percentile to its own without hedging, over %s", joinNames(g.Classes))
	}
	var sum float64
	for _, w := range g.Weights {
		sum += w
	}
	parts := make([]string, len(g.Classes))
	for j, c := range g.Classes {
		parts[j] = fmt.Sprintf("%s (%.0f%%)", c, 100*g.Weights[j]/sum)
	}
	return "the weighted percentile of " + joinNames(parts)
}

// groupValueText formats a group objective's value.
func groupValueText(mode string, v float64) string {
	if mode == GroupWorst {
		if math.IsInf(v, 1) {
			return "a miss"
		}
		return fmt.Sprintf("%.3f× its own without hedging", v)
	}
	return fsec(v)
}

// writeGroup writes how the group objective chose a class's pick, and
// what the class's own objective would have picked (GroupText).
func writeGroup(w interface{ Write([]byte) (int, error) }, cr *ClassReport) {
	if t := cr.GroupText(); t != "" {
		fmt.Fprintf(w, "  group: %s\n", t)
	}
}

// GroupText says how the group objective chose the class's pick: the
// group objective's value and which picks it is of — "at this pick", or,
// when what rolls out is not the group search's picks (GroupChoice.
// RolledOut), those picks, what rolls out and the value the rollout check
// gives it — and what the class's own objective would have picked, the
// others at their group picks, with the group's value there and why the
// group passed it over. Empty when no group objective chose the pick
// (Group nil). The text report's "group:" line and the HTML page give it.
func (cr *ClassReport) GroupText() string {
	g := cr.Group
	if g == nil {
		return ""
	}
	alone := &cr.Candidates[g.Alone]
	label := "no hedging"
	if alone.Hedging {
		label = alone.Label
	}
	why := ""
	if g.AloneWhyNot != "" {
		why = "; " + g.AloneWhyNot
	}
	return fmt.Sprintf("%s is %s %s; the class's own objective, the others at their group picks, would pick %s (group %s%s)",
		groupObjectiveText(g), groupValueText(g.Objective, g.Value), groupAtText(g), label, groupValueText(g.Objective, g.AloneValue), why)
}

// validGroupObjective checks a group objective's name.
func validGroupObjective(name string) error {
	for _, n := range GroupObjectives {
		if n == name {
			return nil
		}
	}
	return fmt.Errorf("group objective %q: want one of %s", name, strings.Join(GroupObjectives, ", "))
}

// MaxGroupCombinations bounds the combinations of the classes' candidates
// that a group objective's search simulates before its coordinate
// descent: when the classes' grids (no hedging included) multiply to at
// most this many, every combination is simulated, at the sweep's
// requests, and the best is the group optimum on the grid; otherwise a
// coarse grid of each class's candidates (evenly spaced, no hedging and
// the last included; K per class with K^classes at most this many) at an
// eighth of the requests, from whose best the descent starts.
const MaxGroupCombinations = 64

// groupStart is where a group objective's search starts: the group's
// figures and loads in its run without hedging, each optimized class's
// grid and series, the policies to start from, and how the combinations
// were searched.
type groupStart struct {
	base      []GroupFigure
	baseLoads []Load
	grids     map[int][]Candidate
	series    map[int][]Series
	start     []sim.Policy
	search    string
	// fixed: the combinations were every one, so the start is the group's
	// choice on the grid and the descent keeps it (its rounds make the
	// class reports).
	fixed bool
}

// startGroup measures the group's run without hedging (the reference of
// every class's limits and of GroupWorst), sets each optimized class's
// grid (order: positions in gc) from its percentiles in that run, and
// simulates combinations of the classes' candidates (see
// MaxGroupCombinations), starting from the best admissible one (of a
// coarse grid: within every class's limits; the verdict rule judges the
// descent's runs). When m lacks a measurement, the step it returns names
// it.
func startGroup(ctx context.Context, gc *sim.Config, order []int, s *Settings, m *memo, groupName string, workers int, progress func(string, int) func()) (*groupStart, string, error) {
	gs := &groupStart{grids: map[int][]Candidate{}, series: map[int][]Series{}}
	with := func(reqs int, pols map[int]sim.Policy) *sim.Config {
		c := *gc
		c.Requests = reqs
		c.Classes = slices.Clone(gc.Classes)
		for k, p := range pols {
			c.Classes[k].Policy = p
		}
		return &c
	}
	none := map[int]sim.Policy{}
	for _, k := range order {
		p := gc.Classes[k].Policy
		sim.NoHedging(&p)
		none[k] = p
	}
	key := groupName + ": every class: none" // simulated by every shard, as baselines are
	me, err := m.get(key, -1, func() (Measurement, error) {
		c := with(gc.Requests, none)
		res, err := sim.RunContext(ctx, c)
		if err != nil {
			return Measurement{}, fmt.Errorf("%s without hedging: %w", groupName, err)
		}
		me := baseline(res, c, order[0], s.Level, 0)
		me.Group = groupFigures(res, c, s)
		for j := range c.Classes {
			q10, q99 := gridSpan(&res.Classes[j], c.Classes[j].Deadline)
			me.Spans = append(me.Spans, [2]float64{q10, q99})
		}
		return me, nil
	})
	if err != nil || me == nil {
		return nil, key, err
	}
	gs.base, gs.baseLoads = me.Group, me.Loads
	for _, k := range order {
		cl := &gc.Classes[k]
		one := *gc
		one.Classes = []sim.Class{*cl}
		span := me.Spans[k] // the class's p10 and p99 with no class hedging
		gs.grids[k], gs.series[k] = grid(&one, s.For(cl.Name), span[0], span[1])
		if len(gs.grids[k]) == 0 {
			return nil, "", fmt.Errorf("class %q: every delay to try is at or past its deadline %s; try shorter delays", cl.Name, fsec(cl.Deadline.Seconds()))
		}
	}
	// The combinations: per class, positions in [none] + grid.
	total := 1
	for _, k := range order {
		total *= 1 + len(gs.grids[k])
		total = min(total, MaxGroupCombinations+1)
	}
	exhaustive := total <= MaxGroupCombinations
	per := map[int][]int{}
	reqs := gc.Requests
	if exhaustive {
		for _, k := range order {
			for i := 0; i <= len(gs.grids[k]); i++ {
				per[k] = append(per[k], i)
			}
		}
	} else {
		kk := max(2, int(math.Floor(math.Pow(MaxGroupCombinations, 1/float64(len(order)))+1e-9)))
		for _, k := range order {
			n := len(gs.grids[k])
			for j := range kk {
				i := int(math.Round(float64(j) * float64(n) / float64(kk-1)))
				if len(per[k]) == 0 || per[k][len(per[k])-1] != i {
					per[k] = append(per[k], i)
				}
			}
		}
		reqs = coarseRequests(gc, order, gs.base, s)
	}
	var combos [][]int // by combination, a position per class of order
	var walk func(d int, cur []int)
	walk = func(d int, cur []int) {
		if d == len(order) {
			combos = append(combos, slices.Clone(cur))
			return
		}
		for _, i := range per[order[d]] {
			walk(d+1, append(cur, i))
		}
	}
	walk(0, nil)
	policy := func(k, i int) sim.Policy {
		if i == 0 {
			return none[k]
		}
		return gs.grids[k][i-1].Policy(gc.Classes[k].Policy)
	}
	label := func(k, i int) string {
		if i == 0 {
			return "none"
		}
		return gs.grids[k][i-1].Label
	}
	figs := make([][]GroupFigure, len(combos))
	loads := make([][]Load, len(combos))
	missing := ""
	err = parallelContext(ctx, len(combos), workers, func(x int) error {
		pols := map[int]sim.Policy{}
		var names []string
		for d, k := range order {
			pols[k] = policy(k, combos[x][d])
			names = append(names, gc.Classes[k].Name+" "+label(k, combos[x][d]))
		}
		key := fmt.Sprintf("%s: combination %s", groupName, strings.Join(names, ", "))
		me, err := m.get(key, x, func() (Measurement, error) {
			c := with(reqs, pols)
			res, err := sim.RunContext(ctx, c)
			if err != nil {
				return failure(key, err), nil
			}
			me := measured(key, res, c, order[0], s.Level, 0)
			me.Group = groupFigures(res, c, s)
			return me, nil
		})
		switch {
		case err != nil:
			return err
		case me == nil && !m.simulate:
			return missingError(key)
		case me == nil:
			missing = key // another shard's: the descent waits for the merge
		case me.Err == "":
			figs[x], loads[x] = me.Group, me.Loads
		}
		return nil
	}, progress(groupName+": combinations", len(combos)))
	if err != nil {
		return nil, "", err
	}
	if missing != "" {
		return nil, groupName + ": combinations", nil
	}
	mode := s.groupObjective()
	var evs []groupEval
	for x := range combos {
		if figs[x] == nil {
			continue
		}
		hedging := make([]bool, len(gc.Classes))
		for j := range gc.Classes {
			hedging[j] = gc.Classes[j].Policy.Copies > 0
		}
		for d, k := range order {
			hedging[k] = combos[x][d] > 0
		}
		// The coarse grid's runs, at an eighth of the requests, are too
		// short for the verdict rule's intervals when the requests
		// interact: they only choose where the descent starts, whose runs
		// the rule then judges.
		if !groupAdmissible(figs[x], gs.base, loads[x], gs.baseLoads, hedging, exhaustive, s) && x != 0 {
			continue // the first combination, no class hedging, stays a choice
		}
		evs = append(evs, evalGroup(x, mode, figs[x], gs.base, s))
	}
	best := 0
	if sel := groupSelect(evs, -1, s.Level, materialCut(gs.base, s)); sel >= 0 {
		best = evs[sel].i
	}
	gs.fixed = exhaustive
	gs.start = make([]sim.Policy, len(gc.Classes))
	for j := range gc.Classes {
		gs.start[j] = gc.Classes[j].Policy
	}
	for d, k := range order {
		gs.start[k] = policy(k, combos[best][d])
	}
	if exhaustive {
		gs.search = fmt.Sprintf("every one of the %d combinations of the classes' candidates simulated", len(combos))
	} else {
		at := "an eighth of the requests"
		if reqs != max(gc.Requests/8, 1) {
			at = fmt.Sprintf("%d requests (what the classes' batched intervals need)", reqs)
		}
		gs.search = fmt.Sprintf("%d combinations of a coarse grid of the classes' candidates at %s, then coordinate descent from the best", len(combos), at)
	}
	return gs, "", nil
}

// coarseRequests returns the requests of a run of the coarse grid of
// startGroup: an eighth of the group's, and, when the group's requests
// interact, twice what every optimized class (order) needs for a batched
// interval of its objective's percentile (sim.MinBatchedRequests, twice
// for a warm-up cut of up to half the run), at its share of the requests
// in the group's run without hedging (base), so that the coarse grid
// ranks its runs on percentiles their batches can hold, not on a
// start-up. The runs never exceed the group's requests, and a class that
// would not get an interval even at those is left out.
func coarseRequests(gc *sim.Config, order []int, base []GroupFigure, s *Settings) int {
	reqs := max(gc.Requests/8, 1)
	if !gc.Batched() {
		return reqs
	}
	for _, k := range order {
		n := base[k].Requests
		if n <= 0 {
			continue
		}
		p := s.For(gc.Classes[k].Name).Objective.Percentile
		need := float64(sim.MinBatchedRequests(p)) * float64(gc.Requests) / float64(n)
		if need <= float64(gc.Requests) {
			reqs = max(reqs, int(math.Ceil(min(2*need, float64(gc.Requests)))))
		}
	}
	return min(reqs, gc.Requests)
}
