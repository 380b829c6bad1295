package retune

import (
	"fmt"
	"math"
	"strings"

	"github.com/hedgesim/hedgesim/optimize"
	"github.com/hedgesim/hedgesim/sim"
)

// Does the current policy still earn its cost? The optimisation on the
// live models rolls out no hedging when its verdict rule rejects every
// candidate ("don't hedge"): a hedge must buy enough of the objective's
// figure for its added cost, significantly. A current policy that hedges
// is held to the same rule before it may be kept: optimize.JudgeFor, the
// verdict of a pick, applied to the current policy against no hedging on
// the same requests of the rollout check on the live models (its Checked
// and NoHedging figures, common random numbers). The check's percentile
// figures carry no batches to pair, so a class whose requests interact is
// judged by each run's own intervals of the percentile (the check's, from
// batches: disjoint intervals, less powerful than optimize's paired
// differences, so a fall may read not significant and the policy change
// to the new pick). Its shares are judged from the check runs' batches,
// not by Wilson's intervals alone, which assume independent requests and
// are too narrow then: under objectives answered and checked the share
// within the target by the paired difference of the two runs' shares
// (RolloutWithin.RiseCI), or each run's own interval (withinBatched);
// under the percentile objectives a cut of the unanswered share must
// clear both Wilson's test and the paired difference of the answered
// shares (RolloutClass.AnsweredRiseCI; answeredPaired), as optimize asks
// of a pick.

// currentVerdict returns the verdict rule applied to class cl's current
// policy against no hedging in now, the rollout check on the live models
// (nowReq requests of the class; batched when its requests interact and
// its figures have intervals from batches), under cr's objective and
// cost basis at level; ok is false when the class does not hedge or the
// check has no figures to judge (no requests, no added cost, or under
// objectives answered and checked no share within the target).
func currentVerdict(cl *sim.Class, now *optimize.RolloutClass, nowReq int64, batched bool, cr *optimize.ClassReport, rule optimize.Rule, level float64) (v optimize.Verdict, ok bool) {
	if !hedges(cl) || now.NoRequests() || now.AddedCostPct == nil || nowReq <= 0 ||
		cr.Objective.Goal == optimize.MostAnswered && now.Within == nil {
		return v, false
	}
	base := optimize.Candidate{Label: "none", Requests: nowReq, Latency: now.NoHedging, AnsweredShare: now.NoHedgingAnswered,
		P95CIOK: now.NoHedging.P95CIOK, P99CIOK: now.NoHedging.P99CIOK}
	cur := optimize.Candidate{Label: "current", Hedging: true, Requests: nowReq, Latency: now.Checked,
		AnsweredShare: now.AnsweredShare, AddedCostPct: *now.AddedCostPct, FewerAnswers: now.AnswersFell(),
		P95CIOK: now.Checked.P95CIOK, P99CIOK: now.Checked.P99CIOK}
	if w := now.Within; w != nil {
		base.AnsweredWithinShare, cur.AnsweredWithinShare = w.NoHedging, w.Share
	}
	v = optimize.JudgeFor(cr.Objective, &base, &cur, level, rule, cr.CostBasis)
	switch {
	case !batched || !rule.RequireSignificant || !v.Hedge:
	case cr.Objective.Goal == optimize.MostAnswered:
		withinBatched(&v, now.Within, level)
	case v.DecidedBy == optimize.DecidedByUnanswered:
		answeredPaired(&v, now.AnsweredRiseCI, level)
	}
	switch {
	case v.Undecided:
		v.Label = optimize.LabelUndecided
	case v.Hedge:
		v.Label = optimize.LabelHedge
	default:
		v.Label = optimize.LabelNoHedge
	}
	return v, true
}

// answeredPaired re-tests v, a "hedge" verdict decided by the cut of the
// unanswered share of a class whose requests interact, whose
// significance optimize.JudgeFor took from Wilson's intervals alone, by
// the paired difference of the check runs' answered shares over their
// batches too (rise, RolloutClass.AnsweredRiseCI, at level), as optimize
// judges a pick of such requests (both tests: Wilson's, and the batches'
// interval above 0). When it holds 0 the verdict becomes "don't hedge";
// when there is none, Wilson's stands.
func answeredPaired(v *optimize.Verdict, rise *[2]*float64, level float64) {
	if rise == nil || rise[0] == nil || rise[1] == nil {
		return
	}
	lo, hi := *rise[0], *rise[1]
	figs := fmt.Sprintf("its requests interact, and the %s%% interval of the paired difference of the answered shares over the check runs' batches is [%+.2f, %+.2f] points", num(100*level), 100*lo, 100*hi)
	if lo > 0 {
		v.Reason = fmt.Sprintf("%s (%s)", v.Reason, figs)
		return
	}
	v.Hedge, v.DecidedBy, v.UnansweredSignificant = false, "", false
	v.Reason = fmt.Sprintf("the cut of the unanswered share is not significant: %s, which holds 0 (by Wilson's intervals, which assume independent requests: %s)", figs, v.Reason)
}

