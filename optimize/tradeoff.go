package optimize

import (
	"fmt"
	"math"
	"slices"
	"strings"
	"time"
)

// The trade-off: how objectives p95, p99 and answered pick on the
// frontier. Rather than the fastest point under a cost cap — a cliff,
// where +0.25 pt of cost beyond the cap can halve p95 — the pick is where
// the frontier stops paying for itself by the verdict rule's own measure
// (Rule.MinGainPerCost, Rule.MinUnansweredCutPerCost): the knee in the
// rule's units. A cost cap, when the user sets one, is a hard ceiling on
// top of that.
//
// The marginal test. Between two points a and b of a frontier, b costlier
// by Δ percentage points of no hedging's cost, moving from a to b passes
// when
//
//	100·(q(a) − q(b)) / s  ≥  MinGainPerCost · Δ            (the percentile), or
//	100·(u(a) − u(b)) / u₀ ≥  MinUnansweredCutPerCost · Δ   (the unanswered share)
//
// where q is the objective's percentile, s its scale — no hedging's
// percentile, or when that is a miss the slowest percentile on the
// frontier that is not (a miss is at least that slow) — u the share of
// requests without a usable answer in time and u₀ no hedging's. The
// percentile test is left out when q(a) or q(b) is a miss, as the verdict
// judges a miss on the unanswered share. For objective answered, u is the
// share not answered within the target and the percentile test is left out
// (JudgeWithin's test). These are the verdict rule's per-cost tests, with
// no hedging replaced by a and the same units, so that a walk whose every
// move passes also passes them from no hedging. A move of objectives p95
// and p99 that passes on the unanswered share alone must also pass the
// verdict's significance test of that share between a and b
// (unansweredCut, when Rule.RequireSignificant): a cut of a few requests
// is noise, and would carry the walk to a far costlier point; a move that
// passes on the percentile keeps the per-cost test alone, and its cut
// counts toward its score (which move the walk takes) only when
// significant. Under objective
// answered every gain is on a share: a move from a hedged point must also
// cut the share not within the target significantly (withinCut); a move
// from no hedging is left to the verdict, which tests the pick against
// no hedging alike.
//
// The walk. It starts at the fastest frontier point that costs no more
// than no hedging (no hedging itself, usually) and, while some costlier
// frontier point passes the marginal test from where it stands, moves to
// the one with the best score — the largest gain per cost over its
// threshold, ties to the costlier. This is the upper hull of the frontier
// in the rule's units: a point that a steeper move jumps over lies below
// the chord and is never the pick, so a flat step between two steep ones
// (noise on an almost straight frontier) does not stop the walk, and the
// walk never moves on a chord that averages a steep start with a flat end.
// It ends at a point from which no costlier frontier point passes the
// test: the pick. With thresholds of 0, every move passes and the pick is
// the frontier's fastest point — the lowest percentile within the caps.
//
// Cost: O(n²) score evaluations for a frontier of n points, at most.

// tradeOff walks a frontier under an objective's marginal test.
type tradeOff struct {
	cs []Candidate
	o  Objective
	// base is the no-hedging candidate; scale the percentile's scale in
	// seconds (0 when the frontier has no finite percentile).
	base  *Candidate
	scale float64
}

func newTradeOff(cs []Candidate, base int, o Objective, f []int) *tradeOff {
	t := &tradeOff{cs: cs, o: o, base: &cs[base]}
	t.scale = t.base.Q(o.Percentile)
	if math.IsInf(t.scale, 1) {
		t.scale = 0
		for _, i := range f {
			if q := cs[i].Q(o.Percentile); !math.IsInf(q, 1) {
				t.scale = max(t.scale, q)
			}
		}
	}
	return t
}

