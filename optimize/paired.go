package optimize

import (
	"fmt"
	"math"

	"gonum.org/v1/gonum/stat/distuv"

	"github.com/hedgesim/hedgesim/sim"
)

// Batched candidates and paired decisions. When a class's requests
// interact (a queue, a limit, a breaker, a pool, closed-loop clients: sim's
// ClassResult.Batched), a candidate's percentiles leave out the run's
// warm-up and their intervals come from batches of arrival-ordered
// requests (sim's batchmeans.go), not from order statistics, which assume
// independent requests and are far too narrow under load. Each candidate
// also keeps, for each batch of sim's fixed grid of 30 arrival batches,
// its linearised p95 and p99 (sim.ClassResult.GridLinearised: 2 × 30
// numbers) and the first batch after its own warm-up cut; a decision
// between two candidates — the verdict against no hedging, the "~" of a
// candidate against the pick — rests on the interval of their paired
// difference over the grid's batches after both cuts (sim.PairDiff): the
// candidates run on common random numbers, so those batches hold the same
// requests and what the requests shared cancels, and the interval is
// centred on the difference of the pooled percentiles of those batches,
// which the mean difference of the batches' own percentiles misses when
// batches are short against the queue's memory. For independent requests
// the order-statistic intervals and their overlap stay.

// batchPs are the percentiles of a batched candidate, pooled after its
// warm-up cut; each batch selects only its p95 and p99, whose intervals
// its batches give.
var batchPs = []float64{0.50, 0.90, 0.95, 0.99, 0.999}

// summarizeBatched replaces c's percentiles and their intervals (at the
// level) by the batched ones of its run's figures f
// (sim.ClassResult.BatchFigures of batchPs, each batch's p95 and p99, the
// grid's linearised p95 and p99), and gives c its shares on the fixed grid
// (within the objective's target when > 0).
func summarizeBatched(c *Candidate, f *sim.BatchFigures, level float64) {
	c.batchS = [3][]float64{f.Answered, f.Within, f.Cost}
	pooled, per, kept := f.Pooled, f.PerBatch, f.Kept
	col := func(i int) []float64 {
		out := make([]float64, len(per))
		for j := range per {
			out[j] = per[j][i]
		}
		return out
	}
	l := &c.Latency
	l.P50, l.P90, l.P95, l.P99, l.P999 = pooled[0], pooled[1], pooled[2], pooled[3], pooled[4]
	if f.Lin != nil {
		c.batchQ, c.batchFrom = [2][]float64{f.Lin[0], f.Lin[1]}, f.FirstKept
	}
	c.cut = c.Requests - kept
	// A batched interval that cannot be formed, or whose batches are too
	// short for the percentile, is no interval: its bounds are NaN (JSON
	// null), marked as not OK (too few requests). The order-statistic
	// bounds over the whole run are no interval of the percentile after
	// the warm-up cut either: they did not hold it (chat's no hedging,
	// p95 1.07s beside [1.10s, 1.24s]).
	for i, p := range []float64{0.95, 0.99} {
		ci, q := &l.P95CI95, l.P95
		if i == 1 {
			ci, q = &l.P99CI95, l.P99
		}
		b, within := sim.ClipLatency(sim.BatchInterval(q, col(i), level))
		good := within && !math.IsNaN(b[0]) && sim.BatchIntervalOK(p, kept, len(per))
		*ci = [2]float64{math.NaN(), math.NaN()}
		if good {
			*ci = b
		}
		if i == 0 {
			c.P95CIOK = good
		} else {
			c.P99CIOK = good
		}
	}
	l.P95CIOK, l.P99CIOK = c.P95CIOK, c.P99CIOK
}

// batches returns c's linearised p-percentiles (0.95 or 0.99) on the
// fixed grid, nil when c was not batched.
func (c *Candidate) batches(p float64) []float64 {
	if p == 0.99 {
		return c.batchQ[1]
	}
	return c.batchQ[0]
}

