package optimize

import (
	"cmp"
	"encoding/json"
	"fmt"
	"math"
	"slices"
	"strings"

	"gonum.org/v1/gonum/stat/distuv"
)

// Every candidate's fate. After the pick, each candidate of a class gets a
// Status and the Reasons it was not picked, as codes with figures:
//
//   - picked: the recommended candidate (ClassReport.Pick), none when
//     the class is undecided and the sweep did not simulate its
//     configured policy (ClassReport.Unpicked);
//   - rejected: outside what may be picked — beyond one of the objective's
//     limits (ReasonCostCap, ReasonHedgedCap, ReasonAboveSLA), a
//     candidate no pick may be (ReasonFewerAnswers, ReasonOverload,
//     ReasonUnstable, ReasonFewerThanConfigured, ReasonFewerInCheck), or within them but
//     failing the verdict rule where the pick passes it or where no
//     candidate does (ReasonFailsRule, ReasonTooFew), or passing it only
//     as a bundle (ReasonBundled);
//   - eligible: within every limit and not refused by the rule, but not
//     the best under the objective (ReasonSlower, ReasonMoreUnanswered,
//     ReasonCostlier, ReasonFewerWithin, ReasonNotKnee), with ReasonCIOverlap when its
//     percentile is not significantly different from the pick's.

// Candidate statuses (Candidate.Status).
const (
	StatusPicked   = "picked"
	StatusEligible = "eligible"
	StatusRejected = "rejected"
)

// Reason codes (Reason.Code). Value and Limit carry, in Unit, the
// candidate's figure and what it was held against.
const (
	// ReasonCostCap: added cost (pct) above the objective's cap (pct).
	ReasonCostCap = "over_cost_cap"
	// ReasonHedgedCap: hedged share (pct) above the cap (pct).
	ReasonHedgedCap = "over_hedged_cap"
	// ReasonAboveSLA: the percentile (s) above the SLA (s), objective cost.
	ReasonAboveSLA = "above_sla"
	// ReasonFewerAnswers: answered share (share) significantly below no
	// hedging's (share).
	ReasonFewerAnswers = "fewer_answers"
	// ReasonOverload: a request-rate limit (Name) offered more requests
	// per second (req/s) than it admits (req/s), which no hedging does
	// not, where the sweep is too short to measure its 429s (MinRefills)
	// or Rule.ExcludeOverload excludes it.
	ReasonOverload = "overloads_rate_limit"
	// ReasonUnstable: a provider's queue (Name) grows without bound,
	// offered load (load) at or above 1 (load), stable without hedging.
	ReasonUnstable = "unstable_queue"
	// ReasonFewerThanConfigured: answered share (share) significantly
	// below the configured policy's (share), which is kept.
	ReasonFewerThanConfigured = "fewer_answers_than_configured"
	// ReasonFewerInCheck: the sweep's pick, whose answered share (share)
	// the rollout check found significantly below no hedging's (share)
	// in the check: no hedging rolls out instead.
	ReasonFewerInCheck = "fewer_answers_in_check"
	// ReasonFailsRule: the verdict rule refuses the candidate against no
	// hedging; Detail names the test that failed, Value the percentile's
	// gain (pct) and Limit the rule's minimum (pct).
	ReasonFailsRule = "fails_verdict_rule"
	// ReasonTooFew: too few requests for an interval (requests) where the
	// rule needs one (requests): nothing counts as significant.
	ReasonTooFew = "too_few_requests"
	// ReasonSlower: the objective's percentile (s) above the pick's (s).
	ReasonSlower = "slower_than_pick"
	// ReasonMoreUnanswered: the objective's percentile equal to the
	// pick's, with more requests unanswered (share) than the pick's
	// (share): not slower, but the pick answers more.
	ReasonMoreUnanswered = "more_unanswered_than_pick"
	// ReasonCostlier: added cost (pct) above the pick's (pct), with a
	// percentile no better.
	ReasonCostlier = "costlier_than_pick"
	// ReasonFewerWithin: answered within the target (share) below the
	// pick's (share), objective answered.
	ReasonFewerWithin = "fewer_within_target"
	// ReasonPastTradeOff: faster than the pick but costlier by more than
	// the marginal test pays for, objectives p95, p99 and answered
	// (tradeoff.go): Value its added cost (pct), Limit the pick's (pct).
	ReasonPastTradeOff = "past_the_trade_off"
	// ReasonBundled: a pipeline candidate that the verdict rule accepts
	// against no hedging, but one of whose hedged steps (Name) buys less
	// than the rule asks per 1% of the cost it adds, against the same
	// candidate without it: Value is that step's gain per 1% of cost
	// (pct), Limit the rule's minimum (pct). It is not recommended instead
	// of the objective's pick (see pipeline.go, unbundle).
	ReasonBundled = "bundles_a_step_below_rule"
	// ReasonTiesPick: the same added cost (pct) as the pick (pct) and the
	// same figures on the objective's frontier; the frontier keeps one of
	// such candidates (see Frontier).
	ReasonTiesPick = "ties_with_pick"
	// ReasonNotKnee: not the knee of the frontier, objective knee.
	ReasonNotKnee = "not_the_knee"
	// ReasonCIOverlap: the percentile's interval overlaps the pick's: not
	// significantly different from it (Value and Limit: the candidate's
	// and the pick's percentile, s); under objective answered or checked,
	// the Wilson intervals of the share within the target overlap (Value
	// and Limit: the two shares). A miss is never like an answer.
	ReasonCIOverlap = "ci_overlaps_pick"
)