// move says what moving from a to b (b costlier) buys under the marginal
// test.
type move struct {
	// Cost is b's added cost over a's, in percentage points of no
	// hedging's cost.
	Cost float64
	// Gain is the percentile's fall in percent of its scale (NaN when the
	// percentile test does not apply) and Cut the unanswered share's in
	// percent of no hedging's (NaN when it does not apply).
	Gain, Cut float64
	// Score is the larger of Gain/Cost over MinGainPerCost and Cut/Cost
	// over MinUnansweredCutPerCost: the move passes when it is ≥ 1. It is
	// +Inf when a test finds a gain and its threshold is 0 (or the move
	// costs nothing), 0 when neither test finds a gain. The cut's part
	// counts only when the cut is significant and the objective asks
	// (see NoiseCut), also when the move passes on the percentile: a cut
	// of a few requests would otherwise outscore a steeper percentile
	// gain and choose the walk's move.
	Score float64
	// NoiseCut says that the move would pass on the unanswered share
	// alone, but that its cut is not significant at Objective.cutLevel
	// (unansweredCut): the verdict's test of the share, applied to the
	// two points, so that a cut of a few requests in noise does not carry
	// the walk to a costlier point. Under objectives answered and checked
	// it says the same of the share not answered (checked) within the
	// target (withinCut), for a move from a hedged point; the move's
	// score is then 0.
	NoiseCut bool
}

func (m move) passes() bool { return m.Score >= 1 }

// move measures the move from a to b.
func (t *tradeOff) move(a, b *Candidate) move {
	m := move{Cost: b.AddedCostPct - a.AddedCostPct, Gain: math.NaN(), Cut: math.NaN()}
	if sameCost(a.AddedCostPct, b.AddedCostPct) {
		m.Cost = 0 // rounding, not cost
	}
	score := func(gain, per float64) {
		switch {
		case !(gain > 0):
		case m.Cost <= 0 || per == 0:
			m.Score = math.Inf(1)
		default:
			m.Score = max(m.Score, gain/m.Cost/per)
		}
	}
	if t.o.Goal == MostAnswered {
		if u0 := 1 - t.base.AnsweredWithinShare; u0 > 0 {
			m.Cut = 100 * (b.AnsweredWithinShare - a.AnsweredWithinShare) / u0
			score(m.Cut, t.o.MinUnansweredCutPerCost)
			// Every gain of this objective is on a share: a move from
			// a hedged point passes only on a significant cut
			// (withinCut), paired on the batches when the requests
			// interact. A move from no hedging is left to the verdict,
			// which applies the same test to the pick: refused here,
			// it would carry the walk past a steep point whose cut is
			// not yet significant to a far costlier one whose cut
			// clears the bar by a few requests.
			if m.Score >= 1 && t.o.cutLevel > 0 && a != t.base && a.Requests > 0 && b.Requests > 0 {
				if sig, _ := withinCut(a, b, t.o.cutLevel); !sig {
					m.Score, m.NoiseCut = 0, true
				}
			}
		}
		return m
	}
	p := t.o.Percentile
	if qa, qb := a.Q(p), b.Q(p); !math.IsInf(qa, 1) && !math.IsInf(qb, 1) && t.scale > 0 {
		m.Gain = 100 * (qa - qb) / t.scale
		score(m.Gain, t.o.MinGainPerCost)
	}
	if u0 := t.base.unanswered(); u0 > 0 {
		m.Cut = 100 * (a.unanswered() - b.unanswered()) / u0
		onGain := m.Score
		score(m.Cut, t.o.MinUnansweredCutPerCost)
		// The cut's part of the score counts only when the cut is
		// significant: it decides whether the move passes when the
		// percentile does not, and which move the walk takes when
		// both pass.
		if m.Score > onGain && t.o.cutLevel > 0 && a.Requests > 0 && b.Requests > 0 {
			if sig, _ := unansweredCut(a, b, t.o.cutLevel); !sig {
				m.NoiseCut = m.Score >= 1 && onGain < 1
				m.Score = onGain
			}
		}
	}
	return m
}

// walk returns the position in f (indices into cs by increasing cost) of
// the pick: see The walk. f must not be empty.
func (t *tradeOff) walk(f []int) int {
	p := t.path(f)
	return p[len(p)-1]
}

// path returns the positions in f of the walk's points, from its start to
// its end, the pick. f must not be empty.
func (t *tradeOff) path(f []int) []int {
	cur := 0
	for k, i := range f {
		if costWithin(t.cs[i].AddedCostPct, 0) {
			cur = k
		}
	}
	path := []int{cur}
	for {
		best, bestScore := -1, 1.0
		for k := cur + 1; k < len(f); k++ {
			if s := t.move(&t.cs[f[cur]], &t.cs[f[k]]).Score; s >= bestScore {
				best, bestScore = k, s
			}
		}
		if best < 0 {
			return path
		}
		cur = best
		path = append(path, cur)
	}
}