// pairedDiff returns the paired difference b − a of the p-percentile over
// the grid's batches after both warm-up cuts, and whether it could be
// formed (both candidates batched alike, two batches or more).
func pairedDiff(a, b *Candidate, p, level float64) (sim.PairedDiff, bool) {
	pa, pb := a.batches(p), b.batches(p)
	from := max(a.batchFrom, b.batchFrom)
	if len(pa) != len(pb) || len(pa)-from < 2 {
		return sim.PairedDiff{}, false
	}
	d := sim.PairDiff(a.Q(p), pa[from:], b.Q(p), pb[from:], level)
	return d, !math.IsNaN(d.CI[0])
}

// fallsSignificantly reports whether pick's p-percentile is significantly
// below base's at the level: the paired difference's interval lies below
// 0 when both are batched, else pick's interval lies below base's. It
// also says which test decided (true: paired).
func fallsSignificantly(base, pick *Candidate, p, level float64) (sig, paired bool) {
	if d, ok := pairedDiff(base, pick, p, level); ok {
		return d.CI[1] < 0, true
	}
	return pick.CI(p)[1] < base.CI(p)[0], false
}

// likePick reports whether c's p-percentile is not significantly
// different from the pick's ("~"): the paired difference's interval holds
// 0 when both are batched, else their intervals overlap. A miss (+Inf)
// against an answer always differs (the paired difference's interval of
// a miss is unbounded, which would say "alike"); two misses are alike.
func likePick(c, pick *Candidate, p, level float64) bool {
	if mc, mp := math.IsInf(c.Q(p), 1), math.IsInf(pick.Q(p), 1); mc || mp {
		return mc && mp
	}
	if d, ok := pairedDiff(pick, c, p, level); ok {
		return !d.Significant()
	}
	return overlap(c.CI(p), pick.CI(p))
}

// likePickWithin reports whether c's share of requests answered within
// the objective's target is not significantly different from the pick's
// ("~" under objective answered or checked): when the class's requests
// interact, the paired difference's interval over their batches
// (intervals.go) holds 0; otherwise their Wilson intervals at the level
// overlap, the test JudgeWithin makes. (Wilson's intervals assume
// independent requests, and under load are far too narrow.)
func likePickWithin(c, pick *Candidate, level float64) bool {
	if d, ok := pairedWithin(pick, c, level); ok {
		return !d.Significant()
	}
	z := distuv.UnitNormal.Quantile((1 + level) / 2)
	lc, hc := wilson(c.AnsweredWithinShare, c.Requests, z)
	lp, hp := wilson(pick.AnsweredWithinShare, pick.Requests, z)
	return overlap([2]float64{lc, hc}, [2]float64{lp, hp})
}

// notSignificantWhy says why a fall of gain % measured on n requests is
// not significant — the paired difference's interval holds 0, or the two
// intervals overlap — and how to decide it: run until the interval's
// half-width is half the gain (hedgesim optimize --precision), rounded
// down to a power of ten times 1, 2 or 5.
func notSignificantWhy(paired bool, n int64, gain float64) string {
	why := "the intervals overlap"
	if paired {
		why = "the paired difference's interval includes 0"
	}
	pr := ""
	if gain > 0 {
		pr = sim.PrecisionFor(gain)
	}
	if pr == "" {
		return why
	}
	return fmt.Sprintf("%s; not significant at %d requests: rerun with --precision %s", why, n, pr)
}

// RelativeHalfWidth returns how precisely cr's pick is measured: the
// larger of the half-widths of two paired differences of the objective's
// percentile — the pick against no hedging, and the pick against its
// nearest rival (NearestRival) — relative to no hedging's percentile; for
// a pair not batched (independent requests), the larger relative
// half-width of the two candidates' own intervals instead. Under objective
// answered (with a target) the figure is the share answered within the
// target, and the half-widths are relative to no hedging's share not
// answered within it (withinHalfWidth). +Inf when an interval is missing.
func (cr *ClassReport) RelativeHalfWidth(level float64) float64 {
	if cr.Objective.Goal == MostAnswered && cr.Objective.Target > 0 && !cr.Objective.Checked {
		return cr.withinHalfWidth(level)
	}
	p := cr.Objective.Percentile
	base, pick := cr.Baseline(), cr.Picked()
	q := base.Q(p)
	if !(q > 0) || math.IsInf(q, 1) || !base.CIOK(p) || !pick.CIOK(p) {
		return math.Inf(1)
	}
	h := pairHalfWidth(base, pick, p, q, level)
	if r := cr.NearestRival(); r != nil {
		if !r.CIOK(p) {
			return math.Inf(1)
		}
		h = max(h, pairHalfWidth(pick, r, p, q, level))
	}
	return h
}