// Details of ReasonFailsRule (Reason.Detail): the rule's test that failed.
const (
	DetailNoGain         = "no_gain"
	DetailGainBelowMin   = "gain_below_minimum"
	DetailGainPerCost    = "gain_per_cost_below_minimum"
	DetailNotSignificant = "not_significant"
	DetailMiss           = "percentile_is_a_miss"
	DetailFewerAnswers   = "fewer_answers"
	DetailTooFew         = "too_few_requests"
)

// Units of Reason.Value and Reason.Limit.
const (
	UnitPct      = "pct"      // percent
	UnitShare    = "share"    // in [0, 1]
	UnitSeconds  = "s"        // seconds
	UnitRate     = "req/s"    // requests per second
	UnitLoad     = "load"     // a fraction of a provider's capacity
	UnitRequests = "requests" // a count
)

// Reason is one reason a candidate was not picked.
type Reason struct {
	// Code is one of the Reason* constants; Detail refines
	// ReasonFailsRule (a Detail* constant).
	Code   string `json:"code"`
	Detail string `json:"detail,omitempty"`
	// Name is the limit concerned (ReasonOverload, ReasonUnstable).
	Name string `json:"name,omitempty"`
	// Value is the candidate's figure and Limit what it was held against,
	// both in Unit; +Inf (a percentile that is a miss) is null in JSON.
	Value float64 `json:"value"`
	Limit float64 `json:"limit"`
	Unit  string  `json:"unit"`
	// Text says it in words, with the figures.
	Text string `json:"text"`
}

// MarshalJSON writes r with a value or limit that is not finite as null.
func (r Reason) MarshalJSON() ([]byte, error) {
	w := struct {
		Code   string   `json:"code"`
		Detail string   `json:"detail,omitempty"`
		Name   string   `json:"name,omitempty"`
		Value  *float64 `json:"value"`
		Limit  *float64 `json:"limit"`
		Unit   string   `json:"unit"`
		Text   string   `json:"text"`
	}{Code: r.Code, Detail: r.Detail, Name: r.Name, Unit: r.Unit, Text: r.Text}
	if !math.IsInf(r.Value, 0) && !math.IsNaN(r.Value) {
		w.Value = &r.Value
	}
	if !math.IsInf(r.Limit, 0) && !math.IsNaN(r.Limit) {
		w.Limit = &r.Limit
	}
	return json.Marshal(w)
}

