package optimize

import (
	"encoding/json"
	"fmt"
	"math"
	"slices"
	"time"

	"github.com/hedgesim/hedgesim/sim"
	"gonum.org/v1/gonum/stat/distuv"
)

// unanswered is the share of requests without a usable answer in time.
func (c *Candidate) unanswered() float64 { return 1 - c.AnsweredShare }

// unansweredShare is c's unanswered share as a Verdict states it: NaN when
// c has no requests, whose share of nothing is no figure.
func (c *Candidate) unansweredShare() float64 {
	if c.Requests == 0 {
		return math.NaN()
	}
	return c.unanswered()
}

// better reports whether a is faster than b at percentile p: a lower
// percentile, or the same percentile and fewer unanswered requests (which
// matters when the percentile sits at the deadline).
func better(a, b *Candidate, p float64) bool {
	if qa, qb := a.Q(p), b.Q(p); qa != qb {
		return qa < qb
	}
	return a.unanswered() < b.unanswered()
}

// Frontier returns the indices of the candidates on the frontier of added
// cost versus the p-percentile, by increasing cost: those that no other
// candidate beats on both, where lower cost and lower percentile are
// better and, at equal percentile, fewer unanswered requests. Of several
// identical candidates only one is kept: no hedging when it is one of
// them, else the one in the middle of their delays (see plateauMiddle).
func Frontier(cs []Candidate, p float64) []int {
	return frontier(cs, p, func(int) bool { return true })
}

func frontier(cs []Candidate, p float64, include func(int) bool) []int {
	return frontierBy(cs, func(a, b *Candidate) bool { return better(a, b, p) }, include)
}

// frontierBy is frontier with faster(a, b) saying that a beats b on the
// latency axis.
func frontierBy(cs []Candidate, faster func(a, b *Candidate) bool, include func(int) bool) []int {
	var order []int
	for i := range cs {
		if include(i) {
			order = append(order, i)
		}
	}
	slices.SortStableFunc(order, func(i, j int) int {
		a, b := &cs[i], &cs[j]
		if c := costCmp(a.AddedCostPct, b.AddedCostPct); c != 0 {
			return c
		}
		if faster(a, b) {
			return -1
		}
		if faster(b, a) {
			return 1
		}
		return 0
	})
	var out []int
	for g := 0; g < len(order); {
		// A run of identical candidates: the same cost, neither faster.
		e := g + 1
		for e < len(order) && sameCost(cs[order[e]].AddedCostPct, cs[order[g]].AddedCostPct) &&
			!faster(&cs[order[g]], &cs[order[e]]) && !faster(&cs[order[e]], &cs[order[g]]) {
			e++
		}
		i := plateauMiddle(cs, order[g:e])
		if len(out) == 0 || faster(&cs[i], &cs[out[len(out)-1]]) {
			out = append(out, i)
		}
		g = e
	}
	return out
}

// plateauMiddle returns which of the identical candidates run (in input
// order) the frontier keeps: no hedging when it is one of them; else the
// class's configured policy (a change that changes nothing is no advice);
// else, when they all send the same copies to the same model, the one whose delay is
// closest to the middle of their delays (the first of two as close) — the
// delay farthest from where the figures change on either side, so the
// least sensitive to a latency that drifts; else the first.
func plateauMiddle(cs []Candidate, run []int) int {
	for _, want := range []func(*Candidate) bool{
		func(c *Candidate) bool { return !c.Hedging },
		func(c *Candidate) bool { return c.Configured },
	} {
		if k := slices.IndexFunc(run, func(i int) bool { return want(&cs[i]) }); k >= 0 {
			return run[k]
		}
	}
	first := &cs[run[0]]
	lo, hi := first.Delay, first.Delay
	for _, i := range run {
		c := &cs[i]
		if c.Steps != nil || c.Copies != first.Copies || c.Target != first.Target {
			return run[0]
		}
		lo, hi = min(lo, c.Delay), max(hi, c.Delay)
	}
	mid := lo + (hi-lo)/2
	best := run[0]
	for _, i := range run {
		if (cs[i].Delay - mid).Abs() < (cs[best].Delay - mid).Abs() {
			best = i
		}
	}
	return best
}

// moreWithin reports whether a answers more requests within the target
// than b, or as many and is faster at p (objective answered).
func moreWithin(a, b *Candidate, p float64) bool {
	if a.AnsweredWithinShare != b.AnsweredWithinShare {
		return a.AnsweredWithinShare > b.AnsweredWithinShare
	}
	return better(a, b, p)
}

// withinLimits reports whether c is within o's limits other than the cost
// cap and the SLA: the hedged-share cap; and, unless o allows it, no
// significantly fewer requests answered. A candidate that overloads a rate
// limit no hedging does not where that cannot be measured
// (OverloadExcluded), or makes a queue grow without bound that no hedging
// keeps stable, is out of every objective's limits.
func (o Objective) withinLimits(c *Candidate) bool {
	return 100*c.HedgedShare <= o.MaxHedgedPct+1e-9 && (o.AllowFewerAnswers || !c.FewerAnswers) && !c.OverloadExcluded && !c.Unstable
}