// pairHalfWidth returns the half-width of the paired difference b − a of
// the p-percentile relative to q, or, when the two are not batched alike
// (or are one candidate), the larger relative half-width of their own
// intervals; +Inf when one is missing.
func pairHalfWidth(a, b *Candidate, p, q, level float64) float64 {
	if d, ok := pairedDiff(a, b, p, level); ok && a != b {
		return d.HalfWidth() / q
	}
	h := 0.0
	for _, c := range []*Candidate{a, b} {
		ci, x := c.CI(p), c.Q(p)
		if !(x > 0) || math.IsInf(ci[1], 1) {
			return math.Inf(1)
		}
		h = max(h, max(x-ci[0], ci[1]-x)/x)
	}
	return h
}

// NearestRival returns the candidate the pick must be told apart from: of
// the other candidates within the objective's limits (Feasible) with the
// objective's figure measured, the one whose figure is nearest the
// pick's — the percentile, or under objective answered the share answered
// within the target; nil when there is none. A rival whose percentile is
// a miss, against a pick's answer, differs however few the requests, and
// is passed over.
func (cr *ClassReport) NearestRival() *Candidate {
	within := cr.Objective.Goal == MostAnswered && cr.Objective.Target > 0
	p := cr.Objective.Percentile
	pick := cr.Picked()
	var best *Candidate
	bestGap := math.Inf(1)
	for i := range cr.Candidates {
		c := &cr.Candidates[i]
		if i == cr.Pick || !c.Feasible || c.Requests == 0 {
			continue
		}
		gap := math.Abs(c.AnsweredWithinShare - pick.AnsweredWithinShare)
		if !within {
			if math.IsInf(c.Q(p), 1) != math.IsInf(pick.Q(p), 1) {
				continue
			}
			gap = math.Abs(c.Q(p) - pick.Q(p))
		}
		if gap < bestGap {
			best, bestGap = c, gap
		}
	}
	return best
}

// withinHalfWidth is RelativeHalfWidth under objective answered: the
// larger of the half-widths of the differences of the share answered
// within the target — the pick against no hedging, and against its
// nearest rival — paired over their batches when the requests interact,
// else the larger Wilson half-width of the two; relative to no hedging's
// share not answered within the target. +Inf when that share is 0.
func (cr *ClassReport) withinHalfWidth(level float64) float64 {
	base, pick := cr.Baseline(), cr.Picked()
	m := 1 - base.AnsweredWithinShare
	if !(m > 0) {
		return math.Inf(1)
	}
	z := distuv.UnitNormal.Quantile((1 + level) / 2)
	pair := func(a, b *Candidate) float64 {
		if d, ok := pairedWithin(a, b, level); ok && a != b {
			return d.HalfWidth() / m
		}
		h := 0.0
		for _, c := range []*Candidate{a, b} {
			lo, hi := wilson(c.AnsweredWithinShare, c.Requests, z)
			h = max(h, (hi-lo)/2)
		}
		return h / m
	}
	h := pair(base, pick)
	if r := cr.NearestRival(); r != nil {
		h = max(h, pair(pick, r))
	}
	return h
}