// fates sets every candidate's Status and Reasons (see Every candidate's
// fate), once the pick and the verdict are decided.
func fates(cr *ClassReport, rule Rule, level float64) {
	cs := cr.Candidates
	o := cr.Objective
	p := o.Percentile
	pn := pname(p)
	base, pick := &cs[0], &cs[cr.Pick]
	z := distuv.UnitNormal.Quantile((1 + level) / 2)
	// An undecided verdict is one without the percentile's interval:
	// every candidate's, unless only the objective's pick lacks one
	// (its requests interact, as an adaptive delay's do): then each
	// candidate is judged on its own interval.
	obj := &cs[cr.ObjectivePick]
	// A verdict undecided because the objective's pick's gain is not
	// significant (DetailNotSignificant) has every interval: each
	// candidate is judged as when the verdict is decided.
	noise := cr.Verdict.Undecided && cr.Verdict.detail == DetailNotSignificant
	tooFewAll := !base.CIOK(p) || !pick.CIOK(p) || cr.Verdict.Undecided && obj.CIOK(p) && !noise
	// preferred reports whether the pick's selection would take c over
	// the pick: the objective's order, or, when the verdict rule moved the
	// pick, the order acceptable searches in.
	preferred := func(c *Candidate) bool {
		faster := better(c, pick, p) || (!better(pick, c, p) && costLess(c.AddedCostPct, pick.AddedCostPct))
		switch {
		case (o.Goal == Knee || o.walks()) && cr.Pick == cr.ObjectivePick:
			return false // the knee and the trade-off are shapes, not orders
		case cr.steppedBack:
			// The rule moved a trade-off pick back along its walk: to
			// the fastest point of it the rule accepts.
			return better(c, pick, p)
		case o.Goal == LowestCost || o.walks():
			// The rule moved a trade-off pick to the cheapest it accepts.
			return costLess(c.AddedCostPct, pick.AddedCostPct) || (sameCost(c.AddedCostPct, pick.AddedCostPct) && better(c, pick, p))
		case o.Goal == MostAnswered:
			return c.AnsweredWithinShare > pick.AnsweredWithinShare || (c.AnsweredWithinShare == pick.AnsweredWithinShare && faster)
		}
		return faster
	}
	// past says, for a verdict undecided on noise, what c, costlier and
	// faster than the objective's pick, buys from it when that does not
	// earn c's added cost (tradeOff.earns); "" otherwise.
	past := func(c *Candidate) string {
		if !noise || !o.walks() || !obj.Hedging || !c.Hedging || costWithin(c.AddedCostPct, obj.AddedCostPct) || !cr.fasterOnObjective(c, obj) {
			return ""
		}
		if !judgeFor(o, base, c, level, rule, cr.CostBasis).Hedge || !onShare(cr, c, level, rule) {
			return "" // the rule refuses it anyway, or not on a share: its reasons say why
		}
		t, _ := cr.tradeOff()
		if ok, why := t.earns(obj, c, level, rule, costWordOf(cr.CostBasis)); !ok {
			return why
		}
		return ""
	}
	var walk *tradeOff // made at the first eligible candidate that needs it
	for i := range cs {
		c := &cs[i]
		c.Reasons = []Reason{}
		if i == cr.Pick && c.Pick {
			c.Status = StatusPicked
			continue
		}
		c.Reasons = limitReasons(c, base, o, rule)
		if c.fewerInCheck != nil {
			c.Reasons = append(c.Reasons, *c.fewerInCheck)
		}
		if o.Goal == LowestCost && pick.Q(p) > o.SLA.Seconds() {
			c.Reasons = sharedSLA(cr, c, rule, level)
		}
		switch {
		case len(c.Reasons) > 0:
		case cr.Verdict.DecidedBy == DecidedByConfigured && fewerAnswers(pick, c, z):
			ak, ac := fshares(pick.AnsweredShare, c.AnsweredShare)
			c.Reasons = append(c.Reasons, Reason{Code: ReasonFewerThanConfigured, Value: c.AnsweredShare, Limit: pick.AnsweredShare, Unit: UnitShare,
				Text: fmt.Sprintf("answers significantly fewer requests than the configured policy, which is kept (%s vs %s)", ac, ak)})
		case (tooFewAll || !c.CIOK(p) || cr.Verdict.Undecided && !noise && i == 0) && (c.Hedging || cr.RollsOut == RollsOutConfigured):
			// An undecided class's no hedging too, unless it is what
			// rolls out: its configured policy is kept.
			// Value and Limit are the requests kept after the warm-up
			// cut and those the interval needs after it.
			kept, need, _ := fewFigures(base, c, p, level)
			c.Reasons = append(c.Reasons, Reason{Code: ReasonTooFew, Value: float64(kept), Limit: float64(need), Unit: UnitRequests,
				Text: fmt.Sprintf("%s %s%% interval on %s (%s): nothing counts as significant", fewHead(base, c, p, level), fnum(100*level), pn, fewWhy(base, c, p, level, false))})
		case past(c) != "":
			c.Reasons = append(c.Reasons, Reason{Code: ReasonPastTradeOff, Value: c.AddedCostPct, Limit: obj.AddedCostPct, Unit: UnitPct,
				Text: fmt.Sprintf("past the trade-off: from the objective's pick (%s), which the verdict cannot tell from no hedging, it buys %s, below the marginal test", obj.Label, past(c))})
		case noise && !c.Hedging && cr.RollsOut == RollsOutConfigured:
			// The verdict cannot tell the objective's pick from no
			// hedging: the configured policy rolls out, not no hedging.
			c.Reasons = append(c.Reasons, Reason{Code: ReasonFailsRule, Detail: DetailNotSignificant, Unit: UnitPct,
				Text: "the verdict is undecided, so the configured policy rolls out: " + cr.Verdict.Reason})
		case c.Hedging && (!pick.Hedging || preferred(c) || i == cr.ObjectivePick):
			// No hedging is picked though c is within the limits, or c
			// would come first but the pick was moved past it: the rule
			// refuses c.
			v := judgeFor(o, base, c, level, rule, cr.CostBasis)
			if !v.Hedge {
				c.Reasons = append(c.Reasons, Reason{Code: ReasonFailsRule, Detail: v.detail, Value: v.GainPct, Limit: rule.MinGainPct, Unit: UnitPct,
					Text: "fails the verdict rule: " + v.Reason})
			} else if c.bundle != nil && i != cr.ObjectivePick {
				r := *c.bundle
				r.Text = "passes the verdict rule only as a bundle: " + r.Text
				c.Reasons = append(c.Reasons, r)
			}
		}
		if len(c.Reasons) > 0 {
			c.Status = StatusRejected
			continue
		}
		c.Status = StatusEligible
		if walk == nil && o.walks() && cr.Pick == cr.ObjectivePick {
			walk, _ = cr.tradeOff()
		}
		c.Reasons = eligibleReasons(cr, c, pick, walk, level)
	}
}