// Pick chooses a candidate under o and says why in a short note. It sets
// Feasible on every candidate: within the hedged-share cap and, for
// LowestLatency, the added-cost cap; for LowestCost, at or below the SLA.
// cs must contain a no-hedging candidate (Hedging false); see Goal for the
// rules.
func Pick(cs []Candidate, o Objective) (int, string) {
	base := slices.IndexFunc(cs, func(c Candidate) bool { return !c.Hedging })
	if base < 0 {
		panic("optimize: Pick: no no-hedging candidate")
	}
	p := o.Percentile
	pn := pname(p)
	hedgedOK := o.withinLimits
	// The hedged-share cap in the notes: "no candidate with hedged share
	// ≤ 5% …" (with), "… with p95 ≤ 2s and hedged share ≤ 5%" (and), "the
	// frontier of candidates with hedged share ≤ 5% …" (of); empty
	// without a cap.
	with, and, of := "", "", ""
	if o.MaxHedgedPct < 100 {
		hc := fmt.Sprintf("hedged share ≤ %s%%", fnum(o.MaxHedgedPct))
		with, and, of = " with "+hc, " and "+hc, " of candidates with "+hc
	}
	fastest := func(ok func(*Candidate) bool) int {
		best := -1
		for i := range cs {
			c := &cs[i]
			if !ok(c) {
				continue
			}
			if best < 0 || better(c, &cs[best], p) ||
				(!better(&cs[best], c, p) && costLess(c.AddedCostPct, cs[best].AddedCostPct)) {
				best = i
			}
		}
		return best
	}
	switch o.Goal {
	case LowestCost:
		sla := o.SLA.Seconds()
		best := -1
		for i := range cs {
			c := &cs[i]
			c.Feasible = hedgedOK(c) && c.Q(p) <= sla
			if !c.Feasible {
				continue
			}
			if best < 0 || costLess(c.AddedCostPct, cs[best].AddedCostPct) ||
				(sameCost(c.AddedCostPct, cs[best].AddedCostPct) && better(c, &cs[best], p)) {
				best = i
			}
		}
		switch {
		case best < 0:
			best = fastest(hedgedOK)
			return best, fmt.Sprintf("no candidate%s has %s ≤ %s; the fastest is shown", with, pn, fsec(sla))
		case best == base:
			return best, fmt.Sprintf("%s without hedging (%s) already meets the SLA of %s", pn, fsec(cs[base].Q(p)), fsec(sla))
		}
		return best, fmt.Sprintf("cheapest candidate with %s ≤ %s%s", pn, fsec(sla), and)

	case Knee:
		for i := range cs {
			cs[i].Feasible = hedgedOK(&cs[i])
		}
		f := frontier(cs, p, func(i int) bool { return cs[i].Feasible })
		k := knee(cs, f, p)
		switch {
		case k < 0:
			last := f[len(f)-1]
			if last == base {
				return base, fmt.Sprintf("no candidate%s is faster than no hedging", with)
			}
			return last, fmt.Sprintf("the %s frontier%s shows no diminishing returns (fewer than 3 points, or none at least %s above the chord, axes scaled to [0, 1]): its fastest point is picked", pn, of, fnum(MinKneeDistance))
		case f[k] == base:
			return base, "the knee of the frontier is no hedging"
		}
		return f[k], fmt.Sprintf("knee of the added-cost versus %s frontier%s: past it, more cost buys less %s", pn, of, pn)

	case MostAnswered:
		for i := range cs {
			c := &cs[i]
			c.Feasible = hedgedOK(c) && costWithin(c.AddedCostPct, o.MaxAddedCostPct)
		}
		limits := ""
		if !math.IsInf(o.MaxAddedCostPct, 1) {
			limits = fmt.Sprintf(" with added cost ≤ +%s%%", fnum(o.MaxAddedCostPct))
		}
		return pickTradeOff(cs, base, o, func(a, b *Candidate) bool { return moreWithin(a, b, p) }, hedgedOK, limits+and)
	}

	// LowestLatency
	limits := fmt.Sprintf(" with added cost ≤ +%s%%%s", fnum(o.MaxAddedCostPct), and)
	if math.IsInf(o.MaxAddedCostPct, 1) {
		limits = with
	}
	for i := range cs {
		c := &cs[i]
		c.Feasible = hedgedOK(c) && costWithin(c.AddedCostPct, o.MaxAddedCostPct)
	}
	best, note := pickTradeOff(cs, base, o, func(a, b *Candidate) bool { return better(a, b, p) }, hedgedOK, limits)
	if best == base && !o.walks() {
		if f := fastest(func(*Candidate) bool { return true }); f != base && better(&cs[f], &cs[base], p) {
			c := &cs[f]
			note += fmt.Sprintf(" (the fastest, %s, has %s %s for %s cost)", c.Label, pn, fsec(c.Q(p)), fpct(c.AddedCostPct))
		}
	}
	return best, note
}

// MinKneeDistance is how far above the chord, with both axes of the
// frontier scaled to [0, 1], a point must lie to count as a knee: a point
// closer to the chord than that (rounding noise on an almost straight
// frontier) is no sign of diminishing returns, and objective knee falls
// back to the frontier's fastest point.
const MinKneeDistance = 0.02