// PrecisionUndefined says why cr's RelativeHalfWidth cannot exist
// however many requests are simulated: the objective's percentile without
// hedging, or with the pick, is a miss (+Inf) with a share answered
// clearly below the percentile's level (the upper bound of its interval,
// Candidate.AnsweredShareCI95, is below 0.95 for p95, 0.99 for p99), or
// is 0 — a miss whose share answered's interval reaches the level, or
// that has no interval, is one only by noise, and more requests can make
// it an answer; under objective
// answered, no request without hedging missed the target, so a half-width
// relative to that share (0) is undefined. It is "" when more requests
// can narrow the interval.
func (cr *ClassReport) PrecisionUndefined() string {
	if o := cr.Objective; o.Goal == MostAnswered && o.Target > 0 && !o.Checked {
		if !(cr.Baseline().AnsweredWithinShare < 1) {
			return fmt.Sprintf("class %s: every request without hedging is answered within %s, and a half-width relative to the share not answered in time (0) is undefined", cr.Class, fsec(o.Target.Seconds()))
		}
		return ""
	}
	p := cr.Objective.Percentile
	for _, c := range []struct {
		who   string
		q     float64
		a     *float64
		share *[2]*float64
	}{{"without hedging", cr.Baseline().Q(p), &cr.Baseline().AnsweredShare, cr.Baseline().AnsweredShareCI95},
		{"with the pick", cr.Picked().Q(p), &cr.Picked().AnsweredShare, cr.Picked().AnsweredShareCI95}} {
		switch {
		case math.IsInf(c.q, 1):
			if ci := c.share; ci != nil && ci[0] != nil && ci[1] != nil && *ci[1] < p {
				return fmt.Sprintf("class %s: %s %s is a miss (the share answered in time, %s [%s, %s], is clearly below %s), and more requests only narrow that interval", cr.Class, pname(p), c.who, fpct2(*c.a), fpct2(*ci[0]), fpct2(*ci[1]), fpct2(p))
			}
		case !(c.q > 0):
			return fmt.Sprintf("class %s: %s %s is 0, and a half-width relative to 0 is undefined", cr.Class, pname(p), c.who)
		}
	}
	return ""
}

// minRequestsFor returns the fewest requests for an interval of the
// p-percentile of candidates like base: for a batched one, its batches
// times sim.MinBatchRequests(p) (before any warm-up cut), else
// MinRequestsForCI.
func minRequestsFor(base *Candidate, p, level float64) int {
	if b := len(base.batches(p)); b > 0 {
		return b * int(sim.MinBatchRequests(p))
	}
	if base.batched {
		// A class without requests in a run whose requests interact has
		// no batches of its own, but would be batched.
		return int(sim.MinBatchedRequests(p))
	}
	return MinRequestsForCI(p, level)
}

// fewFigures returns, for base and c (a class's no hedging and one of its
// candidates, or base twice), the requests their interval on percentile p
// is judged on — the fewer kept after their warm-up cuts — and the
// requests it needs after the cut (minRequestsFor), and, in words, how
// many were simulated and kept: "6000 simulated" without a cut, "6000
// simulated, the warm-up cut left 5856" with one.
func fewFigures(base, c *Candidate, p, level float64) (kept int64, need int, simulated string) {
	n := min(base.Requests, c.Requests)
	kept = min(base.kept(), c.kept())
	need = max(minRequestsFor(base, p, level), minRequestsFor(c, p, level))
	simulated = fmt.Sprintf("%d simulated", n)
	if kept < n {
		simulated += fmt.Sprintf(", the warm-up cut left %d", kept)
	}
	return kept, need, simulated
}

// skewedCI reports whether base's or c's missing batched interval on
// percentile p is missing though they kept the requests it needs: it
// reached below 0 (sim.ClipLatency).
func skewedCI(base, c *Candidate, p, level float64) bool {
	kept, need, _ := fewFigures(base, c, p, level)
	return (base.batched || c.batched) && kept >= int64(need) && need > 0
}

// fewHead opens a too_few_requests reason: "too few requests for a", or "no"
// when the interval is missing though enough were kept (skewedCI).
func fewHead(base, c *Candidate, p, level float64) string {
	if skewedCI(base, c, p, level) {
		return "no"
	}
	return "too few requests for a"
}