// limitReasons are the limits and exclusions c breaks: what makes it
// rejected whatever the pick.
func limitReasons(c, base *Candidate, o Objective, rule Rule) []Reason {
	r := o.CapReasons(c.AddedCostPct, c.HedgedShare)
	p := o.Percentile
	if o.Goal == LowestCost {
		if sla := o.SLA.Seconds(); c.Q(p) > sla {
			r = append(r, Reason{Code: ReasonAboveSLA, Value: c.Q(p), Limit: sla, Unit: UnitSeconds,
				Text: fmt.Sprintf("%s %s is above the SLA of %s", pname(p), fsec(c.Q(p)), fsec(sla))})
		}
	}
	if c.FewerAnswers && !rule.AllowFewerAnswers {
		ab, ac := fshares(base.AnsweredShare, c.AnsweredShare)
		r = append(r, Reason{Code: ReasonFewerAnswers, Value: c.AnsweredShare, Limit: base.AnsweredShare, Unit: UnitShare,
			Text: fmt.Sprintf("answered share %s is significantly below no hedging's %s, by %.2f pt: a pick never trades answers for speed", ac, ab, 100*(base.AnsweredShare-c.AnsweredShare))})
	}
	for _, l := range newLoads(c, base) {
		switch {
		case l.Kind == LoadRate && c.OverloadExcluded:
			why := "excluded, as exclude_overload asks"
			if !rule.ExcludeOverload {
				why = fmt.Sprintf("the sweep spans %.1f refills of its bucket, fewer than the %d needed to measure the 429s", l.Refills(), MinRefills)
			}
			r = append(r, Reason{Code: ReasonOverload, Name: l.Name, Value: l.Offered, Limit: l.Limit, Unit: UnitRate,
				Text: fmt.Sprintf("overloads the rate limit of %s at %.0f%% of its rate (%.3g requests/s offered, %.3g/s admitted), which no hedging does not: %s", l.Name, 100*l.Offered/l.Limit, l.Offered, l.Limit, why)})
		case l.Kind == LoadQueue && c.Unstable:
			r = append(r, Reason{Code: ReasonUnstable, Name: l.Name, Value: l.Offered, Limit: 1, Unit: UnitLoad,
				Text: fmt.Sprintf("makes the queue of %s grow without bound (offered %.0f%% of its capacity; stable without hedging)", l.Name, 100*l.Offered)})
		}
	}
	return r
}