// knee returns the position in the frontier f (indices into cs by
// increasing cost) of its knee, or −1 when it has none. Both axes are
// scaled to [0, 1] between the frontier's ends; the knee is the point with
// the largest scaled gain minus scaled cost (its distance above the chord,
// in the scaled units), if that is at least MinKneeDistance.
//
// Frontier points whose percentile is a miss (+Inf) come first (cheapest)
// and have no height to scale: the knee is sought among the others, and
// its position is reported in f.
func knee(cs []Candidate, f []int, p float64) int {
	skip := 0
	for skip < len(f) && math.IsInf(cs[f[skip]].Q(p), 1) {
		skip++
	}
	if k := kneeFinite(cs, f[skip:], p); k >= 0 {
		return skip + k
	}
	return -1
}

func kneeFinite(cs []Candidate, f []int, p float64) int {
	if len(f) < 3 {
		return -1
	}
	first, last := &cs[f[0]], &cs[f[len(f)-1]]
	dx := last.AddedCostPct - first.AddedCostPct
	dy := first.Q(p) - last.Q(p)
	if !(dx > 0 && dy > 0) {
		return -1
	}
	best, bestD := -1, 0.0
	for k, i := range f {
		c := &cs[i]
		x := (c.AddedCostPct - first.AddedCostPct) / dx
		y := (first.Q(p) - c.Q(p)) / dy
		if d := y - x; d > bestD {
			best, bestD = k, d
		}
	}
	if bestD < MinKneeDistance {
		return -1
	}
	return best
}

// Verdict says whether to ship the pick, and why.
type Verdict struct {
	Hedge bool `json:"hedge"`
	// Undecided says that the verdict cannot be told at the requests
	// simulated: the objective's percentile has no interval (too few
	// requests) and the unanswered share does not decide "hedge". Hedge
	// is false then, but it is no "don't hedge": the reason says how
	// many requests an interval needs. Absent when false.
	Undecided bool `json:"undecided,omitempty"`
	// SLAMissed says, for objective cost, that the pick's percentile is
	// above the SLA: no candidate meets it, or the verdict rule rejects
	// those that do and the pick it falls back to (no hedging, say) does
	// not (the reason then says so). Absent when false.
	SLAMissed bool `json:"sla_missed,omitempty"`
	// Label says what the pick is: LabelHedge, LabelNoHedge, LabelRarely
	// (accepted, but its copies go out for fewer than RarelyHedgedShare of
	// requests) or LabelFallback (the configured fallback policy).
	Label  string `json:"label"`
	Reason string `json:"reason"`
	// GainPct is how far the percentile fell from no hedging to the pick,
	// in percent of its no-hedging value (negative when it rose); 0 when
	// either is a miss (+Inf), when the reason says what happened; NaN
	// (JSON null, as the class's other figures) for a class that got no
	// requests.
	GainPct float64 `json:"gain_pct"`
	// AddedCostPct is the pick's added cost (on the class's cost basis).
	AddedCostPct float64 `json:"added_cost_pct"`
	// Significant says whether the intervals of the percentile before and
	// after are disjoint; it is false when either interval cannot be
	// formed inside the sample (P95CIOK, P99CIOK). It is about the
	// percentile only: a "hedge" verdict decided by the unanswered share
	// may have it false (see DecidedBy, UnansweredSignificant).
	Significant bool `json:"significant"`
	// DecidedBy names what made the verdict "hedge": the rule's tests,
	// DecidedByPercentile or DecidedByUnanswered (the percentile test is
	// tried first); DecidedByConfigured when the configured policy is kept;
	// DecidedByGroup when a group objective chose another hedge than the
	// class's own objective would. Empty when the
	// verdict is "don't hedge".
	DecidedBy string `json:"decided_by"`
	// UnansweredSignificant says whether the unanswered share fell
	// significantly (disjoint Wilson intervals before and after and, when
	// the requests of either run interact, the paired difference of the
	// answered shares over the batches above 0, or for runs that cannot
	// be paired, their own intervals of the answered share apart); false
	// when it did not fall, or when the percentile's intervals cannot be
	// formed.
	UnansweredSignificant bool `json:"unanswered_significant"`
	// UnansweredBefore and UnansweredAfter are the shares of requests
	// without a usable answer in time, in [0, 1], without hedging and with
	// the pick; NaN (JSON null, as the text prints "-") for a class that
	// got no requests.
	UnansweredBefore float64 `json:"unanswered_share_before"`
	UnansweredAfter  float64 `json:"unanswered_share_after"`
	// Alternative, when the verdict is "don't hedge", is the index of the
	// candidate beyond the objective's limits that the rule would accept
	// and that is closest to those limits (least Excess; ties to the
	// faster), or −1 when there is none or the verdict is "hedge". It is named in Reason. (A candidate within
	// the limits that the rule accepts becomes the pick instead: see
	// ClassReport.Pick.)
	Alternative int `json:"alternative"`
	// detail is the code of the rule's test that failed (Detail* in
	// fate.go), for a candidate's reasons; "" when the verdict is "hedge".
	detail string
}