// bestMove returns the index in cs of the frontier point (of f) costlier
// than cs[from] with the best score for the move from it, ties to the
// costlier; −1 when there is none.
func (t *tradeOff) bestMove(f []int, from int) int {
	best, bestScore := -1, -1.0
	for _, i := range f {
		if costWithin(t.cs[i].AddedCostPct, t.cs[from].AddedCostPct) || i == from {
			continue
		}
		if s := t.move(&t.cs[from], &t.cs[i]).Score; s >= bestScore {
			best, bestScore = i, s
		}
	}
	return best
}

// describe says what the move from a to b buys, in the rule's terms:
// "p95 4.83s → 4.51s for +1.10 pt: 0.97% of p95 per 1% of cost".
func (t *tradeOff) describe(a, b *Candidate, costWord string) string {
	m := t.move(a, b)
	if t.o.Goal == MostAnswered {
		ta := fsec(t.o.Target.Seconds())
		w := t.o.WithinWord()
		s := fmt.Sprintf("%s within %s %s → %s for %s of %s: %.2f%% of the share not %s within %s per 1%% of %s",
			w, ta, fpct2(a.AnsweredWithinShare), fpct2(b.AnsweredWithinShare), fpt(m.Cost), costWord, perCost(m.Cut, m.Cost), w, ta, costWord)
		if m.NoiseCut {
			s += fmt.Sprintf(", the cut not significant at %s%%", fnum(100*t.o.cutLevel))
		}
		return s
	}
	pn := pname(t.o.Percentile)
	s := fmt.Sprintf("%s %s → %s", pn, fsec(a.Q(t.o.Percentile)), fsec(b.Q(t.o.Percentile)))
	if a.AnsweredShare != b.AnsweredShare {
		aa, ab := fshares(a.AnsweredShare, b.AnsweredShare)
		s += fmt.Sprintf(", answered %s → %s,", aa, ab)
	}
	s += fmt.Sprintf(" for %s of %s", fpt(m.Cost), costWord)
	var per []string
	if !math.IsNaN(m.Gain) {
		of := "no hedging's"
		if t.scale != t.base.Q(t.o.Percentile) {
			of = "the slowest answered"
		}
		per = append(per, fmt.Sprintf("%.2f%% of %s %s (%s)", perCost(m.Gain, m.Cost), of, pn, fsec(t.scale)))
	}
	if !math.IsNaN(m.Cut) && (m.Cut > 0 || len(per) == 0) {
		per = append(per, fmt.Sprintf("%.2f%% of the unanswered share", perCost(m.Cut, m.Cost)))
	}
	if len(per) > 0 {
		s += ": " + strings.Join(per, " and ") + " per 1% of " + costWord
	}
	if m.NoiseCut {
		s += fmt.Sprintf(", the unanswered share's cut not significant at %s%%", fnum(100*t.o.cutLevel))
		if a == t.base {
			// The verdict's words for no hedging and a pick: what
			// would decide the cut.
			_, why := unansweredCut(a, b, t.o.cutLevel)
			s += " (" + why() + ")"
		}
	}
	return s
}

// perCost is gain per point of cost, 0 without a gain.
func perCost(gain, cost float64) float64 {
	if !(gain > 0) {
		return 0
	}
	if cost <= 0 {
		return math.Inf(1)
	}
	return gain / cost
}

// test states the marginal test of o: "≥ 1% of p95 or ≥ 0.5% of the
// unanswered share per 1% of added cost".
func (o Objective) test() string {
	if o.Goal == MostAnswered {
		return fmt.Sprintf("≥ %s%% of the share not %s within %s per 1%% of added cost", fnum(o.MinUnansweredCutPerCost), o.WithinWord(), fsec(o.Target.Seconds()))
	}
	return fmt.Sprintf("≥ %s%% of %s or ≥ %s%% of the unanswered share per 1%% of added cost",
		fnum(o.MinGainPerCost), pname(o.Percentile), fnum(o.MinUnansweredCutPerCost))
}