// sharedSLA returns c.Reasons for objective cost when the pick is above
// the SLA too, which is then no reason against c: without its
// ReasonAboveSLA. A hedge the verdict rule accepts keeps it when the pick
// is no hedging and the objective's pick is within the SLA (the rule
// rejected every hedge within it), with
// that said: the objective picks a hedge only within the SLA, while no
// hedging, the fallback, is not held to it. One the rule refuses is left
// to fates, which gives it ReasonFailsRule.
func sharedSLA(cr *ClassReport, c *Candidate, rule Rule, level float64) []Reason {
	o, pick := cr.Objective, cr.Picked()
	var kept []Reason
	var above *Reason
	for i := range c.Reasons {
		if c.Reasons[i].Code == ReasonAboveSLA {
			above = &c.Reasons[i]
		} else {
			kept = append(kept, c.Reasons[i])
		}
	}
	if above == nil || len(kept) > 0 || !c.Hedging || pick.Hedging {
		return kept
	}
	if v := judgeFor(o, cr.Baseline(), c, level, rule, cr.CostBasis); !v.Hedge {
		return kept
	}
	r := *above
	r.Text += fmt.Sprintf(": a hedge is recommended only within it; no hedging (%s %s), what the verdict falls back to, is not held to it",
		pname(o.Percentile), fsec(pick.Q(o.Percentile)))
	return []Reason{r}
}