// fewWhy says why base's or c's interval on percentile p is missing:
// fewer requests kept than it needs ("6000 needed", "after it" when the
// warm-up cut left fewer than were simulated, with advise
// the --requests that would give them, rerunAdvice, which plans for the
// cut); or, batched with as many kept as it needs, an interval that
// reached below 0 (sim.ClipLatency): batch figures too uneven for a normal
// interval, which longer batches (more requests) may even out — how many
// cannot be said, so the advice is to try twice the requests asked.
func fewWhy(base, c *Candidate, p, level float64, advise bool) string {
	kept, need, simulated := fewFigures(base, c, p, level)
	if skewedCI(base, c, p, level) {
		why := simulated + "; a batched interval reached below 0: the batches' figures are too uneven for it"
		if advise && base.asked > 0 {
			why += fmt.Sprintf(" (try --requests ≥ %d)", 2*base.asked)
		}
		return why
	}
	why := fmt.Sprintf("%s, %d needed", simulated, need)
	if kept < min(base.Requests, c.Requests) {
		why += " after it"
	}
	if advise {
		why += ": " + rerunAdvice(base, c, need)
	}
	return why
}

// classRun returns, for class k of simulation c, the requests expected
// of it (expected) and whether its intervals are batched.
func classRun(c *sim.Config, k int) (float64, bool) { return expected(c, k), c.Batched() }

// expected returns the requests of class k that a simulation of c is
// expected to hold: c.Requests at the class's share of them; 0 when
// unknown (a closed-loop class, a replayed trace).
func expected(c *sim.Config, k int) float64 {
	if c.Arrivals.Process == sim.Replay || c.Classes[k].Clients > 0 {
		return 0
	}
	return float64(c.Requests) * c.Classes[k].Share
}

// replayRun is a class's run on a replayed trace, which --requests cannot
// take past the trace's end: what the advice on more requests needs
// (replayRun.advice).
type replayRun struct {
	// scale is the run's requests per request asked (the group's classes
	// for a coupled class's run: each asks for --requests), before the
	// trace's end cuts them.
	scale float64
	// replayed is the requests the run replays, trace those its trace
	// holds (for a trace with a class column, only those of the classes
	// run), all those the scenario's trace holds.
	replayed, trace, all int
	// own is set when the run's trace holds only the class's requests (a
	// class swept alone from a trace with a class column).
	own bool
}

// replayOf returns the replayRun of simulation c, made from scenario cfg
// with scale requests per request asked, or nil when c replays no trace.
func replayOf(c, cfg *sim.Config, scale float64) *replayRun {
	if c.Arrivals.Process != sim.Replay || c.Arrivals.Trace == nil || cfg.Arrivals.Trace == nil {
		return nil
	}
	return &replayRun{scale: scale, replayed: c.Requests, trace: len(c.Arrivals.Trace.Arrivals), all: len(cfg.Arrivals.Trace.Arrivals),
		own: len(c.Classes) == 1 && cfg.Arrivals.Trace.Class != nil}
}

// advice says how base's and pick's intervals would get need requests
// each, after the warm-up cut, on the replayed trace: "rerun with
// --requests ≥ N" when the trace holds them; otherwise that it holds K
// requests of the class, and that a longer trace is needed, with at least
// N of the class — about M requests in all, the class keeping its part of
// the trace.
func (r *replayRun) advice(base, pick *Candidate, need int) string {
	n := min(base.Requests, pick.Requests)
	class, run, fits := r.fits(base, pick, need)
	if fits {
		return fmt.Sprintf("rerun with --requests ≥ %d", int64(math.Ceil(run/r.scale)))
	}
	// The class's requests in the whole trace: the run's trace when it
	// holds only the class's; those replayed when the run reached the
	// trace's end; else about as many per request of the trace.
	k, about := float64(n), ""
	switch {
	case r.own:
		k = float64(r.trace)
	case r.replayed < r.trace:
		k, about = math.Round(float64(n)*float64(r.trace)/float64(max(r.replayed, 1))), "about "
	}
	if k == 0 {
		return fmt.Sprintf("the trace holds no requests of this class, and --requests cannot replay past its end: a trace with at least %d of them is needed", int64(class))
	}
	return fmt.Sprintf("the trace holds %s%d requests of this class (of %d in all), and --requests cannot replay past its end: a longer trace is needed, with at least %d of the class (about %d requests in all)",
		about, int64(k), r.all, int64(class), int64(math.Ceil(class*float64(r.all)/k)))
}

