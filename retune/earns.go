package retune

import (
	"fmt"

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
// and NoHedging figures, common random numbers). The check's runs carry
// no batches to pair, so a class whose requests interact is judged by
// each run's own intervals of the percentile (the check's, from batches:
// disjoint intervals, less powerful than optimize's paired differences,
// so a fall may read not significant and the policy change to the new
// pick) and Wilson's intervals of the unanswered share (too narrow for
// such requests, so a cut may read significant and the policy stay).

// currentVerdict returns the verdict rule applied to class cl's current
// policy against no hedging in now, the rollout check on the live models
// (nowReq requests of the class), under cr's objective and cost basis at
// level; ok is false when the class does not hedge or the check has no
// figures to judge (no requests, no added cost, or under objectives
// answered and checked no share within the target).
func currentVerdict(cl *sim.Class, now *optimize.RolloutClass, nowReq int64, cr *optimize.ClassReport, rule optimize.Rule, level float64) (v optimize.Verdict, ok bool) {
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
	case v.Undecided:
		v.Label = optimize.LabelUndecided
	case v.Hedge:
		v.Label = optimize.LabelHedge
	default:
		v.Label = optimize.LabelNoHedge
	}
	return v, true
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