// MarshalJSON writes v with a gain and an unanswered share that are NaN
// (a class without requests) as null.
func (v Verdict) MarshalJSON() ([]byte, error) {
	// Verdict's fields in its order, the NaN-able ones as pointers.
	w := struct {
		Hedge                 bool     `json:"hedge"`
		Undecided             bool     `json:"undecided,omitempty"`
		SLAMissed             bool     `json:"sla_missed,omitempty"`
		Label                 string   `json:"label"`
		Reason                string   `json:"reason"`
		GainPct               *float64 `json:"gain_pct"`
		AddedCostPct          float64  `json:"added_cost_pct"`
		Significant           bool     `json:"significant"`
		DecidedBy             string   `json:"decided_by"`
		UnansweredSignificant bool     `json:"unanswered_significant"`
		UnansweredBefore      *float64 `json:"unanswered_share_before"`
		UnansweredAfter       *float64 `json:"unanswered_share_after"`
		Alternative           int      `json:"alternative"`
	}{
		Hedge: v.Hedge, Undecided: v.Undecided, SLAMissed: v.SLAMissed, Label: v.Label, Reason: v.Reason,
		GainPct: finitePtr(v.GainPct), AddedCostPct: v.AddedCostPct, Significant: v.Significant, DecidedBy: v.DecidedBy,
		UnansweredSignificant: v.UnansweredSignificant,
		UnansweredBefore:      finitePtr(v.UnansweredBefore), UnansweredAfter: finitePtr(v.UnansweredAfter), Alternative: v.Alternative,
	}
	return json.Marshal(w)
}

// noGain returns gain, or NaN when base or pick has no requests (a class
// none fell in): a fall of nothing is unknown, not 0.
func noGain(base, pick *Candidate, gain float64) float64 {
	if base.Requests <= 0 || pick.Requests <= 0 {
		return math.NaN()
	}
	return gain
}

// Values of Verdict.DecidedBy.
const (
	// DecidedByPercentile: the objective's percentile fell enough,
	// cheaply enough and (with Rule.RequireSignificant) significantly.
	DecidedByPercentile = "percentile"
	// DecidedByUnanswered: the percentile test failed, but the share of
	// requests without a usable answer in time fell enough, cheaply enough
	// and (with Rule.RequireSignificant) significantly.
	DecidedByUnanswered = "unanswered"
	// DecidedByConfigured: the class's configured policy is kept because
	// every pick would answer significantly fewer requests than it.
	DecidedByConfigured = "configured"
	// DecidedByGroup: a group objective chose the pick (group.go), and the
	// rule accepts it against the class's figures in the group's run
	// without hedging.
	DecidedByGroup = "group"
)