// walks reports whether o picks by the trade-off walk with a marginal
// test that is not trivially passed: a threshold above 0.
func (o Objective) walks() bool {
	return (o.Goal == LowestLatency || o.Goal == MostAnswered) &&
		(o.MinUnansweredCutPerCost > 0 || (o.Goal == LowestLatency && o.MinGainPerCost > 0))
}

// pickTradeOff is Pick for LowestLatency and MostAnswered: the walk on the
// frontier of the candidates within the caps (Feasible, set by the
// caller), and a note. When a cost cap stops the walk — a frontier point
// beyond it, within the other limits, passes the marginal test from the
// pick — the note says what the next frontier point beyond the cap buys.
func pickTradeOff(cs []Candidate, base int, o Objective, faster func(a, b *Candidate) bool, within func(*Candidate) bool, limits string) (int, string) {
	f := frontierBy(cs, faster, func(i int) bool { return cs[i].Feasible })
	if len(f) == 0 {
		// Not even no hedging is feasible: its added cost is not a number.
		return base, "no candidate" + limits + " is faster than no hedging"
	}
	t := newTradeOff(cs, base, o, f)
	pick := f[t.walk(f)]
	c := &cs[pick]
	var note string
	switch {
	case pick == base || !faster(c, &cs[base]):
		pick = base
		if b := t.bestMove(f, base); b >= 0 && o.walks() {
			note = fmt.Sprintf("no candidate%s buys enough to move off no hedging (the verdict rule's marginal test: %s): the best move, to %s, buys %s",
				limits, o.test(), cs[b].Label, t.describe(&cs[base], &cs[b], "cost"))
		} else if o.Goal == MostAnswered {
			more := "answers more requests"
			if o.Checked {
				more = "has more requests checked"
			}
			note = fmt.Sprintf("no candidate within the limits %s within %s than no hedging", more, fsec(o.Target.Seconds()))
		} else {
			note = fmt.Sprintf("no candidate%s is faster than no hedging", limits)
		}
	case !o.walks() && o.Goal == MostAnswered:
		note = fmt.Sprintf("most requests %s within %s (%s → %s) within the limits", o.WithinWord(), fsec(o.Target.Seconds()),
			fpct2(cs[base].AnsweredWithinShare), fpct2(c.AnsweredWithinShare))
	case !o.walks():
		note = fmt.Sprintf("lowest %s%s", pname(o.Percentile), limits)
	default:
		note = fmt.Sprintf("where the trade-off ends: no costlier frontier point%s passes the marginal test from it", limits)
	}
	// Does the cap bind? The frontier within every limit but the cap: a
	// point beyond the cap that passes the marginal test from the pick.
	binds := ""
	if !math.IsInf(o.MaxAddedCostPct, 1) && o.walks() {
		g := frontierBy(cs, faster, func(i int) bool { return within(&cs[i]) })
		over := func(i int) bool { return costLess(o.MaxAddedCostPct, cs[i].AddedCostPct) && faster(&cs[i], c) }
		if slices.ContainsFunc(g, func(i int) bool { return over(i) && t.move(c, &cs[i]).passes() }) {
			n := &cs[g[slices.IndexFunc(g, over)]]
			binds = fmt.Sprintf("the cap binds: %s more buys %s (%s at %s)",
				fpt(n.AddedCostPct-c.AddedCostPct), boughtBy(o, c, n), n.Label, fpctCost(n.AddedCostPct))
		}
	}
	switch {
	case binds != "" && pick != base:
		return pick, fmt.Sprintf("the trade-off%s: %s", limits, binds)
	case binds != "":
		return pick, note + "; " + binds
	}
	if k := slices.Index(f, pick); k >= 0 && k+1 < len(f) && o.walks() && pick != base {
		note += "; the next, " + cs[f[k+1]].Label + ", buys " + t.describe(c, &cs[f[k+1]], "cost")
	}
	return pick, note
}