// fits returns the requests of the class (class) that would give base's
// and pick's intervals need requests each after the warm-up cut, the
// requests of the run (run) that would hold them at the class's part of
// those replayed, and whether the trace holds that many (with no request
// of the class replayed, it is not known to).
func (r *replayRun) fits(base, pick *Candidate, need int) (class, run float64, ok bool) {
	n := min(base.Requests, pick.Requests)
	class = float64(need) // the cut's share added back
	if kept := min(base.kept(), pick.kept()); n > 0 && kept > 0 && kept < n {
		class *= float64(n) / float64(kept)
	}
	class = math.Ceil(class)
	if n == 0 || r.replayed == 0 {
		return class, 0, false
	}
	run = math.Ceil(class * float64(r.replayed) / float64(n))
	return class, run, run <= float64(r.trace)
}

// kept returns the requests of c's intervals: those simulated, less the
// warm-up cut of a batched run.
func (c *Candidate) kept() int64 { return c.Requests - c.cut }

// adviseRequests returns the --requests that would give base's and
// pick's intervals need requests each, after the warm-up cut, and whether
// it is known (base.asked set, and base.expect or requests simulated). It
// scales what was asked by the class's requests per request asked — the
// fewer of those expected at its share and those simulated; those
// simulated alone when none are expected (a closed-loop class) — and by
// the share of them a warm-up cut would keep, so a class with a small
// share, in a group's run, with closed-loop clients or with a cut gets
// enough; a class without requests by its share alone. The cut of a run
// whose requests interact is found on that run's own section means
// (sim's warmup.go), so a longer rerun can cut a larger share (the pool
// of TestRerunAdviceClosedLoopAndPool: 0.8 % of 3000 requests, 2.0 % of
// 6049): the share kept is planned at plannedKept.
func adviseRequests(base, pick *Candidate, need int) (int64, bool) {
	if base.asked <= 0 {
		return int64(need), false
	}
	asked := float64(base.asked)
	per := base.expect / asked
	if n := min(base.Requests, pick.Requests); n > 0 {
		simulated := float64(n) / asked
		if per > 0 {
			per = min(per, simulated)
		} else {
			per = simulated
		}
		kept := float64(min(base.kept(), pick.kept())) / float64(n)
		if base.batched {
			kept = plannedKept(kept)
		}
		per *= kept
	}
	if !(per > 0) {
		return int64(need), false
	}
	return int64(math.Ceil(float64(need) / per)), true
}

// cutMargin is the least share of a rerun's requests adviseRequests plans
// for its warm-up cut when the requests interact: twice the largest
// share cut in the runs of TestRerunAdviceClosedLoopAndPool at their
// advised requests (2.0 %), rounded up.
const cutMargin = 0.05

// plannedKept returns the share of a rerun's requests to plan on keeping
// after its warm-up cut, when this run kept the share kept:
// 1 − min(max(2c, cutMargin), ½), c = 1 − kept the share it cut — twice
// this run's cut, at least cutMargin, and never more than the half of a
// run that MSER may cut (sim's warmup.go) — and no more than kept.
func plannedKept(kept float64) float64 {
	return min(kept, 1-min(max(2*(1-kept), cutMargin), 0.5))
}

// sharesApartRequests returns the fewest requests n, the same for both,
// at which the Wilson intervals of two shares before > after would be
// disjoint at normal score z + z₀.₉₀ (1.2816): were the shares the ones
// measured, a rerun with n requests then finds the intervals at z
// disjoint with probability about 0.9 or more (the normal approximation:
// the difference of the two estimates has standard error at most the
// sum of theirs). 0 when before ≤ after, or when no n up to MaxRequests
// parts them.
func sharesApartRequests(before, after, z float64) int64 {
	if !(before > after) {
		return 0
	}
	zz := z + 1.2815515655446004
	apart := func(n int64) bool {
		_, hi := wilson(after, n, zz)
		lo, _ := wilson(before, n, zz)
		return hi < lo
	}
	hi := int64(1)
	for !apart(hi) {
		if hi > MaxRequests {
			return 0
		}
		hi *= 2
	}
	lo := hi / 2 // !apart(lo), or lo = 0
	for hi-lo > 1 {
		if m := (lo + hi) / 2; apart(m) {
			hi = m
		} else {
			lo = m
		}
	}
	return hi
}