// Judge applies rule to the pick against the no-hedging baseline, for the
// p-percentile, with intervals at the given confidence level; basis is the
// class's cost basis (CostUSD or CostCalls), for the wording. When either
// candidate's interval of the percentile could not be formed (CIOK false),
// the percentile is not significant and cannot decide: only the
// unanswered share can say "hedge", and only when its cut is significant
// whatever the rule; otherwise the verdict is undecided (Undecided), not
// "don't hedge", and the reason says how many requests an interval needs.
// When the pick answers fewer requests in time than the baseline, the
// reason says so: as a fall when the two-sample test of fewerAnswers finds
// it significant at level, else as a move not significant at level.
func Judge(base, pick *Candidate, p, level float64, rule Rule, basis string) Verdict {
	v := Verdict{
		Alternative:      -1,
		AddedCostPct:     pick.AddedCostPct,
		UnansweredBefore: base.unansweredShare(), UnansweredAfter: pick.unansweredShare(),
	}
	qb, qp := base.Q(p), pick.Q(p)
	missB, missP := math.IsInf(qb, 1), math.IsInf(qp, 1)
	gain := 0.0
	if qb > 0 && !missB && !missP {
		gain = 100 * (qb - qp) / qb
	}
	v.GainPct = noGain(base, pick, gain)
	ciOK := base.CIOK(p) && pick.CIOK(p)
	sig, paired := fallsSignificantly(base, pick, p, level)
	v.Significant = ciOK && sig
	if pick.FewerAnswers && !rule.AllowFewerAnswers {
		ab, ap := fshares(base.AnsweredShare, pick.AnsweredShare)
		v.Reason = fmt.Sprintf("the answered share falls significantly (%s → %s): a pick never trades answers for speed (allow_fewer_answers to override)", ab, ap)
		v.detail = DetailFewerAnswers
		return v
	}
	if !pick.Hedging && ciOK {
		v.Reason = "the pick is no hedging"
		return v
	}
	costWord := "cost"
	if basis == CostCalls {
		costWord = "calls"
	}
	pct := fnum(100 * level)
	code := "" // of the last test that failed
	// Without a percentile interval (too few requests), only a
	// significant cut of the unanswered share can say "hedge".
	requireSig := rule.RequireSignificant || !ciOK
	test := func(what string, gain float64, sig bool, perCost float64, whyNot func(gain float64) string) (bool, string) {
		cost := pick.AddedCostPct
		switch {
		case gain < 0.05: // would print as "falls 0.0%"
			code = DetailNoGain
			return false, fmt.Sprintf("%s does not fall", what)
		case gain < rule.MinGainPct:
			code = DetailGainBelowMin
			return false, fmt.Sprintf("%s falls %.1f%%, less than the %s%% minimum", what, gain, fnum(rule.MinGainPct))
		case cost > 0 && gain/cost < perCost:
			code = DetailGainPerCost
			return false, fmt.Sprintf("%s falls %.1f%% for %s %s: %.2f%% per 1%% of %s, less than %s",
				what, gain, fpct(cost), costWord, gain/cost, costWord, fnum(perCost))
		case requireSig && !sig:
			code = DetailNotSignificant
			return false, fmt.Sprintf("%s falls %.1f%%, not significantly at %s%% (%s)", what, gain, pct, whyNot(gain))
		case cost <= 0 && cost > -0.05:
			// 0 or a fall that would print as "falls -0.0%".
			return true, fmt.Sprintf("%s falls %.1f%% at no added %s", what, gain, costWord)
		case cost <= 0:
			verb := "falls"
			if basis == CostCalls {
				verb = "fall"
			}
			return true, fmt.Sprintf("%s falls %.1f%% and %s %s %.1f%%: faster and cheaper", what, gain, costWord, verb, -cost)
		}
		return true, fmt.Sprintf("%s falls %.1f%% for %s %s (%.1f%% per 1%% of %s)", what, gain, fpct(cost), costWord, gain/cost, costWord)
	}
	latOK, latWhy := test(fmt.Sprintf("%s (%s → %s)", pname(p), fsec(qb), fsec(qp)), gain, v.Significant, rule.MinGainPerCost,
		func(gain float64) string { return notSignificantWhy(paired, min(base.Requests, pick.Requests), gain) })
	latCode := code
	switch {
	case !ciOK:
		// An interval that does not fit inside the sample is no interval:
		// the percentile cannot be judged either way. The unanswered share
		// (Wilson intervals, which need no percentile interval) still can.
		n, need := min(base.Requests, pick.Requests), max(minRequestsFor(base, p, level), minRequestsFor(pick, p, level))
		latOK, latCode = false, DetailTooFew
		rerun := rerunAdvice(base, pick, need)
		skewed := false
		switch kept := min(base.kept(), pick.kept()); {
		case n == 0:
			why := "the class got no requests at its share of the traffic"
			if base.rare != nil {
				why = base.rare.why()
			}
			latWhy = fmt.Sprintf("cannot tell: %s, and a %s%% interval on %s needs at least %d: %s",
				why, fnum(100*level), pname(p), need, rerun)
		case skewedCI(base, pick, p, level):
			// Enough kept: the interval reached below 0 (sim.ClipLatency);
			// --precision would not say how many more requests either.
			skewed = true
			latWhy = fmt.Sprintf("cannot tell at %s: no %s%% interval on %s (%s)", fcount(n), fnum(100*level), pname(p), fewWhy(base, pick, p, level, true))
		case kept < n:
			latWhy = fmt.Sprintf("cannot tell at %s: too few for a %s%% interval on %s (%d simulated per candidate, %d after the warm-up cut, at least %d needed): %s",
				fcount(n), fnum(100*level), pname(p), n, kept, need, rerun)
		default:
			latWhy = fmt.Sprintf("cannot tell at %s: too few for a %s%% interval on %s (%d simulated per candidate, at least %d needed): %s",
				fcount(n), fnum(100*level), pname(p), n, need, rerun)
		}
		// --precision replays no more of a trace than --requests does.
		beyondTrace := false
		if base.replay != nil {
			_, _, fits := base.replay.fits(base, pick, need)
			beyondTrace = !fits
		}
		if pr := sim.PrecisionFor(max(gain, 0)); pr != "" && n > 0 && !beyondTrace && !skewed {
			latWhy += " or --precision " + pr
		}
	case missB && !missP:
		// A percentile that was a miss and is now an answer has no
		// relative gain: the unanswered share below decides.
		latOK, latWhy = false, fmt.Sprintf("%s (miss → %s) becomes an answer: judged on the unanswered share", pname(p), fsec(qp))
	case missP && !missB:
		latOK, latWhy = false, fmt.Sprintf("%s rises from %s to a miss", pname(p), fsec(qb))
	case missB && missP:
		latOK, latWhy = false, fmt.Sprintf("%s is a miss before and after", pname(p))
	}
	if missB || missP {
		latCode = DetailMiss
	}
	failOK, failWhy, fewer := false, "", ""
	fb, fp := v.UnansweredBefore, v.UnansweredAfter
	switch {
	case fp > fb:
		// Hedging made answers rarer (copies that fail or answer invalidly
		// first, budgets, rate limits): say so whatever the verdict — as
		// a fall when it is significant (fewerAnswers' test), else as a
		// move the runs cannot tell from noise.
		ab, ap := fshares(1-fb, 1-fp)
		if fewerAnswers(base, pick, distuv.UnitNormal.Quantile((1+level)/2)) {
			fewer = fmt.Sprintf("but the answered share falls %s → %s: more requests go without a usable answer in time", ab, ap)
		} else {
			fewer = fmt.Sprintf("the answered share moves %s → %s, not significantly at %s%%", ab, ap, fnum(100*level))
		}
	case fb > 0 && fp < fb:
		sb, sp := fshares(fb, fp)
		sig, whyNot := unansweredCut(base, pick, level)
		v.UnansweredSignificant = sig
		why := func(float64) string { return whyNot() }
		failOK, failWhy = test(fmt.Sprintf("the unanswered share (%s → %s)", sb, sp), 100*(fb-fp)/fb, v.UnansweredSignificant, rule.MinUnansweredCutPerCost, why)
	}
	switch {
	case latOK:
		v.Hedge, v.Reason, v.DecidedBy = true, latWhy, DecidedByPercentile
	case failOK:
		v.Hedge, v.Reason, v.DecidedBy = true, failWhy+"; "+latWhy, DecidedByUnanswered
	case !ciOK:
		// Neither test says "hedge", and the percentile's cannot be
		// made: the verdict is undecided, not "don't hedge".
		v.Undecided, v.Reason, v.detail = true, latWhy, latCode
		if failWhy != "" {
			v.Reason += "; " + failWhy
		}
	case failWhy != "":
		v.Reason, v.detail = latWhy+"; "+failWhy, latCode
	default:
		v.Reason, v.detail = latWhy, latCode
	}
	if fewer != "" {
		v.Reason += "; " + fewer
	}
	return v
}