// boughtBy says what b has that a has not, on the objective's figure:
// "p95 27.9s → 12.5s", "answered within 3.00s 75.07% → 87.61%".
func boughtBy(o Objective, a, b *Candidate) string {
	if o.Goal == MostAnswered {
		return fmt.Sprintf("%s within %s %s → %s", o.WithinWord(), fsec(o.Target.Seconds()), fpct2(a.AnsweredWithinShare), fpct2(b.AnsweredWithinShare))
	}
	p := o.Percentile
	if qa, qb := a.Q(p), b.Q(p); qa != qb {
		return fmt.Sprintf("%s %s → %s", pname(p), fsec(qa), fsec(qb))
	}
	aa, ab := fshares(a.AnsweredShare, b.AnsweredShare)
	return fmt.Sprintf("answered %s → %s", aa, ab)
}

// setMarginal sets o's marginal test from the verdict rule.
func (o *Objective) setMarginal(r Rule) {
	o.MinGainPerCost, o.MinUnansweredCutPerCost = r.MinGainPerCost, r.MinUnansweredCutPerCost
}

// allMiss says, when the objective's percentile is a miss without hedging
// and for every candidate, that the candidates were ranked by the share
// answered in time instead — the frontier orders equal percentiles by it,
// and the verdict judges a miss on the unanswered share — and suggests the
// objective that says so; "" otherwise, and for objective answered.
func allMiss(cr *ClassReport) string {
	o := cr.Objective
	if o.Goal == MostAnswered {
		return ""
	}
	for i := range cr.Candidates {
		if !math.IsInf(cr.Candidates[i].Q(o.Percentile), 1) {
			return ""
		}
	}
	pn := pname(o.Percentile)
	if cr.DeadlineSeconds > 0 {
		d := fsec(cr.DeadlineSeconds)
		return fmt.Sprintf("%s is a miss without hedging and for every candidate, so the candidates are ranked by the share answered within the %s deadline; objective = \"answered\" with target = \"%s\" says so directly",
			pn, d, fdelay(time.Duration(cr.DeadlineSeconds*float64(time.Second))))
	}
	return fmt.Sprintf("%s is a miss without hedging and for every candidate, so the candidates are ranked by the answered share; objective = \"answered\" with a target says so directly", pn)
}

// fasterOnObjective reports whether a beats b on the latency axis of cr's
// frontier: the share answered within the target, then the percentile,
// for objective answered; the percentile, then the answered share,
// otherwise.
func (cr *ClassReport) fasterOnObjective(a, b *Candidate) bool {
	if cr.Objective.Goal == MostAnswered {
		return moreWithin(a, b, cr.Objective.Percentile)
	}
	return better(a, b, cr.Objective.Percentile)
}

// tradeOff returns the trade-off walk of cr's objective over the frontier
// of its feasible candidates, and that frontier.
func (cr *ClassReport) tradeOff() (*tradeOff, []int) {
	cs := cr.Candidates
	f := frontierBy(cs, cr.fasterOnObjective, func(i int) bool { return cs[i].Feasible })
	return newTradeOff(cs, 0, cr.Objective, f), f
}

// earns reports whether b, a candidate costlier than a, the trade-off
// pick the verdict rule refused, earns its added cost over a as a move of
// the walk would: the marginal test from a (move.passes: per 1 % of the
// added cost in points of no hedging's, ≥ MinGainPerCost % of the
// percentile or ≥ MinUnansweredCutPerCost % of the unanswered share, and a
// move that passes on a share alone cuts it significantly — the
// unanswered share under objectives p95 and p99, unansweredCut; the share
// not answered or checked within the target under answered and checked,
// withinCut — when the rule requires significance: rule.RequireSignificant
// tests the latter at level also where the objective's own level is unset).
// why says what the move buys, in the rule's terms (describe), when b does
// not earn it.
func (t *tradeOff) earns(a, b *Candidate, level float64, rule Rule, costWord string) (ok bool, why string) {
	m := t.move(a, b)
	ok = m.passes()
	why = t.describe(a, b, costWord)
	if ok && t.o.Goal == MostAnswered && rule.RequireSignificant {
		if sig, _ := withinCut(a, b, level); !sig {
			ok = false
			why += fmt.Sprintf(", the cut not significant at %s%%", fnum(100*level))
		}
	}
	return ok, why
}