// eligibleReasons say why c, within every limit, is not the pick; t is
// the trade-off walk of cr's objective when it chose the pick, else nil.
func eligibleReasons(cr *ClassReport, c, pick *Candidate, t *tradeOff, level float64) []Reason {
	o := cr.Objective
	p := o.Percentile
	pn := pname(p)
	var r []Reason
	walk := t != nil
	// sameQ: c is behind the pick only on the unanswered share, at the
	// same percentile (better's tie-break): "slower" would be untrue.
	sameQ := o.Goal != MostAnswered && c.Q(p) == pick.Q(p) && pick.unanswered() < c.unanswered()
	more := func(prefix string) Reason {
		uc, up := fshares(c.unanswered(), pick.unanswered())
		return Reason{Code: ReasonMoreUnanswered, Value: c.unanswered(), Limit: pick.unanswered(), Unit: UnitShare,
			Text: fmt.Sprintf("%sthe same %s as the pick's (%s), with more requests unanswered (%s vs %s)", prefix, pn, fsec(pick.Q(p)), uc, up)}
	}
	switch {
	case c.Hedging && pick.Hedging && sameCost(c.AddedCostPct, pick.AddedCostPct) && !cr.fasterOnObjective(c, pick) && !cr.fasterOnObjective(pick, c):
		r = append(r, Reason{Code: ReasonTiesPick, Value: c.AddedCostPct, Limit: pick.AddedCostPct, Unit: UnitPct,
			Text: "the same cost and figures as the pick: of the delays that tie, the pick is the one in the middle, the farthest from where the figures change"})
	case walk && cr.fasterOnObjective(c, pick):
		r = append(r, Reason{Code: ReasonPastTradeOff, Value: c.AddedCostPct, Limit: pick.AddedCostPct, Unit: UnitPct,
			Text: fmt.Sprintf("past the trade-off: from the pick it buys %s, below the marginal test", t.describe(pick, c, "cost"))})
	case walk && costLess(c.AddedCostPct, pick.AddedCostPct) && sameQ:
		m := more("cheaper, at ")
		m.Text += fmt.Sprintf(": from it, the pick buys %s", t.describe(c, pick, "cost"))
		r = append(r, m)
	case walk && costLess(c.AddedCostPct, pick.AddedCostPct) && cr.fasterOnObjective(pick, c):
		r = append(r, Reason{Code: ReasonSlower, Value: c.Q(p), Limit: pick.Q(p), Unit: UnitSeconds,
			Text: fmt.Sprintf("cheaper but slower: from it, the pick buys %s", t.describe(c, pick, "cost"))})
	case o.Goal == Knee && cr.Pick == cr.ObjectivePick:
		where := "off the frontier"
		if c.OnFrontier {
			where = "on the frontier"
		}
		r = append(r, Reason{Code: ReasonNotKnee, Value: c.Q(p), Limit: pick.Q(p), Unit: UnitSeconds,
			Text: fmt.Sprintf("%s, but not its knee (%s %s vs the knee's %s)", where, pn, fsec(c.Q(p)), fsec(pick.Q(p)))})
	case o.Goal == MostAnswered && c.AnsweredWithinShare < pick.AnsweredWithinShare:
		r = append(r, Reason{Code: ReasonFewerWithin, Value: c.AnsweredWithinShare, Limit: pick.AnsweredWithinShare, Unit: UnitShare,
			Text: fmt.Sprintf("%s %s within %s, the pick %s", o.WithinVerb(), fpct2(c.AnsweredWithinShare), fsec(o.Target.Seconds()), fpct2(pick.AnsweredWithinShare))})
	case o.Goal == LowestCost && costLess(pick.AddedCostPct, c.AddedCostPct):
		r = append(r, Reason{Code: ReasonCostlier, Value: c.AddedCostPct, Limit: pick.AddedCostPct, Unit: UnitPct,
			Text: fmt.Sprintf("added cost %s is above the pick's %s", fpct(c.AddedCostPct), fpct(pick.AddedCostPct))})
	case sameQ:
		r = append(r, more(""))
	case better(pick, c, p) || o.Goal == LowestCost:
		r = append(r, Reason{Code: ReasonSlower, Value: c.Q(p), Limit: pick.Q(p), Unit: UnitSeconds,
			Text: fmt.Sprintf("%s %s is slower than the pick's %s", pn, fsec(c.Q(p)), fsec(pick.Q(p)))})
	case better(c, pick, p) && cr.refuted != "":
		// Faster and costlier, where the rollout check refuted the
		// sweep's pick: no hedging rolls out, and c was not checked.
		r = append(r, Reason{Code: ReasonCostlier, Value: c.AddedCostPct, Limit: pick.AddedCostPct, Unit: UnitPct,
			Text: fmt.Sprintf("added cost %s is above the pick's %s: the rollout check refuted the sweep's pick (%s), so no hedging rolls out, and it did not check this one", fpct(c.AddedCostPct), fpct(pick.AddedCostPct), cr.refuted)})
	case better(c, pick, p) && cr.steppedBack:
		// Faster and costlier, where the rule moved a trade-off pick
		// back along its walk: c is off the walk.
		r = append(r, Reason{Code: ReasonCostlier, Value: c.AddedCostPct, Limit: pick.AddedCostPct, Unit: UnitPct,
			Text: fmt.Sprintf("added cost %s is above the pick's %s, the last point of the trade-off walk that the verdict rule accepts (the walk ended at %s, which the rule refuses)", fpct(c.AddedCostPct), fpct(pick.AddedCostPct), cr.Candidates[cr.ObjectivePick].Label)})
	case better(c, pick, p):
		// Faster and costlier, where the rule moved a trade-off pick to
		// the cheapest candidate it accepts.
		r = append(r, Reason{Code: ReasonCostlier, Value: c.AddedCostPct, Limit: pick.AddedCostPct, Unit: UnitPct,
			Text: fmt.Sprintf("added cost %s is above the pick's %s, the cheapest candidate the verdict rule accepts past the trade-off", fpct(c.AddedCostPct), fpct(pick.AddedCostPct))})
	default:
		r = append(r, Reason{Code: ReasonCostlier, Value: c.AddedCostPct, Limit: pick.AddedCostPct, Unit: UnitPct,
			Text: fmt.Sprintf("added cost %s is above the pick's %s at a %s no better (%s)", fpct(c.AddedCostPct), fpct(pick.AddedCostPct), pn, fsec(c.Q(p)))})
	}
	if c.LikePick && o.Goal == MostAnswered {
		z := distuv.UnitNormal.Quantile((1 + level) / 2)
		lc, hc := wilson(c.AnsweredWithinShare, c.Requests, z)
		lp, hp := wilson(pick.AnsweredWithinShare, pick.Requests, z)
		r = append(r, Reason{Code: ReasonCIOverlap, Value: c.AnsweredWithinShare, Limit: pick.AnsweredWithinShare, Unit: UnitShare,
			Text: fmt.Sprintf("its interval of the share %s within %s, [%s, %s], overlaps the pick's [%s, %s]: not significantly different",
				o.WithinWord(), fsec(o.Target.Seconds()), fpct2(lc), fpct2(hc), fpct2(lp), fpct2(hp))})
	} else if c.LikePick && c.CIOK(p) && pick.CIOK(p) {
		a, b := c.CI(p), pick.CI(p)
		text := fmt.Sprintf("its %s interval [%s, %s] overlaps the pick's [%s, %s]: not significantly different", pn, fsec(a[0]), fsec(a[1]), fsec(b[0]), fsec(b[1]))
		if d, ok := pairedDiff(pick, c, p, level); ok {
			text = fmt.Sprintf("the interval of its %s's paired difference from the pick's, [%s, %s], holds 0: not significantly different", pn, fsec(d.CI[0]), fsec(d.CI[1]))
		}
		r = append(r, Reason{Code: ReasonCIOverlap, Value: c.Q(p), Limit: pick.Q(p), Unit: UnitSeconds, Text: text})
	}
	return r
}