// unansweredCut reports whether b's unanswered share is significantly
// below a's at the confidence level, by the verdict's test (Judge): their
// Wilson intervals part; when the requests of either run interact, also
// the paired difference of the answered shares over the two runs' batches
// clears 0 (both batched alike) — both, not the batches alone: a few
// unanswered requests in a few batches make batch differences too far
// from normal for a t interval — or, when the runs cannot be paired, each
// run's own interval of its answered share (ownAnswered) parts from the
// other's. why says why the cut is not significant (naming a as no
// hedging and b as the pick), for when it is not. a and b must have
// requests.
func unansweredCut(a, b *Candidate, level float64) (sig bool, why func() string) {
	z := distuv.UnitNormal.Quantile((1 + level) / 2)
	fa, fb := a.unanswered(), b.unanswered()
	_, hiB := wilson(fb, b.Requests, z)
	loA, _ := wilson(fa, a.Requests, z)
	sig = hiB < loA
	why = func() string { return unansweredNotSignificantWhy(a, b, fa, fb, z) }
	if d, ok := pairedAnswered(a, b, level); ok && sig {
		sig = d.CI[0] > 0
		why = func() string { return pairedAnsweredWhy(a, b, d, level) }
	} else if !ok && (a.batchS[0] != nil || b.batchS[0] != nil) {
		ia, ib := ownAnswered(a, z, level), ownAnswered(b, z, level)
		if !(ib[0] > ia[1]) {
			sig = false
			why = func() string { return ownAnsweredWhy(a, b, ia, ib, z) }
		}
	}
	return sig, why
}

// withinCut reports whether b's share not answered (or checked) within
// the target is significantly below a's at the confidence level, by
// JudgeWithin's test: their Wilson intervals part, or, when the requests
// interact and the two runs are batched alike, the paired difference of
// the shares within the target over the batches excludes 0 (paired true).
func withinCut(a, b *Candidate, level float64) (sig, paired bool) {
	z := distuv.UnitNormal.Quantile((1 + level) / 2)
	_, hiB := wilson(1-b.AnsweredWithinShare, b.Requests, z)
	loA, _ := wilson(1-a.AnsweredWithinShare, a.Requests, z)
	sig = hiB < loA
	if d, ok := pairedWithin(a, b, level); ok {
		// Requests that interact: the paired difference of the shares
		// within the target over the batches (intervals.go), not
		// Wilson's intervals, which assume independent requests.
		return d.CI[0] > 0, true
	}
	return sig, false
}

// rerunAdvice says how to rerun for need requests in the intervals of
// base and pick (adviseRequests): "rerun with --requests ≥ N", or that
// the class's share is too small for any --requests allowed.
func rerunAdvice(base, pick *Candidate, need int) string {
	if base.rare != nil {
		return base.rare.advice(need)
	}
	if base.replay != nil {
		return base.replay.advice(base, pick, need)
	}
	n, _ := adviseRequests(base, pick, need)
	if n > MaxRequests {
		return fmt.Sprintf("at its share it would take --requests ≥ %d, more than the %d allowed: raise its share, or optimize a scenario where it has more of the traffic", n, MaxRequests)
	}
	return fmt.Sprintf("rerun with --requests ≥ %d", n)
}

// noRequestsHead says why base, a class's baseline, has no requests: none
// fell in the class at its share of a shared run, or the class swept alone
// was not simulated (tooRare).
func noRequestsHead(base *Candidate) string {
	if base.rare != nil {
		return base.rare.why()
	}
	return "no requests fell in this class at its share of the traffic"
}