// withinBatched re-tests v, a "hedge" verdict on the share within the
// target w of a class whose requests interact, whose significance
// optimize.JudgeFor took from Wilson's intervals (its candidates carry
// no batches), at level: by the paired difference of the two check runs'
// shares over their batches (w.RiseCI: the runs share their random
// numbers), whose interval must lie above 0, as optimize judges a pick of
// such requests; or, when it could not be formed, by each run's own
// interval from its batches (w.ShareCI and w.NoHedgingCI,
// sim.BatchShareInterval), the current policy's wholly above no
// hedging's. When the rise is not significant the verdict becomes "don't
// hedge"; when no interval could be formed, undecided. The reason gives
// the intervals.
func withinBatched(v *optimize.Verdict, w *optimize.RolloutWithin, level float64) {
	ci := func(c *[2]*float64) (float64, float64, bool) {
		if c == nil || c[0] == nil || c[1] == nil {
			return 0, 0, false
		}
		return *c[0], *c[1], true
	}
	head := fmt.Sprintf("its requests interact, so the rise of the share %s within %s is judged from the check runs' batches, not by Wilson's intervals", w.What, sec(w.TargetS))
	var sig bool
	var figs string
	if lo, hi, ok := ci(w.RiseCI); ok {
		sig = lo > 0
		figs = fmt.Sprintf("the %s%% interval of its paired difference over the batches is [%+.2f, %+.2f] points", num(100*level), 100*lo, 100*hi)
	} else {
		nl, nh, ok1 := ci(w.NoHedgingCI)
		cl, ch, ok2 := ci(w.ShareCI)
		if !ok1 || !ok2 {
			v.Hedge, v.Undecided, v.DecidedBy, v.Significant = false, true, "", false
			v.Reason = fmt.Sprintf("%s (%s, and the check has none: cannot tell)", v.Reason, head)
			return
		}
		sig = cl > nh
		figs = fmt.Sprintf("each run's own %s%% interval, no hedging's [%.2f%%, %.2f%%] and the current policy's [%.2f%%, %.2f%%]", num(100*level), 100*nl, 100*nh, 100*cl, 100*ch)
	}
	if !sig {
		v.Hedge, v.DecidedBy, v.Significant = false, "", false
		v.Reason = fmt.Sprintf("%s, but not significantly: %s, and %s", v.Reason, head, strings.Replace(figs, "is [", "holds 0: [", 1))
		if w.RiseCI == nil {
			v.Reason += ", overlap"
		}
		return
	}
	v.Reason = fmt.Sprintf("%s (%s: %s)", v.Reason, head, figs)
}

// earnsNote says, for a keep of a current policy that hedges while the
// optimisation on the live models would not (its pick is no hedging), why
// the policy is kept: the verdict rule still accepts it in the check (v,
// judged), or the check cannot tell.
func earnsNote(v optimize.Verdict, judged bool) string {
	const head = "; the optimisation on the live models would not hedge (its note below), "
	switch {
	case !judged:
		return head + "and the check has no figures to judge the current policy's cost by, so the rules above keep it"
	case v.Undecided:
		return head + "but the check cannot tell whether the current policy still earns its cost (too few requests for an interval; more --check-requests may tell), so it stays"
	}
	return fmt.Sprintf(head+"but the current policy, against no hedging in the check, still earns its cost by the verdict rule: %s", v.Reason)
}

// earnsMove applies the verdict rule's tests of gain per cost to a move
// from policy other to policy better, which the comparison of the two on
// the same requests (betterOn) found significantly better on the
// percentile name ("p95"; faster: qOther → qBetter, seconds, +Inf a miss)
// or on the answered share (more), and worse on neither: the move must
// buy at least rule.MinGainPerCost percent of fall of the percentile, or
// rule.MinUnansweredCutPerCost percent of cut of the unanswered share,
// per 1 % of added cost, as optimize's verdict rule asks of a hedge
// against no hedging (optimize.Rule; its significance is the
// comparison's). The added cost of the move is over the cheaper policy's
// cost, 100·((1 + cb/100)/(1 + co/100) − 1) % for added costs co and cb
// over no hedging (percent). A better policy that costs no more passes,
// as does one whose percentile is an answer where the other's is a miss
// (a fall with no relative size), and one of a class that costs nothing
// (added cost NaN). The rule's minimum gain (MinGainPct), the bar of
// hedging at all, is not asked of a move between two hedges.
//
// It returns "" when the move passes, else why it does not, naming the
// better policy who and the other's whose ("does not earn its added
// cost, +11.5% over the static policy's (+12.0% → +24.9% over no
// hedging): the adaptive delay's p95 950ms → 942ms, 0.07 % of p95 per
// 1 % of cost, rule needs 1").
func earnsMove(other, better *PolicyFigures, name string, qOther, qBetter float64, faster, more bool, who, whose string, rule optimize.Rule) string {
	co, cb := float64(other.AddedCostPct), float64(better.AddedCostPct)
	if math.IsNaN(co) || math.IsNaN(cb) {
		return ""
	}
	extra := 100 * ((1+cb/100)/(1+co/100) - 1)
	if !(extra > 0) {
		return ""
	}
	var fails []string
	if faster {
		if math.IsInf(qOther, 1) || !(qOther > 0) {
			return ""
		}
		gain := 100 * (qOther - qBetter) / qOther
		if gain/extra >= rule.MinGainPerCost {
			return ""
		}
		fails = append(fails, fmt.Sprintf("%s's %s %s → %s, %.2f %% of %s per 1 %% of cost, rule needs %s",
			who, name, sec(qOther), sec(qBetter), gain/extra, name, num(rule.MinGainPerCost)))
	}
	if more {
		uo, ub := 1-other.AnsweredShare, 1-better.AnsweredShare
		gain := 100 * (uo - ub) / uo
		if gain/extra >= rule.MinUnansweredCutPerCost {
			return ""
		}
		fails = append(fails, fmt.Sprintf("%s's unanswered share %.2f%% → %.2f%%, %.2f %% of it per 1 %% of cost, rule needs %s",
			who, 100*uo, 100*ub, gain/extra, num(rule.MinUnansweredCutPerCost)))
	}
	return fmt.Sprintf("does not earn its added cost, %s over %s (%s → %s over no hedging): %s",
		pctText(extra), whose, pctText(co), pctText(cb), strings.Join(fails, "; "))
}