// WhyNotCount is how many candidates the text report's "why not" list
// shows per class.
const WhyNotCount = 5

// whyNot returns the indices of the candidates of cr that the "why not"
// list shows — at most n, those closest to being picked first: the
// frontier's points nearest the pick in added cost (so a candidate just
// over a cap, or just past the trade-off, comes first), then the others by
// the same distance; ties to the faster — and how many are rejected in
// all.
func whyNot(cr *ClassReport, n int) ([]int, int) {
	var out []int
	total := 0
	for i := range cr.Candidates {
		c := &cr.Candidates[i]
		if c.Status == StatusRejected {
			total++
		}
		if !(i == cr.Pick && c.Pick) && len(c.Reasons) > 0 {
			out = append(out, i)
		}
	}
	pick := cr.Picked()
	slices.SortStableFunc(out, func(i, j int) int {
		a, b := &cr.Candidates[i], &cr.Candidates[j]
		if a.OnFrontier != b.OnFrontier {
			if a.OnFrontier {
				return -1
			}
			return 1
		}
		if c := cmp.Compare(math.Abs(a.AddedCostPct-pick.AddedCostPct), math.Abs(b.AddedCostPct-pick.AddedCostPct)); c != 0 {
			return c
		}
		switch {
		case cr.fasterOnObjective(a, b):
			return -1
		case cr.fasterOnObjective(b, a):
			return 1
		}
		return 0
	})
	return out[:min(n, len(out))], total
}

// reasonCodes joins the codes of rs with ";" (CSV).
func reasonCodes(rs []Reason) string {
	codes := make([]string, len(rs))
	for i, r := range rs {
		codes[i] = r.Code
	}
	return strings.Join(codes, ";")
}