// unansweredNotSignificantWhy says why the fall of the unanswered share
// fb → fp of base and pick (each over its own requests) is not
// significant — their Wilson intervals at normal score z overlap — and
// what would decide it: the --requests at which they would part
// (sharesApartRequests, scaled to --requests like rerunAdvice), or that
// none allowed would. --precision is not the advice: it runs until the
// percentile's interval is narrow enough, which says nothing of the
// share's.
func unansweredNotSignificantWhy(base, pick *Candidate, fb, fp, z float64) string {
	n := min(base.Requests, pick.Requests)
	why := "the Wilson intervals overlap"
	need := sharesApartRequests(fb, fp, z)
	if need == 0 {
		return fmt.Sprintf("%s; no run of up to %d requests would part them at these shares", why, MaxRequests)
	}
	return fmt.Sprintf("%s; not significant at %d requests: %s", why, n, rerunAdvice(base, pick, int(need)))
}

// ownAnswered returns c's own interval of its answered share at the
// level (z its normal score): from its batches when its requests
// interact (sim.BatchShareInterval), else Wilson's; [0, 1]
// when the batched one cannot be formed.
func ownAnswered(c *Candidate, z, level float64) [2]float64 {
	if c.batchS[0] == nil {
		lo, hi := wilson(c.AnsweredShare, c.Requests, z)
		return [2]float64{lo, hi}
	}
	ci := sim.BatchShareInterval(c.AnsweredShare, c.batchS[0], level)
	if math.IsNaN(ci[0]) || math.IsNaN(ci[1]) {
		return [2]float64{0, 1}
	}
	return ci
}

// ownAnsweredWhy says why the rise of the answered share from base to
// pick, whose runs cannot be paired, is not significant — their own
// intervals ib and ip (ownAnswered) overlap — and what would decide it:
// the requests at which the intervals, narrowing as 1/√n, would part at
// the rise measured with about 90 % probability (planned at z + 1.28),
// as rerunAdvice gives them.
func ownAnsweredWhy(base, pick *Candidate, ib, ip [2]float64, z float64) string {
	why := fmt.Sprintf("the runs' own intervals of the answered share, [%.2f%%, %.2f%%] without hedging and [%.2f%%, %.2f%%] with the pick, overlap: its requests interact and cannot be paired with no hedging's", 100*ib[0], 100*ib[1], 100*ip[0], 100*ip[1])
	for _, c := range []*Candidate{base, pick} {
		if b := atBound(c); b > 0 {
			// Its interval is the bound of b batch shares
			// (sim.BatchShareInterval), which more requests at b
			// batches do not narrow: no --requests is advised.
			return fmt.Sprintf("%s; %s has no miss in any of its %d batches, so its interval is that of %d batch shares at 100%%, which a longer run narrows only once its batches hold misses", why, candidateWord(c), b, b)
		}
	}
	rise, h := pick.AnsweredShare-base.AnsweredShare, (ib[1]-ib[0])/2+(ip[1]-ip[0])/2
	if !(rise > 0) || !(h > 0) {
		return why
	}
	n := min(base.Requests, pick.Requests)
	need := float64(n) * math.Pow(h*(1+1.2815515655446004/z)/rise, 2)
	if need > MaxRequests {
		return fmt.Sprintf("%s; no run of up to %d requests would part them at this difference", why, MaxRequests)
	}
	return fmt.Sprintf("%s; not significant at %d requests: %s", why, n, rerunAdvice(base, pick, int(math.Ceil(need))))
}

// atBound returns the number of c's batches when its answered share is
// batched and every batch answered all its requests (the case
// sim.BatchShareInterval widens), else 0.
func atBound(c *Candidate) int {
	per := c.batchS[0]
	if per == nil || c.AnsweredShare != 1 {
		return 0
	}
	for _, x := range per {
		if x != 1 {
			return 0
		}
	}
	return len(per)
}

// candidateWord names c in a reason: "no hedging" or "the pick".
func candidateWord(c *Candidate) string {
	if !c.Hedging {
		return "no hedging"
	}
	return "the pick"
}

// pairedAnsweredWhy says why the rise d of the answered share from base
// to pick, paired over the batches of requests that interact, is not
// significant — its interval holds 0 — and what would decide it: the
// requests at which the interval, narrowing as 1/√n, would clear 0 at
// the rise measured with about 90 % probability (planned at t + z₀.₉₀,
// the interval's t quantile plus 1.2816 standard errors), as rerunAdvice
// gives them; or that no run would at a rise of 0.
func pairedAnsweredWhy(base, pick *Candidate, d sim.PairedDiff, level float64) string {
	why := fmt.Sprintf("the paired difference of the answered shares over the batches, [%s, %s] pt, holds 0", sim.SignedChange(100*d.CI[0], 2), sim.SignedChange(100*d.CI[1], 2))
	h := d.HalfWidth()
	if !(d.Diff > 0) || !(h > 0) || d.Batches < 2 {
		return why + ": no longer run would part them at this difference"
	}
	n := min(base.Requests, pick.Requests)
	t := distuv.StudentsT{Mu: 0, Sigma: 1, Nu: float64(d.Batches - 1)}.Quantile((1 + level) / 2)
	need := float64(n) * math.Pow((h+1.2815515655446004*h/t)/d.Diff, 2)
	if need > MaxRequests {
		return fmt.Sprintf("%s; no run of up to %d requests would part them at this difference", why, MaxRequests)
	}
	return fmt.Sprintf("%s; not significant at %d requests: %s", why, n, rerunAdvice(base, pick, int(math.Ceil(need))))
}

// fcount says "1 request" or "n requests".
func fcount(n int64) string {
	if n == 1 {
		return "1 request"
	}
	return fmt.Sprintf("%d requests", n)
}

// fpct2 formats a share in [0, 1] as a percentage with two decimals.
func fpct2(x float64) string { return fmt.Sprintf("%.2f%%", 100*x) }

// JudgeFor judges pick against base under the objective o by rule, as the
// verdict of a class's pick does: JudgeWithin for objectives answered and
// checked (the share within o's target), Judge on o's percentile
// otherwise. level and basis are as Judge takes them.
func JudgeFor(o Objective, base, pick *Candidate, level float64, rule Rule, basis string) Verdict {
	return judgeFor(o, base, pick, level, rule, basis)
}

// judgeFor judges pick against base under the objective o: JudgeWithin for
// objective answered, Judge on o's percentile otherwise.
func judgeFor(o Objective, base, pick *Candidate, level float64, rule Rule, basis string) Verdict {
	if o.Goal == MostAnswered {
		return judgeWithin(base, pick, o.Target, o.WithinWord(), level, rule, basis)
	}
	return Judge(base, pick, o.Percentile, level, rule, basis)
}

// JudgeWithin applies rule to the pick for objective answered: the pick is
// worth it when the share of requests without a usable answer within
// target falls by at least MinGainPct percent, by at least
// MinUnansweredCutPerCost percent per percent of added cost — the rule's
// test for a share of requests without a usable answer in time, as the
// rule's text states it — and, with RequireSignificant,
// significantly (disjoint Wilson intervals at the level; when the
// requests interact, the paired difference of the two shares over their
// batches excludes 0, intervals.go). Like Judge, it
// never says "hedge" for a pick with FewerAnswers unless the rule allows
// it, nor for no hedging.
func JudgeWithin(base, pick *Candidate, target time.Duration, level float64, rule Rule, basis string) Verdict {
	return judgeWithin(base, pick, target, "answered", level, rule, basis)
}

// judgeWithin is JudgeWithin, whose requests within the target are word
// ("answered", or "checked" for objective checked).
func judgeWithin(base, pick *Candidate, target time.Duration, word string, level float64, rule Rule, basis string) Verdict {
	v := Verdict{
		Alternative: -1, AddedCostPct: pick.AddedCostPct,
		UnansweredBefore: base.unansweredShare(), UnansweredAfter: pick.unansweredShare(),
	}
	t := fsec(target.Seconds())
	switch {
	case pick.FewerAnswers && !rule.AllowFewerAnswers:
		ab, ap := fshares(base.AnsweredShare, pick.AnsweredShare)
		v.Reason = fmt.Sprintf("the answered share falls significantly (%s → %s): a pick never trades answers for speed (allow_fewer_answers to override)", ab, ap)
		v.detail = DetailFewerAnswers
		return v
	case !pick.Hedging:
		v.Reason = "the pick is no hedging"
		return v
	}
	mb, mp := 1-base.AnsweredWithinShare, 1-pick.AnsweredWithinShare
	v.Significant, _ = withinCut(base, pick, level)
	what := fmt.Sprintf("the share not %s within %s (%s → %s)", word, t, fpct2(mb), fpct2(mp))
	gain := 0.0
	if mb > 0 {
		gain = 100 * (mb - mp) / mb
	}
	v.GainPct = noGain(base, pick, gain)
	cost := pick.AddedCostPct
	costWord := "cost"
	if basis == CostCalls {
		costWord = "calls"
	}
	switch {
	case gain < 0.05:
		v.Reason, v.detail = what+" does not fall", DetailNoGain
	case gain < rule.MinGainPct:
		v.Reason, v.detail = fmt.Sprintf("%s falls %.1f%%, less than the %s%% minimum", what, gain, fnum(rule.MinGainPct)), DetailGainBelowMin
	case cost > 0 && gain/cost < rule.MinUnansweredCutPerCost:
		v.Reason, v.detail = fmt.Sprintf("%s falls %.1f%% for %s %s: %.2f%% per 1%% of %s, less than %s", what, gain, fpct(cost), costWord, gain/cost, costWord, fnum(rule.MinUnansweredCutPerCost)), DetailGainPerCost
	case rule.RequireSignificant && !v.Significant:
		v.Reason, v.detail = fmt.Sprintf("%s falls %.1f%%, not significantly at %s%%", what, gain, fnum(100*level)), DetailNotSignificant
	default:
		v.Hedge, v.DecidedBy = true, DecidedByPercentile
		v.Reason = fmt.Sprintf("%s falls %.1f%% for %s %s", what, gain, fpct(cost), costWord)
	}
	return v
}
